#!/usr/bin/env python3
"""tests/tools/man-check.py MANDIR BIN SCHEMA: the man pages against what
they document, printing `ok - NAME` / `not ok - NAME` (tap_import):

  * artemis-gitops(1): every command of `BIN --help` has its SYNOPSIS line
    and its `.Ss` section, and each section's option list (`.It Fl ...`)
    names exactly the options of the command's --help (-h and -V are
    described once, for all); no section for a command that is not there;
  * artemis-gitops.yaml(5): its `.It Ic` keys are exactly the keys of
    `BIN run --describe-config` (the configuration loader's table);
  * artemis-gitops-declarations(5): for every mapping of the JSON Schema
    (generated from the declarations loader's tables), the section named
    by its key (`.Ss The top level` for the file itself) lists exactly its
    keys.
"""
import json
import os
import re
import subprocess
import sys

MANDIR, BIN, SCHEMA = sys.argv[1:4]
results = []


def ok(name, good, detail=""):
    results.append((name, good, detail))


def read(page):
    try:
        with open(os.path.join(MANDIR, page), encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        ok("%s can be read" % page, False, str(e))
        return ""


def sections(text, sh):
    """The .Ss sections of .Sh sh: {title: [lines]}."""
    out, cur, inside = {}, None, False
    for line in text.split("\n"):
        if line.startswith(".Sh "):
            inside = line[4:].strip() == sh
            cur = None
            continue
        if not inside:
            continue
        if line.startswith(".Ss "):
            cur = line[4:].strip()
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out


def help_options(cmd):
    """The options an --help's Options: labels name (as tests/lib.sh's
    help_options)."""
    text = subprocess.run([BIN, cmd, "--help"], capture_output=True, text=True).stdout
    opts, inside = set(), False
    for line in text.split("\n"):
        if line == "Options:":
            inside = True
            continue
        if inside and not line:
            break
        if inside and line.startswith("  -"):
            label = re.split(r"\s{2,}", line.strip())[0]
            opts.update(re.findall(r"(?:^|[ ,])(--?[A-Za-z][A-Za-z-]*)", label))
    return opts - {"-h", "--help", "-V", "--version"}


def man_options(lines):
    """The options of a section's .It lines: `.It Fl c , Fl -config Ar FILE`."""
    opts = set()
    for line in lines:
        if line.startswith(".It "):
            opts.update("-" + f for f in re.findall(r"\bFl (\S+)", line))
    return opts


# artemis-gitops(1)
page1 = read("artemis-gitops.1")
main = subprocess.run([BIN, "--help"], capture_output=True, text=True).stdout
cmds = re.findall(r"^  ([a-z][a-z-]*) ", main.split("Commands:")[1].split("\n\n")[0], re.M)
ok("artemis-gitops --help lists commands (%d)" % len(cmds), len(cmds) >= 10)
cmd_secs = sections(page1, "COMMANDS")
synopsis = "\n".join(sections(page1, "SYNOPSIS").get(None, [])) or page1.split(".Sh SYNOPSIS")[-1].split(".Sh ")[0]
for c in cmds:
    ok("artemis-gitops(1) SYNOPSIS has %s" % c, (".Cm %s\n" % c) in synopsis)
    if c not in cmd_secs:
        ok("artemis-gitops(1) has a section for %s" % c, False)
        continue
    want, got = help_options(c), man_options(cmd_secs[c])
    ok("artemis-gitops(1) %s: the options of its --help" % c, want == got,
       "only in --help: %s; only in the man page: %s" % (sorted(want - got), sorted(got - want)))
for c in cmd_secs:
    ok("artemis-gitops(1) section %s is a command" % c, c in cmds)

# artemis-gitops.yaml(5)
page5 = read("artemis-gitops.yaml.5")
table = subprocess.run([BIN, "run", "--describe-config"], capture_output=True, text=True).stdout
want = set(re.findall(r"^\| `([^`]+)` \|", table, re.M))
got = set()
for lines in sections(page5, "KEYS").values():
    got.update(l.split()[2] for l in lines if l.startswith(".It Ic "))
ok("run --describe-config lists keys (%d)" % len(want), len(want) >= 30)
ok("artemis-gitops.yaml(5) documents every configuration key and no other", want == got,
   "only in the loader: %s; only in the man page: %s" % (sorted(want - got), sorted(got - want)))

# artemis-gitops-declarations(5)
paged = read("artemis-gitops-declarations.5")
with open(SCHEMA, encoding="utf-8") as f:
    schema = json.load(f)
secs = sections(paged, "KEYS")


def mappings(obj, title):
    yield title, obj
    for key, p in obj.get("properties", {}).items():
        for sub in [p.get("items", {})] + p.get("oneOf", []):
            if "properties" in sub:
                yield from mappings(sub, key)


n = 0
for title, obj in mappings(schema, "The top level"):
    n += 1
    want = set(obj["properties"])
    got = {l.split()[2] for l in secs.get(title, []) if l.startswith(".It Ic ")}
    ok("artemis-gitops-declarations(5) %s: every key of the schema and no other" % title, want == got,
       "only in the schema: %s; only in the man page: %s" % (sorted(want - got), sorted(got - want)))
ok("the schema's mappings (%d)" % n, n >= 8)

for name, good, detail in results:
    print(("ok - " if good else "not ok - ") + name)
    if not good and detail:
        print("# " + detail)

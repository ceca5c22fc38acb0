#!/usr/bin/env python3
"""tests/golden/decl/workflow-commands.py GITHUB_OUT JSON_OUT

Check `validate --format github` against GitHub's documented syntax of a
workflow command, independently of the C code that writes it:

  ::{command} {parameter1}={data},{parameter2}={data}::{command value}

(docs.github.com, "Workflow commands for GitHub Actions", "About workflow
commands"; the annotation commands are error, warning and notice, their
parameters file, line, endLine, col, endColumn and title). A property value
may not hold the characters that delimit it, so the toolkit's escaping is
required: in data '%' %25, CR %0D, LF %0A; in a property also ':' %3A and
',' %2C (actions/toolkit packages/core/src/command.ts, escapeData and
escapeProperty). Each line is parsed the way the runner does, unescaped,
and must say exactly what `validate --format json` says of the same
diagnostic (path, line, col, severity, message), in the same order.

Exit 0 when every line holds, else 1 with the reasons on stdout.
"""
import json
import re
import sys

PARAMS = "file|line|endLine|col|endColumn|title"
LINE = re.compile(
    r"^::(error|warning|notice)"
    r"(?: ((?:%s)=[^,:\r\n]*(?:,(?:%s)=[^,:\r\n]*)*))?"
    r"::([^\r\n]*)$" % (PARAMS, PARAMS))
PROP_ESC = re.compile(r"%(?!25|0D|0A|3A|2C)")
DATA_ESC = re.compile(r"%(?!25|0D|0A)")


def unescape(s, prop):
    out, i = [], 0
    table = {"25": "%", "0D": "\r", "0A": "\n"}
    if prop:
        table.update({"3A": ":", "2C": ","})
    while i < len(s):
        if s[i] == "%" and s[i + 1:i + 3] in table:
            out.append(table[s[i + 1:i + 3]])
            i += 3
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def main():
    lines = open(sys.argv[1], encoding="utf-8", newline="").read()
    doc = json.load(open(sys.argv[2], encoding="utf-8"))
    lines = [x for x in lines.split("\n") if x != ""]
    diags = doc["diagnostics"]
    bad = []
    if len(lines) != len(diags):
        bad.append("%d commands for %d diagnostics" % (len(lines), len(diags)))
    for n, (line, d) in enumerate(zip(lines, diags), 1):
        m = LINE.match(line)
        if m is None:
            bad.append("line %d does not match the documented syntax: %r" % (n, line))
            continue
        cmd, props, msg = m.group(1), m.group(2) or "", m.group(3)
        kv = {}
        for p in props.split(",") if props else []:
            k, v = p.split("=", 1)
            if PROP_ESC.search(v):
                bad.append("line %d: property %s has a bare %%: %r" % (n, k, v))
            if k in kv:
                bad.append("line %d: property %s twice" % (n, k))
            kv[k] = unescape(v, True)
        if DATA_ESC.search(msg):
            bad.append("line %d: the message has a bare %%: %r" % (n, msg))
        got = {
            "severity": cmd,
            "path": kv.get("file"),
            "line": int(kv["line"]) if "line" in kv else None,
            "col": int(kv["col"]) if "col" in kv else None,
            "message": unescape(msg, False),
        }
        want = {k: d[k] for k in got}
        if got != want:
            bad.append("line %d says %r, the JSON %r" % (n, got, want))
        for k in ("line", "col"):
            if k in kv and not re.fullmatch(r"[1-9][0-9]*", kv[k]):
                bad.append("line %d: %s=%r is not a line number" % (n, k, kv[k]))
    if not lines:
        bad.append("no workflow command at all")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

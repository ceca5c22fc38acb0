#!/usr/bin/env python3
"""tests/tools/schema-check.py SCHEMA BIN TOP: the declarations' JSON Schema
(schema/declarations.schema.json) against the loader (`BIN validate`).

Prints `ok - NAME` / `not ok - NAME` lines (tests/lib.sh's tap_import):

  * the schema is a valid draft 2020-12 schema;
  * every declaration the loader accepts - the examples, the golden cases
    (tests/golden/*/), a bench model (bench/gen.py) - is valid under it;
  * every golden case the loader refuses for a type, key, enum or range
    reason is refused by the schema too, at the same place (the
    diagnostic's line lies in the YAML node the schema's error is about);
  * mutations of a declaration that holds every kind of object, generated
    from the schema itself (so a new row of the loader's tables is tested
    as it appears): a wrong type for every key, an unknown key and a
    missing required key in every object, a word outside every enum, a
    value outside every bound, a bad name, file name and URL; the loader
    and the schema must agree on each (both refuse);
  * the defaults the schema states are what the loader fills in
    (`validate --dump` of a declaration that writes none).

YAML is read as the loader reads it: only plain true/false are booleans,
only plain decimal integers numbers, plain ~/null/Null/NULL/empty null,
everything else a string (not YAML 1.1's yes/no/on/off, octals or dates).
"""
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import jsonschema
import yaml

SCHEMA, BIN, TOP = sys.argv[1:4]
results = []


def ok(name, good, detail=""):
    results.append((name, good, detail))


class Loader(yaml.SafeLoader):
    pass


Loader.yaml_implicit_resolvers = {}
Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))
Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^-?[0-9]+$"), list("-0123456789"))
Loader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
Loader.add_constructor("tag:yaml.org,2002:int", lambda l, n: int(l.construct_scalar(n), 10))
Loader.add_constructor("tag:yaml.org,2002:bool", lambda l, n: l.construct_scalar(n) == "true")


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    node = yaml.compose(text, Loader=Loader)
    return Loader(text).construct_document(node) if node is not None else None, node


def node_at(node, path):
    """The YAML node of a JSON path (an error's absolute_path)."""
    for step in path:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == step), node)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
    return node


with open(SCHEMA, encoding="utf-8") as f:
    schema = json.load(f)
try:
    jsonschema.Draft202012Validator.check_schema(schema)
    ok("the schema is a valid 2020-12 schema", True)
except jsonschema.SchemaError as e:
    ok("the schema is a valid 2020-12 schema", False, str(e))
validator = jsonschema.Draft202012Validator(schema)


def schema_errors(doc):
    return list(validator.iter_errors(doc))


def validate(paths, cwd=None, more=False, quiet=False):
    """BIN validate PATHS: exit code and diagnostics [(file, line, msg)]
    (and, with more, its line on diagnostics not shown); quiet: without
    the warnings (never a refusal)."""
    p = subprocess.run([BIN, "validate", *(["--quiet"] if quiet else []), *paths], cwd=cwd,
                       capture_output=True, text=True)
    diags, cut = [], ""
    for line in p.stderr.splitlines():
        m = re.match(r"^(.*?):(\d+):(\d+): (.*)$", line)
        if m:
            diags.append((m.group(1), int(m.group(2)), m.group(4)))
        elif "not shown" in line:
            cut = line
    return (p.returncode, diags, cut) if more else (p.returncode, diags)


# The loader's messages for reasons a schema states: a type, a key, an
# enum, a bound. Cross-object rules and the keys needed once per cluster
# are not a file's schema.
SCHEMA_REASONS = [
    r"unknown key '",
    r"missing required key '(?!jolokia'|credentials'|cluster'|mode'|version')",
    r"must be a single value, not",
    r"must be a list",
    r"must be a mapping",
    r"must be an integer",
    r"must be true or false",
    r"has no value",
    r"must not be empty",
    r"unknown routing type",
    r"unknown routing-type",
    r"unknown mode",
    r"unknown deletion-policy",
    r"must list at least one routing type",
    r"is listed twice",
    r"must be (-1|0|at least)",
]
SCHEMA_RE = re.compile("|".join(SCHEMA_REASONS))


def cluster_dirs():
    """Every folder of example and golden YAML files, with a name."""
    dirs = set()
    for pat in ("examples/**/*.yaml", "examples/**/*.yml", "tests/golden/*/**/*.yaml", "tests/golden/*/**/*.yml"):
        for f in glob.glob(os.path.join(TOP, pat), recursive=True):
            dirs.add(os.path.dirname(f))
    return sorted(dirs)


def is_declaration(doc):
    return isinstance(doc, dict) and "version" in doc


def check_folder(d):
    rel = os.path.relpath(d, TOP)
    files = sorted(f for f in os.listdir(d) if f.endswith((".yaml", ".yml")))
    docs = {}
    for f in files:
        try:
            docs[f] = load_yaml(os.path.join(d, f))
        except (yaml.YAMLError, UnicodeDecodeError, ValueError):
            docs[f] = None  # the loader's YAML errors are not the schema's
    if not any(v is not None and is_declaration(v[0]) for v in docs.values()):
        return 0
    rc, diags = validate(["."], cwd=d)
    if rc == 0:
        for f, v in docs.items():
            errs = schema_errors(v[0]) if v is not None else ["not YAML"]
            ok("valid: %s/%s" % (rel, f), not errs, "\n".join(str(e.message) for e in errs[:5]))
        return 1
    for path, line, msg in diags:
        if not SCHEMA_RE.search(msg):
            continue
        f = os.path.basename(path)
        if f not in docs or docs[f] is None:
            continue
        doc, root = docs[f]
        errs = schema_errors(doc)
        hit = False
        for e in errs:
            n = node_at(root, e.absolute_path)
            if n.start_mark.line + 1 <= line <= n.end_mark.line + 1:
                hit = True
                break
        ok("refused: %s/%s:%d: %s" % (rel, f, line, msg), hit,
           "schema errors: " + "; ".join("%s at %s" % (e.message, list(e.absolute_path)) for e in errs[:5]))
    return 1


nfolders = sum(check_folder(d) for d in cluster_dirs())
ok("read the example and golden folders (%d)" % nfolders, nfolders >= 20)

# A bench model: a cluster of a few hundred queues as bench/gen.py writes it.
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "bench")
    p = subprocess.run([sys.executable, os.path.join(TOP, "bench/gen.py"), "decl", out, "--queues", "200", "--nodes", "2"],
                       capture_output=True, text=True)
    files = sorted(glob.glob(os.path.join(out, "*.yaml")))
    ok("bench/gen.py writes a model", p.returncode == 0 and files, p.stderr)
    for f in files:
        errs = schema_errors(load_yaml(f)[0])
        ok("valid: bench %s" % os.path.basename(f), not errs, "\n".join(e.message for e in errs[:5]))

# Every kind of object, every key with a value the loader accepts.
BASE = {
    "version": 1,
    "cluster": "c1",
    "mode": "STUDIO_MANAGED",
    "settings": {"capture-prefix": "__capture.", "max-destroyed-messages": 10, "delete-if-empty": False,
                 "protect": ["keep.*"], "wildcard-delimiter": "."},
    "nodes": [
        {"name": "n1", "jolokia": "http://127.0.0.1:8161/console/jolokia", "credentials": "n1"},
        {"name": "ha", "credentials": "ha", "members": [
            {"name": "a", "jolokia": "https://[::1]:8443/jolokia?x=1", "credentials": "a"},
            {"name": "b", "jolokia": "http://b.example:8161/console/jolokia"}]},
    ],
    "addresses": [
        {"name": "orders", "routing": ["anycast", "multicast"], "deletion-policy": "retain", "managed": True,
         "queues": [{"name": "orders.q", "routing": "anycast", "durable": True, "filter": "a = 1",
                     "max-consumers": 5, "purge-on-no-consumers": False, "exclusive": False, "ring-size": 10,
                     "enabled": True, "last-value-key": "k", "consumers-before-dispatch": 0,
                     "delay-before-dispatch": -1, "delete-if-empty": False, "deletion-policy": "retain",
                     "managed": True}]},
        {"name": "fwd", "routing": ["anycast"], "queues": [{"name": "fwd.q"}]},
    ],
    "diverts": [{"name": "d1", "address": "orders", "forwarding-address": "fwd", "exclusive": False,
                 "filter": None, "routing-type": "ANYCAST", "routing-name": "d1", "transformer-class-name": "org.example.Transformer",
                 "transformer-properties": {"a": "b"}, "deletion-policy": "delete", "managed": True}],
    "captures": [{"name": "cap", "pattern": "orders*", "ring-size": 5}],
    "address-settings": [{"match": "orders.#", "dead-letter-address": "fwd", "expiry-address": "orders",
                          "max-delivery-attempts": 5, "redelivery-delay": "5s", "max-size-bytes": "10MB",
                          "address-full-policy": "BLOCK", "auto-create-queues": False,
                          "auto-create-addresses": True, "auto-delete-queues": False,
                          "auto-delete-addresses": True, "config-delete-queues": "FORCE",
                          "config-delete-addresses": "OFF", "config-delete-diverts": "OFF"}],
    "security-settings": [{"match": "orders.*", "send": ["producer", "admin"], "consume": ["consumer"],
                           "create-durable-queue": ["admin"], "delete-durable-queue": ["admin"],
                           "create-non-durable-queue": ["admin"], "delete-non-durable-queue": ["admin"],
                           "create-address": ["admin"], "delete-address": ["admin"], "manage": ["admin"],
                           "browse": ["consumer"]}],
}


def resolve(s):
    while "$ref" in s:
        s = schema["$defs"][s["$ref"].split("/")[-1]]
    return s


def types_of(s):
    s = resolve(s) if "type" not in s and "enum" not in s else s
    if "enum" in s:
        return ["enum"]
    t = s.get("type", [])
    if not t and "oneOf" in s:
        t = [x.get("type") for x in s["oneOf"]]
    return t if isinstance(t, list) else [t]


def objects(sch, doc, path):
    """(schema of an object, the object, its path) for every object of doc."""
    yield sch, doc, path
    for key, sub in sch.get("properties", {}).items():
        if key not in doc:
            continue
        if "items" in sub and "properties" in sub["items"]:
            for i, item in enumerate(doc[key]):
                yield from objects(sub["items"], item, path + [key, i])
        for alt in sub.get("oneOf", []):
            if "properties" in alt:
                yield from objects(alt, doc[key], path + [key])


def set_at(doc, path, value, delete=False):
    for step in path[:-1]:
        doc = doc[step]
    if delete:
        del doc[path[-1]]
    else:
        doc[path[-1]] = value


WRONG = {"string": ["x"], "integer": "ten", "boolean": "yes", "array": "x", "object": "x", "enum": "bogus"}
mutations = []
written = {}
for sch, obj, path in objects(schema, BASE, []):
    seen = written.setdefault(sch["title"], (sch, set()))[1]
    seen.update(obj)
for title, (sch, seen) in written.items():
    missing = [k for k in sch["properties"] if k not in seen]
    ok("the base declaration writes every key of a %s" % title, not missing, "missing: %s" % missing)
for sch, obj, path in objects(schema, BASE, []):
    where = "/".join(map(str, path)) or "top"
    mutations.append(("unknown key in %s" % where, path + ["no-such-key"], True, False))
    for key in sch.get("required", []):
        if key != "version":
            mutations.append(("missing required %s/%s" % (where, key), path + [key], None, True))
    for key, sub in sch["properties"].items():
        if key not in obj:
            continue
        ts = [t for t in types_of(sub) if t != "null"]
        value = WRONG.get("enum" if "enum" in ts else ts[0], ["x"]) if ts else None
        if value is not None:
            mutations.append(("wrong type for %s/%s" % (where, key), path + [key], value, False))
        s = resolve(sub) if "$ref" in sub else sub
        if "minimum" in s:
            mutations.append(("below the minimum of %s/%s" % (where, key), path + [key], s["minimum"] - 1, False))
        if "maximum" in s:
            mutations.append(("above the maximum of %s/%s" % (where, key), path + [key], s["maximum"] + 1, False))
        if "pattern" in s and s is not sub:
            for bad in (".hidden", "a/b", "bad\u202ename", "two  spaces", " lead", "user:pw@x", "ftp://h/x",
                        "http://u@h/x", "http://h x/"):
                if not re.search(s["pattern"], bad):
                    mutations.append(("pattern of %s/%s refuses %r" % (where, key, bad), path + [key], bad, False))
                    break
        if "items" in s and "enum" in s["items"]:
            mutations.append(("word outside the enum in %s/%s" % (where, key), path + [key], ["bogus"], False))
        if s.get("uniqueItems") and isinstance(obj[key], list) and obj[key]:
            mutations.append(("an item twice in %s/%s" % (where, key), path + [key], obj[key] + obj[key][:1], False))

with tempfile.TemporaryDirectory() as tmp:
    repo = os.path.join(os.environ.get("SCHEMA_CHECK_KEEP") or tmp, "repo")
    os.makedirs(repo)
    cases = []
    for i, (name, path, value, delete) in enumerate(mutations):
        doc = copy.deepcopy(BASE)
        set_at(doc, path, value, delete=bool(delete))
        d = os.path.join(repo, "m%03d" % i)
        os.makedirs(d)
        # JSON is YAML: the loader reads the same values Python wrote
        with open(os.path.join(d, "cluster.yaml"), "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, indent=1)
        cases.append((name, "m%03d" % i, doc))
    base_dir = os.path.join(tmp, "base")
    os.makedirs(base_dir)
    with open(os.path.join(base_dir, "cluster.yaml"), "w", encoding="utf-8") as f:
        json.dump(BASE, f, indent=1)
    rc, diags = validate([base_dir])
    ok("the loader accepts the base declaration", rc == 0, "\n".join(m for _, _, m in diags))
    errs = schema_errors(BASE)
    ok("the schema accepts the base declaration", not errs, "\n".join(e.message for e in errs))
    # validate shows 50 diagnostics a run: a dozen clusters at a time
    refused, truncated = {}, []
    for at in range(0, len(cases), 12):
        chunk = [os.path.join(repo, folder) for _, folder, _ in cases[at:at + 12]]
        rc, diags, more = validate(chunk, more=True, quiet=True)
        if more:
            truncated.append(more)
        for path, line, msg in diags:
            m = re.search(r"(?:^|/)(m\d{3})/cluster\.yaml$", path)
            if m:
                refused.setdefault(m.group(1), []).append(msg)
    ok("every diagnostic of the mutations shown", not truncated, "\n".join(truncated))
    for name, folder, doc in cases:
        loader = refused.get(folder, [])
        errs = schema_errors(doc)
        ok("both refuse: %s" % name, bool(loader) and bool(errs),
           "loader: %s; schema: %s" % (loader or "accepted", [e.message for e in errs[:3]] or "accepted"))
    ok("mutations generated from the schema (%d)" % len(cases), len(cases) >= 60)

# The defaults the schema states are the loader's: a declaration that
# writes none of them, dumped (`validate --dump`), shows them where the
# dump spells defaults out; and the same declaration with every default
# written explicitly dumps the same (so the policy keys and
# delete-if-empty, which the dump leaves out at their defaults, are
# checked too).
MINIMAL = {"version": 1, "cluster": "c1", "mode": "STUDIO_MANAGED",
           "nodes": [{"name": "n1", "jolokia": "http://h:1/j", "credentials": "n1"}],
           "addresses": [{"name": "a", "routing": ["anycast"], "queues": [{"name": "q"}]}],
           "diverts": [{"name": "d", "address": "a", "forwarding-address": "a"}],
           "captures": [{"name": "c", "pattern": "a*"}],
           "settings": {}}
props = schema["properties"]
WHERE = {"queue": (props["addresses"]["items"]["properties"]["queues"]["items"],
                   lambda d: d["addresses"][0]["queues"][0]),
         "address": (props["addresses"]["items"], lambda d: d["addresses"][0]),
         "divert": (props["diverts"]["items"], lambda d: d["diverts"][0]),
         "capture": (props["captures"]["items"], lambda d: d["captures"][0]),
         "settings": (props["settings"]["oneOf"][0], lambda d: d["settings"])}


def dump_of(doc):
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "cluster.yaml"), "w", encoding="utf-8") as f:
            json.dump(doc, f)
        p = subprocess.run([BIN, "validate", "--dump", tmp], capture_output=True, text=True)
    try:
        return json.loads(p.stdout), p.stderr
    except ValueError:
        return None, p.stderr


dump, err = dump_of(MINIMAL)
ok("validate --dump of a declaration without defaults", dump is not None, err)
explicit = copy.deepcopy(MINIMAL)
ndefaults = 0
for what, (sch, get) in WHERE.items():
    for key, sub in sch["properties"].items():
        if "default" not in sub:
            continue
        ndefaults += 1
        get(explicit)[key] = sub["default"]
        if dump is not None and key in get(dump):
            got = get(dump)[key]
            ok("default of %s %s is the loader's" % (what, key), got == sub["default"],
               "schema: %r, loader: %r" % (sub["default"], got))
ok("the schema states defaults (%d)" % ndefaults, ndefaults >= 15)
dump2, err = dump_of(explicit)
ok("every default written explicitly changes nothing in the dump", dump2 is not None and dump2 == dump,
   err + "\n" + json.dumps(dump2, indent=1)[:1500])

for name, good, detail in results:
    print(("ok - " if good else "not ok - ") + name)
    if not good and detail:
        for line in str(detail).splitlines()[:20]:
            print("# " + line)

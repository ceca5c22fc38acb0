#!/usr/bin/env python3
"""tests/tools/comment-check.py: check pull-request comment bodies against
the plan.md they were cut from, independently of the C code that cut them
(reconcile/plan/plan-comment.c; docs/ci.md says what must hold).

  comment-check.py --plan-md FILE --limit BYTES [--too-large]
                   [--has TEXT]... BODY...

BODY files in part order (comment-1.md ..., or bodies a test recorded).
Checks, each reported by name:
  - every body is at most BYTES bytes, valid UTF-8;
  - every body starts with the marker
      <!-- artemis-gitops:plan-comment id=ID cluster=NAME part=I/N digest=HEX12 -->
    one ID, NAME and digest for all, I counting 1..N, N the number of
    bodies; nothing in it can close the HTML comment early;
  - with N > 1 the next line is "*Part I of N of this plan.*";
  - the bodies' contents (frames and "(continued from part I)" headings
    taken off) put together are plan.md exactly (unless a body says
    "**Cut short:**", then each is a run of plan.md's lines);
  - each split point lies outside fenced code blocks and tables, and the
    next body starts at a heading (### an action) or at a top-level list
    item (a node: "- **");
  - the first body holds plan.md's head (through the Nodes table), the
    last its "## Approve" section;
  - --too-large: exactly one body, which says the plan needs more comments
    and points at plan.md, with the head and the Approve section;
  - --has TEXT: some body holds TEXT (the blast radius, a diagram).
Prints "ok - ..." / "not ok - ..." lines (no plan; the caller counts them)
and exits 1 when any check failed.
"""
import argparse
import re
import sys

MARKER = re.compile(
    r"^<!-- artemis-gitops:plan-comment id=([^ ]+) cluster=([^ ]+) "
    r"part=([0-9]+)/([0-9]+) digest=([0-9a-f]{12}) -->\n")
CONTINUED = re.compile(r"^(?:[^\n]* \(continued from part [0-9]+\)|"
                       r"\*\(continued from part [0-9]+\)\*)\n\n")
FENCE = re.compile(r"^( *)(`{3,}|~{3,})")

results = []


def check(name, cond, detail=""):
    results.append((bool(cond), name, detail))


def fence_states(text):
    """For each line start offset: is it inside a fence? (the line
    itself being a fence's content or its closing line)"""
    inside, opened = {}, None
    off = 0
    for line in text.split("\n"):
        inside[off] = opened is not None
        m = FENCE.match(line)
        if opened is None and m:
            opened = (m.group(2)[0], len(m.group(2)))
        elif opened is not None and m and m.group(2)[0] == opened[0] \
                and len(m.group(2)) >= opened[1] \
                and line[m.end():].strip() == "":
            opened = None
        off += len(line) + 1
    return inside


def split_ok(md, off, inside):
    """May a body end at byte offset off of md (a line start)?"""
    if off not in inside:
        return "not at a line start"
    if inside[off]:
        return "inside a fenced code block"
    prev = md[:off].rstrip("\n").rsplit("\n", 1)[-1]
    nxt = md[off:].split("\n", 1)[0]
    if prev.startswith("|") and nxt.startswith("|") and md[off - 2:off] != "\n\n":
        return "inside a table"
    if not (nxt.startswith("#") or nxt.startswith("- **")):
        return "before %r, neither a heading nor a node item" % nxt[:60]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plan-md", required=True)
    ap.add_argument("--limit", type=int, required=True)
    ap.add_argument("--too-large", action="store_true")
    ap.add_argument("--has", action="append", default=[])
    ap.add_argument("bodies", nargs="+")
    a = ap.parse_args()
    md = open(a.plan_md, encoding="utf-8").read()
    raw = [open(b, "rb").read() for b in a.bodies]
    n = len(raw)
    sizes = [len(r) for r in raw]
    check("%d bodies of at most %d bytes (%s)" % (n, a.limit, sizes),
          all(s <= a.limit for s in sizes))
    bodies = []
    for i, r in enumerate(raw):
        try:
            bodies.append(r.decode("utf-8"))
        except UnicodeDecodeError as e:
            check("body %d is UTF-8" % (i + 1), False, str(e))
            bodies.append(r.decode("utf-8", "replace"))
    ids, contents = set(), []
    for i, b in enumerate(bodies, 1):
        m = MARKER.match(b)
        check("body %d starts with the marker" % i, m, b[:200])
        if not m:
            contents.append(b)
            continue
        ids.add((m.group(1), m.group(2), m.group(5)))
        check("body %d: part %s/%s is %d/%d" % (i, m.group(3), m.group(4), i, n),
              (int(m.group(3)), int(m.group(4))) == (i, n))
        inner = m.group(0)[4:-4]
        check("body %d: the marker cannot close early" % i,
              "--" not in inner.replace(":plan-comment", "") and ">" not in inner,
              inner)
        rest = b[m.end():]
        if n > 1:
            want = "*Part %d of %d of this plan.*\n\n" % (i, n)
            check("body %d: says part %d of %d" % (i, i, n), rest.startswith(want),
                  rest[:100])
            rest = rest[len(want):] if rest.startswith(want) else rest
        c = CONTINUED.match(rest)
        if c and i > 1:
            rest = rest[c.end():]
        contents.append(rest)
    check("one marker id, cluster and digest for all bodies (%s)" % sorted(ids),
          len(ids) == 1)
    cut = any("**Cut short:**" in c for c in contents)
    inside = fence_states(md)
    head = md.split("\n## Actions\n")[0] if "\n## Actions\n" in md else None
    if a.too_large:
        b = contents[0] if contents else ""
        check("too large: one body", n == 1)
        check("too large: it says how many comments the plan needs",
              re.search(r"This plan needs [0-9]+ comments of at most", b), b[-800:])
        check("too large: it points at plan.md", "plan.md" in b)
        check("too large: the Approve section", "\n## Approve\n" in b)
        check("too large: the head", head is None or b.startswith(head) or cut)
    elif not cut:
        check("the bodies put together are plan.md", "".join(contents) == md,
              "lengths %d vs %d" % (len("".join(contents)), len(md)))
        off = 0
        for i, c in enumerate(contents[:-1], 1):
            off += len(c)
            why = split_ok(md, off, inside)
            check("split %d|%d at %r" % (i, i + 1, md[off:off + 40]), why is None, why)
        if head is not None:
            check("the first body holds the head and the Nodes table",
                  contents[0].startswith(head + "\n"))
        check("the last body holds the Approve section",
              "\n## Approve\n" not in md or "\n## Approve\n" in "\n" + contents[-1])
    else:
        for i, c in enumerate(contents, 1):
            lines = c.split("**Cut short:**")[0].rstrip("\n").split("\n")
            check("cut body %d: its lines are plan.md's" % i,
                  all(x in md for x in lines if not x.startswith("```") and x))
    for t in a.has:
        check("a body holds %r" % t, any(t in b for b in bodies))
    bad = 0
    for good, name, detail in results:
        print("%s - %s" % ("ok" if good else "not ok", name))
        if not good:
            bad += 1
            for d in str(detail).split("\n")[:20]:
                print("# " + d)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

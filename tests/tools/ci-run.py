#!/usr/bin/env python3
"""tests/tools/ci-run.py: run a CI job of examples/ci/ as its runner would,
from the committed YAML, for tests/integration/97-ci-examples.sh.

  ci-run.py github WORKFLOW JOB CONTEXT_JSON
  ci-run.py gitlab GITLAB_CI JOB CONTEXT_JSON

in the current folder (the checked-out repository). CONTEXT_JSON holds what
the runner and the event would give: {"github": {...}, "secrets": {...},
"vars": {...}, "env": {...}} for GitHub, {"env": {...}} (the predefined
and CI/CD variables) for GitLab; and "artifacts": a folder where an upload
(actions/upload-artifact, GitLab's artifacts:paths) is copied.

GitHub: the workflow's, the job's and each step's env, ${{ }} expressions
evaluated (context paths, !cancelled(), always(), success(), failure(),
==, != against '...', &&; anything else is an error, so that the test does
not pass over what it cannot read), each step's if (default success()),
`run:` run as GitHub runs it when no shell is given (bash -e), GITHUB_ENV
and GITHUB_OUTPUT files; actions/checkout is the test's checkout already
made (HEAD must be the event's head), actions/upload-artifact copies its
path. GitLab: the global and the job's variables ($VAR expanded), the
job's rules (if: `$VAR == "value"` with &&; the job must run), its script
lines in one bash with errexit, as the shell executor does, and
artifacts:paths copied.

Prints the job's log (every step's output) and a last line
`job: success` or `job: failed`; exits 0 or 1 accordingly.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml


class Unreadable(Exception):
    pass


def lookup(ctx, path):
    v = ctx
    for part in path.split("."):
        if not isinstance(v, dict):
            return ""
        v = v.get(part, "")
    return v


def evaluate(expr, ctx, failed):
    expr = expr.strip()
    if "&&" in expr:
        return all(truthy(evaluate(e, ctx, failed)) for e in expr.split("&&"))
    m = re.fullmatch(r"(.+?)\s*(==|!=)\s*'([^']*)'", expr)
    if m:
        eq = str(evaluate(m.group(1), ctx, failed)) == m.group(3)
        return eq if m.group(2) == "==" else not eq
    funcs = {"!cancelled()": True, "always()": True, "cancelled()": False,
             "success()": not failed, "failure()": failed}
    if expr in funcs:
        return funcs[expr]
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)+", expr):
        return lookup(ctx, expr)
    raise Unreadable("cannot evaluate ${{ %s }}" % expr)


def truthy(v):
    return v not in ("", None, False, 0)


def template(s, ctx, failed=False):
    if not isinstance(s, str):
        return "" if s is None else str(s).lower() if isinstance(s, bool) else str(s)
    return re.sub(r"\$\{\{(.*?)\}\}",
                  lambda m: str(evaluate(m.group(1), ctx, failed)), s)


def condition(s, ctx, failed):
    if s is None:
        return not failed
    s = s.strip()
    m = re.fullmatch(r"\$\{\{(.*)\}\}", s)
    return truthy(evaluate(m.group(1) if m else s, ctx, failed))


def run_bash(script, env, args):
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write(script)
    try:
        r = subprocess.run(["bash", "--noprofile", "--norc"] + args + [f.name],
                           env=env, stdout=sys.stdout, stderr=subprocess.STDOUT)
        return r.returncode
    finally:
        os.unlink(f.name)


def base_env(ctx):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env.update({k: str(v) for k, v in ctx.get("env", {}).items()})
    return env


def upload(ctx, name, paths):
    dest = os.path.join(ctx["artifacts"], name)
    os.makedirs(dest, exist_ok=True)
    for p in paths:
        if os.path.isdir(p):
            shutil.copytree(p, os.path.join(dest, os.path.basename(p.rstrip("/"))),
                            dirs_exist_ok=True)
        elif os.path.exists(p):
            shutil.copy(p, dest)


def github(doc, job, ctx):
    j = doc["jobs"][job]
    failed = False
    tmp = tempfile.mkdtemp()
    env = base_env(ctx)
    ctx.setdefault("runner", {})["temp"] = tmp
    env.update({"RUNNER_TEMP": tmp, "GITHUB_ACTIONS": "true", "CI": "true"})
    for layer in (doc.get("env") or {}, j.get("env") or {}):
        for k, v in layer.items():
            env[k] = template(v, dict(ctx, env=env))
    for i, step in enumerate(j["steps"]):
        name = step.get("name") or step.get("uses") or "step %d" % (i + 1)
        sctx = dict(ctx, env=env)
        if not condition(step.get("if"), sctx, failed):
            print("== step '%s': skipped" % name, flush=True)
            continue
        print("== step '%s'" % name, flush=True)
        senv = dict(env)
        for k, v in (step.get("env") or {}).items():
            senv[k] = template(v, sctx, failed)
        uses = step.get("uses", "")
        if uses.startswith("actions/checkout@"):
            head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True,
                                  text=True).stdout.strip()
            if head != ctx["github"]["sha"]:
                raise Unreadable("the checkout is at %s, not the event's %s"
                                 % (head, ctx["github"]["sha"]))
            continue
        if uses.startswith("actions/upload-artifact@"):
            w = step.get("with") or {}
            upload(ctx, template(w["name"], sctx), template(w["path"], sctx).split())
            continue
        if uses:
            raise Unreadable("step '%s' uses %s, which this runner does not know" % (name, uses))
        files = {}
        for f in ("GITHUB_ENV", "GITHUB_OUTPUT"):
            files[f] = os.path.join(tmp, "%s-%d" % (f.lower(), i))
            open(files[f], "w").close()
            senv[f] = files[f]
        rc = run_bash(template(step["run"], sctx, failed), senv, ["-e"])
        print("== step '%s': exit %d" % (name, rc), flush=True)
        for line in open(files["GITHUB_ENV"]):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                env[k] = v
        if rc != 0:
            failed = True
    return failed


def expand(v, env):
    return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: env.get(m.group(1), ""), str(v))


def rule_matches(expr, env):
    for part in expr.split("&&"):
        m = re.fullmatch(r'\s*\$([A-Za-z_0-9]+)\s*(==|!=)\s*(?:"([^"]*)"|\$([A-Za-z_0-9]+))\s*', part)
        if not m:
            raise Unreadable("cannot evaluate rule %r" % part)
        right = m.group(3) if m.group(3) is not None else env.get(m.group(4), "")
        if (env.get(m.group(1), "") == right) != (m.group(2) == "=="):
            return False
    return True


def gitlab(doc, job, ctx):
    j = doc[job]
    env = base_env(ctx)
    env.update({"CI": "true", "GITLAB_CI": "true"})
    for layer in (doc.get("variables") or {}, j.get("variables") or {}):
        for k, v in layer.items():
            env[k] = expand(v, env)
    rules = j.get("rules") or []
    if rules and not any(rule_matches(r["if"], env) for r in rules if "if" in r):
        raise Unreadable("no rule of job %s matches this pipeline" % job)
    script = "set -eo pipefail\n" + "\n".join(j["script"]) + "\n"
    rc = run_bash(script, env, [])
    print("== script: exit %d" % rc, flush=True)
    art = j.get("artifacts") or {}
    if rc == 0 or art.get("when") == "always":
        upload(ctx, job, art.get("paths") or [])
    return rc != 0


def main():
    kind, path, job, ctxfile = sys.argv[1:5]
    doc = yaml.safe_load(open(path))
    ctx = json.load(open(ctxfile))
    try:
        failed = github(doc, job, ctx) if kind == "github" else gitlab(doc, job, ctx)
    except Unreadable as e:
        print("ci-run: %s" % e, flush=True)
        return 2
    print("job: %s" % ("failed" if failed else "success"), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# examples/ci/ as their runners run them, on the suite's two brokers:
# tests/tools/ci-run.py reads the committed GitHub workflow and GitLab job
# and runs their steps (run:, script:) with the environment a runner sets,
# against tests/tools/prapi.py, a local stand-in of GitHub's and GitLab's
# comment APIs that records every request and keeps the comments. The
# declarations repository is made here: main declares queues t97.src and
# t97.gone (both live on the brokers, with a divert t97.d from t97.src
# into t97.gone that only the brokers have); a pull request removes
# t97.gone and adds 20 queues.
#   push 1: validate passes, the plan (live, read by the read-only `viewer`
#           user of scripts/artemis) has changes: N comments posted, each
#           within the limit, split at actions or node items, never in a
#           code block or a table, with markers, the blast radius (the
#           divert removed with the queue) shown; the check passes;
#   push 2: 12 of the new queues dropped: the bot's comments updated in
#           place (PATCH), the parts it no longer needs deleted, no
#           duplicate; a forged comment with the marker by someone else
#           is left alone;
#   push 2 again without the credentials secret: the job fails, saying
#           why, and the comments stay as they were;
#   push 3: a divert into an address nothing consumes: the annotation
#           `::error file=...,line=L,col=C` on the divert's line, the plan
#           refused, the comment says so, the check fails;
#   the plan of push 2 approved and applied with the viewer's credentials:
#           FORBIDDEN on the broker, nothing changed (read with curl);
#   snapshots: the recording jobs (GitHub's workflow, GitLab's job) record
#           the brokers; the pull request planned against the recording
#           with no broker credentials at all;
#   GitLab: the merge request job posts notes, then updates them (PUT).
# No secret (passwords, tokens) reaches a job's log or the plans.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
brokers_setup

u=t97
EX=$AG_TOP/examples/ci
CIRUN=$AG_TOP/tests/tools/ci-run.py

mkdir -p "$TMP/bin" "$TMP/zips" "$TMP/artifacts"
ln -s "$AG_BIN" "$TMP/bin/artemis-gitops"
# Debian's python3 (scripts/install-deps, with python3-yaml) rather than a
# version manager's shim in PATH, which costs a second or more a start.
[ ! -x /usr/bin/python3 ] || ln -s /usr/bin/python3 "$TMP/bin/python3"
export PATH="$TMP/bin:$PATH"
python3 "$AG_TOP/tests/tools/prapi.py" "$TMP/api.port" "$TMP/api.log" "$TMP/zips" &
_proxy_pids+=($!)
for _ in $(seq 1 100); do [ -s "$TMP/api.port" ] && break; sleep 0.05; done
API=http://127.0.0.1:$(cat "$TMP/api.port")
VIEWER_SECRET=$(printf 'node1 %s\nnode2 %s\n' "$(cat "${CRED[node1]}-viewer")" "$(cat "${CRED[node2]}-viewer")")

# ---- the brokers: what main declares, and a divert only they have -------
for n in "${NODES[@]}"; do
	check_eq "$n: $u.src, $u.gone and the divert $u.d created" OK "$(broker_bulk "$n" "
ops = [addr('$u.src'), queue(name='$u.src', address='$u.src'),
       addr('$u.gone'), queue(name='$u.gone', address='$u.gone'),
       divert(name='$u.d', address='$u.src', **{'forwarding-address': '$u.gone', 'routing-name': '$u.d'})]
print(json.dumps(ops))")"
done
cleanup_brokers() {
	local n
	for n in "${NODES[@]}"; do
		broker_bulk "$n" "
ops = [op('destroyDivert(java.lang.String)', '$u.d')]
ops += [op('destroyQueue(java.lang.String)', q) for q in ['$u.src', '$u.gone']]
ops += [op('deleteAddress(java.lang.String)', a) for a in ['$u.src', '$u.gone']]
print(json.dumps(ops))" >/dev/null 2>&1
	done
}

# ---- the declarations repository ----------------------------------------
R=$TMP/repo
mkdir -p "$R/clusters/shop" "$R/ci/artemis-gitops" "$R/.github/workflows"
cp "$EX"/*.sh "$R/ci/artemis-gitops/"
cp "$EX/gitlab-ci.yml" "$R/.gitlab-ci.yml"
cp "$EX/github/artemis-gitops-snapshots.yml" "$R/.github/workflows/"
# The one change a user makes to try it: comments of 4096 bytes, so that
# this plan takes several.
sed 's/COMMENT_LIMIT: "65000"/COMMENT_LIMIT: "4096"/' "$EX/github/artemis-gitops-plan.yml" \
	>"$R/.github/workflows/artemis-gitops-plan.yml"
sed -i 's/COMMENT_LIMIT: "65000"/COMMENT_LIMIT: "4096"/' "$R/.gitlab-ci.yml"
check_eq "the examples' comment limit set to 4096 bytes (in both files, once)" 2 \
	"$(cat "$R/.github/workflows/artemis-gitops-plan.yml" "$R/.gitlab-ci.yml" | grep -c 'COMMENT_LIMIT: "4096"')"
decl() { # NEW_QUEUES [EXTRA_YAML]: clusters/shop/cluster.yaml
	{
		sed -e 's/^cluster: local$/cluster: shop/' -e '/^addresses: \[\]$/d' -e '/^diverts: \[\]$/d' \
			"$RUNDIR/cluster/cluster.yaml"
		echo "addresses:"
		printf '  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' "$u.src" "$u.src"
		[ "$1" != base ] || printf '  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' "$u.gone" "$u.gone"
		if [ "$1" != base ]; then
			for i in $(seq -w 1 "$1"); do
				printf '  - name: %s.a%s\n    routing: [anycast]\n    queues: [{name: %s.a%s, max-consumers: %d}]\n' \
					"$u" "$i" "$u" "$i" "$((10#$i))"
			done
		fi
		printf '%s' "${2:-}"
	} >"$R/clusters/shop/cluster.yaml"
}
(cd "$R" && git init -q -b main && git config user.email t@example.org && git config user.name t) || exit 1
printf 'artemis-gitops-out/\nsnapshots/\n' >"$R/.gitignore"
decl base
(cd "$R" && git add -A && git commit -qm "main: the cluster as applied") || exit 1
MAIN=$(git -C "$R" rev-parse HEAD)
git -C "$R" checkout -q -b pr
commit() { (cd "$R" && git add -A && git commit -qm "$1" && git rev-parse HEAD); }

# ---- the runners ----------------------------------------------------------
# gh_run NAME SHA [SNAPSHOTS|nocreds]: the GitHub workflow's job `plan`
# for pull request 42 at SHA (from the recorded snapshots, or without
# broker credentials at all); its log in $TMP/NAME.log, its exit code in
# $rc.
gh_run() {
	local name=$1 sha=$2 snap=${3:-} secrets
	secrets=$(jq -n --arg v "$VIEWER_SECRET" '{GITHUB_TOKEN: "gh-token", ARTEMIS_VIEWER_CREDENTIALS: $v}')
	[ -z "$snap" ] || secrets='{"GITHUB_TOKEN": "gh-token"}'
	[ "$snap" != nocreds ] || snap=
	git -C "$R" checkout -q "$sha"
	jq -n --arg sha "$sha" --arg base "$MAIN" --arg api "$API/github" --arg path "$PATH" \
		--arg art "$TMP/artifacts" --arg snap "$snap" --argjson secrets "$secrets" '{
		github: {sha: $sha, repository: "acme/declarations", run_id: "7",
			server_url: "https://github.example", event: {pull_request: {number: 42, base: {sha: $base}}}},
		secrets: $secrets, vars: {ARTEMIS_SNAPSHOT_SOURCE: $snap}, artifacts: $art,
		env: {PATH: $path, GITHUB_API_URL: $api, GITHUB_REPOSITORY: "acme/declarations", GITHUB_SHA: $sha}}' \
		>"$TMP/ctx.json"
	wc -l <"$TMP/api.log" >"$TMP/api.mark"
	t0=$(date +%s%N)
	(cd "$R" && python3 "$CIRUN" github .github/workflows/artemis-gitops-plan.yml plan "$TMP/ctx.json") \
		>"$TMP/$name.log" 2>&1
	rc=$?
	echo "# $name: the job took $((($(date +%s%N) - t0) / 1000000)) ms"
	cat "$TMP/$name.log" >>"$TMP/all-jobs.log"
}
# gl_run NAME SHA [SNAPSHOTS]: the GitLab job artemis-gitops-plan for merge
# request !5 at SHA.
gl_run() {
	local name=$1 sha=$2 snap=${3:-} cred=
	git -C "$R" checkout -q "$sha"
	if [ -z "$snap" ]; then
		cred=$TMP/gl-credentials-file
		printf '%s\n' "$VIEWER_SECRET" >"$cred"
	fi
	jq -n --arg sha "$sha" --arg base "$MAIN" --arg api "$API/gitlab/api/v4" --arg path "$PATH" \
		--arg art "$TMP/artifacts" --arg snap "$snap" --arg cred "$cred" --arg top "$R" '{
		artifacts: $art,
		env: {PATH: $path, CI_PIPELINE_SOURCE: "merge_request_event", CI_API_V4_URL: $api,
			CI_PROJECT_ID: "3", CI_MERGE_REQUEST_IID: "5", CI_MERGE_REQUEST_DIFF_BASE_SHA: $base,
			CI_DEFAULT_BRANCH: "main", CI_COMMIT_SHA: $sha, CI_PROJECT_DIR: $top,
			CI_JOB_URL: "https://gitlab.example/acme/declarations/-/jobs/9",
			GITLAB_TOKEN: "gl-token", ARTEMIS_VIEWER_CREDENTIALS_FILE: $cred,
			ARTEMIS_SNAPSHOT_SOURCE: $snap, ARTEMIS_GITOPS_IMAGE: "unused"}}' >"$TMP/ctx.json"
	wc -l <"$TMP/api.log" >"$TMP/api.mark"
	t0=$(date +%s%N)
	(cd "$R" && python3 "$CIRUN" gitlab .gitlab-ci.yml artemis-gitops-plan "$TMP/ctx.json") \
		>"$TMP/$name.log" 2>&1
	rc=$?
	echo "# $name: the job took $((($(date +%s%N) - t0) / 1000000)) ms"
	cat "$TMP/$name.log" >>"$TMP/all-jobs.log"
}
# job_rc NAME WANT: the last run's exit code is WANT (the log's end shown
# when not)
job_rc() {
	if [ "$rc" -eq "$2" ]; then ok "$1"; else
		not_ok "$1" "exit $rc, expected $2" "$(tail -n 40 "$TMP/$3.log")"
	fi
}
# requests METHOD PATH_REGEX: how many such requests the last run made
requests() {
	tail -n +"$(($(cat "$TMP/api.mark") + 1))" "$TMP/api.log" |
		jq -s --arg m "$1" --arg p "$2" '[.[] | select(.method == $m and (.path | test($p)))] | length'
}
# ours THREAD: this bot's comments of a thread, in id order, as files
# $TMP/body-1 ... (their count printed)
ours() {
	curl -s "$API/_state" | python3 -c '
import json, sys
t = json.load(sys.stdin).get(sys.argv[1], [])
mine = [c for c in t if c["author"] in ("github-actions[bot]", "project_7_bot")]
mine.sort(key=lambda c: int(c["body"].split(" part=")[1].split("/")[0]))
for i, c in enumerate(mine, 1):
    open("%s/body-%d" % (sys.argv[2], i), "w").write(c["body"])
print(len(mine))' "$1" "$TMP"
}
# bodies_check NAME THREAD PLAN_MD [ARGS]: the thread's bodies against plan.md
bodies_check() {
	local name=$1 thread=$2 md=$3 n i
	shift 3
	rm -f "$TMP"/body-*
	n=$(ours "$thread")
	local -a files=()
	for ((i = 1; i <= n; i++)); do files+=("$TMP/body-$i"); done
	python3 "$AG_TOP/tests/tools/comment-check.py" --plan-md "$md" --limit 4096 "$@" \
		"${files[@]}" >"$TMP/check.out" 2>&1
	tap_import "$TMP/check.out" "$name: "
	check_grep "$name: the bodies were checked" '^(not )?ok - ' "$TMP/check.out"
}
GH=github:acme/declarations#42
GL=gitlab:3!5
O=$R/artemis-gitops-out
curl -s -X POST -d "{\"thread\": \"$GH\", \"author\": \"mallory\", \"body\": \"<!-- artemis-gitops:plan-comment id=artemis-gitops cluster=shop part=1/1 digest=000000000000 -->\\nforged\"}" \
	"$API/_seed" >/dev/null

# ---- push 1 ---------------------------------------------------------------
decl 20
P1=$(commit "pr: drop $u.gone, add 20 queues")
gh_run push1 "$P1"
job_rc "push 1: the job passes (a plan with changes)" 0 push1
check_grep "push 1: the plan has changes" "^shop 2$" "$O/status"
check_eq "push 1: read live" '"live"' "$(jq -c .snapshot.source "$O/shop/plan/plan.json")"
check_eq "push 1: both nodes read by the viewer" '[true,true]' "$(jq -c '[.nodes[].reachable]' "$O/shop/plan/plan.json")"
check_eq "push 1: against the merge base" "\"$MAIN\"" "$(jq -c .base.revision "$O/shop/plan/plan.json")"
n1=$(jq '.parts | length' "$O/shop/comments/comments.json")
check "push 1: several comments ($n1)" test "$n1" -ge 3
check_eq "push 1: $n1 POSTs" "$n1" "$(requests POST '/issues/42/comments$')"
check_eq "push 1: no PATCH, no DELETE" "0 0" "$(requests PATCH .) $(requests DELETE .)"
check_eq "push 1: every request with the token" 0 \
	"$(jq -s '[.[] | select(.path | startswith("/github")) | select(.token != "Bearer gh-token")] | length' "$TMP/api.log")"
has=(--has "removed with the queue: divert \`$u.d\` (source \`$u.src\`, forwarding to \`$u.gone\`)"
	--has "### 1. create-address \`$u.a01\`" --has '```mermaid')
bodies_check "push 1" "$GH" "$O/shop/plan/plan.md" "${has[@]}"
check_nogrep "push 1: validate annotated nothing" '^::(error|warning)' "$TMP/push1.log"

# ---- push 2: a smaller plan ----------------------------------------------
decl 08
P2=$(commit "pr: only 8 new queues")
gh_run push2 "$P2"
job_rc "push 2: the job passes" 0 push2
n2=$(jq '.parts | length' "$O/shop/comments/comments.json")
check "push 2: fewer comments ($n2 < $n1)" test "$n2" -lt "$n1"
check_eq "push 2: no POST" 0 "$(requests POST .)"
check "push 2: the list read page by page (3 to a page)" test "$(requests GET '/issues/42/comments$')" -ge 2
check_eq "push 2: $n2 comments updated in place (PATCH)" "$n2" "$(requests PATCH '/issues/comments/[0-9]+$')"
check_eq "push 2: the $((n1 - n2)) parts no longer needed deleted" "$((n1 - n2))" "$(requests DELETE '/issues/comments/[0-9]+$')"
check_eq "push 2: the thread holds exactly $n2 of the bot's comments" "$n2" "$(ours "$GH")"
bodies_check "push 2" "$GH" "$O/shop/plan/plan.md" "${has[@]}"
check_eq "push 2: the forged comment is untouched" '"forged"' \
	"$(curl -s "$API/_state" | jq -c --arg t "$GH" '[.[$t][] | select(.author == "mallory") | .body | split("\n")[1]][0]')"
rm -rf "$TMP/push2-plan" && cp -r "$O/shop/plan" "$TMP/push2-plan"

# ---- the same push, the credentials secret missing: no plan, the
# comments kept --------------------------------------------------------------
gh_run nocreds "$P2" nocreds
job_rc "no credentials: the job fails" 1 nocreds
check_grep "no credentials: the plan step says why" "no broker credentials: set the secret ARTEMIS_VIEWER_CREDENTIALS" "$TMP/nocreds.log"
check_grep "no credentials: the verdict: not planned" "shop: not planned" "$TMP/nocreds.log"
check_eq "no credentials: no comment posted, changed or deleted" "0 0 0" \
	"$(requests POST .) $(requests PATCH .) $(requests DELETE .)"
check_eq "no credentials: push 2's $n2 comments stay" "$n2" "$(ours "$GH")"

# ---- push 3: refused -----------------------------------------------------
decl 08 "  - name: $u.a01x
    routing: [anycast]
diverts:
  - name: $u.bad
    address: $u.src
    forwarding-address: $u.a01x
"
line=$(grep -n "^  - name: $u.bad\$" "$R/clusters/shop/cluster.yaml" | cut -d: -f1)
P3=$(commit "pr: a divert into an address nothing consumes")
gh_run push3 "$P3"
job_rc "push 3: the job fails" 1 push3
check_grep "push 3: the annotation on the divert's line" \
	"^::error file=clusters/shop/cluster.yaml,line=$line,col=5,title=artemis-gitops::divert '$u.bad' forwards to '$u.a01x': Nothing consumes at $u.a01x" "$TMP/push3.log"
check_grep "push 3: the plan refused" "^shop 1$" "$O/status"
check_grep "push 3: the verdict names it" "shop: refused or invalid" "$TMP/push3.log"
check_eq "push 3: one comment left" 1 "$(ours "$GH")"
check_grep "push 3: it says why" "INVALID_DECLARATION" "$TMP/body-1"
check_grep "push 3: ... on the divert's line" "clusters/shop/cluster.yaml:$line:5: divert '$u.bad'" "$TMP/body-1"

# ---- apply with the read-only role: FORBIDDEN, nothing changed -----------
mkdir -p "$TMP/viewer" "$TMP/state"
chmod 700 "$TMP/viewer"
for n in "${NODES[@]}"; do cp "${CRED[$n]}-viewer" "$TMP/viewer/$n"; done
check "approve push 2's plan" "$AG_BIN" approve "$TMP/push2-plan" --by tester --state "$TMP/state" \
	--confirm "$(jq -r .confirmation "$TMP/push2-plan/plan.json")"
check_exit "apply with the viewer's credentials fails" 1 \
	"$AG_BIN" apply "$TMP/push2-plan" --state "$TMP/state" --credentials "$TMP/viewer"
check_eq "... each node FAILED at its first operation, FORBIDDEN by the broker, none applied" \
	'[["node1","FAILED","FORBIDDEN",0],["node2","FAILED","FORBIDDEN",0]]' \
	"$(jq -c '[.nodes[] | [.node, .outcome, .operations[0].kind,
		([.operations[] | select(.outcome != "FAILED" and .outcome != "NOT_RUN")] | length)]]' \
		"$TMP/push2-plan/result.json")"
for n in "${NODES[@]}"; do
	check_listed "$n: $u.gone still there (read with curl)" "$n" queues "$u.gone"
	check_listed "$n: the divert $u.d still there" "$n" diverts "$u.d"
	check_unlisted "$n: no queue $u.a01 created" "$n" queues "^$u\\.a0" "$u.src"
done

# ---- snapshots: recorded on main, the pull request planned from them -----
git -C "$R" checkout -q "$MAIN"
jq -n --arg sha "$MAIN" --arg path "$PATH" --arg art "$TMP/artifacts" --arg v "$VIEWER_SECRET" '{
	github: {sha: $sha}, secrets: {ARTEMIS_VIEWER_CREDENTIALS: $v}, vars: {}, artifacts: $art,
	env: {PATH: $path}}' >"$TMP/ctx.json"
(cd "$R" && python3 "$CIRUN" github .github/workflows/artemis-gitops-snapshots.yml record "$TMP/ctx.json") \
	>"$TMP/record-gh.log" 2>&1
check_eq "GitHub: the recording job passes" 0 $?
cat "$TMP/record-gh.log" >>"$TMP/all-jobs.log"
check_eq "GitHub: the artifact holds shop.json" '"shop"' \
	"$(jq -c .cluster "$TMP/artifacts/artemis-gitops-snapshots/snapshots/shop.json" 2>&1)"
# upload-artifact zips the folder's files; GitLab keeps the paths
zipup() { python3 -c 'import sys, zipfile, os
z = zipfile.ZipFile(sys.argv[1], "w")
for f in sys.argv[3:]:
    z.write(f, os.path.relpath(f, sys.argv[2]))' "$@"; }
zipup "$TMP/zips/github.zip" "$TMP/artifacts/artemis-gitops-snapshots/snapshots" \
	"$TMP/artifacts/artemis-gitops-snapshots/snapshots"/*.json
gh_run snap "$P2" artemis-gitops-snapshots
job_rc "snapshots: the job passes with no broker credentials" 0 snap
check_eq "snapshots: planned against the recording" '"shop.json"' "$(jq -c .snapshot.source "$O/shop/plan/plan.json")"
check_eq "snapshots: the same actions as live" "$(jq -c '[.actions[] | [.kind, .name]]' "$TMP/push2-plan/plan.json")" \
	"$(jq -c '[.actions[] | [.kind, .name]]' "$O/shop/plan/plan.json")"
check_eq "snapshots: push 3's one comment updated, the other parts posted" \
	"1 $(($(jq '.parts | length' "$O/shop/comments/comments.json") - 1))" "$(requests PATCH .) $(requests POST .)"

# ---- GitLab ----------------------------------------------------------------
gl_run gl1 "$P1"
job_rc "GitLab push 1: the job passes" 0 gl1
g1=$(jq '.parts | length' "$O/shop/comments/comments.json")
check_eq "GitLab push 1: $g1 notes posted" "$g1 $g1" "$(requests POST '/merge_requests/5/notes$') $(ours "$GL")"
bodies_check "GitLab push 1" "$GL" "$O/shop/plan/plan.md" "${has[@]}"
check "GitLab: a Code Quality report" jq -e 'type == "array"' "$O/gl-code-quality-report.json"
git -C "$R" checkout -q "$MAIN"
jq -n --arg path "$PATH" --arg art "$TMP/artifacts" --arg cred "$TMP/gl-credentials-file" '{
	artifacts: $art, env: {PATH: $path, CI_PIPELINE_SOURCE: "schedule", CI_COMMIT_BRANCH: "main",
	CI_DEFAULT_BRANCH: "main", ARTEMIS_VIEWER_CREDENTIALS_FILE: $cred}}' >"$TMP/ctx.json"
(cd "$R" && python3 "$CIRUN" gitlab .gitlab-ci.yml artemis-gitops-snapshots "$TMP/ctx.json") \
	>"$TMP/record-gl.log" 2>&1
check_eq "GitLab: the recording job passes" 0 $?
zipup "$TMP/zips/gitlab.zip" "$TMP/artifacts/artemis-gitops-snapshots" \
	"$TMP/artifacts/artemis-gitops-snapshots/snapshots"/*.json
gl_run gl2 "$P2" artemis-gitops-snapshots
job_rc "GitLab push 2 (from the recording): the job passes" 0 gl2
g2=$(jq '.parts | length' "$O/shop/comments/comments.json")
check_eq "GitLab push 2: $g2 notes updated (PUT), $((g1 - g2)) deleted, none posted" "$g2 $((g1 - g2)) 0" \
	"$(requests PUT '/notes/[0-9]+$') $(requests DELETE '/notes/[0-9]+$') $(requests POST .)"
check_eq "GitLab push 2: the merge request holds $g2 notes of the bot" "$g2" "$(ours "$GL")"

# ---- no secret anywhere ----------------------------------------------------
for s in "$(cut -d: -f2- "${CRED[node1]}-viewer")" "$(cut -d: -f2- "${CRED[node1]}")" gh-token gl-token; do
	check_absent "no secret in the jobs' logs" "$s" "$TMP/all-jobs.log" "^== step 'Plan the changed clusters'$"
done
check_eq "no password in the plans and comments" "" \
	"$(grep -rlF -e "$(cut -d: -f2- "${CRED[node1]}-viewer")" -e "$(cut -d: -f2- "${CRED[node2]}-viewer")" "$O" "$TMP/push2-plan")"
cleanup_brokers
done_testing

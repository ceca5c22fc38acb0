#!/usr/bin/env bash
# examples/ci/plan.sh PROVIDER BASE: plan every cluster folder of
# $DECLARATIONS that the pull (merge) request changes, as the request
# would leave it: `artemis-gitops plan DIR --repo . --rev HEAD --base BASE`
# (BASE the merge base: what the request changes, nothing else), with its
# comment bodies (--comment). PROVIDER is github or gitlab (for the API
# that serves recorded snapshots). Run from the repository's top, HEAD
# checked out, BASE in its history.
#
# The live brokers are read with the read-only user of
# $ARTEMIS_VIEWER_CREDENTIALS (lib.sh, docs/ci.md); with
# ARTEMIS_SNAPSHOT_SOURCE set (GitHub: the artifact's name, GitLab: the
# job's), the newest recording of record-snapshots.sh is fetched instead
# and no broker is asked.
#
# Writes $OUT/changed (the changed cluster folders, one a line, before
# anything else), $OUT/<folder>/plan/ (plan.json, plan.md),
# $OUT/<folder>/comments/ (comment-N.md, comments.json) and $OUT/status:
# one line per changed folder, `<folder> <plan's exit code>` (0 nothing to
# do, 2 changes, 1 refused or invalid) or `<folder> removed`. Exits 0
# whatever the plans said: verdict.sh decides, after the comments are
# posted (a folder of $OUT/changed without a status line was not planned:
# this script stopped).
#
# Environment: DECLARATIONS (default clusters), OUT (artemis-gitops-out),
# ARTEMIS_GITOPS (the binary; default artemis-gitops), COMMENT_LIMIT
# (bytes of a comment, default 65000), MAX_COMMENTS (10), MARKER_ID
# (artemis-gitops), PLAN_URL (where the plans can be read: the CI run),
# ARTEMIS_CA_FILE (the CA of https brokers).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 2 ] || ci_die "usage: plan.sh github|gitlab BASE"
CI_PROVIDER=$1
base=$2
git rev-parse --verify -q "$base^{commit}" >/dev/null ||
	ci_die "the merge base '$base' is not in this clone (fetch the history: fetch-depth 0, GIT_DEPTH 0)"

# fetch_snapshots DIR: the newest recording into DIR (<folder>.json each).
fetch_snapshots() {
	local dir=$1 url
	mkdir -p "$dir"
	if [ "$CI_PROVIDER" = github ]; then
		ci_api GET "${GITHUB_API_URL:-https://api.github.com}/repos/$GITHUB_REPOSITORY/actions/artifacts?name=$ARTEMIS_SNAPSHOT_SOURCE&per_page=20" ||
			ci_die "cannot list the artifacts"
		url=$(jq -r '[.artifacts[] | select(.expired | not)][0].archive_download_url // empty' "$CI_REPLY")
		[ -n "$url" ] || ci_die "no unexpired artifact '$ARTEMIS_SNAPSHOT_SOURCE' (record-snapshots.sh has not run lately?)"
	else
		url="$CI_API_V4_URL/projects/$CI_PROJECT_ID/jobs/artifacts/$CI_DEFAULT_BRANCH/download?job=$ARTEMIS_SNAPSHOT_SOURCE"
	fi
	# the archive host (after a redirect) is not given the token
	curl -sSfL --max-time 120 -K <(_ci_auth) -o "$CI_TMP/snapshots.zip" "$url" ||
		ci_die "cannot download the recorded snapshots"
	unzip -q -o "$CI_TMP/snapshots.zip" -d "$CI_TMP/unzipped" ||
		ci_die "the recorded snapshots are not a zip archive"
	if [ -d "$CI_TMP/unzipped/snapshots" ]; then
		cp "$CI_TMP/unzipped/snapshots"/*.json "$dir"/
	else
		cp "$CI_TMP/unzipped"/*.json "$dir"/
	fi
}

# The cluster folders the request changes (added, changed or removed).
changed=$(git diff --name-only "$base" HEAD -- "$DECLARATIONS/" |
	awk -v p="${DECLARATIONS%/}/" 'index($0, p) == 1 {
		r = substr($0, length(p) + 1); i = index(r, "/")
		if (i > 1) print substr(r, 1, i - 1) }' | sort -u)
mkdir -p "$OUT"
: >"$OUT/status"
printf '%s' "$changed${changed:+$'\n'}" >"$OUT/changed"
if [ -z "$changed" ]; then
	ci_log "no cluster folder under $DECLARATIONS/ changes; nothing to plan"
	exit 0
fi
source_args=()
if [ -n "${ARTEMIS_SNAPSHOT_SOURCE:-}" ]; then
	fetch_snapshots "$CI_TMP/snapshots"
else
	ci_credentials
	source_args=(--credentials "$CI_CREDENTIALS")
	[ -z "${ARTEMIS_CA_FILE:-}" ] || source_args+=(--ca-file "$ARTEMIS_CA_FILE")
fi

mapfile -t folders <<<"$changed"
for c in "${folders[@]}"; do
	dir=$DECLARATIONS/$c
	if [ "$(git cat-file -t "HEAD:$dir" 2>/dev/null)" != tree ]; then
		ci_log "$dir: removed by this request; not planned (the agent never removes a whole cluster: its objects stay on the brokers)"
		echo "$c removed" >>"$OUT/status"
		continue
	fi
	args=(plan "$dir" --repo . --rev HEAD --out "$OUT/$c/plan"
		--comment "$OUT/$c/comments" --limit "${COMMENT_LIMIT:-65000}"
		--max-comments "${MAX_COMMENTS:-10}" --marker-id "${MARKER_ID:-artemis-gitops}")
	# a cluster the request adds has no base: nothing of it is deleted
	[ "$(git cat-file -t "$base:$dir" 2>/dev/null)" != tree ] || args+=(--base "$base")
	[ -z "${PLAN_URL:-}" ] || args+=(--plan-url "$PLAN_URL")
	if [ -n "${ARTEMIS_SNAPSHOT_SOURCE:-}" ]; then
		[ -f "$CI_TMP/snapshots/$c.json" ] ||
			ci_die "the recorded snapshots hold no $c.json (record-snapshots.sh records every cluster folder)"
		args+=(--snapshot "$CI_TMP/snapshots/$c.json")
	else
		args+=("${source_args[@]}")
	fi
	ci_log "planning $dir"
	rc=0
	"$AG" "${args[@]}" || rc=$?
	echo "$c $rc" >>"$OUT/status"
done

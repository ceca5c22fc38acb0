#!/usr/bin/env bash
# examples/ci/post-comments.sh PROVIDER: post the comment bodies plan.sh
# wrote ($OUT/<folder>/comments/, comments.json naming them) on the pull
# request (github) or merge request (gitlab), updating this bot's earlier
# comments instead of adding new ones:
#   - the request's comments are listed (every page) and this bot's own
#     are recognised by the hidden marker each body starts with
#     (<!-- artemis-gitops:plan-comment id=ID cluster=NAME part=I/N ...)
#     and by their author: $COMMENT_AUTHOR on GitHub (default
#     github-actions[bot], the GITHUB_TOKEN's), the token's own user on
#     GitLab; a comment someone else wrote with the marker is left alone;
#   - part I of a cluster's plan replaces the text of its earlier part I
#     (PATCH on GitHub, PUT on GitLab; nothing sent when the text is the
#     same), a part with no earlier one is posted;
#   - earlier parts past the new N (a plan that shrank) are deleted, and so
#     are the comments of a cluster the request no longer changes (only
#     when every changed cluster was planned, so that a plan that could not
#     run does not take its earlier comment with it).
# github: GITHUB_TOKEN (pull-requests: write), GITHUB_REPOSITORY,
# PR_NUMBER, GITHUB_API_URL (default https://api.github.com). gitlab:
# GITLAB_TOKEN (a project access token, scope api, role Reporter or more),
# CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 1 ] || ci_die "usage: post-comments.sh github|gitlab"
CI_PROVIDER=$1
case $CI_PROVIDER in
github)
	: "${GITHUB_REPOSITORY:?}" "${PR_NUMBER:?}"
	api=${GITHUB_API_URL:-https://api.github.com}/repos/$GITHUB_REPOSITORY
	list="$api/issues/$PR_NUMBER/comments?per_page=100"
	create="$api/issues/$PR_NUMBER/comments"
	one="$api/issues/comments"
	update=PATCH
	me=${COMMENT_AUTHOR:-github-actions[bot]}
	author='.user.login'
	;;
gitlab)
	: "${CI_API_V4_URL:?}" "${CI_PROJECT_ID:?}" "${CI_MERGE_REQUEST_IID:?}"
	api=$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID
	list="$api/notes?per_page=100&sort=asc&order_by=created_at&page=1"
	create="$api/notes"
	one="$api/notes"
	update=PUT
	ci_api GET "$CI_API_V4_URL/user" || ci_die "cannot read the token's user"
	me=$(jq -r .username "$CI_REPLY")
	author='.author.username'
	;;
*) ci_die "usage: post-comments.sh github|gitlab" ;;
esac

[ -f "$OUT/changed" ] || ci_die "$OUT/changed is missing: plan.sh did not run"
# Every cluster the request changes, with its comments (when its plan ran
# that far); complete when each one has them or is removed.
manifests=()
complete=1
while read -r c; do
	if [ -f "$OUT/$c/comments/comments.json" ]; then
		manifests+=("$OUT/$c/comments/comments.json")
	elif awk -v c="$c" '$1 == c && $2 == "removed" { f = 1 } END { exit !f }' "$OUT/status"; then
		:
	else
		ci_log "$c: no comments (its plan did not get that far); earlier comments of other clusters are kept"
		complete=0
	fi
done <"$OUT/changed"

# This bot's comments, one line each: id, part, the body in base64, the
# marker's prefix (id and cluster), in id order.
ci_api_pages "$list" | jq -r --arg me "$me" "sort_by(.id)[] | select($author == \$me)
	| (.body | capture(\"^(?<p><!-- artemis-gitops:plan-comment id=[^ ]+ cluster=[^ ]+ )part=(?<i>[0-9]+)/\")) as \$m
	| [.id, \$m.i, (.body | @base64), \$m.p] | join(\"\\t\")" >"$CI_TMP/ours.tsv"
declare -A first_of body_of
others=()
while IFS=$'\t' read -r id part b64 prefix; do
	if [ -z "${first_of["$prefix $part"]:-}" ]; then
		first_of["$prefix $part"]=$id
		body_of[$id]=$b64
	else
		others+=("$id") # a second comment with the same part: two runs raced
	fi
done <"$CI_TMP/ours.tsv"

posted=0 updated=0 same=0 deleted=0
delete_comment() {
	ci_api DELETE "$one/$1" || ci_die "cannot delete comment $1"
	deleted=$((deleted + 1))
}

declare -A parts_of # a planned cluster's marker prefix: its parts
for m in "${manifests[@]}"; do
	mapfile -t lines < <(jq -r '.marker_prefix, (.parts[] | .file)' "$m")
	prefix=${lines[0]}
	n=$((${#lines[@]} - 1))
	parts_of["$prefix"]=$n
	for ((i = 1; i <= n; i++)); do
		file=$(dirname "$m")/${lines[i]}
		id=${first_of["$prefix $i"]:-}
		if [ -z "$id" ]; then
			jq -n --rawfile b "$file" '{body: $b}' >"$CI_TMP/body.json"
			ci_api POST "$create" "$CI_TMP/body.json" || ci_die "cannot post part $i of $prefix"
			posted=$((posted + 1))
		elif cmp -s <(printf '%s' "${body_of[$id]}" | base64 -d) "$file"; then
			same=$((same + 1))
		else
			jq -n --rawfile b "$file" '{body: $b}' >"$CI_TMP/body.json"
			ci_api "$update" "$one/$id" "$CI_TMP/body.json" || ci_die "cannot update comment $id"
			updated=$((updated + 1))
		fi
	done
done
for id in "${others[@]}"; do delete_comment "$id"; done
# Parts past a plan's new N; and, when every changed cluster was planned,
# the comments of a cluster the request no longer changes.
idp="<!-- artemis-gitops:plan-comment id=${MARKER_ID:-artemis-gitops} "
[ ${#manifests[@]} -eq 0 ] || idp="$(jq -r .marker_prefix "${manifests[0]}" | sed 's/ cluster=.*//') "
for key in "${!first_of[@]}"; do
	prefix=${key% *}
	part=${key##* }
	id=${first_of[$key]}
	if [ -n "${parts_of["$prefix"]:-}" ]; then
		[ "$part" -le "${parts_of["$prefix"]}" ] || delete_comment "$id"
	elif [ "$complete" = 1 ] && [ "${prefix#"$idp"}" != "$prefix" ]; then
		delete_comment "$id"
	fi
done
ci_log "comments: $posted posted, $updated updated, $same unchanged, $deleted deleted"

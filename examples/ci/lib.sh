# examples/ci/lib.sh: what the CI scripts beside it share (sourced, not
# run). Copy the folder into the declarations repository (the examples
# call it ci/artemis-gitops/). Needs bash, git, curl and jq.
#
#   ci_die MSG...            print "artemis-gitops ci: MSG" and exit 1
#   ci_log MSG...            print it and go on
#   ci_credentials           the broker credentials folder for --credentials,
#                            written from $ARTEMIS_VIEWER_CREDENTIALS (the
#                            secret's text) or the file
#                            $ARTEMIS_VIEWER_CREDENTIALS_FILE (a GitLab
#                            "File" variable): lines `NAME user:password`,
#                            NAME a node's `credentials:` in the
#                            declaration. A folder (0700) of files (0600)
#                            removed when the script exits; the secret is
#                            never printed. Sets CI_CREDENTIALS.
#   ci_api METHOD URL [JSON_FILE]
#                            one request to the code host's API
#                            (CI_PROVIDER github or gitlab): its token from
#                            $GITHUB_TOKEN / $GITLAB_TOKEN, handed to curl
#                            in a config read from a pipe, never on a
#                            command line; the reply in $CI_REPLY (a
#                            file), its headers in $CI_HEADERS; fails on an
#                            HTTP status of 300 or more, showing the reply
#   ci_api_pages URL         GET every page of a list (GitHub's Link
#                            rel="next", GitLab's X-Next-Page); the
#                            elements as one JSON array on stdout
set -euo pipefail
set +x # never trace: the lines below handle secrets

AG=${ARTEMIS_GITOPS:-artemis-gitops}
DECLARATIONS=${DECLARATIONS:-clusters}
OUT=${OUT:-artemis-gitops-out}
CI_TMP=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/artemis-gitops-ci.XXXXXX")
trap 'rm -rf "$CI_TMP"' EXIT
CI_REPLY=$CI_TMP/reply
CI_HEADERS=$CI_TMP/headers

ci_die() {
	echo "artemis-gitops ci: $*" >&2
	exit 1
}

ci_log() { echo "artemis-gitops ci: $*"; }

ci_credentials() {
	local text line name n=0
	if [ -n "${ARTEMIS_VIEWER_CREDENTIALS_FILE:-}" ]; then
		[ -r "$ARTEMIS_VIEWER_CREDENTIALS_FILE" ] ||
			ci_die "ARTEMIS_VIEWER_CREDENTIALS_FILE: cannot read '$ARTEMIS_VIEWER_CREDENTIALS_FILE'"
		text=$(cat "$ARTEMIS_VIEWER_CREDENTIALS_FILE")
	else
		text=${ARTEMIS_VIEWER_CREDENTIALS:-}
	fi
	[ -n "$text" ] ||
		ci_die "no broker credentials: set the secret ARTEMIS_VIEWER_CREDENTIALS (lines 'NAME user:password' of the read-only user, docs/ci.md), or plan against recorded snapshots (ARTEMIS_SNAPSHOT_SOURCE)"
	CI_CREDENTIALS=$CI_TMP/credentials
	mkdir -m 0700 "$CI_CREDENTIALS"
	while IFS= read -r line; do
		n=$((n + 1))
		line=${line%$'\r'}
		case $line in '' | '#'*) continue ;; esac
		name=${line%% *}
		[[ $name =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*$ ]] && [ "$name" != "$line" ] ||
			ci_die "the broker credentials' line $n is not 'NAME user:password' (NAME a file name: letters, digits, '.', '_', '-')"
		(umask 077 && printf '%s\n' "${line#* }" >"$CI_CREDENTIALS/$name")
	done < <(printf '%s\n' "$text")
}

# _ci_auth: curl's config lines for the token (read from a pipe).
_ci_auth() {
	case $CI_PROVIDER in
	github)
		[ -n "${GITHUB_TOKEN:-}" ] || ci_die "GITHUB_TOKEN is not set"
		printf 'header = "Authorization: Bearer %s"\n' "$GITHUB_TOKEN"
		printf 'header = "Accept: application/vnd.github+json"\n'
		printf 'header = "X-GitHub-Api-Version: 2022-11-28"\n'
		;;
	gitlab)
		[ -n "${GITLAB_TOKEN:-}" ] || ci_die "GITLAB_TOKEN is not set (a project access token with the api scope, docs/ci.md)"
		printf 'header = "PRIVATE-TOKEN: %s"\n' "$GITLAB_TOKEN"
		;;
	*) ci_die "unknown provider '$CI_PROVIDER' (github or gitlab)" ;;
	esac
}

ci_api() {
	local method=$1 url=$2 data=${3:-} code
	local -a args=(-sS --max-time 60 -X "$method" -D "$CI_HEADERS" -o "$CI_REPLY"
		-w '%{http_code}')
	[ -z "$data" ] || args+=(-H 'Content-Type: application/json' --data-binary "@$data")
	# the token in a config read from a pipe that lives as long as curl
	code=$(curl "${args[@]}" -K <(_ci_auth) "$url") || ci_die "$method $url: the request failed"
	if [ "$code" -ge 300 ]; then
		echo "artemis-gitops ci: $method $url: HTTP $code:" >&2
		head -c 2000 "$CI_REPLY" >&2
		echo >&2
		return 1
	fi
}

ci_api_pages() {
	local url=$1 next all=$CI_TMP/pages
	echo '[]' >"$all"
	while [ -n "$url" ]; do
		ci_api GET "$url" || ci_die "cannot list $url"
		jq -s '.[0] + .[1]' "$all" "$CI_REPLY" >"$all.new" && mv "$all.new" "$all"
		next=
		if [ "$CI_PROVIDER" = github ]; then
			next=$(tr -d '\r' <"$CI_HEADERS" | sed -n 's/^[Ll]ink:.*<\([^>]*\)>; *rel="next".*/\1/p' | tail -n 1)
		else
			next=$(tr -d '\r' <"$CI_HEADERS" | sed -n 's/^[Xx]-[Nn]ext-[Pp]age: *\([0-9][0-9]*\)$/\1/p' | tail -n 1)
			[ -z "$next" ] || next=$(printf '%s' "$url" | sed -E "s/([?&])page=[0-9]+/\\1page=$next/")
		fi
		url=$next
	done
	cat "$all"
}

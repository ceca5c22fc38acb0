#!/usr/bin/env bash
# `artemis-gitops snapshot`: credentials folder and file problems (never a
# silent anonymous login; a file or folder sshd would refuse for a private
# key is refused), usage errors, and the environment variable.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
brokers_setup
cluster_dir "$TMP/c"
P="artemis-gitops snapshot"

# creds_case NAME CONTENT EXPECTED-SUFFIX: node1's file holds CONTENT
creds_case() {
	local name=$1 content=$2 want=$3 d o rc
	d=$(mktemp -d "$TMP/cr-XXXXXX")/c
	cp -a "$CREDDIR" "$d"
	printf '%b' "$content" >"$d/node1"
	chmod 600 "$d/node1"
	o=$("$AG_BIN" snapshot --credentials "$d" "$TMP/c" 2>&1)
	rc=$?
	check_eq "$name: exit 1" 1 "$rc"
	check_eq "$name: message" "$P: node 'node1': credentials file '$d/node1' $want" "$o"
}
creds_case "empty file" "" "is empty"
creds_case "no colon" "gitops\n" "has no ':' (expected one line 'user:password')"
creds_case "empty user" ":secret\n" "has an empty user name"
creds_case "empty password" "gitops:\n" "has an empty password"
creds_case "two lines" "gitops:a\ngitops:b\n" "must hold one line 'user:password'"

d=$TMP/cr-missing
cp -a "$CREDDIR" "$d"
rm "$d/node1"
o=$("$AG_BIN" snapshot --credentials "$d" "$TMP/c" 2>&1)
check_eq "missing file: exit 1" 1 $?
check_eq "missing file: message" "$P: node 'node1': credentials file '$d/node1': cannot open: No such file or directory" "$o"

# perm_case NAME SETUP EXPECTED-SUFFIX [NODE]: SETUP runs in a copy $d of
# the credentials folder; NODE's file (node2's unless given), or the
# folder, is then refused as sshd would refuse a private key, with the
# path and the mode.
perm_case() {
	local name=$1 setup=$2 want=$3 n=${4:-node2} o
	d=$(mktemp -d "$TMP/cr-XXXXXX")/c
	cp -a "$CREDDIR" "$d"
	(cd "$d" && eval "$setup")
	o=$("$AG_BIN" snapshot --credentials "$d" "$TMP/c" 2>&1)
	check_eq "$name: exit 1" 1 $?
	check_eq "$name: message" "$P: node '$n': credentials file '$d/$n': ${want//@D@/$d}" "$o"
}
perm_case "world-readable file" "chmod 644 node2" \
	"mode 0644: its group can read it, others can read it; a secret must be readable by its owner only (chmod 600 '@D@/node2')"
perm_case "group-readable file" "chmod 640 node2" \
	"mode 0640: its group can read it; a secret must be readable by its owner only (chmod 600 '@D@/node2')"
perm_case "group-writable file" "chmod 620 node2" \
	"mode 0620: its group can write it; a secret must be readable by its owner only (chmod 600 '@D@/node2')"
perm_case "another user's file" "chown 65534 node2" \
	"owned by uid 65534, not by the agent's user (uid $(id -u)) or root"
perm_case "world-writable folder" "chmod 1777 ." \
	"its folder '@D@' has mode 1777: its group can write it, others can write it, and so replace the file; the folder must be writable by its owner only (chmod 700 '@D@')" node1
perm_case "a symbolic link" "mv node2 real2 && ln -s real2 node2" \
	"a symbolic link, not a regular file"
# What systemd's LoadCredential= hands over: 0400, the service's user.
d=$TMP/cr-systemd
cp -a "$CREDDIR" "$d"
chmod 0500 "$d"
chmod 0400 "$d"/*
check "a 0400 file in a 0500 folder (LoadCredential=): read" "$AG_BIN" snapshot --credentials "$d" "$TMP/c"
chmod 0700 "$d"

o=$(env -u CREDENTIALS_DIRECTORY "$AG_BIN" snapshot "$TMP/c" 2>&1)
check_eq "no credentials folder: exit 1" 1 $?
check_eq "no credentials folder: message" "$P: no credentials folder: use --credentials DIR or set CREDENTIALS_DIRECTORY" "$o"
o=$(CREDENTIALS_DIRECTORY=$CREDDIR "$AG_BIN" snapshot --node node2 "$TMP/c" 2>&1)
check_eq "\$CREDENTIALS_DIRECTORY is used" 0 $?
check_grep "\$CREDENTIALS_DIRECTORY: node2 printed" "^node node2  broker node2" <(echo "$o")

mkdir -p "$TMP/cs"
sed 's|credentials: node1|credentials: ../node1|' "$TMP/c/cluster.yaml" >"$TMP/cs/cluster.yaml"
# Validation refuses the name, and snapshot, which loads the declaration
# through it, with the same diagnostic. (The credentials reader's own
# refusal stands behind it and no declaration that validates reaches it:
# tests/unit/test-creds.c checks that one.)
want="^$TMP/cs/cluster.yaml:[0-9]+:[0-9]+: 'credentials' must name a file of the credentials folder, not a path \\('\\.\\./node1'\\)\$"
"$AG_BIN" validate "$TMP/cs" >"$TMP/cs.validate" 2>&1
check_eq "credentials name with a slash: validate exits 1" 1 $?
check_grep "credentials name with a slash: validate names it" "$want" "$TMP/cs.validate"
"$AG_BIN" snapshot --credentials "$CREDDIR" "$TMP/cs" >"$TMP/cs.snapshot" 2>&1
check_eq "credentials name with a slash: snapshot exits 1" 1 $?
check_grep "credentials name with a slash: snapshot refuses it" "$want" "$TMP/cs.snapshot"

check_exit "unknown option: 64" 64 "$AG_BIN" snapshot --frobnicate "$TMP/c"
o=$("$AG_BIN" snapshot --frobnicate "$TMP/c" 2>&1)
check_eq "unknown option: message" "$P: unknown option '--frobnicate'
Try 'artemis-gitops snapshot --help'." "$o"
o=$("$AG_BIN" snapshot --timeout 0 "$TMP/c" 2>&1)
check_eq "bad timeout: message" "$P: --timeout: expected seconds in (0, 3600], got '0'
Try 'artemis-gitops snapshot --help'." "$o"
o=$("$AG_BIN" snapshot --credentials "$CREDDIR" --node node9 "$TMP/c" 2>&1)
check_eq "unknown node: exit 64 and message" "64 $P: --node: no node 'node9' in cluster 'local'" "$? $(echo "$o" | head -1)"
o=$("$AG_BIN" snapshot 2>&1)
check_eq "no folder: message" "$P: expected one CLUSTER_DIR, got 0 arguments
Try 'artemis-gitops snapshot --help'." "$o"
check_exit "--help exits 0" 0 "$AG_BIN" snapshot --help
check_grep "--help documents --json" "--json" <("$AG_BIN" snapshot --help)
check_exit "--version exits 0" 0 "$AG_BIN" snapshot --version
check_exit "missing cluster folder: exit 1" 1 "$AG_BIN" snapshot --credentials "$CREDDIR" "$TMP/nope"
done_testing

#!/usr/bin/env bash
# git over SSH with a key, against a real sshd of our own on loopback
# (tests/integration/gitsrv-lib.sh) serving the test's bare repository:
# the agent clones and fetches with the key from its credentials folder;
# the server's host key is checked against repository.ssh-known-hosts (an
# SSH URL without it is refused at load; an unknown or changed host key is
# refused with a log line naming its fingerprint, tls.insecure or not); a
# wrong key is refused and retried with backoff, the agent keeps running
# and recovers once the key is right.
. "$AG_TOP/tests/lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
. "$AG_TOP/tests/integration/gitsrv-lib.sh"
cd "$AG_TOP" || exit 1
[ -n "${AG_NODES_FILE:-}" ] || { not_ok "brokers are running (AG_NODES_FILE)"; done_testing; exit 1; }
command -v /usr/sbin/sshd >/dev/null || { not_ok "sshd installed (scripts/install-deps: openssh-server)"; done_testing; exit 1; }
daemon_setup t76
gitsrv_trap
own_creds
s=$T/ssh
mkdir -p "$s"
ssh-keygen -q -t ed25519 -N '' -C t76-agent -f "$T/creds/id_agent"
ssh-keygen -q -t ed25519 -N '' -C t76-other -f "$s/id_other"
ssh-keygen -q -t ed25519 -N '' -C t76-host2 -f "$s/host2_ed25519"
cp "$T/creds/id_agent.pub" "$s/authorized_keys"
cp "$T/creds/id_agent" "$s/id_agent.good"
sshd_start "$s"
check "sshd listens on 127.0.0.1:$SSHD_PORT" python3 -c "import socket; socket.create_connection(('127.0.0.1', $SSHD_PORT), 1)"
host="[127.0.0.1]:$SSHD_PORT"
fp=$(ssh-keygen -lf "$s/host_ed25519.pub" | awk '{print $2}')
echo "$host $(cut -d' ' -f1,2 "$s/host_ed25519.pub")" >"$s/known_hosts.good"
echo "$host $(cut -d' ' -f1,2 "$s/host2_ed25519.pub")" >"$s/known_hosts.changed"
echo "[127.0.0.2]:$SSHD_PORT $(cut -d' ' -f1,2 "$s/host_ed25519.pub")" >"$s/known_hosts.unknown"
cp "$s/known_hosts.good" "$s/known_hosts"
url="ssh://127.0.0.1:$SSHD_PORT$T/origin.git"

# An SSH URL without a known_hosts file is refused at load.
sed "s|^  url: .*|  url: $url\n  ssh-user: $(id -un)\n  ssh-key-file: id_agent|" "$T/agent.yaml" >"$T/agent-nokh.yaml"
"$AG_BIN" run --config "$T/agent-nokh.yaml" --once >"$T/nokh.out" 2>&1
check_eq "no ssh-known-hosts: run exits 1" 1 $?
check_grep "no ssh-known-hosts: the reason" "'repository.url' is an SSH URL: set 'repository.ssh-known-hosts'" "$T/nokh.out"

sed "s|^  url: .*|  url: $url\n  ssh-user: $(id -un)\n  ssh-key-file: id_agent\n  ssh-known-hosts: $s/known_hosts|" "$T/agent.yaml" >"$T/agent.ssh"
cp "$T/agent.ssh" "$T/agent.yaml"
c1=$(daemon_commit "t76: nodes")
daemon_start
check "c1 previewed (cloned over SSH)" wait_for 60 has_preview "$c1"
# A fingerprint is base64 ('+', '/'): match it as a fixed string, never as
# a regular expression. sshd's lines can land after the agent is done with
# the connection: wait for them.
sshd_logged() { grep -F "$2" "$s/sshd.log" | grep -q "$1 for $(id -un) from 127.0.0.1 "; }
fp_agent=$(ssh-keygen -lf "$T/creds/id_agent.pub" | awk '{print $2}')
check "sshd: the agent's key accepted" wait_for 20 \
	sshd_logged "Accepted publickey" "ED25519 $fp_agent"
check_grep "commit.txt names the SSH URL" "^repository $url\$" "$(preview_of "$c1")/commit.txt"
echo "# c2" >>"$T/work/clusters/t76/cluster.yaml"
c2=$(daemon_commit "t76: c2")
check "c2 previewed (fetched over SSH)" wait_for 30 has_preview "$c2"

# A changed host key is refused, with the fingerprint the server showed.
cp "$s/known_hosts.changed" "$s/known_hosts"
n0=$(wc -l <"$T/agent.log")
echo "# c3" >>"$T/work/clusters/t76/cluster.yaml"
c3=$(daemon_commit "t76: c3")
changed() { tail -n +"$((n0 + 1))" "$T/agent.log" | grep -qF "warning cycle: git: fetch 'main' from $url: SSH host key $fp of '$host' refused: host key CHANGED, '$s/known_hosts' holds another key for this host"; }
check "changed host key: refused, logged with its fingerprint" wait_for 30 changed
check "changed host key: c3 not previewed" test -z "$(preview_of "$c3")"

# An unknown host is refused too, and tls.insecure does not change that.
cp "$s/known_hosts.unknown" "$s/known_hosts"
sed 's/^credentials:/tls: {insecure: true}\ncredentials:/' "$T/agent.ssh" >"$T/agent.yaml"
kill -HUP "$PID"
check "reloaded with tls.insecure" wait_for 20 grep -q "notice loop: configuration reloaded" "$T/agent.log"
n0=$(wc -l <"$T/agent.log")
unknown() { tail -n +"$((n0 + 1))" "$T/agent.log" | grep -qF "warning cycle: git: fetch 'main' from $url: SSH host key $fp of '$host' refused: UNKNOWN host, not in '$s/known_hosts'"; }
check "unknown host (tls.insecure on): refused, logged" wait_for 30 unknown
check "unknown host: c3 still not previewed" test -z "$(preview_of "$c3")"
check "agent alive after host key refusals" kill -0 "$PID"

# The right known_hosts again: c3 arrives without a restart.
cp "$s/known_hosts.good" "$s/known_hosts"
cp "$T/agent.ssh" "$T/agent.yaml"
kill -HUP "$PID"
check "c3 previewed once the host key is known" wait_for 60 has_preview "$c3"

# A wrong key: refused, logged, retried with a growing backoff.
cp "$s/id_other" "$T/creds/id_agent"
n0=$(wc -l <"$T/agent.log")
echo "# c4" >>"$T/work/clusters/t76/cluster.yaml"
c4=$(daemon_commit "t76: c4")
refusals() { tail -n +"$((n0 + 1))" "$T/agent.log" | grep -F "warning cycle: git: fetch 'main' from $url: authentication refused with repository.ssh-key-file 'id_agent' from the credentials folder, retrying in"; }
three() { [ "$(refusals | wc -l)" -ge 3 ]; }
check "wrong key: refused three times" wait_for 40 three
refusals >"$T/refusals.txt"
check_grep "wrong key: backoff 1s" "retrying in 1s$" "$T/refusals.txt"
check_grep "wrong key: backoff doubles to 2s" "retrying in 2s$" "$T/refusals.txt"
check "sshd: the wrong key was offered and refused" wait_for 20 \
	sshd_logged "Failed publickey" "$(ssh-keygen -lf "$s/id_other.pub" | awk '{print $2}')"
check "wrong key: c4 not previewed" test -z "$(preview_of "$c4")"
check "agent alive with a wrong key" kill -0 "$PID"
# The right key, but readable by its group (issue 14, defect 13): refused
# before libgit2 is given it, naming the file and its mode.
cp "$s/id_agent.good" "$T/creds/id_agent"
chmod 640 "$T/creds/id_agent"
n0=$(wc -l <"$T/agent.log")
open_key() { tail -n +"$((n0 + 1))" "$T/agent.log" | grep -qF "warning cycle: git: fetch 'main' from $url: repository.ssh-key-file '$T/creds/id_agent': mode 0640: its group can read it; a secret must be readable by its owner only (chmod 600 '$T/creds/id_agent'), retrying in"; }
check "key readable by its group: refused, logged" wait_for 40 open_key
check "key readable by its group: c4 not previewed" test -z "$(preview_of "$c4")"
chmod 600 "$T/creds/id_agent"
check "c4 previewed once the key is right" wait_for 60 has_preview "$c4"
check_nogrep "no private key material in the log" "PRIVATE KEY|$(sed -n 2p "$s/id_agent.good")" "$T/agent.log"
daemon_stop
check_eq "agent exits 0" 0 "$RC"
check_nogrep "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log"
done_testing

#!/usr/bin/env bash
# Only signed commits are applied (repository.verify, docs/policy.md
# "Signed commits only"). The daemon watches a real repository whose
# commits are signed by real git: with SSH keys made by ssh-keygen
# (gpg.format=ssh; alice trusted in the allowed signers file, eve not) and
# with OpenPGP keys made by gpg --quick-gen-key in temporary GNUPGHOMEs
# (gus in the keyring, xav not), and one unsigned. Each verdict is checked
# in the posted preview (plan.json, plan.md, signature.txt) and only the
# trusted commits' queues reach the brokers. An untrusted preview cannot
# be approved, and a later trusted commit supersedes it. Adding eve to the
# allowed signers and sending SIGHUP makes her commit pass (checked again
# at once); removing alice and reloading makes an approval of her earlier
# trusted preview refused at the apply. In mode since-applied, a commit by
# a trusted key is refused for an unsigned one before it since the
# applied revision.
#
# The daemon runs with its web server on, as in production: gpgme forks
# gpg from the daemon's thread while libmicrohttpd's threads run (a fork
# copies only the forking thread; agent/daemon/child.c). Clients ask for
# /readyz and the API without a pause all along, and the OpenPGP checks
# (c4, c5, each spawning gpg) must still end with their verdicts, the
# server answering in between.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t79-$$
daemon_setup t79
STATE=$T/state
kill_agents() {
	local h
	for h in gus xav; do
		[ -d "$T/$h" ] && gpgconf --homedir "$T/$h" --kill all 2>/dev/null
	done
	return 0
}
probers=()
stop_probers() {
	local p
	rm -f "$T/probing"
	for p in "${probers[@]}"; do wait "$p" 2>/dev/null; done
	probers=()
}
trap 'stop_probers; janitor "$u."; kill_agents; daemon_cleanup; _brokers_cleanup' EXIT
yaml=$T/work/clusters/t79/cluster.yaml
head_yaml=$(cat "$yaml")

# The keys: SSH ones by ssh-keygen, OpenPGP ones by gpg, no passphrase.
ssh-keygen -q -t ed25519 -N '' -C alice -f "$T/alice"
ssh-keygen -q -t ed25519 -N '' -C eve -f "$T/eve"
alice_fp=$(ssh-keygen -lf "$T/alice.pub" | cut -d' ' -f2)
eve_fp=$(ssh-keygen -lf "$T/eve.pub" | cut -d' ' -f2)
# a fingerprint as an extended regular expression (base64 holds '+')
re() { printf '%s' "$1" | sed 's/[].[\\*^$()+?{}|]/\\&/g'; }
alice_re=$(re "$alice_fp")
eve_re=$(re "$eve_fp")
signer() { echo "$1@example.com $(cut -d' ' -f1,2 "$T/$1.pub")"; }
signer alice >"$T/allowed_signers"
gpg_key() {
	mkdir -m 700 "$T/$1"
	GNUPGHOME=$T/$1 gpg --batch --passphrase '' --quick-gen-key "$2" ed25519 sign never 2>/dev/null
	GNUPGHOME=$T/$1 gpg --batch --with-colons --list-keys 2>/dev/null | awk -F: '/^fpr/{print $10; exit}'
}
gus_fpr=$(gpg_key gus 'Gus Signer <gus@example.com>')
xav_fpr=$(gpg_key xav 'Xavier Stranger <xav@example.com>')
GNUPGHOME=$T/gus gpg --batch --armor --export >"$T/keyring.asc"
check "the keys were made" test -n "$alice_fp" -a -n "$eve_fp" -a -n "$gus_fpr" -a -n "$xav_fpr"

python3 - "$T/agent.yaml" "$T" <<'PY'
import sys
p, t = sys.argv[1], sys.argv[2]
s = open(p).read().replace("  path: clusters\n", "  path: clusters\n"
    "  verify:\n    mode: head\n    allowed-signers: %s/allowed_signers\n"
    "    gpg-keyring: %s/keyring.asc\n" % (t, t))
open(p, "w").write(s)
PY
# the web server, with a viewer token for the API (a file of the
# credentials folder, mode 0600)
HP=$((${ARTEMIS_PORT_BASE:-100} + 520))
H=http://127.0.0.1:$HP
mkdir -m 700 "$T/creds"
for n in "${NODES[@]}"; do
	install -m 600 "${CRED[$n]}" "$T/creds/"
done
VT=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
(umask 077 && echo "$VT" >"$T/creds/vera.token")
sed -i "s|^credentials: .*|credentials: $T/creds|" "$T/agent.yaml"
cat >>"$T/agent.yaml" <<EOC
http:
  listen: 127.0.0.1:$HP
  viewer-tokens: [vera.token]
EOC
# probe ARGS...: while $T/probing exists, request again and again; one
# line per answer: the time (ns since the epoch) and the status (000: none
# within 5 s)
probe() {
	while [ -e "$T/probing" ]; do
		printf '%s %s\n' "$(date +%s%N)" \
			"$(curl -s -o /dev/null --max-time 5 -w '%{http_code}' "$@" || true)"
		sleep 0.05 # about 15 a second each: enough, and leaves the CPU to the test
	done
}

# commit HOW MSG [KEY [FPR]]: the working copy committed and pushed, signed
# as asked: ssh KEY (a key file of $T), gpg HOME FPR, none; prints its id.
queues() {
	printf '%s\naddresses:\n' "$head_yaml"
	for a in "$@"; do
		printf '  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' "$u.$a" "$u.$a"
	done
}
commit() {
	local how=$1 msg=$2
	shift 2 # the key: $1, and $2 for gpg
	git -C "$T/work" add -A
	case $how in
	ssh) git -C "$T/work" -c gpg.format=ssh -c user.signingkey="$T/$1" \
		-c user.name=Tester -c user.email=t@example.com commit -q -S -m "$msg" ;;
	gpg) GNUPGHOME=$T/$1 git -C "$T/work" -c gpg.format=openpgp -c user.signingkey="$2" \
		-c user.name=Tester -c user.email=t@example.com commit -q -S -m "$msg" ;;
	none) git -C "$T/work" -c user.name=Tester -c user.email=t@example.com \
		commit -q -m "$msg" ;;
	esac
	git -C "$T/work" push -q origin main
	git -C "$T/work" rev-parse HEAD
}
approve_preview() {
	"$AG_BIN" approve "$1" --confirm "$(rj "$1/plan.json" 'j["confirmation"]')" \
		--by tester --state "$STATE"
}
applied() { local d; d=$(preview_of "$1"); [ -n "$d" ] && [ -f "$d/result.json" ]; }
signed_file() { local d; d=$(preview_of "$1"); [ -n "$d" ] && [ -f "$d/signature.txt" ]; }
# check_untrusted LABEL C WORDS: commit C's preview is refused, and it says
# WORDS (a regular expression) after "commit C: " everywhere it names C.
check_untrusted() {
	local l=$1 c=$2 words=$3 d
	check "$l: a preview" wait_for 30 signed_file "$c"
	d=$(preview_of "$c")
	check_eq "$l: refused as UNTRUSTED_COMMIT" "REFUSED UNTRUSTED_COMMIT" \
		"$(rj "$d/plan.json" 'j["outcome"] + " " + j["refusal"]')"
	check_grep "$l: plan.json names the commit and why" "commit $c: $words" <(rj "$d/plan.json" 'j["message"]')
	check_grep "$l: plan.md says so" "Refused \(UNTRUSTED_COMMIT\):\*\* commit $c: $words" "$d/plan.md"
	check_grep "$l: signature.txt" "^REFUSED commit $c: $words" "$d/signature.txt"
	check "$l: no declaration posted" test ! -e "$d/declaration"
	check_grep "$l: logged at err" "err verify: cluster 't79': commit $c: $words.*: not applied" "$T/agent.log"
}

for n in "${NODES[@]}"; do
	check_eq "$n: a sentinel address" OK "$(jexec "$n" create-address "$u.sentinel" anycast)"
	check_eq "$n: a sentinel queue" OK "$(jexec "$n" create-queue "$u.sentinel" "$u.sentinel" anycast)"
done

# c1, by alice (SSH, trusted): planned, approved, applied.
queues a >"$yaml"
c1=$(commit ssh "t79: a" alice)
# the daemon's GnuPG home is made under $TMPDIR: a folder of the test's
mkdir "$T/tmp"
TMPDIR=$T/tmp daemon_start
check "the web server answers /healthz" wait_for 30 curl -sf "$H/healthz"
touch "$T/probing"
probe "$H/readyz" >"$T/probe-readyz.log" &
probers+=($!)
probe -H "Authorization: Bearer $VT" "$H/api/v1/clusters/t79" >"$T/probe-api.log" &
probers+=($!)
check "c1: a preview" wait_for 30 signed_file "$c1"
p1=$(preview_of "$c1")
check_grep "c1: signature.txt: trusted, by alice" \
	"^trusted commit $c1: good signature by alice@example.com \(ED25519 key $alice_re\)" "$p1/signature.txt"
check_eq "c1: planned" WOULD_APPLY "$(rj "$p1/plan.json" 'j["outcome"]')"
check "c1: approve" approve_preview "$p1"
check "c1: applied" wait_for 30 applied "$c1"
check_applied "c1: every node APPLIED" "$p1"

# c2 unsigned, c3 by eve (SSH, a stranger), c4 by xav (OpenPGP, a
# stranger): refused, each naming the commit, the key and why.
queues a b >"$yaml"
c2=$(commit none "t79: b, unsigned")
check_untrusted c2 "$c2" "unsigned"
p2=$(preview_of "$c2")
check_exit "c2: approve refuses a refused preview" 1 approve_preview "$p2"
check_grep "c2: approve says why" "the plan is refused \(UNTRUSTED_COMMIT" <(approve_preview "$p2" 2>&1)
echo "# b" >>"$yaml"
c3=$(commit ssh "t79: b, by eve" eve)
check_untrusted c3 "$c3" "signed by a key that is not trusted \(ED25519 key $eve_re\): No principal matched"
check "c3 supersedes c2's preview" test -e "$p2/superseded"
echo "# b again" >>"$yaml"
gpg_from=$(date +%s%N)
c4=$(commit gpg "t79: b, by xav" xav "$xav_fpr")
check_untrusted c4 "$c4" "signed by a key that is not trusted \(OpenPGP key $xav_fpr\): the keyring does not hold this key"
p4=$(preview_of "$c4")
for n in "${NODES[@]}"; do
	check_unlisted "$n: no untrusted commit's queue" "$n" queues "$u.b" "$u.sentinel"
done

# c5, by gus (OpenPGP, in the keyring): supersedes c4's refusal, applied.
queues a b >"$yaml"
c5=$(commit gpg "t79: b, by gus" gus "$gus_fpr")
check "c5: a preview" wait_for 30 signed_file "$c5"
gpg_to=$(date +%s%N)
p5=$(preview_of "$c5")
# the OpenPGP checks of c4 and c5 ran while the clients asked: answers
# (200) came in between, none went unanswered
answered() { awk -v a="$gpg_from" -v b="$gpg_to" '$1 >= a && $1 <= b && $2 == 200' "$1" | wc -l; }
echo "# during the OpenPGP checks of c4 and c5 ($(((gpg_to - gpg_from) / 1000000)) ms): /readyz answered 200 $(answered "$T/probe-readyz.log") times, the API $(answered "$T/probe-api.log") times"
check "while gpg checked c4 and c5: /readyz answered 200 (>= 5 times)" test "$(answered "$T/probe-readyz.log")" -ge 5
check "  and the API (>= 5 times)" test "$(answered "$T/probe-api.log")" -ge 5
# (/readyz may say 503 on a machine so slow that a cycle took longer than
# its window; an answer is what counts here, and the API's must be 200)
check_eq "  no request unanswered meanwhile, no API request refused" "" \
	"$({ awk '$2 == "000"' "$T/probe-readyz.log"; awk '$2 != 200' "$T/probe-api.log"; } | awk -v a="$gpg_from" -v b="$gpg_to" '$1 >= a && $1 <= b' | head -n 3)"
check_grep "c5: signature.txt: trusted, by gus" \
	"^trusted commit $c5: good signature by Gus Signer <gus@example.com> \(OpenPGP key $gus_fpr\)" "$p5/signature.txt"
check "c5 supersedes c4's preview" test -e "$p4/superseded"
check "c5: approve" approve_preview "$p5"
check "c5: applied" wait_for 30 applied "$c5"
for n in "${NODES[@]}"; do
	check_listed "$n: c5's queue" "$n" queues "$u.b"
done

# c6 by eve: refused; eve is added and the agent reloaded: c6 is checked
# again, previewed as trusted, approved and applied.
queues a b c >"$yaml"
c6=$(commit ssh "t79: c, by eve" eve)
check_untrusted c6 "$c6" "signed by a key that is not trusted \(ED25519 key $eve_re\)"
signer eve >>"$T/allowed_signers"
kill -HUP "$PID"
trusted_preview() { local d; d=$(preview_of "$1"); [ -n "$d" ] && grep -q '^trusted' "$d/signature.txt"; }
check "c6: after SIGHUP, a trusted preview" wait_for 30 trusted_preview "$c6"
check_grep "c6: the reload said so" "cluster 't79': what is trusted was reloaded: commit ${c6:0:12} is checked again" "$T/agent.log"
p6=$(preview_of "$c6")
check_grep "c6: by eve now" "^trusted commit $c6: good signature by eve@example.com" "$p6/signature.txt"
check "c6: approve" approve_preview "$p6"
check "c6: applied" wait_for 30 applied "$c6"
for n in "${NODES[@]}"; do
	check_listed "$n: c6's queue" "$n" queues "$u.c"
done

# c7 by alice, previewed as trusted; alice is removed and the agent
# reloaded before the approval: the apply refuses it.
queues a b c d >"$yaml"
c7=$(commit ssh "t79: d, by alice" alice)
check "c7: a trusted preview" wait_for 30 trusted_preview "$c7"
p7=$(preview_of "$c7")
signer eve >"$T/allowed_signers"
kill -HUP "$PID"
reloads() { [ "$(grep -c 'configuration reloaded' "$T/agent.log")" -ge "$1" ]; }
check "the second reload is done" wait_for 10 reloads 2
check_eq "one GnuPG home of the agent's, the reloaded one" 1 \
	"$(find "$T/tmp" -maxdepth 1 -name 'artemis-gitops-gnupg-*' | wc -l)"
check "c7: approve (as trusted when posted)" approve_preview "$p7"
check "c7: the approval is refused" wait_for 30 test -e "$p7/approval-refused.txt"
check_grep "c7: approval-refused.txt names the commit, the key and why" \
	"^commit $c7: signed by a key that is not trusted \(ED25519 key $alice_re\): No principal matched \(repository.verify.mode head\): an untrusted commit is never applied" \
	"$p7/approval-refused.txt"
check "c7: no result" test ! -e "$p7/result.json"
for n in "${NODES[@]}"; do
	check_unlisted "$n: c7's queue was not created" "$n" queues "$u.d" "$u.sentinel"
done

# since-applied (alice trusted again): the applied revision is c6's; c8
# is unsigned and c9, by eve, is refused for it, in c9's own preview.
signer alice >>"$T/allowed_signers"
sed -i 's/    mode: head/    mode: since-applied/' "$T/agent.yaml"
kill -HUP "$PID"
check "the third reload is done" wait_for 10 reloads 3
queues a b c e >"$yaml"
c8=$(commit none "t79: e, unsigned")
check_untrusted c8 "$c8" "unsigned"
echo "# e" >>"$yaml"
c9=$(commit ssh "t79: e, by eve" eve)
check "c9: a preview" wait_for 30 signed_file "$c9"
p9=$(preview_of "$c9")
check_grep "c9: refused for c8, unsigned, since the applied c6" \
	"commit $c8: unsigned; repository.verify.mode since-applied" <(rj "$p9/plan.json" 'j["message"]')
check_eq "c9: signature.txt: the verdict and the range" \
	"REFUSED commit $c8: unsigned|checked: 3 first-parent commits since the applied revision ${c6:0:12}" \
	"$(head -n 2 "$p9/signature.txt" | paste -sd '|')"
for n in "${NODES[@]}"; do
	check_unlisted "$n: c9's queue was not created" "$n" queues "$u.e" "$u.sentinel"
done

check "the daemon is still running" kill -0 "$PID"
stop_probers
check_eq "the clients' every request answered, start to end" "" \
	"$(cat "$T/probe-readyz.log" "$T/probe-api.log" | awk '$2 == "000"' | head -n 3)"
check_nogrep "no OpenPGP check timed out (signature not checked)" "signature not checked" "$T/agent.log"
daemon_stop
check_nogrep "no private key in the log" "PRIVATE KEY|BEGIN PGP|BEGIN SSH SIGNATURE" "$T/agent.log"
check_eq "its GnuPG homes were removed" "" "$(ls -A "$T/tmp")"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log" 'web server on'
done_testing

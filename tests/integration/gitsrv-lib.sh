# tests/integration/gitsrv-lib.sh: git servers on loopback for the
# 76-78 daemon tests (not a test itself). Source after daemon-lib.sh;
# everything lives under $T and is stopped by gitsrv_cleanup (chained into
# daemon_cleanup's EXIT trap by gitsrv_trap).
#
#   free_port                 a TCP port nothing listens on (127.0.0.1)
#   own_creds                 $T/creds: a copy of the suite's broker
#                             credentials, where the git secrets go too
#   sshd_start DIR            an sshd of our own on a free loopback port
#                             ($SSHD_PORT) with its host key DIR/host_ed25519
#                             and DIR/authorized_keys; logs to DIR/sshd.log
#   tls_ca NAME               a CA in $T/tls/NAME-ca.{pem,key}
#   tls_server CA             a localhost/127.0.0.1 certificate signed by CA
#                             ($T/tls/server.{pem,key})
#   githttp_start TOKENFILE   tests/tools/githttp.py serving $T over HTTPS
#                             ($HTTPS_PORT, log $T/githttp.log)

GITSRV_PIDS=()

gitsrv_trap() {
	trap 'gitsrv_cleanup; daemon_cleanup' EXIT
}

gitsrv_cleanup() {
	local p
	for p in "${GITSRV_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	GITSRV_PIDS=()
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

own_creds() {
	mkdir -p "$T/creds"
	chmod 700 "$T/creds"
	cp -p "$CREDS"/* "$T/creds/"
	sed -i "s|^credentials: .*|credentials: $T/creds|" "$T/agent.yaml"
}

sshd_start() {
	local dir=$1 user
	user=$(id -un)
	SSHD_PORT=$(free_port)
	[ -f "$dir/host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C t-host -f "$dir/host_ed25519"
	cat >"$dir/sshd_config" <<EOS
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $dir/host_ed25519
AuthorizedKeysFile $dir/authorized_keys
PidFile $dir/sshd.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowUsers $user
LogLevel VERBOSE
EOS
	# As root, sshd wants its privilege separation folder (the package's
	# unit creates it; nothing here starts that unit).
	[ "$(id -u)" -ne 0 ] || mkdir -p -m 755 /run/sshd
	/usr/sbin/sshd -D -e -f "$dir/sshd_config" 2>>"$dir/sshd.log" &
	GITSRV_PIDS+=($!)
	wait_for 10 python3 -c "import socket; socket.create_connection(('127.0.0.1', $SSHD_PORT), 1)"
}

tls_ca() {
	mkdir -p "$T/tls"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$T/tls/$1-ca.key" -out "$T/tls/$1-ca.pem" -days 2 \
		-subj "/CN=$1 test CA" 2>>"$T/tls/openssl.log"
}

tls_server() {
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$T/tls/server.key" -out "$T/tls/server.csr" \
		-subj "/CN=localhost" 2>>"$T/tls/openssl.log" &&
		printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$T/tls/server.ext" &&
		openssl x509 -req -in "$T/tls/server.csr" -CA "$T/tls/$1-ca.pem" \
			-CAkey "$T/tls/$1-ca.key" -CAcreateserial -days 2 \
			-extfile "$T/tls/server.ext" -out "$T/tls/server.pem" 2>>"$T/tls/openssl.log"
}

githttp_start() {
	rm -f "$T/githttp.port"
	python3 "$AG_TOP/tests/tools/githttp.py" "$T" "$T/tls/server.pem" \
		"$T/tls/server.key" "$1" "$T/githttp.port" "$T/githttp.log" \
		2>>"$T/githttp.err" &
	GITSRV_PIDS+=($!)
	wait_for 10 test -s "$T/githttp.port" && HTTPS_PORT=$(cat "$T/githttp.port")
}

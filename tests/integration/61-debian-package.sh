#!/usr/bin/env bash
# The Debian package (debian/, issue 23): built once with
# `dpkg-buildpackage -us -uc -b` out of a copy of the tree (make deb
# DEB_DIR=...), checked by lintian (no error; its warnings are listed in
# this log), installed with `apt-get install ./…deb`, looked at, and purged
# again. On install the service user is created and the unit enabled but
# not started (the configuration must be written first); the unit as
# installed is verified and rated by systemd-analyze. VERSION is the
# package's version, and debian/changelog has an entry for it.
#
# Installing is system-wide: one such test at a time on a machine (a lock
# in /run/lock), and a package left by an interrupted run is purged first.
# The user and /etc/artemis-gitops stay after a purge (Debian's rule for
# system users); the test removes them again when it created them.
. "$AG_TOP/tests/lib.sh"
cd "$AG_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$(cat VERSION)
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
apt_opts=(-y -q -o DPkg::Lock::Timeout=600)
export DEBIAN_FRONTEND=noninteractive

for c in dpkg-buildpackage dh lintian dpkg-parsechangelog systemd-analyze; do
	check "$c is installed" command -v "$c"
done
check_eq "debian/changelog's newest entry is VERSION" "$version" "$(dpkg-parsechangelog -l debian/changelog -S Version)"
check_grep "debian/control builds with debhelper 13" '^Build-Depends: debhelper-compat \(= 13\)' debian/control

# One build, out of a copy: the work tree stays as it was.
before=$(git status --porcelain 2>/dev/null | sort)
make -s deb DEB_DIR="$tmp/deb" >"$tmp/build.log" 2>&1
rc=$?
check_eq "dpkg-buildpackage -us -uc -b (make deb) exits 0" 0 "$rc"
[ "$rc" -eq 0 ] || tail -30 "$tmp/build.log" | sed 's/^/# /'
check_eq "the work tree is unchanged by the build" "$before" "$(git status --porcelain 2>/dev/null | sort)"
arch=$(dpkg --print-architecture)
deb=$tmp/deb/artemis-gitops_${version}_$arch.deb
changes=$tmp/deb/artemis-gitops_${version}_$arch.changes
check "the .deb is artemis-gitops_VERSION_ARCH.deb" test -f "$deb"
check_eq "the package's version is VERSION" "$version" "$(dpkg-deb -f "$deb" Version 2>&1)"

dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./||' >"$tmp/contents"
for f in usr/bin/artemis-gitops lib/systemd/system/artemis-gitops.service \
	usr/lib/sysusers.d/artemis-gitops.conf usr/lib/tmpfiles.d/artemis-gitops.conf \
	usr/share/man/man1/artemis-gitops.1.gz usr/share/man/man5/artemis-gitops.yaml.5.gz \
	usr/share/man/man5/artemis-gitops-declarations.5.gz \
	usr/share/bash-completion/completions/artemis-gitops \
	usr/share/zsh/vendor-completions/_artemis-gitops \
	usr/share/artemis-gitops/schema/declarations.schema.json \
	usr/share/doc/artemis-gitops/README.md usr/share/doc/artemis-gitops/systemd.md \
	usr/share/doc/artemis-gitops/examples/clusters/shop-eu/cluster.yaml \
	usr/share/doc/artemis-gitops/copyright usr/share/doc/artemis-gitops/changelog.gz; do
	check_grep "the package holds $f" "^${f//./\\.}\$" "$tmp/contents"
done

# The maintainer scripts: the user made, the unit enabled, never started.
mkdir -p "$tmp/ctl"
dpkg-deb -e "$deb" "$tmp/ctl"
check_grep "postinst creates the user (systemd-sysusers)" 'systemd-sysusers .*artemis-gitops\.conf' "$tmp/ctl/postinst"
check_grep "postinst enables the unit" "deb-systemd-helper enable 'artemis-gitops\.service'" "$tmp/ctl/postinst"
check_absent "postinst never starts the unit" 'deb-systemd-invoke (start|restart)' "$tmp/ctl/postinst" 'deb-systemd-helper enable'

lintian --tag-display-limit 0 "$changes" >"$tmp/lintian.log" 2>&1
rc=$?
grep -v 'running with root privileges' "$tmp/lintian.log" | sed 's/^/# lintian: /'
check_eq "lintian exits 0" 0 "$rc"
check_nogrep "lintian reports no error" '^E: ' "$tmp/lintian.log"
echo "# lintian warnings: $(grep -c '^W: ' "$tmp/lintian.log")"

# Install, look, purge: one at a time on this machine.
exec 9>/run/lock/artemis-gitops-deb-test.lock
flock -w 900 9 || not_ok "the package test's lock" "another run holds /run/lock/artemis-gitops-deb-test.lock"
had_user=0
getent passwd artemis-gitops >/dev/null && had_user=1
had_etc=0
[ -e /etc/artemis-gitops ] && had_etc=1
if dpkg-query -W -f='${Status}' artemis-gitops 2>/dev/null | grep -q 'installed'; then
	echo "# artemis-gitops was installed (an interrupted run?): purged first"
	$sudo apt-get purge "${apt_opts[@]}" artemis-gitops >>"$tmp/apt.log" 2>&1
fi
$sudo apt-get install "${apt_opts[@]}" "$deb" >"$tmp/apt.log" 2>&1
rc=$?
check_eq "apt-get install ./artemis-gitops_${version}_$arch.deb exits 0" 0 "$rc"
[ "$rc" -eq 0 ] || tail -20 "$tmp/apt.log" | sed 's/^/# /'
check_eq "artemis-gitops --version" "artemis-gitops $version" "$(/usr/bin/artemis-gitops --version 2>&1)"
check_grep "the service user exists" '^artemis-gitops:x:[0-9]+:[0-9]+:artemis-gitops agent:/var/lib/artemis-gitops:' <(getent passwd artemis-gitops)
check_eq "the unit is enabled" enabled "$(systemctl is-enabled artemis-gitops.service 2>&1)"
check "enabled for multi-user.target" test -L /etc/systemd/system/multi-user.target.wants/artemis-gitops.service
if [ -d /run/systemd/system ]; then
	check_eq "the unit is not started" inactive "$(systemctl is-active artemis-gitops.service 2>&1)"
else
	# no systemd here, so nothing could have started it; and no process
	# runs as the service's user
	check_fails "no process runs as artemis-gitops" pgrep -u artemis-gitops
fi
check_eq "the credentials folder is 0700 (tmpfiles)" 700 "$(stat -c %a /etc/artemis-gitops/credentials 2>&1)"
check "man finds artemis-gitops(1)" man -w artemis-gitops
check "man finds artemis-gitops.yaml(5)" man -w 5 artemis-gitops.yaml
check "the installed bash completion parses" bash -n /usr/share/bash-completion/completions/artemis-gitops
check "the installed schema is the tree's" cmp -s /usr/share/artemis-gitops/schema/declarations.schema.json schema/declarations.schema.json
check "the installed binary validates the installed examples" \
	/usr/bin/artemis-gitops validate /usr/share/doc/artemis-gitops/examples/clusters
unit=/lib/systemd/system/artemis-gitops.service
out=$(systemd-analyze verify "$unit" 2>&1)
check_eq "systemd-analyze verify on the installed unit prints nothing" "" "$out"
score=$(systemd-analyze security --offline=true "$unit" 2>&1 |
	sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
echo "# systemd-analyze security --offline=true $unit: ${score:-?}"
check "the installed unit rates 1.2 or lower (${score:-?})" awk -v s="${score:-9}" 'BEGIN { exit !(s <= 1.2) }'

$sudo apt-get purge "${apt_opts[@]}" artemis-gitops >>"$tmp/apt.log" 2>&1
check_eq "apt-get purge artemis-gitops exits 0" 0 "$?"
check_fails "the binary is gone" test -e /usr/bin/artemis-gitops
check_fails "the unit is gone" test -e "$unit"
check_fails "the enablement is gone" test -L /etc/systemd/system/multi-user.target.wants/artemis-gitops.service
check_fails "dpkg knows it no more" sh -c "dpkg-query -W -f='\${Status}' artemis-gitops 2>/dev/null | grep -q installed"
# leave the machine as it was
[ "$had_user" = 1 ] || $sudo userdel artemis-gitops 2>/dev/null
getent group artemis-gitops >/dev/null && [ "$had_user" = 0 ] && $sudo groupdel artemis-gitops 2>/dev/null
[ "$had_etc" = 1 ] || $sudo rm -rf /etc/artemis-gitops
flock -u 9
done_testing

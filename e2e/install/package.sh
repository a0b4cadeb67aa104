#!/usr/bin/env bash
# The release artefacts for real (`make dist`, scripts/dist.sh): the archive and the Debian
# package built from the release build, then the package installed, upgraded, removed and
# purged with dpkg on a machine without the Swift toolchain, systemd running the unit.
#
# The machine: a container booted by systemd-nspawn (systemd as its PID 1, in a network
# namespace of its own with only its loopback) on an overlay of this host's root with a
# tmpfs on top, so dpkg sees this host's installed libraries and writes only to the tmpfs:
# nothing of the host changes; what the host has of netquality itself is left out. In it the
# toolchain's directory is an empty tmpfs and every
# command runs with `env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin`. The host's enabled units are
# left out of the overlay (it would boot them all), and so is Docker's policy-rc.d, which
# forbids starting services and which a real host does not have.
#
# Checks: the package's Depends (dpkg-shlibdeps: libpcap, libsqlite3, zlib, no Swift), its
# conffiles and files, SHA256SUMS; in the container: no `swift` anywhere, `dpkg -i` creates the
# netquality user and starts the unit (enabled, active, running as that user), ldd shows no
# Swift library and nothing missing, /metrics answers with the package's version and the
# history written; an edited configuration survives the upgrade to a second build (its listen
# address in effect after the restart) and so does the history (the first run's ticks still
# there beside the new run's); `dpkg -r` stops the agent and keeps configuration, history and
# user; `dpkg -P` removes them all. The archive's binary runs there too (`--version`,
# `check-config` on its configuration).
#
#   e2e/install/package.sh      (root; skips with a reason otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
skip_without_namespaces "e2e package" "a network namespace, an overlay mount and systemd-nspawn"
scripts/bootstrap.sh dpkg-dev systemd-container iproute2 python3

loopback_namespace nqpkg
# A host's network interface: the shipped configuration captures on every interface that is up
# with an address (loopback aside). A veth pair inside the namespace, one end addressed.
ip -n "$namespace" link add nqpkg0 type veth peer name nqpkg1
ip -n "$namespace" addr add 10.208.0.1/24 dev nqpkg0
ip -n "$namespace" link set nqpkg0 up
ip -n "$namespace" link set nqpkg1 up
overlay=$work/overlay
root=$work/root
nspawn=""
init=""
# Down in order: the container (poweroff, then signals), the overlay, then what
# loopback_namespace made. A mount that will not go is detached (umount -l) before $work is
# removed, so the removal never reaches through it.
cleanup() {
  if [ -n "$nspawn" ] && alive "$nspawn"; then
    [ -n "$init" ] && nsenter -t "$init" -m -u -i -n -p systemctl poweroff >/dev/null 2>&1
    wait_exit 30 "$nspawn" || true
  fi
  stop_process "$nspawn"
  local mount
  for mount in "$root" "$overlay"; do
    mountpoint -q "$mount" && { umount "$mount" 2>/dev/null || umount -l "$mount"; }
  done
  loopback_namespace_cleanup
}
trap cleanup EXIT

# 1. The artefacts: `make dist`, then a second package of the same build one revision later
# (the upgrade). CI says when the release build is done: then no make plans it again.
make_dist() {
  run_for 900 make --no-print-directory ${NETQUALITY_INSTALL_BUILT:+-o install-build} "$@" \
    >"$work/dist.log" 2>&1 || { cat "$work/dist.log"; exit 1; }
}
make_dist dist DIST_DIR="$work/dist/1" DEB_REVISION=1
# The upgrade's package compressed with zstd, not the shipped xz: xz of the 182 MB binary is
# 113 CPU seconds (`dpkg-deb -Zxz`, 2 cores, quiet; zstd 1.4 s), and the first package already
# checks what ships. What the upgrade checks (conffiles, history, restart) is the same in
# either; dpkg reads zstd since 1.21.18 (Debian 12).
NETQUALITY_INSTALL_BUILT=1 DEB_COMPRESSION=zstd make_dist deb DIST_DIR="$work/dist/2" \
  DEB_REVISION=2
version=$(sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/NetQualityAgent/BuildInfo.swift)
arch=$(dpkg --print-architecture)
deb1=netquality_${version}-1_$arch.deb
deb2=netquality_${version}-2_$arch.deb
archive=netquality-$version-linux-$arch
size() { numfmt --to=iec --suffix=B "$(stat -c %s "$1")"; }
echo "     $deb1 $(size "$work/dist/1/$deb1"), $archive.tar.gz $(size "$work/dist/1/$archive.tar.gz")"

sums_match() {
  (cd "$work/dist/1" && [ "$(awk '{print $2}' SHA256SUMS | sort | tr '\n' ' ')" = "$archive.tar.gz $deb1 " ] &&
    sha256sum --quiet -c SHA256SUMS)
}
check "SHA256SUMS covers the archive and the package, and they match" sums_match
depends=$(dpkg-deb -f "$work/dist/1/$deb1" Depends)
echo "     Depends: $depends"
for library in 'libpcap0\.8(t64)?' 'libsqlite3-0' 'zlib1g'; do
  check "Depends names ${library//\\/}" grep -Eq "(^|, )$library( |,|$)" <<<"$depends"
done
check "Depends names nothing of Swift" test "${depends//swift/}" = "$depends"
check "the configuration is the package's only conffile" \
  test "$(dpkg-deb -I "$work/dist/1/$deb1" conffiles)" = /etc/netquality/netquality.yaml
dpkg-deb -c "$work/dist/1/$deb1" | awk '{print $6}' >"$work/contents"
for path in ./usr/bin/netquality ./lib/systemd/system/netquality.service \
  ./usr/share/netquality/docs/runbook.md ./usr/share/netquality/rules/netquality-agent-alerts.yml \
  ./usr/share/netquality/dashboards/netquality-agent.json ./usr/share/netquality/alertmanager.yml \
  ./usr/share/netquality/netquality.socket; do
  check "the package holds $path" grep -qx "$path" "$work/contents"
done
tar -tzf "$work/dist/1/$archive.tar.gz" >"$work/archive-contents"
check "the archive holds make install's tree under $archive/" \
  grep -qx "$archive/usr/local/bin/netquality" "$work/archive-contents"

# 2. The machine: this host's root under a tmpfs overlay, booted by systemd in the namespace.
mkdir -p "$overlay" "$root"
mount -t tmpfs nqpkg "$overlay"
mkdir -p "$overlay/upper" "$overlay/work"
mount -t overlay nqpkg -o "lowerdir=/,upperdir=$overlay/upper,workdir=$overlay/work" "$root"
rm -rf "$root"/etc/systemd/system/*.wants "$root/usr/sbin/policy-rc.d"
# A machine that never had netquality: whatever this host has of it (a developer's agent's
# history in /var/lib/netquality, a `make install`) is left out too. (systemd would also fail
# to move a /var/lib/netquality of the lower layer into private/ for the DynamicUser= unit: an
# overlay renames no lower directory.)
rm -rf "$root"/var/lib/netquality "$root"/var/lib/private/netquality "$root"/var/log/netquality \
  "$root"/var/log/private/netquality "$root"/etc/netquality "$root"/etc/systemd/system/netquality.service* \
  "$root"/usr/local/bin/netquality "$root"/usr/local/share/netquality
systemd-id128 new >"$root/etc/machine-id"
# The toolchain's directory (swift is TOOLCHAIN/usr/bin/swift), hidden under an empty tmpfs.
toolchain=$(command -v swift >/dev/null && dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")" || true)
hide=()
case $toolchain in
  "" | / | /usr | /usr/*) echo "     note: the toolchain ($toolchain) cannot be hidden; only PATH leaves it out" ;;
  *) hide=(--tmpfs="$toolchain") ;;
esac
spawn systemd-nspawn --quiet -D "$root" -M "$namespace" --register=no --keep-unit \
  --network-namespace-path="/run/netns/$namespace" "${hide[@]}" \
  --bind-ro="$work/dist:/srv/netquality-dist" -b --console=passive systemd.firstboot=off \
  >"$work/nspawn.log" 2>&1
nspawn=$!
container_init() { ps -o pid= --ppid "$nspawn" | head -1 | tr -d ' '; }
manager_up() {
  local pid state
  pid=$(container_init)
  [ -n "$pid" ] || return 1
  state=$(nsenter -t "$pid" -m -u -i -n -p systemctl is-system-running 2>/dev/null || true)
  [[ $state =~ ^(running|degraded)$ ]]
}
wait_until 60 "the container's systemd" manager_up || { cat "$work/nspawn.log"; exit 1; }
init=$(container_init)
# Every command in the container: a clean environment, the system's PATH only.
inside() { nsenter -t "$init" -m -u -i -n -p env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
# dpkg and its maintainer scripts with a deadline, no terminal to ask on.
dpkg_in() { run_for 120 nsenter -t "$init" -m -u -i -n -p env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive dpkg "$@" </dev/null >>"$work/dpkg.log" 2>&1; }
systemctl_in() { inside systemctl "$@"; }
property() { systemctl_in show -p "$1" --value netquality 2>/dev/null; }

no_swift() { ! inside sh -c 'command -v swift' >/dev/null; }
check "in the container: no swift on PATH" no_swift
[ ${#hide[@]} -eq 0 ] || check "in the container: the toolchain's directory $toolchain is empty" \
  test -z "$(inside ls -A "$toolchain")"
not_installed() { ! inside dpkg -s netquality >/dev/null 2>&1; }
check "in the container: netquality not installed yet" not_installed

# 3. Install.
check "dpkg -i $deb1" dpkg_in -i "/srv/netquality-dist/1/$deb1"
active() { [ "$(systemctl_in is-active netquality 2>/dev/null)" = active ]; }
check "postinst enabled the unit" test "$(systemctl_in is-enabled netquality 2>/dev/null)" = enabled
check "postinst started it: active" wait_until 30 "the service" active
if ! active; then
  cat "$work/dpkg.log"
  systemctl_in status netquality --no-pager 2>&1 | tail -20 || true
  inside journalctl -u netquality --no-pager -o cat 2>&1 | tail -20 || true
  exit 1
fi
uid=$(inside id -u netquality || echo none)
check "postinst made the system user netquality (uid $uid)" test "$uid" != none -a "$uid" != 0
main=$(property MainPID)
agent_uid() { inside awk '$1 == "Uid:" {print $2}' "/proc/$1/status"; }
check "the agent runs as netquality" test "$(agent_uid "$main")" = "$uid"
inside ldd /usr/bin/netquality >"$work/ldd.txt"
echo "     ldd: $(awk '{print $1}' "$work/ldd.txt" | sed 's/\.so.*//' | sort -u | tr '\n' ' ')"
check "ldd: no Swift library and nothing missing" \
  bash -c "! grep -Eq 'libswift|libFoundation|libdispatch|not found' '$work/ldd.txt'"
check "netquality --version with the system's PATH only" \
  test "$(inside netquality --version 2>&1)" = "$version"

metrics() {  # PORT: the agent's /metrics from the container's namespace
  in_ns python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode(), end="")' "$1"
}
value() { metrics "$1" | awk -v name="$2" '$1 == name {print $2}'; }
ticks_written() { [ "$(value "$1" netquality_storage_ticks_written_total)" -ge "$2" ] 2>/dev/null; }
check "/metrics on the shipped listen address: the history written (two ticks)" \
  wait_until 30 "two ticks written" ticks_written 9470 2
metrics 9470 >"$work/scrape.txt"
check "/metrics: netquality_build_info of version $version" \
  grep -q "^netquality_build_info{.*version=\"$version\"" "$work/scrape.txt"
check "/metrics: netquality_storage_healthy 1" test "$(value 9470 netquality_storage_healthy)" = 1
history_value() {  # SQL: one value from the agent's history
  inside python3 -c 'import sqlite3, sys; print(sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True).execute(sys.argv[2]).fetchone()[0])' \
    /var/lib/netquality/history.db "$1"
}
check "the history is in /var/lib/private/netquality, owned by netquality" \
  test "$(inside stat -c %u /var/lib/private/netquality/history.db)" = "$uid"

# 4. Upgrade to the second build with an edited configuration and a history.
inside sed -i 's|^listen: "127.0.0.1:9470"|listen: "127.0.0.1:19476"|' /etc/netquality/netquality.yaml
echo "# edited by e2e/install/package.sh" | inside tee -a /etc/netquality/netquality.yaml >/dev/null
inside cat /etc/netquality/netquality.yaml >"$work/edited.yaml"
first_ticks=$(history_value "SELECT count(*) FROM ticks WHERE run_id = (SELECT min(id) FROM runs)")
check "dpkg -i $deb2 (the upgrade)" dpkg_in -i "/srv/netquality-dist/2/$deb2"
check "the package is at ${version}-2" \
  test "$(inside dpkg-query -W -f='${Version}' netquality)" = "${version}-2"
config_kept() { inside cat /etc/netquality/netquality.yaml | cmp -s - "$work/edited.yaml"; }
check "the edited configuration is kept" config_kept
check "and dpkg put nothing beside it" test -z "$(inside find /etc/netquality -name '*.dpkg-*')"
restarted() { active && [ "$(property MainPID)" != "$main" ] && [ "$(property MainPID)" != 0 ]; }
check "the agent was restarted on the new binary" wait_until 30 "a new main process" restarted
check "the edited listen address is in effect: /metrics on 127.0.0.1:19476" \
  wait_until 30 "/metrics on 19476" ticks_written 19476 1
not_answering() { ! metrics "$1" >/dev/null 2>&1; }
check "and the shipped one no longer answers" not_answering 9470
two_runs() { [ "$(history_value "SELECT count(*) FROM runs")" -ge 2 ]; }
check "the history is kept: a second run beside the first" wait_until 30 "the second run" two_runs
check "and the first run's $first_ticks ticks are still there" \
  test "$(history_value "SELECT count(*) FROM ticks WHERE run_id = (SELECT min(id) FROM runs)")" -ge "$first_ticks"

# 5. Remove, then purge.
check "dpkg -r netquality" dpkg_in -r netquality
stopped() { ! active; }
check "the agent is stopped" stopped
gone() { inside sh -c 'for path; do [ ! -e "$path" ] && [ ! -L "$path" ] || exit 1; done' sh "$@"; }
check "the binary and the unit are gone" gone /usr/bin/netquality /lib/systemd/system/netquality.service
check "the configuration is kept" config_kept
check "the history is kept" inside test -s /var/lib/private/netquality/history.db
user_kept() { inside getent passwd netquality >/dev/null; }
check "the user is kept" user_kept
check "dpkg says config-files" test "$(inside dpkg-query -W -f='${db:Status-Abbrev}' netquality)" = "rc "
check "dpkg -P netquality" dpkg_in -P netquality
check "purge: /etc/netquality, the history and the logs directory are gone" gone /etc/netquality \
  /var/lib/netquality /var/lib/private/netquality /var/log/netquality /var/log/private/netquality
no_user() { ! inside sh -c 'getent passwd netquality || getent group netquality' >/dev/null; }
check "purge: the user and group are gone" no_user
check "purge: dpkg knows nothing of netquality" not_installed
traces() {
  inside find /etc/systemd /var/lib/systemd/deb-systemd-helper-enabled \
    /var/lib/systemd/deb-systemd-helper-masked -name 'netquality*' 2>/dev/null || true
}
check "purge: no unit, link or deb-systemd-helper record left$(traces | sed 's/^/ /' | tr -d '\n')" \
  test -z "$(traces)"

# 6. The archive's binary on the same machine.
inside mkdir -p /var/tmp/archive
inside tar -xzf "/srv/netquality-dist/1/$archive.tar.gz" -C /var/tmp/archive
unpacked=/var/tmp/archive/$archive
check "the archive's binary: --version with the system's PATH only" \
  test "$(inside "$unpacked/usr/local/bin/netquality" --version 2>&1)" = "$version"
check "the archive's binary: check-config on the archive's configuration" \
  inside "$unpacked/usr/local/bin/netquality" check-config "$unpacked/etc/netquality/netquality.yaml"

if [ "$failures" -ne 0 ]; then
  echo "dpkg:"; tail -30 "$work/dpkg.log"
  echo "the agent's journal:"; inside journalctl -u netquality --no-pager -o cat 2>&1 | tail -30 || true
  exit 1
fi
echo "all package checks passed"

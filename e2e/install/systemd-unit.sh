#!/usr/bin/env bash
# The systemd unit for real: `make install` into a staging root, then a container booted by
# systemd-nspawn (systemd as its PID 1, this host's /usr, a fresh /etc and /var) with the
# installed binary, configuration and unit bound in, placed in the receiver's network
# namespace of a GStreamer call. systemd starts the agent under every restriction of
# config/netquality.service; checks: the service is active, runs as a dynamic (non-root) user
# with exactly CAP_NET_RAW and CAP_NET_ADMIN (effective, permitted, ambient, bounding),
# no_new_privs and a seccomp filter; it captures the call (the peer connected, packets
# counted), writes its history to the state directory and its dashboard to the logs
# directory; `systemctl reload` reloads it; `systemctl stop` stops it cleanly.
#
#   e2e/install/systemd-unit.sh      (root; skips with a reason otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."

source e2e/lib.sh
skip_without_namespaces "e2e systemd unit" "network namespaces, systemd-nspawn and live capture"
scripts/bootstrap.sh systemd-container gstreamer1.0-tools gstreamer1.0-plugins-base \
  gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly iproute2 python3

tag=nqsd$$
subnet=10.207.0
source e2e/netns.sh
peer=$subnet.1

# The container joins the receiver's namespace. nspawn would give it a sysfs of this host's
# namespace (the agent reads link state there), so it gets one mounted from the receiver's.
sysfs=$(mktemp -d)
trap 'cleanup; umount "$sysfs" 2>/dev/null || true; rmdir "$sysfs"' EXIT
nsenter --net="/run/netns/$receiver" mount -t sysfs "$tag" "$sysfs"

# The installed tree, as `make install` makes it (its release build is in .build-install, made
# by the install stage before this one).
root=$work/root
# (CI says when that build is done: `-o install-build` skips SwiftPM's planning of nothing.)
run_for 900 make --no-print-directory ${NETQUALITY_INSTALL_BUILT:+-o install-build} install \
  DESTDIR="$root" >/dev/null
cat >"$root/etc/netquality/netquality.yaml" <<YAML
interfaces: [${tag}vb]
local_networks: [$subnet.2/32]
listen: "127.0.0.1:19473"
dashboard_file: /var/log/netquality/dashboard.txt
YAML


# The container: no machined or bus here (--register=no --keep-unit); CAP_NET_ADMIN kept (nspawn
# drops it unless it makes the network namespace itself); firstboot off, as a fresh /etc would
# otherwise make it ask for a locale on the console. /usr is this host's, read-only, so the
# installed /usr/local directories are bound over its own. systemd-networkd-wait-online is masked:
# nothing configures this namespace's links through networkd, so it would hold
# network-online.target (which the unit wants) for its 2-minute timeout.
spawn systemd-nspawn --quiet -D / --volatile=yes -M "$tag" --register=no --keep-unit \
  --network-namespace-path="/run/netns/$receiver" --capability=CAP_NET_ADMIN --bind-ro="$sysfs:/sys" \
  --bind-ro="$root/usr/local/bin:/usr/local/bin" --bind-ro="$root/usr/local/share:/usr/local/share" \
  --bind-ro="$root/etc/netquality:/etc/netquality" \
  --bind-ro="$root/etc/systemd/system/netquality.service:/etc/systemd/system/netquality.service" \
  --bind-ro=/dev/null:/etc/systemd/system/systemd-networkd-wait-online.service \
  -b --console=passive systemd.firstboot=off >"$work/nspawn.log" 2>&1
nspawn=$!
pids+=($nspawn)

container_init() { ps -o pid= --ppid "$nspawn" | head -1 | tr -d ' '; }
manager_up() {  # systemd answers (booting, running or degraded)
  local init state
  init=$(container_init)
  [ -n "$init" ] || return 1
  state=$(nsenter -t "$init" -m -u -i -n -p systemctl is-system-running 2>/dev/null || true)
  [[ $state =~ ^(starting|running|degraded)$ ]]
}
wait_until 60 "the container's systemd" manager_up \
  || { cat "$work/nspawn.log"; exit 1; }
init=$(container_init)
inside() { nsenter -t "$init" -m -u -i -n -p "$@"; }
systemctl_in() { inside systemctl "$@"; }

spawn_call_receiver "$work/receiver.log"
pids+=($!)
spawn_call_sender "$work/sender.log"
pids+=($!)

run_for 60 nsenter -t "$init" -m -u -i -n -p systemctl enable --now netquality 2>/dev/null || true
active() { [ "$(systemctl_in is-active netquality 2>/dev/null)" = active ]; }
check "systemctl enable --now: systemd (the container's PID 1) runs netquality.service" \
  wait_until 30 "the service" active
if ! active; then
  systemctl_in status netquality --no-pager 2>&1 | tail -20 || true
  inside journalctl -u netquality --no-pager 2>&1 | tail -20 || true
  exit 1
fi
main=$(systemctl_in show -p MainPID --value netquality)
status=$(inside cat "/proc/$main/status")
field() { awk -v key="$1:" '$1 == key {print $2}' <<<"$status"; }
echo "     agent: pid $main, uid $(field Uid), CapEff $(field CapEff), CapBnd $(field CapBnd), CapAmb $(field CapAmb)"
# CAP_NET_ADMIN is bit 12 and CAP_NET_RAW bit 13 (linux/capability.h): 0x3000.
check "a dynamic user, not root (uid $(field Uid))" [ "$(field Uid)" -ne 0 ]
for set in CapEff CapPrm CapAmb CapBnd; do
  check "$set is CAP_NET_RAW and CAP_NET_ADMIN only ($(field "$set"))" [ "$(field "$set")" = 0000000000003000 ]
done
check "no_new_privs" [ "$(field NoNewPrivs)" = 1 ]
check "a seccomp filter (mode 2)" [ "$(field Seccomp)" = 2 ]

metrics() { ip netns exec "$receiver" python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:19473/metrics", timeout=5).read().decode(), end="")'; }
value() { metrics | awk -v name="$1" '$1 == name {print $2}'; }
connected() { [ "$(value "netquality_peer_connection_state{peer=\"$peer\",state=\"connected\"}")" = 1 ]; }
check "it captures the call: $peer connected" wait_until 30 "$peer connected" connected
echo "     received packets from $peer: $(value "netquality_peer_received_packets_total{peer=\"$peer\"}")"
written() { [ "$(value netquality_storage_ticks_written_total)" -ge 2 ]; }
check "the history is written to the state directory" wait_until 20 "two ticks written" written
check "history.db is in /var/lib/private/netquality, the agent's" \
  inside test -s /var/lib/private/netquality/history.db
check "the dashboard file is written to the logs directory" \
  inside grep -q "^PEER" /var/log/private/netquality/dashboard.txt
check "netquality_storage_healthy is 1" [ "$(value netquality_storage_healthy)" = 1 ]

systemctl_in reload netquality
reloaded() { inside journalctl -u netquality --no-pager | grep -q "reloaded /etc/netquality/netquality.yaml"; }
check "systemctl reload re-reads the configuration (SIGHUP)" wait_until 10 "the reload line" reloaded

warnings=$(inside journalctl -u netquality -p warning -q --no-pager -o cat 2>/dev/null || true)
check "no warning or error in the agent's journal${warnings:+: $warnings}" [ -z "$warnings" ]

systemctl_in stop netquality
check "systemctl stop: inactive, exited on its own (Result=success)" \
  [ "$(systemctl_in show -p Result --value netquality)" = success ]
check "and nothing was killed" \
  bash -c "! nsenter -t $init -m -u -i -n -p journalctl -u netquality --no-pager | grep -qi 'killing\|SIGKILL'"

if [ "$failures" -ne 0 ]; then
  inside journalctl -u netquality --no-pager 2>&1 | tail -30 || true
  exit 1
fi
echo "all systemd unit checks passed"

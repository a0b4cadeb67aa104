#!/usr/bin/env bash
# `make install` and `make uninstall` into temporary roots (DESTDIR, PREFIX), and the systemd
# unit checked by systemd-analyze: files where docs/install.md says, the installed binary
# self-contained (no Swift toolchain needed) and running `--version` and `check-config` on the
# installed configuration, an edited configuration never overwritten, the unit's paths
# following PREFIX, `systemd-analyze verify` silent on it (and not on a broken copy: the check
# can fail), uninstall removing all but the configuration. The release build is made once, in
# .build-install (about 4 minutes on 2 cores); e2e/install/systemd-unit.sh installs it again.
#
#   scripts/check-install.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source e2e/lib.sh
scripts/bootstrap.sh systemd

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# CI builds the release binary in the background first (`make install-build`) and says when it
# is done: then no install plans the build again.
install_into() {
  run_for 900 make --no-print-directory ${NETQUALITY_INSTALL_BUILT:+-o install-build} install "$@"
}
# The installs after the first: the same files from the same build, without SwiftPM's planning
# of a build with nothing to do (about 20 s of CPU each on a slow machine).
reinstall_into() { run_for 900 make --no-print-directory -o install-build install "$@"; }

# 1. The default layout under DESTDIR.
root=$work/root
install_into DESTDIR="$root" >"$work/install.log" 2>&1 || { tail -20 "$work/install.log"; exit 1; }
mode() { stat -c %a "$1"; }
check "binary /usr/local/bin/netquality, mode 755" [ "$(mode "$root/usr/local/bin/netquality")" = 755 ]
check "configuration /etc/netquality/netquality.yaml, the shipped example" \
  cmp -s config/netquality.yaml "$root/etc/netquality/netquality.yaml"
check "unit /etc/systemd/system/netquality.service, mode 644" \
  [ "$(mode "$root/etc/systemd/system/netquality.service")" = 644 ]
check "the unit as shipped (default paths)" \
  cmp -s config/netquality.service "$root/etc/systemd/system/netquality.service"
share=$root/usr/local/share/netquality
for file in docs/*.md; do
  check "$file in /usr/local/share/netquality/docs" cmp -s "$file" "$share/docs/$(basename "$file")"
done
for file in config/rules/*.yml config/prometheus.yml config/alertmanager.yml config/netquality.socket \
  dashboards/*.json; do
  [ -e "$file" ] || continue
  case $file in
    config/rules/*) to=rules ;;
    dashboards/*) to=dashboards ;;
    *) to=. ;;
  esac
  check "$file in /usr/local/share/netquality/$to" cmp -s "$file" "$share/$to/$(basename "$file")"
done

# 2. The installed binary on its own.
binary=$root/usr/local/bin/netquality
check "the binary needs no Swift toolchain (runtime linked in)" \
  bash -c "! ldd '$binary' | grep -q 'libswift\|libFoundation'"
version=$("$binary" --version)
check "installed binary: --version ($version)" [ -n "$version" ]
check "installed binary: check-config on the installed configuration" \
  "$binary" check-config "$root/etc/netquality/netquality.yaml"

# 3. Installing again keeps an edited configuration.
echo "tick_interval: 1" >>"$root/etc/netquality/netquality.yaml"
cp "$root/etc/netquality/netquality.yaml" "$work/edited.yaml"
reinstall_into DESTDIR="$root" >"$work/install2.log" 2>&1
check "a second install keeps the edited configuration" \
  cmp -s "$work/edited.yaml" "$root/etc/netquality/netquality.yaml"
check "and puts the shipped one beside it as .new" \
  cmp -s config/netquality.yaml "$root/etc/netquality/netquality.yaml.new"
check "and says so" grep -q "^kept $root/etc/netquality/netquality.yaml" "$work/install2.log"

# 4. PREFIX and SYSCONFDIR reach the unit; systemd-analyze verify is silent on it (the paths
# it names exist, so it can check them).
prefixed=$work/prefixed
reinstall_into PREFIX="$prefixed/opt/nq" SYSCONFDIR="$prefixed/etc" \
  UNITDIR="$prefixed/etc/systemd/system" RUNBOOK_URL=https://wiki.example.net/nq/runbook \
  >"$work/install3.log" 2>&1
unit=$prefixed/etc/systemd/system/netquality.service
check "ExecStart follows PREFIX and SYSCONFDIR" grep -qx \
  "ExecStart=$prefixed/opt/nq/bin/netquality run --config $prefixed/etc/netquality/netquality.yaml" \
  "$unit"
# verify also loads the units ours is wanted by, and says what it thinks of theirs (Debian's
# irtt.service, installed by an earlier stage: "Special user nobody configured"): those lines
# are shown, not counted; any line about our unit is a failure.
verify() {  # stderr of systemd-analyze verify into $work/verify.err; true on exit 0 with no line about $1
  systemd-analyze verify --man=no "$1" 2>"$work/verify.err" >/dev/null &&
    ! grep -q -e "$1" -e "netquality" "$work/verify.err"
}
# By default the runbook is each agent's own page (the shipped files, compared above);
# RUNBOOK_URL writes another into the installed rules and configuration.
runbook=https://wiki.example.net/nq/runbook
check "RUNBOOK_URL reaches the installed rules' runbook_url" grep -q \
  "runbook_url: '$runbook#peer_disconnected'" "$prefixed/opt/nq/share/netquality/rules/netquality-agent-alerts.yml"
check "and the installed configuration's alerts.runbook_url" grep -q \
  "runbook_url: \"$runbook\"" "$prefixed/etc/netquality/netquality.yaml"
check "systemd-analyze verify --man=no says nothing about the unit" verify "$unit"
[ -s "$work/verify.err" ] && sed 's/^/     other units: /' "$work/verify.err"
mkdir -p "$work/broken"
sed 's/^ProtectSystem=strict/ProtectSystem=strict\nProtectSystm=yes/' "$unit" >"$work/broken/netquality.service"
check "(the check can fail: verify complains about a misspelt key)" \
  bash -c "! systemd-analyze verify --man=no '$work/broken/netquality.service' 2>/dev/null >/dev/null; \
    systemd-analyze verify --man=no '$work/broken/netquality.service' 2>&1 | grep -q ProtectSystm"
echo "     $(systemd-analyze security --offline=yes "$unit" 2>/dev/null | grep 'Overall exposure' || true)"

# 5. Uninstall.
make --no-print-directory uninstall DESTDIR="$root" >"$work/uninstall.log"
check "uninstall removes the binary, the unit and /usr/local/share/netquality" \
  bash -c "[ ! -e '$binary' ] && [ ! -e '$root/etc/systemd/system/netquality.service' ] && [ ! -e '$share' ]"
check "and keeps the configuration" cmp -s "$work/edited.yaml" "$root/etc/netquality/netquality.yaml"

if [ "$failures" -ne 0 ]; then exit 1; fi
echo "all install checks passed"

#!/usr/bin/env bash
# Installs what netquality needs on Debian/Ubuntu, and only what is missing:
# libpcap-dev, libsqlite3-dev (the history, through GRDB), zlib1g-dev (gzip-encoded scrapes)
# and pkg-config, plus any Debian
# packages named as arguments (tests pass tshark, tmux, ...). Swift itself (6.1 or later) must
# already be on PATH.
set -euo pipefail

if ! command -v swift >/dev/null 2>&1; then
  echo "netquality: error: Swift 6.1 or later is needed on PATH (https://www.swift.org/install/linux/)" >&2
  exit 1
fi

find_missing() {
  missing=()
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
  [ -e /usr/include/pcap/pcap.h ] || missing+=(libpcap-dev)
  [ -e /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
  [ -e /usr/include/zlib.h ] || missing+=(zlib1g-dev)
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
}
find_missing "$@"
[ ${#missing[@]} -eq 0 ] && exit 0

# One installer at a time: CI's lanes bootstrap at once on a fresh machine, and `apt-get
# update`'s lock on its lists is not one that DPkg::Lock::Timeout waits for (a clean-clone run
# had two stages fail at once on "Could not get lock /var/lib/apt/lists/lock"). Whatever the
# others installed meanwhile is not installed again.
lock=${TMPDIR:-/tmp}/netquality-bootstrap.lock
exec 9>>"$lock"
if ! flock -w 900 9; then
  echo "netquality: error: another install held $lock for 900 s; missing ${missing[*]}" >&2
  exit 1
fi
find_missing "$@"
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "netquality: error: missing ${missing[*]} and no apt-get to install them; install them by hand" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "netquality: error: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "netquality: installing ${missing[*]} with apt-get" >&2
$sudo apt-get update -qq -o DPkg::Lock::Timeout=300
# Another apt (unattended upgrades, a parallel job) may hold the dpkg lock: wait for it, bounded.
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
  -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null

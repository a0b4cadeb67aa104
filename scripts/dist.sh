#!/usr/bin/env bash
# The release artefacts (`make dist`, `make deb`; docs/install.md), made from the release build
# `make install` installs (.build-install: the Swift runtime linked in statically) and laid out
# by `make install` itself, so the archive, the package and an install from source never
# differ in what goes where:
#   archive  netquality-VERSION-linux-ARCH.tar.gz: one directory holding `make install`'s tree
#            for the default PREFIX (/usr/local: the binary, /etc/netquality/netquality.yaml,
#            the unit in /etc/systemd/system, docs, rules and dashboards in
#            /usr/local/share/netquality);
#   deb      netquality_DEB_VERSION_ARCH.deb built by dpkg-deb: `make install` with PREFIX=/usr
#            and the unit in /lib/systemd/system, every file under /etc a conffile, Depends from
#            dpkg-shlibdeps (the runtime libraries the binary links), the maintainer scripts of
#            packaging/deb;
# and SHA256SUMS over what it made, in DIST_DIR. Only for this machine's architecture.
#
#   VERSION=0.2.0 DEB_VERSION=0.2.0-1 DIST_DIR=dist scripts/dist.sh archive deb
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VERSION:?}" "${DEB_VERSION:?}" "${DIST_DIR:?}"
# The make running this passes its command line's variables down (MAKEFLAGS): the layouts below
# must be exactly these, whatever `make dist` was given.
unset MAKEFLAGS MFLAGS MAKELEVEL

die() { echo "netquality: error: $*" >&2; exit 1; }
command -v dpkg >/dev/null || die "make dist needs dpkg (Debian or Ubuntu)"
arch=$(dpkg --print-architecture)
mkdir -p "$DIST_DIR"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
made=()

install_into() {  # ROOT, then make install's variables
  local root=$1
  shift
  make --no-print-directory -o install-build install CONFIGURATION=release DESTDIR="$root" "$@" \
    >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; die "make install into $root failed"; }
}

archive() {
  local name=netquality-$VERSION-linux-$arch
  install_into "$work/$name" PREFIX=/usr/local SYSCONFDIR=/etc UNITDIR=/etc/systemd/system
  tar -C "$work" --owner=0 --group=0 --numeric-owner --sort=name -czf "$DIST_DIR/$name.tar.gz" "$name"
  made+=("$name.tar.gz")
}

deb() {
  local root=$work/deb file=netquality_${DEB_VERSION}_$arch.deb depends
  install_into "$root" PREFIX=/usr SYSCONFDIR=/etc UNITDIR=/lib/systemd/system
  # dpkg-shlibdeps reads a source package's debian/control: a minimal one of its own.
  mkdir -p "$work/shlibs/debian"
  printf 'Source: netquality\n\nPackage: netquality\nArchitecture: any\n' >"$work/shlibs/debian/control"
  depends=$(cd "$work/shlibs" && dpkg-shlibdeps -O -e"$root/usr/bin/netquality" 2>"$work/shlibs.err" |
    sed -n 's/^shlibs:Depends=//p') || true
  [ -n "$depends" ] || { cat "$work/shlibs.err" >&2; die "dpkg-shlibdeps found no dependencies"; }
  install -d "$root/DEBIAN"
  install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm "$root/DEBIAN/"
  # Every file under /etc is the administrator's: kept on upgrade, removed on purge.
  (cd "$root" && find etc -type f | sort | sed 's|^|/|') >"$root/DEBIAN/conffiles"
  cat >"$root/DEBIAN/control" <<CONTROL
Package: netquality
Version: $DEB_VERSION
Architecture: $arch
Maintainer: ${DEB_MAINTAINER:-NetQuality maintainers <netquality@localhost>}
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: net
Priority: optional
Description: network quality agent for media servers (RTP/RTCP, STAMP probes)
 netquality watches real RTP/RTCP traffic with libpcap and sends STAMP probes,
 scores each peer's uplink and downlink every 2 s on the RTC SDKs' 0-6 scale,
 tracks connection states, raises alerts and publishes Prometheus metrics, a
 status page and a SQLite history.
 .
 The netquality.service unit runs it as the netquality system user with
 CAP_NET_RAW and CAP_NET_ADMIN only; /etc/netquality/netquality.yaml is its
 configuration.
CONTROL
  dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$root" "$DIST_DIR/$file" >/dev/null
  made+=("$file")
}

for what in "$@"; do
  case $what in
    archive | deb) "$what" ;;
    *) die "unknown artefact $what (archive, deb)" ;;
  esac
done
(cd "$DIST_DIR" && sha256sum -- "${made[@]}" >SHA256SUMS)
for file in "${made[@]}" SHA256SUMS; do echo "$DIST_DIR/$file"; done

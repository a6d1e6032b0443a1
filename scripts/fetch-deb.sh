#!/usr/bin/env bash
# fetch-deb.sh TOOLS PKG=VERSION BINARY: unpack a pinned Debian package into
# TOOLS/deb and link its binary into TOOLS/bin, without installing it on the
# system, so benchmarks use the same peer version on every machine.
set -euo pipefail
tools=$1 spec=$2 bin=$3
mkdir -p "$tools/deb" "$tools/bin" "$tools/debs"
cd "$tools/debs"
if ! ls "${spec%%=*}"_*.deb >/dev/null 2>&1; then
  apt-get download "$spec" 2>/dev/null || { apt-get update -qq && apt-get download "$spec"; }
fi
dpkg -x "${spec%%=*}"_*.deb "$tools/deb"
ln -sf "$tools/deb/usr/bin/$bin" "$tools/bin/$bin"
"$tools/bin/$bin" --version | head -1

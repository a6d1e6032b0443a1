#!/usr/bin/env bash
# fetch-deb.sh TOOLS PKG=VERSION BINARY [LIBPKG=VERSION...]: unpack a pinned
# Debian package into TOOLS/deb and link its binary into TOOLS/bin, without
# installing it on the system, so benchmarks and tests use the same peer
# version on every machine. Library packages the binary needs and a
# system may lack (LIBPKG) are unpacked beside it, and TOOLS/bin/BINARY is
# then a wrapper that puts their directory on LD_LIBRARY_PATH.
set -euo pipefail
tools=$1 spec=$2 bin=$3
shift 3
mkdir -p "$tools/deb" "$tools/bin" "$tools/debs"
cd "$tools/debs"
for s in "$spec" "$@"; do
  if ! ls "${s%%=*}"_*.deb >/dev/null 2>&1; then
    apt-get download "$s" 2>/dev/null || { apt-get update -qq && apt-get download "$s"; }
  fi
  dpkg -x "${s%%=*}"_*.deb "$tools/deb"
done
if [ $# -eq 0 ]; then
  ln -sf "$tools/deb/usr/bin/$bin" "$tools/bin/$bin"
else
  rm -f "$tools/bin/$bin"
  arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo "$(uname -m)-linux-gnu")
  # Found from the wrapper's own place, so that TOOLS may be moved or
  # reached through a link.
  printf '#!/bin/sh\nd=$(dirname "$(readlink -f "$0")")/../deb\nLD_LIBRARY_PATH="$d/usr/lib/%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/usr/bin/%s" "$@"\n' "$arch" "$bin" > "$tools/bin/$bin"
  chmod +x "$tools/bin/$bin"
fi
"$tools/bin/$bin" --version | sed -n 1p # reads it all: no SIGPIPE under pipefail

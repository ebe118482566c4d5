#!/usr/bin/env bash
# Installs what ReactorLog needs beyond the Swift toolchain: Debian's liblmdb-dev.
set -euo pipefail
if pkg-config --exists lmdb 2>/dev/null && [ -f /usr/include/lmdb.h ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
echo "Installing liblmdb-dev (LMDB headers and library)..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq liblmdb-dev pkg-config >/dev/null

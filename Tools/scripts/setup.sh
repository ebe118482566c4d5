#!/usr/bin/env bash
# Installs what ReactorLog needs beyond the Swift toolchain: Debian's liblmdb-dev (the log) and
# libsqlite3-dev (SQLite, the benchmark's peer, through GRDB); and Python's lmdb package, with which
# Tools/scripts/read-log.py reads a log by docs/FORMAT.md alone (the tests run it).
set -euo pipefail
if command -v python3 >/dev/null && ! python3 -c "import lmdb" 2>/dev/null; then
    echo "Installing Python's lmdb package..." >&2
    python3 -m pip install --quiet --disable-pip-version-check lmdb 2>/dev/null \
        || python3 -m pip install --quiet --disable-pip-version-check --user lmdb
fi
if pkg-config --exists lmdb 2>/dev/null && [ -f /usr/include/lmdb.h ] && [ -f /usr/include/sqlite3.h ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
echo "Installing liblmdb-dev and libsqlite3-dev..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq liblmdb-dev libsqlite3-dev pkg-config >/dev/null

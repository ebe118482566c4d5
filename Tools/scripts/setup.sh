#!/usr/bin/env bash
# Installs what ReactorLog needs beyond the Swift toolchain, from Debian's packages, only what is missing:
#   liblmdb-dev      the log (a system library, found with pkg-config)
#   libsqlite3-dev   SQLite, the benchmark's peer (through GRDB)
#   python3-lmdb     for Tools/scripts/read-log.py, which reads a log by docs/FORMAT.md alone (the tests run it)
# With --tests, also what the test suite drives: chromium, chromium-driver and python3-selenium (the timeline's
# browser test), and btrfs-progs (mkfs.btrfs: a log on a copy-on-write file system whose disk fills).
set -euo pipefail
missing=()
if ! command -v pkg-config >/dev/null || ! pkg-config --exists lmdb || [ ! -f /usr/include/lmdb.h ]; then
    missing+=(liblmdb-dev pkg-config)
fi
[ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c "import lmdb" 2>/dev/null; then
    missing+=(python3 python3-lmdb)
fi
if [ "${1:-}" = "--tests" ]; then
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
    if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c "import selenium" 2>/dev/null; then
        missing+=(python3-selenium)
    fi
    [ -x /usr/sbin/mkfs.btrfs ] || missing+=(btrfs-progs)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "Installing ${missing[*]}..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null

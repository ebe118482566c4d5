#!/usr/bin/env bash
# The README's test command: installs liblmdb-dev when missing, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
Tools/scripts/setup.sh
swift build --build-tests
swift test --skip-build --disable-xctest

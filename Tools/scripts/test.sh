#!/usr/bin/env bash
# The README's test command: installs what is missing (liblmdb-dev, the browser of the timeline test, btrfs-progs), then runs
# the whole suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
Tools/scripts/setup.sh --tests
# The benchmark is a package of its own (Benchmarks/), so that GRDB never reaches the library's users:
# build it and run its smoke test first, then the library's suite.
swift build --package-path Benchmarks --build-tests
swift test --package-path Benchmarks --skip-build --disable-xctest
swift build --build-tests
swift test --skip-build --disable-xctest
# The suite runs debug code; hand-written binary coding has come out wrong in release builds only: check it there.
swift build -c release --product binary-payload-check
.build/release/binary-payload-check
# The DocC catalogs of every library product, with DocC warnings as errors.
Tools/scripts/docs.sh

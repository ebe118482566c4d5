#!/usr/bin/env bash
# Runs the test suite under ThreadSanitizer: builds it with --sanitize=thread into .build-tsan, runs it with the
# hook that shows the sanitizer Synchronization.Mutex's contended handover (Tools/scripts/tsan-mutex.c), and lists
# every report, of the suite and of the processes it starts, by the two source lines that raced. Exits non-zero when
# there is a report or a test fails. Arguments go to `swift test`:
#     Tools/scripts/tsan.sh                       Tools/scripts/tsan.sh --filter HandOffTests
# The tests run one at a time: in parallel under the sanitizer, two cores starve the cooperative pool and tests
# exceed their time limits. Skipped: the fuzzing suite and the damaged-file sweeps (decoders on one thread, and
# hundreds of inspector processes each, which take longer than their limits here), and the compact under a file size
# limit of a few blocks, where any sanitized process dies of SIGBUS in the sanitizer itself (docs/TRUST.md). About
# 50 minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
Tools/scripts/setup.sh --tests
swift build --build-tests --sanitize=thread --scratch-path .build-tsan 2>&1 | grep -E "error:|warning:|Build complete"
clang -shared -fPIC -O2 -o .build-tsan/tsan-mutex.so Tools/scripts/tsan-mutex.c -ldl
export LD_PRELOAD="$PWD/.build-tsan/tsan-mutex.so"
# The instrument first: no report for threads that only share a Mutex, one for a plain race.
swiftc -sanitize=thread -Onone -o .build-tsan/tsan-check Tools/scripts/tsan-check.swift
# A report makes the sanitizer exit 66, a wrong count the check itself 1.
if ! .build-tsan/tsan-check >/dev/null 2>&1; then
    echo "tsan: threads sharing only a Mutex gave a report or a wrong count: the hook did not show the handover" >&2
    exit 1
fi
if [[ "$(.build-tsan/tsan-check race 2>&1 || true)" != *"WARNING: ThreadSanitizer"* ]]; then
    echo "tsan: the sanitizer missed a plain race; its reports cannot be trusted here" >&2; exit 1
fi
reports=.build-tsan/reports
rm -rf "$reports" && mkdir -p "$reports"
status=0
# exitcode=0: a child process that reports a race still exits as it would, so that the tests judge its output and
# the race is counted here, once.
TSAN_OPTIONS="log_path=$PWD/$reports/report exitcode=0" \
    swift test --skip-build --disable-xctest --scratch-path .build-tsan --no-parallel \
    --skip 'FuzzTests|DamagedFileTests|failedCompact' "$@" || status=$?
python3 - "$reports" <<'EOF' || status=1
import collections, glob, os, re, sys
races = collections.Counter()
for path in glob.glob(os.path.join(sys.argv[1], 'report.*')):
    text = open(path, errors='replace').read()
    if 'CHECK failed' in text:  # the sanitizer's own failure (seen in a child after fork), not a race
        print(f'tsan: the sanitizer failed inside a process: {path}')
    for report in text.split('==================\n'):
        kind = re.search(r'WARNING: ThreadSanitizer: ([^(\n]+)', report)
        if not kind: continue
        # The first frame in this repository's sources of each of the two accesses.
        accesses = [m.group(1) for m in (re.search(r'\s#\d+ \S+ \S*?/((?:Sources|Tests|Tools)/[^:\s]+:\d+)', block)
                    for block in re.split(r'\n  (?=(?:Read|Write|Previous|Atomic|Modifying))', report)[1:3]) if m]
        races[(kind.group(1).strip(), ' and '.join(accesses) or 'outside this repository')] += 1
for (kind, where), count in races.most_common():
    print(f'tsan: {count} × {kind}: {where}')
total = sum(races.values())
print(f'tsan: {total} report(s); full reports in {sys.argv[1]}' if total else 'tsan: no report')
sys.exit(1 if total else 0)
EOF
exit "$status"

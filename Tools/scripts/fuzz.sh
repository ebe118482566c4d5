#!/usr/bin/env bash
# Fuzzes the decoders a log from elsewhere reaches (entry records of both layouts, entry blocks, stream and snapshot records, index blocks, keys,
# JSON, binary payloads, state paths, export lines) with libFuzzer: builds Tools/Fuzz with --sanitize fuzzer into .build-fuzz (linked with lld: gold
# fails on it), with AddressSanitizer, so that a read past a buffer through an unsafe pointer, which a release build
# does not check, stops the run as a crash would; and runs from the seed inputs for SECONDS (default 60), or for a
# number of executions:
#     Tools/scripts/fuzz.sh 600            Tools/scripts/fuzz.sh -runs=10000000
# New inputs collect in .build-fuzz/corpus; a crashing input is written to .build-fuzz/crashes/ (replay it with
# `swift run reactorlog-fuzz FILE`).
set -euo pipefail
cd "$(dirname "$0")/../.."
limit="${1:--max_total_time=60}"
[[ "$limit" =~ ^[0-9]+$ ]] && limit="-max_total_time=$limit"
# One `-sanitize=` for swiftc: given two (`--sanitize fuzzer --sanitize address`), it keeps the last, and the Swift
# code went without coverage counters (the fuzzer ran blind, 20 counters in all, from the C target). The list last
# on each compile and link line carries both.
swift build -c release --scratch-path .build-fuzz --product reactorlog-fuzz --sanitize fuzzer \
    -Xswiftc -sanitize=fuzzer,address --toolset Tools/scripts/lld-toolset.json -Xswiftc -DFUZZING \
    -Xswiftc -enable-testing >/dev/null
mkdir -p .build-fuzz/corpus .build-fuzz/crashes .build-fuzz/seeds
# No leak check: the seeds are built from global fixtures, which LeakSanitizer reports when the run ends.
ASAN_OPTIONS=detect_leaks=0 REACTORLOG_FUZZ_SEEDS=.build-fuzz/seeds .build-fuzz/release/reactorlog-fuzz \
    -artifact_prefix=.build-fuzz/crashes/ -print_final_stats=1 "$limit" .build-fuzz/corpus .build-fuzz/seeds

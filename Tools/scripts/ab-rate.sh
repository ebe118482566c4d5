#!/usr/bin/env bash
# Compares the logged action rate of two builds of the benchmark, run alternately so that the shared machine's slow
# phases fall on both: ITERATIONS times (default 12), `BEFORE rate --rounds 2` and then `AFTER rate --rounds 2`, and
# prints each build's median and mean rate, overall and apart for the rounds whose core-to-core round trip (measured
# before each round) was up to 150 ns and above it (the host moves it, and the logged rate with it; a low one does not
# promise the fast phase, docs/PERFORMANCE.md says), each build's mean seconds in memory and logged (a change that
# speeds both moves the ratio little), the median of its rounds' in-memory rate beside a busy core (the host's bound
# for a writer busy through the sends: two builds compared should face the same), and in how many iterations AFTER's
# mean beat BEFORE's.
#     Tools/scripts/ab-rate.sh /tmp/before/Benchmarks/.build/release/reactorlog-bench \
#         Benchmarks/.build/release/reactorlog-bench 16
# Build the other revision in a worktree (`git worktree add /tmp/before REV`, then `swift build -c release
# --package-path /tmp/before/Benchmarks`). Extra arguments after ITERATIONS go to both (`--codable`, `--actions N`).
set -euo pipefail
if [[ $# -lt 2 || ! -x "$1" || ! -x "$2" ]]; then
    echo "usage: $0 BEFORE_BINARY AFTER_BINARY [ITERATIONS] [rate options...]: both must be built reactorlog-bench executables" >&2
    exit 2
fi
before="$1" after="$2" iterations="${3:-12}"
shift $(( $# < 3 ? $# : 3 ))
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
for iteration in $(seq "$iterations"); do
    for build in before after; do
        binary="$before"; [[ $build == after ]] && binary="$after"
        "$binary" rate --rounds 2 "$@" | sed -n "s/.*in memory \([0-9.]*\) s, logged \([0-9.]*\) s + flush [0-9.]* s, rate \([0-9.]*\) [^,]*\(, core round trip \([0-9]*\) ns\)\{0,1\}\(, in memory beside a busy core \([0-9.]*\)\)\{0,1\}$/$iteration $build \3 \1 \2 trip=\5 busy=\7/p" >> "$results"
    done
done
python3 - "$results" <<'PY'
import statistics, sys, collections
# Rounds whose core round trip was above this many nanoseconds ran in the host's slow phase (see "The host's two
# speeds" in docs/PERFORMANCE.md): their rates are reported apart, as the two phases differ by far more than a change.
SLOW = 150
rounds = collections.defaultdict(list); by_iteration = collections.defaultdict(lambda: collections.defaultdict(list))
seconds = collections.defaultdict(list)
# The in-memory rate beside a spinning core ÷ alone, per round: what the host allows a writer busy through the sends.
busy_core = collections.defaultdict(list)
for line in open(sys.argv[1]):
    iteration, build, rate, memory, logged, trip, busy = line.split()
    trip, busy = trip.removeprefix("trip="), busy.removeprefix("busy=")
    rounds[build].append((float(rate), float(trip) if trip else None)); by_iteration[iteration][build].append(float(rate))
    seconds[build].append((float(memory), float(logged)))
    if busy: busy_core[build].append(float(busy))
if not rounds["before"] or not rounds["after"]:
    sys.exit("ab-rate.sh: a build printed no rate (with --logged-only, rate prints none)")
def summary(rates):
    return f"median {statistics.median(rates):.3f}, mean {statistics.mean(rates):.3f} over {len(rates)} rounds" if rates else "no rounds"
for build in ("before", "after"):
    print(f"{build}: {summary([rate for rate, _ in rounds[build]])}")
    print(f"  seconds, mean: in memory {statistics.mean(m for m, _ in seconds[build]):.4f}, logged {statistics.mean(l for _, l in seconds[build]):.4f}")
    if busy_core[build]:
        print(f"  in memory beside a busy core ÷ alone: median {statistics.median(busy_core[build]):.3f} (the host's bound for a busy writer)")
    if any(trip is not None for _, trip in rounds[build]):
        print(f"  core round trip up to {SLOW} ns: {summary([rate for rate, trip in rounds[build] if trip is not None and trip <= SLOW])}")
        print(f"  core round trip above {SLOW} ns: {summary([rate for rate, trip in rounds[build] if trip is not None and trip > SLOW])}")
wins = sum(statistics.mean(r["after"]) > statistics.mean(r["before"]) for r in by_iteration.values())
print(f"after beat before in {wins} of {len(by_iteration)} iterations")
PY

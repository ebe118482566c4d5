#!/usr/bin/env bash
# The README's demo command: installs what is missing, builds the inspector, records a demo session of the
# example reactors into ./demo.reactorlog, and tours it: info, the log, a state, a blame, the bisect that finds
# the planted bug, the state without that step, a pack of the buggy stretch as a bug report would carry it
# (bisected again), and a timeline page to open in a browser.
set -euo pipefail
cd "$(dirname "$0")/../.."
Tools/scripts/setup.sh
command -v python3 >/dev/null || { echo "demo: python3 is needed for the bisect step (apt-get install python3)" >&2; exit 1; }
swift build --product reactorlog >/dev/null
reactorlog="$(swift build --show-bin-path)/reactorlog"
bold="" plain=""
if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; fi
run() {
    # Printed as it would be typed: an argument with a space in single quotes.
    local shown=() arg
    for arg in "$@"; do
        if [[ "$arg" == *" "* ]]; then shown+=("'$arg'"); else shown+=("$arg"); fi
    done
    printf '\n%s$ reactorlog %s%s\n' "$bold" "${shown[*]}" "$plain"
    "$reactorlog" "$@"
}
run demo --out demo.reactorlog --force
run info demo.reactorlog
run log demo.reactorlog --stream search --limit 30
run state demo.reactorlog --stream search --at 29 --path repos.count
run blame demo.reactorlog nextPage --stream search
run bisect demo.reactorlog --stream search --run 'python3 Tools/scripts/unique-repos.py'
run what-if demo.reactorlog --skip 31
run pack demo.reactorlog --stream search --from 22 --out rx-bug.pack --force
run bisect rx-bug.pack --run 'python3 Tools/scripts/unique-repos.py'
run timeline demo.reactorlog --stream search --out search.timeline.html --force
printf '\nThe log is in demo.reactorlog, its buggy stretch in rx-bug.pack; open search.timeline.html in a browser to step through it.\n'
printf '`%s --help` lists every command.\n' "$reactorlog"

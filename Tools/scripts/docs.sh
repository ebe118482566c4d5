#!/usr/bin/env bash
# Builds the DocC documentation of every library product into .build/docs/TARGET (open index.html, or serve it),
# failing on any DocC warning. The articles are the guides in docs/, linked into each catalog.
set -euo pipefail
cd "$(dirname "$0")/../.."
export REACTORLOG_DOCS=1 # adds swift-docc-plugin to the package (see Package.swift)
targets=(ReactorLog ReactorLogPersistence ReactorLogTesting BinaryPayloadKit BinaryPayloadMacros EventLogKit TimeTravel ReactorLogInspector LMDB)
mkdir -p .build/docs
for target in "${targets[@]}"; do
    swift package --allow-writing-to-directory .build/docs generate-documentation --target "$target" \
        --warnings-as-errors --transform-for-static-hosting --output-path ".build/docs/$target" >".build/docs/$target.log" 2>&1 \
        || { grep -A12 -E "warning:|error:" ".build/docs/$target.log" >&2; echo "docs: $target has DocC warnings (above)." >&2; exit 1; }
    echo "docs: $target → .build/docs/$target"
done

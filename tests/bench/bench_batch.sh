#!/usr/bin/env bash
# `gpuplan batch` against its target (docs/speed.md): 100 saved scenarios (the version 1 worked
# examples of tests/fixtures/examples, renamed, so that every one has a workbook) reported with
# every file (md, csv, json, xlsx each), the fleet and capacity reports of a two-node fleet, summary.json,
# index.html, the comparison with the previous run and the database record, in under 10 s,
# timed as a whole process. Best of 3 (the first run has nothing to compare with; the later
# ones compare with the one before).
# Usage: tests/bench/bench_batch.sh BUILD_DIR [SCENARIOS]
set -eu
build=$1 n=${2:-100}
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
tmp=$(mktemp -d /var/tmp/gpuplan-bench-batch-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export GPUPLAN_DB=$tmp/db HOME=$tmp
gpuplan=$build/gpuplan
/usr/bin/python3 "$root/tests/cli/gen_telemetry.py" "$tmp" 30 a b >/dev/null
"$gpuplan" import prom "$tmp/a.prom" --node a >/dev/null
"$gpuplan" import prom "$tmp/b.prom" --node b >/dev/null
mapfile -t examples < <(ls "$root"/tests/fixtures/examples/*.json | grep -v '\.expected\.json$' |
                        grep -v -e '/bad-' -e '/v2-')
saved=0 i=0
while [ "$saved" -lt "$n" ]; do
    f=${examples[$((i % ${#examples[@]}))]}
    i=$((i + 1))
    /usr/bin/python3 - "$f" "bench $i" >"$tmp/s.json" <<'PY' || continue
import json, sys
s = json.load(open(sys.argv[1]))
if not isinstance(s, dict) or 'name' not in s:
    sys.exit(1)
s['name'] = sys.argv[2] + ': ' + s['name']
print(json.dumps(s))
PY
    "$gpuplan" scenario save "$tmp/s.json" >/dev/null 2>&1 && saved=$((saved + 1))
done
best=
for run in 1 2 3; do
    t=$( { /usr/bin/time -f '%e %M' "$gpuplan" batch --out "$tmp/out" >/dev/null; } 2>&1 | tail -1)
    echo "gpuplan batch: $n scenarios with workbooks, run $run: ${t%% *} s, peak RSS $((${t##* } / 1024)) MB"
    if [ -z "$best" ] || awk "BEGIN{exit !(${t%% *} < $best)}"; then best=${t%% *}; fi
done
files=$(find "$tmp/out" -type f | wc -l)
echo "gpuplan batch best: $best s for $n scenarios ($files files; target < 10 s)"

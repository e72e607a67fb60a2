#!/usr/bin/env bash
# The speed targets of the cost engine, measured (README "Speed"):
#  1. one scenario (36 months, 3 options, all break-even points) in under 50 us, and one
#     version 2 plan (60 months, growth, as_needed, a lead time, a bridge, 3 options) in
#     under 20 us;
#  2. `sweep --summary` at >= 20 M grid points a second on one core, in constant memory,
#     and at least 2x faster than the same grid in numpy (computation only, after import),
#     gpuplan timed as a whole process.
# Usage: tests/bench/run.sh BUILD_DIR   (a release build: meson's default here)
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
scenario=$here/../fixtures/examples/seed-dgx-a100.json
"$build/tests/bench_model" "$scenario"
"$build/tests/bench_model" "$here/v2-plan-60.json"
"$build/tests/bench_catalog" "$here/../.."
"$build/tests/bench_telemetry"
# bench_capacity stores 17 M samples first (about 5 minutes); the TUI's benchmark reuses them.
fleet_db=$(mktemp -u /var/tmp/gpuplan-bench-fleet-XXXXXX.db)
trap 'rm -f "$fleet_db" "$fleet_db-wal" "$fleet_db-shm"' EXIT
"$build/tests/bench_capacity" "$fleet_db"
bash "$here/bench_tui.sh" "$build" "$fleet_db"
# bench_history generates 30 days of 10,000 GPUs (173 M rows, about 10 GB) once, then times
# importing one more day of six metrics into it.
hist_db=$(mktemp -u /var/tmp/gpuplan-bench-hist-XXXXXX.db)
trap 'rm -f "$fleet_db" "$fleet_db-wal" "$fleet_db-shm" "$hist_db" "$hist_db-wal" "$hist_db-shm"' EXIT
"$build/tests/bench_history" "$hist_db" 10000
bash "$here/bench_cycle.sh" "$build/gpuplan" "$here/../.."
bash "$here/bench_xlsx.sh" "$build"
bash "$here/bench_batch.sh" "$build"
grid="--vary utilization=0:1:1000 --vary price_per_kwh=0.05:0.5:200 --vary server_price=80000:200000:100"
best=
for i in 1 2 3; do
    t=$( { /usr/bin/time -f '%e %M' "$build/gpuplan" sweep "$scenario" $grid --summary >/dev/null; } 2>&1 )
    echo "gpuplan sweep: 20000000 points, whole process ${t%% *} s, peak RSS ${t##* } KB"
    secs=${t%% *}
    if [ -z "$best" ] || awk "BEGIN{exit !($secs < $best)}"; then best=$secs; fi
done
echo "gpuplan sweep best: $(awk "BEGIN{printf \"%.1f\", 20/$best}") M points/s"
# Memory must not grow with the grid: 10x the points, same peak RSS.
t=$( { /usr/bin/time -f '%M' "$build/gpuplan" sweep "$scenario" $grid --vary pue=1:1.5:10 --summary >/dev/null; } 2>&1 )
echo "gpuplan sweep: 200000000 points, peak RSS $t KB"
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    /usr/bin/python3 "$here/sweep_numpy.py" "$scenario" 1000 200 100
else
    echo "numpy: not installed (apt-get install python3-numpy)"
fi

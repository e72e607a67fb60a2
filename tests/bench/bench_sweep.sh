#!/usr/bin/env bash
# sweep's speed targets, measured side by side:
#  1. a sweep over a version 2 parameter at >= 1,000,000 grid points a second on one core, in
#     constant memory (bench_sweep: the summary solved by rows, checked against the summary
#     walked point by point);
#  2. `sweep --summary` on a 2,000 x 5,000 grid (utilization x price_per_kwh; 64 GPUs, 36
#     months, a two-period tariff with shifting, on-demand, spot and a 1-year commitment) at
#     least 2x faster than a plain numpy version of the same totals and winners: medians of
#     five runs each, gpuplan timed as a whole process, numpy both as a whole process and for
#     its computation alone (after import); both print their wins and flips, compared here.
# Usage: tests/bench/bench_sweep.sh BUILD_DIR   (a release build)
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
tou=$here/sweep-64-tou.json
v2=$here/v2-plan-60.json
echo "load before: $(uptime | sed 's/.*load average: //')"
"$build/tests/bench_sweep" "$tou" 0 utilization=0:1:2000 price_per_kwh=0.02:0.6:5000
"$build/tests/bench_sweep" "$v2" 20 growth_per_month=0:0.05:200 utilization=0:1:5000
"$build/tests/bench_sweep" "$v2" 1 lead_time_months=0:6:7 price_per_kwh=0.02:0.6:200000
# A version 2 parameter as the last axis has no linear pieces: the rows are read from the
# columns, each solved along the axis before it; alone, every point is evaluated.
"$build/tests/bench_sweep" "$v2" 200 utilization=0:1:5000 growth_per_month=0:0.05:200
# A version 2 parameter alone: each point from the engine's totals, redoing only what the
# moved parameter enters (sweep.c, walker_forget) and nothing when the demand by month or the
# rounded integer did not change.
"$build/tests/bench_sweep" "$v2" 0 growth_per_month=0:0.05:20000
"$build/tests/bench_sweep" "$v2" 0 growth_per_month=0:0.05:1000000
for axis in lead_time_months=0:6:1000000 order_every_months=1:12:1000000 \
    max_servers=1:400:1000000 server_price_trend_per_year=-0.3:0.3:100000 \
    energy_price_trend_per_year=-0.1:0.3:100000 price_trend_per_year:0=-0.4:0.1:100000 \
    price_trend_per_year:1=-0.4:0.1:100000 price_trend_per_year:2=-0.4:0.1:100000; do
    "$build/tests/bench_sweep" "$v2" 0 "$axis"
done
# The same plan in work mode (every month's work moves with growth and the throughputs).
for axis in growth_per_month=0:0.05:20000 work_per_gpu_hour=500:2000:100000 \
    work_per_gpu_hour:0=500:2000:100000 work_per_gpu_hour:1=500:2000:100000; do
    "$build/tests/bench_sweep" "$here/v2-work-60.json" 0 "$axis"
done

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# Seconds a command takes as a whole process (ms resolution); its stdout to $1.
wall() {
    local to=$1; shift
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >"$to"
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
grid="--vary utilization=0:1:2000 --vary price_per_kwh=0.02:0.6:5000"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in 1 2 3 4 5; do
    wall "$out/gpuplan.txt" "$build/gpuplan" sweep "$tou" $grid --summary >>"$out/gpuplan.times"
done
echo "gpuplan sweep --summary, 10,000,000 points, whole process (5 runs): $(tr '\n' ' ' <"$out/gpuplan.times")s," \
    "median $(median <"$out/gpuplan.times") s"
# Memory does not grow with the grid: 10x the points (a third axis), the same peak RSS.
t=$( { /usr/bin/time -f '%M' "$build/gpuplan" sweep "$tou" $grid --summary >/dev/null; } 2>&1 )
t10=$( { /usr/bin/time -f '%e %M' "$build/gpuplan" sweep "$tou" --vary pue=1:1.5:10 $grid --summary >/dev/null; } 2>&1 )
echo "peak RSS: $t KB at 10,000,000 points; ${t10##* } KB at 100,000,000 points (${t10%% *} s)"
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    echo "numpy: not installed (tools/dev bench installs python3-numpy)"
    exit 0
fi
ngrid="utilization=0:1:2000 price_per_kwh=0.02:0.6:5000"
for i in 1 2 3 4 5; do
    wall "$out/numpy.txt" /usr/bin/python3 "$here/sweep_numpy.py" "$tou" $ngrid >>"$out/numpy.times"
    sed -n 's/^numpy: [0-9]* points in \([0-9.]*\) s.*/\1/p' "$out/numpy.txt" >>"$out/numpy.compute"
done
echo "numpy, the same grid, whole process (5 runs): $(tr '\n' ' ' <"$out/numpy.times")s," \
    "median $(median <"$out/numpy.times") s; computation alone: $(tr '\n' ' ' <"$out/numpy.compute")s," \
    "median $(median <"$out/numpy.compute") s"
g=$(median <"$out/gpuplan.times")
n=$(median <"$out/numpy.compute")
awk -v g="$g" -v n="$n" 'BEGIN { printf "gpuplan (whole process) vs numpy (computation alone), medians: %.1fx\n", (g > 0 ? n / g : 0) }'
# The same answer: wins per contender and the number of flips.
gw=$(sed -n 's/.*(\([0-9]*\) points)$/\1/p' "$out/gpuplan.txt" | tr '\n' ' ')
nw=$(sed -n 's/.*(\([0-9]*\) points)$/\1/p' "$out/numpy.txt" | tr '\n' ' ')
gf=$(sed -n 's/.*(\([0-9]*\) flips.*/\1/p' "$out/gpuplan.txt")
nf=$(sed -n 's/^  \([0-9]*\) flips along.*/\1/p' "$out/numpy.txt")
if [ "$gw" = "$nw" ] && [ "$gf" = "$nf" ]; then
    echo "both: wins $gw; $gf flips"
else
    echo "DIFFER: gpuplan wins $gw, $gf flips; numpy wins $nw, $nf flips"
    exit 1
fi
echo "load after: $(uptime | sed 's/.*load average: //')"

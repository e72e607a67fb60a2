#!/usr/bin/env bash
# The exporter's speed target (docs/speed.md): a scrape over 10,000 GPUs in under 1 s and
# 50 MB. The fleet is bench_storage's (fleet_sim.h's telemetry of 10,000 GPUs, every metric,
# 7 days, kept in ${TMPDIR:-/var/tmp}/gpuplan-bench-exporter-10000gpus-7d.db so a rerun only
# measures; delete it to start over), with the two demo scenarios saved and the catalog loaded.
# Measured on the real binary over loopback: the first refresh (at startup), scrapes served
# from the kept figures, scrapes after the database changed (each one a refresh: wall time, and
# the exporter's own CPU time from /proc, which a loaded machine does not stretch), the size of
# /metrics and the process's peak RSS (/usr/bin/time).
# Usage: tests/bench/bench_exporter.sh BUILD_DIR
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
gpuplan=$build/gpuplan
db=${TMPDIR:-/var/tmp}/gpuplan-bench-exporter-10000gpus-7d.db
tmp=$(mktemp -d)
tpid=
cleanup() {
    [ -n "$tpid" ] && kill "$(pgrep -P "$tpid")" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
if [ ! -s "$db" ]; then # built under another name, so an interrupted run starts over
    rm -f "$db.partial"*
    "$build/tests/bench_storage" 10000 7 "$db.partial" | head -1
    "$gpuplan" --db "$db.partial" pricing list --limit 1 >/dev/null
    "$gpuplan" --db "$db.partial" scenario save "$here/../../scenarios/demo-dgx-a100.json" >/dev/null
    "$gpuplan" --db "$db.partial" scenario save "$here/../../scenarios/demo-tou-loan.json" >/dev/null
    mv "$db.partial" "$db"
fi
t0=$(date +%s.%N)
/usr/bin/time -v -o "$tmp/time.txt" "$gpuplan" --db "$db" exporter --listen 127.0.0.1:0 \
    --scenario "Demo: ten DGX A100 servers against AWS p4d.24xlarge" >"$tmp/out" 2>&1 &
tpid=$!
url=
for _ in $(seq 1200); do
    url=$(sed -n 's/^gpuplan exporter: serving //p' "$tmp/out")
    [ -n "$url" ] && break
    sleep 0.05
done
[ -n "$url" ] || { cat "$tmp/out"; exit 1; }
t1=$(date +%s.%N)
curl -sf "$url" >"$tmp/m.txt"
printf 'exporter: %s GPUs, %s sample lines, %s bytes of /metrics\n' \
    "$(awk '/^node_gpu_count/ { s += $2 } END { print s }' "$tmp/m.txt")" \
    "$(grep -vc '^#' "$tmp/m.txt")" "$(wc -c <"$tmp/m.txt")"
printf 'exporter: startup to serving %.2f s (first refresh %.2f s)\n' "$(echo "$t1 - $t0" | bc)" \
    "$(awk '/^gpuplan_exporter_refresh_duration_seconds/ { print $2 }' "$tmp/m.txt")"
for i in 1 2 3 4 5; do curl -sf -o /dev/null -w '%{time_total}\n' "$url"; done >"$tmp/cached"
printf 'exporter: kept figures: scrape %s to %s s (5 scrapes)\n' "$(sort -n "$tmp/cached" | head -1)" \
    "$(sort -n "$tmp/cached" | tail -1)"
xpid=$(pgrep -P "$tpid")
cpu() { awk '{ print $14 + $15 }' "/proc/$xpid/stat"; } # user + system, in clock ticks
for i in 1 2 3; do
    touch "$db" # the database changed: the next scrape computes the figures again
    c0=$(cpu)
    curl -sf -o /dev/null -w '%{time_total} ' "$url"
    echo "($(cpu) - $c0) / $(getconf CLK_TCK)" | bc -l
done >"$tmp/fresh"
printf 'exporter: after a change: scrape %s to %s s wall, %.2f to %.2f s of CPU (3 scrapes, each a refresh)\n' \
    "$(sort -n "$tmp/fresh" | head -1 | cut -d' ' -f1)" "$(sort -n "$tmp/fresh" | tail -1 | cut -d' ' -f1)" \
    "$(cut -d' ' -f2 "$tmp/fresh" | sort -n | head -1)" "$(cut -d' ' -f2 "$tmp/fresh" | sort -n | tail -1)"
curl -sf "$url" | grep '^gpuplan_exporter_refreshes_total'
kill "$(pgrep -P "$tpid")"
wait "$tpid" || true
tpid=
printf 'exporter: peak RSS %s MB; CPU %s s user + %s s system for 4 refreshes and 10 scrapes\n' \
    "$(awk -F': ' '/Maximum resident/ { printf "%.1f", $2 / 1024 }' "$tmp/time.txt")" \
    "$(awk -F': ' '/User time/ { print $2 }' "$tmp/time.txt")" \
    "$(awk -F': ' '/System time/ { print $2 }' "$tmp/time.txt")"
# For comparison: what `capacity` alone takes over the same window (the refresh's largest part).
/usr/bin/time -f 'exporter: capacity --since 7d alone: %e s wall, %U s user, peak RSS %M KB' \
    "$gpuplan" --db "$db" capacity --since 7d >/dev/null

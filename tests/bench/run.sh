#!/usr/bin/env bash
# The speed targets of the cost engine, measured (docs/speed.md):
#  1. one scenario (36 months, 3 options, all break-even points) in under 50 us, and one
#     version 2 plan (60 months, growth, as_needed, a lead time, a bridge, 3 options) in
#     under 20 us;
#  2. a sweep over a version 2 parameter at >= 1,000,000 grid points a second on one core, in
#     constant memory, and `sweep --summary` at least 2x faster than a plain numpy version of
#     the same totals and winners (bench_sweep.sh).
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
bash "$here/bench_tui_timeline.sh" "$build"
# bench_history generates 30 days of 10,000 GPUs (173 M 5-minute rows of utilization and power)
# once into ${TMPDIR:-/var/tmp}/gpuplan-bench-history-10000gpus-30d-s11.db and keeps it, so a
# rerun only times importing one more day of six metrics into it (delete the file to start over).
"$build/tests/bench_history"
# Chunk sizes per metric and the codec's speed on simulated telemetry (seconds), then the pages of
# a fleet's month of it with every metric: 1,000 GPUs x 30 days (about a minute; 10000 30 writes
# the full fleet in about 12 minutes and 3 GB of ${TMPDIR:-/var/tmp}, removed after).
"$build/tests/bench_chunks"
"$build/tests/bench_storage" 1000 30
# capacity --prometheus (the server aggregates) against import + capacity, on 30 days in a real
# Prometheus.
bash "$here/bench_capacity_remote.sh" "$build"
bash "$here/bench_capacity_rules.sh" "$build"
# import --prometheus from the raw series and from gpuplan's recorded ones: 100 GPUs x 3 days,
# a sample every 15 s (about 10 minutes, most of it loading and backfilling the servers).
bash "$here/bench_history_rules.sh" "$build"
bash "$here/bench_cycle.sh" "$build/gpuplan" "$here/../.."
bash "$here/bench_xlsx.sh" "$build"
bash "$here/bench_batch.sh" "$build"
# sweep --summary: the Speed targets of issue 15, side by side with numpy.
bash "$here/bench_sweep.sh" "$build"
# The exporter over 10,000 GPUs x 7 days (bench_storage's fleet, about 3 minutes to write once).
bash "$here/bench_exporter.sh" "$build"

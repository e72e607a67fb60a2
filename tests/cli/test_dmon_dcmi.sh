#!/usr/bin/env bash
# Issue 33 end to end: real nvidia-smi dmon logs and ipmitool DCMI readings imported, then seen
# by `fleet` and `capacity`; deactivated readings store nothing and say why; --ipmi-local with
# a stand-in `ipmitool` on PATH (this test's only fake: the real tool needs a BMC), including
# one that never answers, which the cycle's timeout must end.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
export HOME=$tmp TZ=UTC GPUPLAN_DB=$tmp/t.db
fx=$root/tests/fixtures/telemetry
dmon=$fx/nvidia_smi_dmon dcmi=$fx/ipmi_dcmi
has() { grep -qF -- "$2" "$1"; }
sql() { $py -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$GPUPLAN_DB" "$1"; }
node_power_samples() { sql "SELECT count(*) FROM sample x JOIN series s ON s.id = x.series_id WHERE s.gpu_id = 0 AND s.metric = 8"; }
now=$(date +%s)

# ---- dmon --------------------------------------------------------------------------------
# The node's GPUs known by UUID (a dcgm-exporter scrape of 8 H100), then a dmon log of 8 GPUs
# under training load: the rows land on those GPUs, not on 8 new ones. The scrape has no
# timestamps, so it is dated by its file's modification time: copied (a fresh mtime, not the
# checkout's) so its GPUs are in today's window below.
cp "$fx/dcgm_exporter/aicr__eks_p5_8xH100-80GB-HBM3__drv580.105.08__2026-03-10__grep-sampled.prom" "$tmp/p5.prom"
"$gpuplan" import prom "$tmp/p5.prom" --node p5 >/dev/null
"$gpuplan" import dmon "$dmon/gnosia93-slurm-on-aws__8xGPU-training__pcut-d10.txt" --node p5 \
    --interval 10s --end "@$now" >"$tmp/out" 2>&1
check "dmon import exits 0" [ $? = 0 ]
check "it says how the rows were timed" has "$tmp/out" "(no times in the log: rows 10 s apart, the last at --end)"
check "it maps the 8 indexes to the known GPUs" has "$tmp/out" "8 GPUs matched by index to the node's known GPUs"
"$gpuplan" fleet >"$tmp/fleet"
check "fleet: still 8 GPUs" has "$tmp/fleet" "8 GPUs, 0 with alerts"
check "fleet: GPU 0 shows the log's last power and utilization" \
    grep -qE '^p5 .* 0 H100 SXM 80GB +100 .* 364\.0 +52 C' "$tmp/fleet"

# Driver 390's column set (temp, pwr "-") from stdin, timed by --end.
"$gpuplan" import dmon - --node old --end "@$now" <"$dmon/ff02-web__2xGTX1050Ti__drv390.12__pucvmet.txt" >"$tmp/out"
check "old driver: 32 samples of 2 GPUs, the - values dropped" has "$tmp/out" \
    'imported 32 samples of 2 GPUs into node "old" (blank or placeholder values dropped)'
"$gpuplan" fleet >"$tmp/fleet"
check "fleet: the old GPUs' utilization and memory, power -" \
    grep -qE '^old .* 1 \? +81 +3945/- +- +50 C' "$tmp/fleet"

# Without its own times and from stdin, a dmon log needs --end.
"$gpuplan" import dmon - --node nodate <"$dmon/leimao-blog__1GPU__default-s.txt" 2>"$tmp/err"
check "stdin without --end: exit 2" [ $? = 2 ]
check "... saying to give --end" has "$tmp/err" "<stdin>: a dmon log without -o DT times, read from stdin: give --end"
printf '#Time gpu pwr\n 10:00:00 0 50\n' | "$gpuplan" import dmon - --node tonly 2>"$tmp/err"
check "-o T from stdin without --end: exit 2" [ $? = 2 ]
check "... asking for the day" has "$tmp/err" "rows with a time of day (-o T) and no date: give the time of the log's end (--end) for their day"
# By default the file's modification time ends it.
cp "$dmon/iaforek-Kelvin2__H100-MIG-slice__pucm-d2.txt" "$tmp/k2.txt"
touch -d '2026-07-26 16:57:12' "$tmp/k2.txt"
"$gpuplan" import dmon "$tmp/k2.txt" --node k2 --interval 2s >"$tmp/out"
check "mtime: 18 rounds ending at the file's modification time" has "$tmp/out" \
    "18 rows in 18 rounds, 2026-07-26 16:56:38 to 2026-07-26 16:57:12 (no times in the log: rows 2 s apart, the last at the file's modification time)"

# ---- prom, nvsmi: samples without their own times ------------------------------------------
# dcgm-exporter writes no timestamps: a scrape saved days ago is dated when it was saved (the
# file's modification time), from stdin at the import, as dmon and dcmi are. A database of
# its own: these GPUs stay out of the fleet measured below.
export GPUPLAN_DB=$tmp/dated.db
node_last_ms() { sql "SELECT last_success_ms FROM node WHERE name = '$1'"; }
node_ts() { sql "SELECT $1(x.ts_ms) FROM sample x JOIN series s ON s.id = x.series_id JOIN node n ON n.id = s.node_id WHERE n.name = '$2'"; }
cp "$tmp/p5.prom" "$tmp/saved.prom"
touch -d '2026-07-26 16:57:12' "$tmp/saved.prom"
then_ms=$(( $(date -d '2026-07-26 16:57:12' +%s) * 1000 ))
"$gpuplan" import prom "$tmp/saved.prom" --node saved >"$tmp/out"
check "prom: dated at the file's modification time, said" grep -qx '  dated 2026-07-26 16:57:12 (the file.s modification time)' "$tmp/out"
check "prom: every sample stored at that time" bash -c "[ $(node_ts min saved) = $then_ms ] && [ $(node_ts max saved) = $then_ms ]"
check "prom: the node last seen then" [ "$(node_last_ms saved)" = "$then_ms" ]
check "fleet --json: its 8 GPUs last seen then, stale" bash -c "'$gpuplan' fleet --json | $py -c '
import json, sys
rows = [r for r in json.load(sys.stdin) if r[\"node\"] == \"saved\"]
assert len(rows) == 8 and all(r[\"last_seen_ms\"] == $then_ms and r[\"stale\"] for r in rows), rows'"
"$gpuplan" capacity --since 1d --json >"$tmp/cap.json"
check "capacity --since 1d: the old scrape is outside the window" $py -c '
import json, sys
assert "saved" not in json.load(open(sys.argv[1]))["nodes"]' "$tmp/cap.json"
t0=$(($(date +%s) * 1000))
"$gpuplan" import prom - --node piped <"$tmp/saved.prom" >"$tmp/out"
t1=$(($(date +%s) * 1000 + 1000))
check "prom from stdin: dated at the import, said" grep -qE '^  dated [0-9-]+ [0-9:]+ \(the time of the import\)$' "$tmp/out"
check "prom from stdin: stored at the import's time" bash -c "[ $(node_ts min piped) -ge $t0 ] && [ $(node_ts max piped) -le $t1 ] && [ $(node_last_ms piped) -ge $t0 ]"
# Samples with their own timestamps keep them; the others of the same scrape take the mtime.
g='gpu="0",UUID="GPU-mixed-0",modelName="NVIDIA L40S",Hostname="mixed"'
own_ms=$(( $(date -d '2026-07-20 08:00:00' +%s) * 1000 ))
printf 'DCGM_FI_DEV_GPU_UTIL{%s} 40 %s\nDCGM_FI_DEV_POWER_USAGE{%s} 200\n' "$g" "$own_ms" "$g" >"$tmp/mixed.prom"
touch -d '2026-07-26 16:57:12' "$tmp/mixed.prom"
"$gpuplan" import prom "$tmp/mixed.prom" --node mixed >"$tmp/out"
check "prom, some timestamped: the others said" grep -qx '  1 sample without a timestamp of its own dated 2026-07-26 16:57:12 (the file.s modification time)' "$tmp/out"
check "... each stored at its time" bash -c "[ $(node_ts min mixed) = $own_ms ] && [ $(node_ts max mixed) = $then_ms ]"
# Timestamped throughout: nothing dated, nothing said.
printf 'DCGM_FI_DEV_GPU_UTIL{%s} 40 %s\n' "$g" "$own_ms" >"$tmp/own.prom"
"$gpuplan" import prom "$tmp/own.prom" --node own >"$tmp/out"
check "prom, all timestamped: kept, no dated line" bash -c "! grep -q dated '$tmp/out' && [ $(node_ts max own) = $own_ms ] && [ $(node_last_ms own) = $own_ms ]"
# An nvidia-smi CSV without its timestamp column is dated alike; one with it keeps its times.
printf 'index, uuid, name, utilization.gpu [%%], power.draw [W]\n0, GPU-smi-0, NVIDIA L40S, 30 %%, 120.00 W\n' >"$tmp/smi.csv"
touch -d '2026-07-26 16:57:12' "$tmp/smi.csv"
"$gpuplan" import nvsmi "$tmp/smi.csv" --node smi >"$tmp/out"
check "nvsmi without timestamps: dated at the mtime, said" grep -qx '  dated 2026-07-26 16:57:12 (the file.s modification time)' "$tmp/out"
check "... stored then" bash -c "[ $(node_ts min smi) = $then_ms ] && [ $(node_last_ms smi) = $then_ms ]"
"$gpuplan" import nvsmi - --node smipiped <"$tmp/smi.csv" >"$tmp/out"
check "nvsmi from stdin: dated at the import" grep -qE '^  dated .* \(the time of the import\)$' "$tmp/out"
printf 'timestamp, index, name, utilization.gpu [%%]\n2026/07/20 08:00:00.000, 0, NVIDIA L40S, 30 %%\n' >"$tmp/smits.csv"
"$gpuplan" import nvsmi "$tmp/smits.csv" --node smits >"$tmp/out"
check "nvsmi with timestamps: kept, no dated line" bash -c "! grep -q dated '$tmp/out' && [ $(node_ts max smits) = $own_ms ]"
export GPUPLAN_DB=$tmp/t.db

# -o DT: the rows' own times. The capture's last row carries a ^C: refused whole, by line.
"$gpuplan" import dmon "$dmon/notes-zh__1GPU-idle__pucvmet-oDT-ccpm.txt" --node dt 2>"$tmp/err"
check "the ^C row: exit 2" [ $? = 2 ]
check "... naming the file and line" has "$tmp/err" "notes-zh__1GPU-idle__pucvmet-oDT-ccpm.txt:6: 25 fields where the header has 24"
check "... and nothing stored" [ "$(sql "SELECT count(*) FROM node WHERE name = 'dt'")" = 0 ]
head -5 "$dmon/notes-zh__1GPU-idle__pucvmet-oDT-ccpm.txt" | "$gpuplan" import dmon - --node dt >"$tmp/out"
check "the rows before it keep their own times" has "$tmp/out" "3 rows in 3 rounds, 2026-08-16 09:22:34 to 2026-08-16 09:22:36 (the log's own times)"

# ---- DCMI imports ----------------------------------------------------------------------------
before=$(node_power_samples)
for f in openbmc-phosphor-host-ipmid-167__ampere__deactivated-zero.txt \
         openbmc-phosphor-host-ipmid-167__ampere__deactivated-360W.txt \
         openbmc-openbmc-3257__witherspoon__deactivated-319W.txt; do
    "$gpuplan" import dcmi "$dcmi/$f" --node bmc-off >"$tmp/out" 2>&1
    check "$f: exit 4" [ $? = 4 ]
    check "$f: says why nothing was stored" has "$tmp/out" \
        'stored nothing in node "bmc-off": the BMC says "Power reading state is: deactivated"'
done
check "deactivated readings store no watts" [ "$(node_power_samples)" = "$before" ]
check "... and make no node" [ "$(sql "SELECT count(*) FROM node WHERE name = 'bmc-off'")" = 0 ]

"$gpuplan" import dcmi "$dcmi/lovoo-ipmi_exporter-18__activated-2017.txt" --node old-bmc >"$tmp/out"
check "activated: the reading with its period, dated by the BMC" has "$tmp/out" \
    'imported wall power 215 W into node "old-bmc" (162 to 276 W, average 176 W over 1131466 s), dated 2017-02-15 12:49:51 (the BMC'"'"'s timestamp)'
check "one wall power sample more" [ "$(node_power_samples)" = $((before + 1)) ]
# ipmitool 1.8.19's numeric stamp, on the line of the sampling period; the node whose MIG
# slice log ended then: capacity sets its wall power against its GPU's.
"$gpuplan" import dcmi "$dcmi/ateodorescu-home-assistant-addons-38__lanplus__numeric-ts-joined-line.txt" --node k2 >"$tmp/out"
check "numeric stamp read" has "$tmp/out" "dated 2026-07-26 16:57:12 (the BMC's timestamp)"
since=$(( (now - $(date -d '2026-07-26' +%s)) / 86400 + 2 ))d
"$gpuplan" capacity --since "$since" --node k2 >"$tmp/cap"
check "capacity: the dmon GPU's utilization and power" grep -qE '^  k2 gpu 0 +44\.[0-9]% .* 147\.[0-9] W' "$tmp/cap"
check "capacity: the DCMI wall power against it" grep -qE '^  k2 +wall +186\.0 W, GPUs +147\.[0-9] W' "$tmp/cap"

# ---- --ipmi-local ------------------------------------------------------------------------------
mkdir -p "$tmp/bin"
fake() { # what the stand-in ipmitool does after checking its arguments
    printf '#!/bin/sh\n[ "$*" = "dcmi power reading" ] || { echo "usage" >&2; exit 1; }\n%s\n' "$1" >"$tmp/bin/ipmitool"
    chmod +x "$tmp/bin/ipmitool"
}
"$gpuplan" node add rack --ipmi-local >/dev/null
fake "cat '$dcmi/radiorabe-rabe-zabbix-101__activated-2022.txt'"
PATH=$tmp/bin:$PATH "$gpuplan" node test rack >"$tmp/out"
check "node test: the local reading" has "$tmp/out" \
    "ipmi local ipmitool dcmi power reading: 436 bytes, 0 GPUs, 1 samples, wall power 197.0 W (175 to 242 W, average 190 W over 123893 s)"
PATH=$tmp/bin:$PATH "$gpuplan" collect --once >"$tmp/out"
check "collect: the node ok" has "$tmp/out" "1 node ok, 0 failed"
"$gpuplan" fleet >"$tmp/fleet"
check "fleet: the wall power, collected now" grep -qE '^  rack: 197\.0 W at the wall' "$tmp/fleet"

# A GPU server read locally both ways, nvidia-smi for its GPU (a stand-in printing one synthetic
# row, as the hardening test's does) and ipmitool for its wall: capacity sets one against the
# other within one cycle.
cat >"$tmp/bin/nvidia-smi" <<'SH'
#!/bin/sh
echo "timestamp, index, uuid, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu, clocks.sm [MHz], power.limit [W]"
echo "$(date '+%Y/%m/%d %H:%M:%S').000, 0, GPU-synthetic-0, NVIDIA H100 80GB HBM3, 50, 1000, 81559, 150.00, 50, 1980, 700.00"
SH
chmod +x "$tmp/bin/nvidia-smi"
fake "cat '$dcmi/lovoo-ipmi_exporter-18__activated-2017.txt'"
"$gpuplan" node add both --nvsmi-local --ipmi-local >/dev/null
PATH=$tmp/bin:$PATH "$gpuplan" collect --once >"$tmp/out"
check "nvidia-smi and ipmitool side by side: the node ok (and rack)" has "$tmp/out" "2 nodes ok, 0 failed"
"$gpuplan" capacity --since 1d --node both >"$tmp/cap"
check "capacity: the local wall against the local GPU" grep -qE '^  both +wall +215\.0 W, GPUs +150\.0 W: +65\.0 W besides the GPUs' "$tmp/cap"
# Beside it "rack", a BMC with no GPU: its wall is no server's base, so the base measured is
# both's 65 W, not the mean of 65 and rack's whole 206 W (its two readings, 197 and 215 W).
"$gpuplan" capacity --since 1d --node both --node rack >"$tmp/cap"
check "capacity: a wall without GPUs is said to be no server base" grep -qE '^  rack +wall +206\.0 W, GPUs +0\.0 W: +206\.0 W besides the GPUs \(no GPU power here: not a server base\)' "$tmp/cap"
"$gpuplan" scenario save "$root/tests/fixtures/examples/seed-dgx-a100.json" >/dev/null
"$gpuplan" scenario measure "Ten DGX A100 against AWS p4d (seed figures)" --since 1d --node both --node rack >"$tmp/out"
check "measure: the server base from Redfish/DCMI" has "$tmp/out" ", server base from Redfish"
check "measure: server_base_w is both's 65 W alone" bash -c "'$gpuplan' scenario export 'Ten DGX A100 against AWS p4d (seed figures)' | $py -c '
import json, sys
assert json.load(sys.stdin)[\"self_hosted\"][\"power\"][\"server_base_w\"] == 65'"
"$gpuplan" node rm both >/dev/null

fake "cat '$dcmi/openbmc-openbmc-3257__witherspoon__deactivated-319W.txt'"
before=$(node_power_samples)
PATH=$tmp/bin:$PATH "$gpuplan" node test rack >"$tmp/out"
check "node test, deactivated: exit 1" [ $? = 1 ]
check "... saying why" has "$tmp/out" 'FAILED: the BMC says "Power reading state is: deactivated": no reading (its 319 W is not a measurement)'
PATH=$tmp/bin:$PATH "$gpuplan" collect --once >"$tmp/out"
check "collect, deactivated: the node failed" has "$tmp/out" "0 nodes ok, 1 failed"
check "... nothing stored" [ "$(node_power_samples)" = "$before" ]
"$gpuplan" node list >"$tmp/nodes"
check "node list shows the reason" grep -qE '^rack .*deactivated' "$tmp/nodes"

# A BMC that never answers: the cycle's timeout ends it, and the tool's process group with it.
fake "echo \$\$ >'$tmp/pid'; exec sleep 120"
start=$(date +%s.%N)
PATH=$tmp/bin:$PATH "$gpuplan" collect --once --timeout 1s >"$tmp/out"
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
check "a hung ipmitool: the cycle ends within the timeout plus a second ($elapsed s)" [ "$(echo "$elapsed < 2.5" | bc)" = 1 ]
"$gpuplan" node list >"$tmp/nodes"
check "... recorded as not answering" grep -qE '^rack .*ipmitool did not answer in time' "$tmp/nodes"
check "... and killed" bash -c "! kill -0 $(cat "$tmp/pid") 2>/dev/null"

rm "$tmp/bin/ipmitool"
PATH=$tmp/bin:/nonexistent "$gpuplan" node test rack >"$tmp/out"
check "no ipmitool on PATH: said so" has "$tmp/out" "FAILED: cannot run ipmitool: No such file or directory"

"$gpuplan" import dcmi - --node x --end "@$now" </dev/null 2>"$tmp/err"
check "--end is for dmon only: exit 2" [ $? = 2 ]

# A capture with no GPU reading (a CSV cut inside its header, a node_exporter scrape) is the
# wrong file or a cut one: exit 2, one line naming it, and no node made.
head -c 700 "$fx/nvidia_smi_csv/nvgpuexp__L40S__drv595.80__load__query-gpu.csv" >"$tmp/cut.csv"
"$gpuplan" import nvsmi "$tmp/cut.csv" --node cut >"$tmp/out" 2>"$tmp/err"
check "a CSV cut inside its header: exit 2" [ $? = 2 ]
check "one line naming the file" bash -c "[ \$(wc -l <'$tmp/err') = 1 ] && grep -qF '$tmp/cut.csv: no GPU readings in it' '$tmp/err'"
"$gpuplan" import nvsmi "$fx/nvidia_smi_csv/nvgpuexp__H100-80GB-HBM3__drv590.48.01__load__query-compute-apps.csv" --node cut 2>"$tmp/err"
check "a --query-compute-apps CSV (processes, no GPU metric): exit 2" [ $? = 2 ]
check "it says what it may be" grep -qF 'or not a --query-gpu capture' "$tmp/err"
printf 'node_cpu_seconds_total{cpu="0",mode="idle"} 123\n' >"$tmp/node.prom"
"$gpuplan" import prom "$tmp/node.prom" --node cut 2>"$tmp/err"
check "a scrape without DCGM series: exit 2" [ $? = 2 ]
check "it says so" grep -qF 'no DCGM_FI_ series with a value' "$tmp/err"
check "neither made the node" bash -c "! '$gpuplan' node list | grep -q '^cut '"

# A dmon log names no GPU model: beside p5's H100s its 8 GPUs and the 2 of "old" are "(unknown
# model)" in capacity, and scenario measure's refusal names them so and suggests, though they
# are the larger group, the model --gpu can select.
"$gpuplan" import dmon "$dmon/gnosia93-slurm-on-aws__8xGPU-training__pcut-d10.txt" --node anon \
    --interval 10s --end "@$now" >/dev/null
"$gpuplan" capacity --since 1d >"$tmp/cap"
check "capacity: the model a dmon log leaves unnamed is said" grep -qE '^model \(unknown model\) +10 ' "$tmp/cap"
"$gpuplan" scenario save "$root/tests/fixtures/examples/seed-dgx-a100.json" >/dev/null
"$gpuplan" scenario measure "Ten DGX A100 against AWS p4d (seed figures)" --since 1d 2>"$tmp/err"
check "measure: two models refused, exit 2" [ $? = 2 ]
check "measure: the unnamed one said, a selectable one suggested" grep -qF '(10 (unknown model), 8 H100 SXM 80GB): measure one with --gpu "H100 SXM 80GB"' "$tmp/err"

finish

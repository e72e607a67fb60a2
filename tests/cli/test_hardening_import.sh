#!/usr/bin/env bash
# Issue 25, the import path: items 2, 3, 4, 8 and three points of 11, each against the hostile
# Prometheus API and the slow exporter of tests/cli/fault_server.py (its text lists the modes).
# Every section fails on the main branch before the fix.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
export HOME=$tmp/home
mkdir -p "$HOME"
# expect STATUS STDERR-SUBSTRING -- command...: exit status and one stderr line holding the text
expect() {
    local want=$1 msg=$2; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
    [ "$got" = "$want" ] || { echo "  exit $got, wanted $want: $*"; cat "$tmp/err"; return 1; }
    [ "$(wc -l <"$tmp/err")" = 1 ] || { echo "  stderr is not one line:"; cat "$tmp/err"; return 1; }
    grep -qF -- "$msg" "$tmp/err" || { echo "  stderr lacks '$msg':"; cat "$tmp/err"; return 1; }
}
sql() { $py -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2"; }
rows() { $py "$root/tests/cli/rollups5m.py" count "$GPUPLAN_DB"; }
capture="$root/tests/fixtures/telemetry/dcgm_exporter/aicr__eks_p5_8xH100-80GB-HBM3__drv580.105.08__2026-03-10__grep-sampled.prom"
redfish="$root/tests/fixtures/telemetry/redfish/telegraf__dell-idrac__Chassis_System.Embedded.1_Power.json"
timeout 300 $py "$root/tests/cli/fault_server.py" "$capture" "$redfish" "$tmp/port" 290 &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$tmp/port")"
# Two whole hours that ended a day ago: 24 buckets of 7 metrics (the MIG query answers none).
end=$(( $(date +%s) / 3600 * 3600 - 86400 ))
since=$((end - 7200))
imp() { "$gpuplan" import --since "$since" --until "$end" --prometheus "$@"; }

# ---- 3. points outside the asked window are dropped, counted, and seal and mark nothing -----
export GPUPLAN_DB=$tmp/shift.db
check "3: an honest answer: 168 buckets stored, exit 0" bash -c "GPUPLAN_DB=$tmp/honest.db '$gpuplan' import --since $since --until $end --prometheus '$base/prom' | grep -q '168 5-minute samples stored'"
check "3: a server answering a year ahead: exit 2, one line naming the points" expect 2 '672 points outside the times asked for' -- imp "$base/shift"
check "3: nothing of it stored" [ "$(rows)" = 0 ]
check "3: no seal moved past the window's end (per series and fleet-wide)" [ "$(sql "$GPUPLAN_DB" "SELECT (SELECT coalesce(max(sealed_ms), 0) FROM series) <= $end * 1000 AND (SELECT max(sealed_ms) FROM fleet_sealed) <= $end * 1000")" = 1 ]
check "3: the window is not marked imported" [ "$(sql "$GPUPLAN_DB" "SELECT count(*) FROM history_mark")" = 0 ]
"$gpuplan" fleet --json >"$tmp/fleet.json"
check "3: fleet shows no reading from the future" $py -c "
import json, sys
assert all(g.get('age_s', 0) >= 0 for g in json.load(open(sys.argv[1]))), 'a negative age'" "$tmp/fleet.json"
touch "$tmp/port.honest" # the same server, honest from now on: the re-run asks again
check "3: a re-run asks for the window again and stores it" bash -c "'$gpuplan' import --since $since --until $end --prometheus '$base/shift' | grep -q '1 of 1 chunks, 168 5-minute samples stored'"
check "3: and marks it" [ "$(sql "$GPUPLAN_DB" "SELECT count(*) FROM history_mark WHERE done_ms = $end * 1000")" = 8 ]

# ---- 2. memory stays within the import's budget (512 MiB, docs/telemetry.md) -----------------
budget_kb=$((512 * 1024))
# Under ASan the peak holds its shadow and quarantine: the bound is checked on other builds.
asan=0
ldd "$gpuplan" | grep -q libasan && asan=1
within() { [ "$asan" = 1 ] && { echo "  (ASan build: peak $1 KB not held to the budget)"; return 0; }; [ "${1:-$budget_kb}" -lt "$budget_kb" ]; }
export GPUPLAN_DB=$tmp/huge.db
/usr/bin/time -f "rss %M" -o "$tmp/time" "$gpuplan" import --since "$since" --until "$end" --prometheus "$base/hugevalid" >"$tmp/huge.out" 2>"$tmp/huge.err"
rc=$?
check "2: an endless valid answer (a new GPU every series): exit 2" [ "$rc" = 2 ]
check "2: the refusal names the query and the options that make it smaller" grep -q 'in DCGM_FI_[A-Z_]*, .*: lower --hosts-per-query (8) or --max-points (11000)' "$tmp/huge.err"
rss=$(sed -n 's/^rss //p' "$tmp/time")
check "2: peak memory $rss KB, within the $budget_kb KB budget" within "$rss"
check "2: nothing of it stored" [ "$(rows)" = 0 ]
export GPUPLAN_DB=$tmp/endless.db
/usr/bin/time -f "rss %M" -o "$tmp/time" timeout 60 "$gpuplan" import --since "$since" --until "$end" --prometheus "$base/endless" >"$tmp/end.out" 2>"$tmp/end.err"
rc=$?
check "2: an endless answer: exit 2, cut at the answer's cap" bash -c "[ $rc = 2 ] && grep -q 'larger than the cap of [0-9]* bytes in DCGM_FI_[A-Z_]* for 1 host from h1' '$tmp/end.err'"
rss=$(sed -n 's/^rss //p' "$tmp/time")
check "2: peak memory $rss KB, within the budget" within "$rss"

/usr/bin/time -f "rss %M" -o "$tmp/time" timeout 60 "$gpuplan" capacity --since 1d --prometheus "$base/hugevalid" >/dev/null 2>"$tmp/cap.err"
rc=$?
check "2: capacity --prometheus, an endless answer: exit 2, the query named" bash -c "[ $rc = 2 ] && grep -q 'larger than the cap of [0-9]* bytes (query [0-9]* of [0-9]*: .*): lower --hosts-per-query (8)' '$tmp/cap.err'"
rss=$(sed -n 's/^rss //p' "$tmp/time")
check "2: capacity --prometheus: peak memory $rss KB, within the budget" within "$rss"

check "2: an empty 502 from a proxy: exit 2, the status said" expect 2 'HTTP 502 with a body that is not JSON' -- imp "$base/e502" --node e502
check "2: the raw series' host list failing after the recorded check: exit 2, the error said (was a double free)" expect 2 'HTTP 500' -- imp "$base/relist" --node relist

# ---- 4. one token reader, no header injection, no secret printed ------------------------------
export GPUPLAN_DB=$tmp/tok.db
hdrs=$tmp/port.headers
asked() { [ -f "$hdrs" ] && grep -c '^----' "$hdrs" || echo 0; }
printf 's3cret\r\nX-Injected: 1\r\n' >"$tmp/tok-crlf"
chmod 600 "$tmp/tok-crlf"
imp "$base/echo" --token-file "$tmp/tok-crlf" >/dev/null 2>"$tmp/crlf.err"
check "4: a token file's first line is the token; its CR/LF never reach the server" bash -c "grep -q 'Authorization: Bearer s3cret\$' '$hdrs' && ! grep -q 'X-Injected' '$hdrs'"
check "4: a private token file draws no warning" [ ! -s "$tmp/crlf.err" ]
n0=$(asked)
printf 's3\rX-Injected: 1\n' >"$tmp/tok-cr"
chmod 600 "$tmp/tok-cr"
check "4: a CR inside the token: exit 2, one line" expect 2 'the token holds a control character' -- imp "$base/echo" --token-file "$tmp/tok-cr" --node cr
check "4: and the token is not printed" bash -c "! grep -q 's3' '$tmp/err'"
check "4: --org-id with CR/LF: exit 2, one line" expect 2 '--org-id: the tenant id holds a control character' -- imp "$base/echo" --org-id $'acme\r\nX-Injected: 1' --node org
check "4: capacity --prometheus refuses the same token file" expect 2 'the token holds a control character' -- "$gpuplan" capacity --prometheus "$base/echo" --token-file "$tmp/tok-cr"
check "4: a missing token file is an error, not an import without credentials" expect 1 'cannot read the token file' -- imp "$base/echo" --token-file "$tmp/nosuch" --node missing
if [ "$(id -u)" != 0 ]; then
    printf 's3cret\n' >"$tmp/tok-000"
    chmod 000 "$tmp/tok-000"
    check "4: an unreadable token file is an error" expect 1 'cannot read the token file' -- imp "$base/echo" --token-file "$tmp/tok-000" --node unreadable
else
    echo "skip 4: an unreadable token file (running as root, which reads any file)"
fi
check "4: none of the refused ones sent a request" [ "$(asked)" = "$n0" ]
printf 's3cret\n' >"$tmp/tok-644"
chmod 644 "$tmp/tok-644"
imp "$base/echo" --token-file "$tmp/tok-644" --node open >/dev/null 2>"$tmp/open.err"
check "4: a token file readable by others draws a warning" grep -q 'warning: .*tok-644: the token file is readable by others (mode 644)' "$tmp/open.err"
"$gpuplan" capacity --prometheus "$base/echo" --token-file "$tmp/tok-644" >/dev/null 2>"$tmp/open2.err"
check "4: capacity --prometheus warns too" grep -q 'readable by others' "$tmp/open2.err"
check "4: capacity --prometheus with user:pass: exit 2" expect 2 'user name or password' -- "$gpuplan" capacity --prometheus "http://user:hunter2@127.0.0.1:9"
check "4: and the password is not printed" bash -c "! grep -q hunter2 '$tmp/err'"
check "4: import --prometheus with user:pass: exit 2" expect 2 'user name or password' -- imp "http://user:hunter2@127.0.0.1:9"
check "4: and the password is not printed" bash -c "! grep -q hunter2 '$tmp/err'"

# ---- 11. duplicate series kept once, +-1e300 counted ------------------------------------------
export GPUPLAN_DB=$tmp/dup.db
imp "$base/dup" >"$tmp/dup.out" 2>&1
check "11: duplicate series: exit 0, said on the summary" grep -q '28 series sent twice (the first kept)' "$tmp/dup.out"
check "11: the first kept, not the sum (n 5 in each bucket)" $py -c "
import sqlite3, sys
sys.path.insert(0, sys.argv[2])
import rollups5m
r = list(rollups5m.rollups(sqlite3.connect(sys.argv[1])))
assert len(r) == 168 and all(x[2] == 5 for x in r), r[:3]" "$GPUPLAN_DB" "$root/tests/cli"
export GPUPLAN_DB=$tmp/e300.db
imp "$base/e300" >"$tmp/e300.out" 2>&1
check "11: +-1e300: counted and said" grep -q 'not stored: 7 points without a reading .*7 5-minute rows incomplete or impossible' "$tmp/e300.out"
check "11: the rest stored, nothing beyond +-1.4e14" $py -c "
import sqlite3, sys
sys.path.insert(0, sys.argv[2])
import rollups5m
r = list(rollups5m.rollups(sqlite3.connect(sys.argv[1])))
assert len(r) == 161 and all(abs(v) < 1.4e14 for x in r for v in x[3:]), len(r)" "$GPUPLAN_DB" "$root/tests/cli"

# ---- 8. per-transfer limits from the cycle's --timeout, the one hit named ---------------------
export GPUPLAN_DB=$tmp/slow.db
"$gpuplan" node add slow --dcgm "$base/slow/slow" >/dev/null
check "8: an exporter that needs 3 s answers within the default 10 s" bash -c "'$gpuplan' collect --once | grep -q '1 node ok, 0 failed'"
"$gpuplan" collect --once --timeout 4s >/dev/null 2>&1
check "8: at --timeout 4s the first-byte limit (2 s) is named" bash -c "'$gpuplan' node list | grep '^slow ' | grep -q 'no first byte within 2.0 s (the first-byte limit: half of --timeout; timed out)'"

# ---- 11. SIGTERM while the collector waits on a lock or pauses to retry: it ends at once ------
export GPUPLAN_DB=$tmp/sig.db
"$gpuplan" node add seen --dcgm "$base/seen/seen" >/dev/null
$py -c 'import sqlite3, sys, time
d = sqlite3.connect(sys.argv[1], isolation_level=None)
d.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(120)' "$GPUPLAN_DB" "$tmp/locked" &
pids+=($!)
locker=$!
for _ in $(seq 100); do [ -e "$tmp/locked" ] && break; sleep 0.1; done
timeout 60 "$gpuplan" collect --interval 0.1s --timeout 2s >/dev/null 2>"$tmp/sig.err" &
collector=$!
for _ in $(seq 300); do [ -e "$tmp/port.seen" ] && break; sleep 0.05; done
sleep 0.5 # inside the write: waiting on the lock, or pausing between tries
t0=$(date +%s%N)
kill -TERM "$collector"
wait "$collector"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
kill "$locker" 2>/dev/null
check "11: SIGTERM during the lock wait and retries: exit 0 in $ms ms (under 1 s)" [ "$rc" = 0 -a "$ms" -lt 1000 ]
check "11: and it says the cycle was not stored" grep -q 'cycle 1 not stored: stopped by a signal' "$tmp/sig.err"

finish "hardening_import"

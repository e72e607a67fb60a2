#!/usr/bin/env bash
# Issue 19, hardening: each section reproduces one item of the issue and checks its fix.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg GPUPLAN_DB=$tmp/db
mkdir -p "$HOME"
seed=$root/tests/fixtures/examples/seed-dgx-a100.json
seedname="Ten DGX A100 against AWS p4d (seed figures)"
# expect STATUS STDERR-SUBSTRING -- command...: exit status, one stderr line, empty stdout
expect() {
    local want=$1 msg=$2; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
    [ "$got" = "$want" ] || { echo "  exit $got, wanted $want: $*"; cat "$tmp/err"; return 1; }
    [ ! -s "$tmp/out" ] || { echo "  stdout not empty: $*"; return 1; }
    [ "$(wc -l <"$tmp/err")" = 1 ] || { echo "  stderr is not one line:"; cat "$tmp/err"; return 1; }
    grep -qF -- "$msg" "$tmp/err" || { echo "  stderr lacks '$msg':"; cat "$tmp/err"; return 1; }
}
sql() { $py -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2"; }
# Under the release build, valgrind sees what ASan's build sees (uninitialised reads).
memcheck=()
if command -v valgrind >/dev/null && ! ldd "$gpuplan" | grep -q libasan; then
    memcheck=(valgrind -q --error-exitcode=99 --track-origins=no)
fi

# The faulty-node server (tests/cli/fault_server.py), for the collector's items.
capture="$root/tests/fixtures/telemetry/dcgm_exporter/aicr__eks_p5_8xH100-80GB-HBM3__drv580.105.08__2026-03-10__grep-sampled.prom"
redfish="$root/tests/fixtures/telemetry/redfish/telegraf__dell-idrac__Chassis_System.Embedded.1_Power.json"
timeout 500 $py "$root/tests/cli/fault_server.py" "$capture" "$redfish" "$tmp/port" 480 &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
base="http://127.0.0.1:$port"

# ---- 1. a repeated import into an existing node stores its samples --------------------------
export GPUPLAN_DB=$tmp/import.db
$py "$root/tests/cli/gen_telemetry.py" "$tmp" 1 imp >/dev/null
head -n 400 "$tmp/imp.prom" >"$tmp/imp1.prom"
sed -n 401,800p "$tmp/imp.prom" >"$tmp/imp2.prom"
check "1: first import creates the node" bash -c "'$gpuplan' import prom '$tmp/imp1.prom' --node imp | grep -q 'imported 400 samples'"
check "1: second import, new timestamps" bash -c "set -o pipefail; ${memcheck[*]} '$gpuplan' import prom '$tmp/imp2.prom' --node imp | grep -q 'imported 400 samples'"
check "1: third import, repeated timestamps" bash -c "set -o pipefail; ${memcheck[*]} '$gpuplan' import prom '$tmp/imp2.prom' --node imp | grep -q 'imported'"
check "1: every distinct sample is stored" [ "$(sql "$GPUPLAN_DB" "SELECT count(*) FROM sample")" = 800 ]
check "1: one node" [ "$(sql "$GPUPLAN_DB" "SELECT count(*) FROM node")" = 1 ]

# ---- 12. an empty selection (a fresh database, a --node typo) under UBSan ---------------------
export GPUPLAN_DB=$tmp/empty.db UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
check "12: capacity on a fresh database" bash -c "'$gpuplan' capacity | grep -q 'Capacity of 0 GPUs'"
check "12: capacity --csv on a fresh database" bash -c "'$gpuplan' capacity --csv >/dev/null"
check "12: capacity --node typo" bash -c "'$gpuplan' capacity --node nosuch --json | grep -q '\"gpus\":.*0'"
check "12: plan --mix with no load says so" expect 2 'no load to plan on' -- "$gpuplan" plan --mix "$seed" --option "p4d on-demand"
"$gpuplan" scenario save "$seed" >/dev/null
check "12: scenario measure with nothing measured says so" expect 2 'nothing to measure' -- "$gpuplan" scenario measure "Ten DGX A100 against AWS p4d (seed figures)"
"$gpuplan" import prom "$tmp/imp1.prom" --node imp >/dev/null
check "12: capacity --node typo beside a real node" bash -c "'$gpuplan' capacity --node nosuch | grep -q 'Capacity of 0 GPUs'"
unset UBSAN_OPTIONS

# ---- 6. CSV: a leading control character or space does not hide a formula ------------------
# The payloads go through report --format csv, sweep and capacity --csv, then LibreOffice
# imports each file (its CSV filter evaluates formulas) and openpyxl reads what it made.
export GPUPLAN_DB=$tmp/csv.db
$py - "$seed" "$tmp/inj.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s['cloud_options'][0]['name'] = '\x01=HYPERLINK("http://evil.example","click")'
s['cloud_options'][1]['name'] = '\n+1+2'
s['cloud_options'][2]['name'] = ' =3+4'
json.dump(s, open(sys.argv[2], 'w'))
PY
printf 'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-i",modelName="NVIDIA H100 80GB HBM3",Hostname="\001=HYPERLINK(\\"http://evil.example\\",\\"h\\")"} 50\n' >"$tmp/inj.prom"
"$gpuplan" import prom "$tmp/inj.prom" --node inj >/dev/null
mkdir -p "$tmp/csv"
"$gpuplan" report "$tmp/inj.json" --format csv -o "$tmp/csv/report.csv"
"$gpuplan" sweep "$tmp/inj.json" --vary utilization=0.1:0.9:3 -o "$tmp/csv/sweep.csv"
"$gpuplan" capacity --csv >"$tmp/csv/capacity.csv"
check "6: no payload reaches a CSV as a live formula (byte check)" bash -c "! grep -Eq '(^|,)\"?[ ]*[=+@-]' '$tmp/csv/report.csv' '$tmp/csv/sweep.csv' '$tmp/csv/capacity.csv'"
if command -v soffice >/dev/null; then
    (cd "$tmp/csv" && HOME=$tmp/lo timeout 120 soffice --headless --convert-to xlsx --outdir "$tmp/csv/lo" \
        report.csv sweep.csv capacity.csv >/dev/null 2>&1)
    check "6: LibreOffice imports every payload as text" $py - "$tmp/csv/lo" <<'PY'
import os, sys, openpyxl
d = sys.argv[1]
found = 0
for name in ('report', 'sweep', 'capacity'):
    ws = openpyxl.load_workbook(os.path.join(d, name + '.xlsx')).active
    for row in ws.iter_rows():
        for c in row:
            if c.data_type == 'f':
                sys.exit('%s!%s is a formula: %r' % (name, c.coordinate, c.value))
            if isinstance(c.value, str) and ('HYPERLINK' in c.value or '+1+2' in c.value):
                found += 1
if found < 4:
    sys.exit('only %d payload cells found' % found)
PY
else
    echo "FAIL 6: soffice is not installed (apt-get install libreoffice-calc-nogui)"
    fails=$((fails + 1))
fi

# ---- 7. XLSX: every outside string goes through one sanitiser, document properties too ------
$py - "$seed" "$tmp/ctl.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s['name'] = 'plan\x01\x1b[31m\x7f\u0085 \u00e9t\u00e9 \u20ac'
s['cloud_options'][0]['name'] = '\x02=HYPERLINK("http://evil.example","x")\x0b'
json.dump(s, open(sys.argv[2], 'w'))
PY
"$gpuplan" report "$tmp/ctl.json" --format xlsx -o "$tmp/ctl.xlsx"
check "7: openpyxl reads the workbook; no control character anywhere" $py - "$tmp/ctl.xlsx" <<'PY'
import re, sys, zipfile, openpyxl
bad = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]')
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in z.namelist():
        text = z.read(n).decode('utf-8')  # every part is valid UTF-8
        if bad.search(text):
            sys.exit('%s holds a control character' % n)
    core = z.read('docProps/core.xml').decode()
    assert '<dc:title>plan[31m \u00e9t\u00e9 \u20ac</dc:title>' in core, core
wb = openpyxl.load_workbook(sys.argv[1])
assert wb.properties.title == 'plan[31m \u00e9t\u00e9 \u20ac', wb.properties.title
cells = [c for ws in wb for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
hl = [c for c in cells if 'HYPERLINK' in c.value and not c.value.startswith('{')]
assert all(c.data_type == 's' for c in hl), 'a formula'
assert hl, 'the option name is missing'
# The Summary's opening quotes the name inside a sentence (text too); every other cell holds
# the name itself, first.
said = [c for c in hl if c.value.startswith('Against "')]
assert [c.value.split('":')[0] for c in said] == ['Against "=HYPERLINK("http://evil.example","x")'], said
assert all(c.value.startswith('=HYPERLINK') for c in hl if c not in said), [c.value for c in hl]
PY

# ---- 13. a failed XLSX write is one line, gpuplan's ---------------------------------------------
check "13: a missing directory: one line" expect 1 'No such file or directory' -- "$gpuplan" report "$seed" --format xlsx -o "$tmp/nodir/x.xlsx"
# A file size limit makes libxlsxwriter fail halfway through its zip (EFBIG, SIGXFSZ ignored).
check "13: a write failing halfway: one line" expect 1 'File too large' -- bash -c "trap '' XFSZ; ulimit -f 4; exec '$gpuplan' report '$seed' --format xlsx -o '$tmp/big.xlsx'"
check "13: and no file or temporary is left" bash -c "! ls '$tmp' | grep -q '^big\.xlsx'"

# ---- 5. -o writes in place to what is not a regular file, follows links, "-" is stdout -------
o5=$tmp/o5
mkdir -p "$o5"
export GPUPLAN_DB=$tmp/o5.db
"$gpuplan" scenario save "$seed" >/dev/null
writers=("report $seed --format md" "report $seed --format csv" "report $seed --format json"
         "report $seed --format xlsx" "sweep $seed --vary utilization=0.1:0.9:3"
         "scenario export '$seedname'")
if [ "$(id -u)" = 0 ]; then
    # A device node of our own (the same as /dev/null), so a regression cannot break the system's.
    mknod "$o5/null" c 1 3
    for w in "${writers[@]}"; do
        check "5: $w -o a character device writes to it in place" bash -c "eval \"'$gpuplan' $w -o '$o5/null'\" && [ -c '$o5/null' ]"
    done
    ln -s "$o5/null" "$o5/null-link"
    check "5: a link to a character device: both stay" bash -c "'$gpuplan' report '$seed' -o '$o5/null-link' && [ -L '$o5/null-link' ] && [ -c '$o5/null' ]"
else
    echo "skip 5: character devices need root (mknod)"
fi
# A FIFO with a reader: the reader gets the report and the FIFO stays a FIFO.
mkfifo "$o5/fifo"
cat "$o5/fifo" >"$o5/fifo.got" &
reader=$!
"$gpuplan" report "$seed" --format csv -o "$o5/fifo"
if [ -p "$o5/fifo" ]; then
    wait "$reader"
    check "5: a FIFO gets the report in place" bash -c "head -1 '$o5/fifo.got' | grep -q '^index,month,'"
else
    kill "$reader" 2>/dev/null
    check "5: a FIFO stays a FIFO" false
fi
# A link to a regular file: the target gets the new content, the link stays a link.
echo old >"$o5/target.md"
chmod 640 "$o5/target.md"
ln -s target.md "$o5/link.md"
"$gpuplan" report "$seed" -o "$o5/link.md"
check "5: a link to a file stays a link" [ -L "$o5/link.md" ]
check "5: its target is replaced" grep -q '^# ' "$o5/target.md"
check "5: the target keeps its mode" [ "$(stat -c %a "$o5/target.md")" = 640 ]
ln -s nowhere.md "$o5/dangling.md"
check "5: a dangling link is refused" expect 2 'dangling.md: is a symbolic link to nothing' -- "$gpuplan" report "$seed" -o "$o5/dangling.md"
check "5: and its target is not created" [ ! -e "$o5/nowhere.md" ]
check "5: a directory is refused" expect 2 'is a directory' -- "$gpuplan" report "$seed" -o "$o5"
check "5: -o - is stdout (md)" bash -c "'$gpuplan' report '$seed' -o - | grep -q '^# '"
check "5: -o - is stdout (xlsx)" bash -c "'$gpuplan' report '$seed' --format xlsx -o - | head -c 2 | grep -q PK"
check "5: -o - is stdout (sweep)" bash -c "'$gpuplan' sweep '$seed' --vary utilization=0.1:0.9:3 -o - | grep -q '^utilization'"
# Like /dev/stdout, but ours: a regression must not clobber the system's.
ln -s /proc/self/fd/1 "$o5/stdout"
check "5: -o a link to /proc/self/fd/1 into a pipe" bash -c "'$gpuplan' report '$seed' -o '$o5/stdout' | grep -q '^# ' && [ -L '$o5/stdout' ]"
check "5: nothing left behind in the directory" bash -c "[ -z \"\$(ls '$o5' | grep tmp)\" ]"

# ---- 8. read-only commands take no write lock ----------------------------------------------------
export GPUPLAN_DB=$tmp/lock.db
"$gpuplan" scenario save "$seed" >/dev/null
"$gpuplan" import prom "$tmp/imp1.prom" --node imp >/dev/null
# A second connection holds the write lock (BEGIN IMMEDIATE and a row written) until told.
$py - "$GPUPLAN_DB" "$tmp/locked" "$tmp/release" <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute('BEGIN IMMEDIATE')
db.execute("INSERT INTO scenario(name) VALUES ('held by the test')")
open(sys.argv[2], 'w').close()
deadline = time.monotonic() + 120
while not os.path.exists(sys.argv[3]) and time.monotonic() < deadline:
    time.sleep(0.05)
db.execute('ROLLBACK')
PY
holder=$!
pids+=($holder)
for _ in $(seq 600); do [ -e "$tmp/locked" ] && break; sleep 0.05; done
check "8: the second connection holds the lock" [ -e "$tmp/locked" ]
check "8: fleet reads under another writer's lock" bash -c "'$gpuplan' fleet | grep -q imp"
check "8: scenario list reads under the lock" bash -c "'$gpuplan' scenario list | grep -q 'Ten DGX'"
check "8: scenario export reads under the lock" bash -c "'$gpuplan' scenario export '$seedname' | grep -q horizon_months"
check "8: node list reads under the lock" bash -c "'$gpuplan' node list | grep -q '^imp '"
touch "$tmp/release"
wait "$holder"
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    mkdir -p "$tmp/romount"
    cp "$GPUPLAN_DB" "$tmp/romount/ro.db"
    # A private mount namespace: the read-only bind mount vanishes with the command.
    check "8: a database on a read-only mount can be read" unshare -m bash -c "
        mount --bind '$tmp/romount' '$tmp/romount' && mount -o remount,ro,bind '$tmp/romount' &&
        GPUPLAN_DB='$tmp/romount/ro.db' '$gpuplan' fleet | grep -q imp &&
        GPUPLAN_DB='$tmp/romount/ro.db' '$gpuplan' scenario list | grep -q 'Ten DGX'"
else
    echo "skip 8: a read-only mount needs root and unshare"
fi

# ---- 10. secrets: no password in a URL, a token file is one line without controls -------------
export GPUPLAN_DB=$tmp/secrets.db
check "10: a URL with user:pass is refused" expect 2 '~/.netrc' -- "$gpuplan" node add s1 --dcgm "http://user:hunter2@127.0.0.1:9/metrics"
check "10: and the database does not hold it" [ "$(sql "$GPUPLAN_DB" "SELECT count(*) FROM node_source WHERE url LIKE '%hunter2%'")" = 0 ]
check "10: nor a node for it" [ "$(sql "$GPUPLAN_DB" "SELECT count(*) FROM node WHERE name = 's1'")" = 0 ]
check "10: user information on a https URL too" expect 2 '~/.netrc' -- "$gpuplan" node add s2 --redfish "https://root@127.0.0.1:9/redfish/v1/Chassis/1/Power"
printf 's3cret\r\nX-Injected: 1\r\n' >"$tmp/tok-crlf"
chmod 600 "$tmp/tok-crlf"
"$gpuplan" node add t-crlf --dcgm "$base/t-crlf/auth" --token-file "$tmp/tok-crlf" >/dev/null 2>"$tmp/warn1"
check "10: a private token file draws no warning" [ ! -s "$tmp/warn1" ]
check "10: a token file's second line is not sent (no injected header)" bash -c "'$gpuplan' node test t-crlf | grep -q '8 GPUs'"
printf 's3\001cret\n' >"$tmp/tok-ctl"
chmod 644 "$tmp/tok-ctl"
"$gpuplan" node add t-ctl --dcgm "$base/t-ctl/auth" --token-file "$tmp/tok-ctl" >/dev/null 2>"$tmp/warn2"
check "10: a token file readable by others draws a warning" grep -q 'warning: .*tok-ctl.*readable by others' "$tmp/warn2"
check "10: a token with a control character is refused, not sent" bash -c "'$gpuplan' node test t-ctl | grep -q 'control character'"
# A row stored before URLs were checked: the collector refuses to send its credentials.
$py -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute("INSERT INTO node(name) VALUES (?)", ("legacy",)); d.execute("INSERT INTO node_source(node_id, kind, url) VALUES ((SELECT id FROM node WHERE name = ?), ?, ?)", ("legacy", "dcgm", sys.argv[2])); d.commit()' "$GPUPLAN_DB" "http://user:hunter2@127.0.0.1:$port/legacy/ok"
"$gpuplan" collect --once --timeout 3s >/dev/null 2>&1
check "10: a stored URL with a password is not fetched" bash -c "'$gpuplan' node list | grep '^legacy ' | grep -q 'user name or password'"

# ---- 2. hung nodes named to sort first do not starve the healthy ones -------------------------
healthy_stored() { sql "$GPUPLAN_DB" "SELECT count(DISTINCT s.node_id) FROM series s JOIN node n ON n.id = s.node_id WHERE n.name LIKE 'z-ok-%'"; }
export GPUPLAN_DB=$tmp/hung64.db
for i in $(seq -w 1 64); do "$gpuplan" node add "a-hang-$i" --dcgm "$base/a-hang-$i/hang" >/dev/null; done
for i in $(seq -w 1 50); do "$gpuplan" node add "z-ok-$i" --dcgm "$base/z-ok-$i/ok" >/dev/null; done
"$gpuplan" collect --once --timeout 6s >"$tmp/hung64.out" 2>&1
check "2: 64 hung nodes first: all 50 healthy nodes are stored" [ "$(healthy_stored)" = 50 ]
check "2: the hung ones are recorded as timed out" [ "$(sql "$GPUPLAN_DB" "SELECT count(*) FROM node WHERE name LIKE 'a-hang-%' AND last_error LIKE '%timed out%'")" = 64 ]
export GPUPLAN_DB=$tmp/slow14.db
modes=(hang drip hangbody oversize loop)
for i in $(seq -w 1 14); do m=${modes[$((10#$i % 5))]}; "$gpuplan" node add "a-slow-$i" --dcgm "$base/a-slow-$i/$m" >/dev/null; done
for i in $(seq -w 1 50); do "$gpuplan" node add "z-ok-$i" --dcgm "$base/z-ok-$i/ok" >/dev/null; done
"$gpuplan" collect --once --timeout 6s --concurrency 8 >"$tmp/slow14.out" 2>&1
check "2: --concurrency 8 and 14 slow nodes first: all 50 healthy nodes are stored" [ "$(healthy_stored)" = 50 ]
# More hung nodes than one cycle can wait out (8 slots, each freed at the first-byte limit, half
# the cycle: 16 a cycle): the next cycle takes them last.
export GPUPLAN_DB=$tmp/hung-order.db
for i in $(seq -w 1 24); do "$gpuplan" node add "a-hang-$i" --dcgm "$base/a-hang-$i/hang" >/dev/null; done
for i in $(seq -w 1 20); do "$gpuplan" node add "z-ok-$i" --dcgm "$base/z-ok-$i/ok" >/dev/null; done
"$gpuplan" collect --cycles 2 --interval 0.01s --timeout 3s --concurrency 8 >"$tmp/order.out" 2>&1
check "2: a node that hung last cycle goes last: cycle 2 stores every healthy node" grep -q '^cycle 2: 20 nodes ok, 24 failed' "$tmp/order.out"

# ---- 3. a local nvidia-smi shares the cycle's deadline; a timeout kills its whole group -----
mkdir -p "$tmp/bin"
printf 'timestamp, index, uuid, name, utilization.gpu [%%], memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu, clocks.sm [MHz], power.limit [W]\n2026/07/14 08:12:53.353, 0, GPU-fake-0, NVIDIA H100 80GB HBM3, 50, 1000, 81559, 300.00, 50, 1980, 700.00\n' >"$tmp/smi.csv"
# Runs beside the HTTP transfers: it opens the gate a node of the fault server waits on.
cat >"$tmp/bin/nvidia-smi" <<SH
#!/bin/sh
touch "$tmp/gate-open"
cat "$tmp/smi.csv"
SH
chmod +x "$tmp/bin/nvidia-smi"
export GPUPLAN_DB=$tmp/smi.db
"$gpuplan" node add local --nvsmi >/dev/null
"$gpuplan" node add gated --dcgm "$base/gated/gate?f=$tmp/gate-open" >/dev/null
PATH=$tmp/bin:$PATH "$gpuplan" collect --once --timeout 4s >"$tmp/smi.out" 2>&1
check "3: nvidia-smi runs alongside the HTTP transfers (2 nodes ok)" grep -q '2 nodes ok, 0 failed' "$tmp/smi.out"
# A wrapper that never answers, whose child would outlive a kill of the wrapper alone.
cat >"$tmp/bin/nvidia-smi" <<SH
#!/bin/sh
sleep 300 &
echo \$! >"$tmp/smi-child"
wait
SH
export GPUPLAN_DB=$tmp/smi-hang.db
"$gpuplan" node add local --nvsmi >/dev/null
PATH=$tmp/bin:$PATH "$gpuplan" collect --once --timeout 2s >"$tmp/smi-hang.out" 2>&1
check "3: a hung nvidia-smi is recorded" bash -c "'$gpuplan' node list | grep '^local ' | grep -q 'did not answer in time'"
child=$(cat "$tmp/smi-child" 2>/dev/null)
# Killed means gone or a zombie (this container's init may not reap orphans).
check "3: the wrapper's child was killed with it" bash -c "[ -n '$child' ] && ! ps -o stat= -p '$child' | grep -qv Z"
[ -n "$child" ] && kill "$child" 2>/dev/null

# ---- 4. memory is bounded by a budget, not by concurrency x the response cap ----------------
export GPUPLAN_DB=$tmp/over.db
for i in $(seq -w 1 64); do "$gpuplan" node add "a-over-$i" --dcgm "$base/a-over-$i/oversize" >/dev/null; done
for i in $(seq -w 1 10); do "$gpuplan" node add "z-ok-$i" --dcgm "$base/z-ok-$i/ok" >/dev/null; done
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}quarantine_size_mb=1"
/usr/bin/time -o "$tmp/over.rss" -f %M "$gpuplan" collect --once --timeout 8s >"$tmp/over.out" 2>&1
rss=$(cat "$tmp/over.rss")
check "4: 64 oversized responses at once: peak RSS $rss KB under 400 MB" [ "$rss" -lt 409600 ]
check "4: the oversized ones are recorded" [ "$(sql "$GPUPLAN_DB" "SELECT count(*) FROM node WHERE name LIKE 'a-over-%' AND (last_error LIKE '%larger than the cap%' OR last_error LIKE '%were spent%')")" = 64 ]
check "4: the healthy ones are stored" [ "$(healthy_stored)" = 10 ]
check "4: --concurrency is bounded" expect 2 '--concurrency: "4096" is not a count from 1 to 256' -- "$gpuplan" collect --once --concurrency 4096

# ---- 9. collect --interval outlives a locked or full database ---------------------------------
# until FILE PATTERN PID: wait (bounded) until FILE has a line matching PATTERN; false if PID
# exits first or the bound passes.
until_line() {
    for _ in $(seq 1200); do
        grep -q "$2" "$1" 2>/dev/null && return 0
        kill -0 "$3" 2>/dev/null || { grep -q "$2" "$1" 2>/dev/null; return; }
        sleep 0.1
    done
    return 1
}
export GPUPLAN_DB=$tmp/daemon.db
"$gpuplan" node add d1 --dcgm "$base/d1/ok" >/dev/null
"$gpuplan" collect --interval 0.3s --timeout 2s >"$tmp/daemon.out" 2>"$tmp/daemon.err" &
daemon=$!
pids+=($daemon)
check "9: the daemon runs a cycle" until_line "$tmp/daemon.out" '^cycle 1: 1 node ok' "$daemon"
rm -f "$tmp/locked" "$tmp/release"
$py - "$GPUPLAN_DB" "$tmp/locked" "$tmp/release" <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
db.execute('BEGIN IMMEDIATE')
open(sys.argv[2], 'w').close()
deadline = time.monotonic() + 200
while not os.path.exists(sys.argv[3]) and time.monotonic() < deadline:
    time.sleep(0.05)
db.execute('ROLLBACK')
PY
holder=$!
pids+=($holder)
check "9: a cycle whose commit finds the database locked is skipped, and says so" until_line "$tmp/daemon.err" 'skipped: .*locked' "$daemon"
touch "$tmp/release"
wait "$holder"
before=$(grep -c '^cycle ' "$tmp/daemon.out")
check "9: the daemon goes on once the lock is gone" until_line "$tmp/daemon.out" "^cycle $((before + 1)):\|^cycle $((before + 2)):\|^cycle $((before + 3)):" "$daemon"
kill -TERM "$daemon"
wait "$daemon"
check "9: and exits 0 on SIGTERM" [ $? = 0 ]
check "9: the cycles before the lock are kept" [ "$(sql "$GPUPLAN_DB" "SELECT count(*) FROM collect_cycle")" -ge 2 ]
check "9: --once still exits on a locked database" bash -c "
    $py -c 'import sqlite3,sys,time; d=sqlite3.connect(sys.argv[1], isolation_level=None); d.execute(\"BEGIN IMMEDIATE\"); open(sys.argv[2],\"w\").close(); time.sleep(30)' '$GPUPLAN_DB' '$tmp/locked2' &
    h=\$!; while [ ! -e '$tmp/locked2' ]; do sleep 0.05; done
    '$gpuplan' collect --once --timeout 2s >/dev/null 2>'$tmp/once.err'; rc=\$?; kill \$h; [ \$rc = 1 ] && grep -q locked '$tmp/once.err'"
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    # A full disk: a small tmpfs in a private mount namespace, filled, then freed.
    cat >"$tmp/full.sh" <<SH
set -u
mkdir -p "$tmp/full" && mount -t tmpfs -o size=4m tmpfs "$tmp/full" || exit 3
export GPUPLAN_DB=$tmp/full/db
"$gpuplan" node add f1 --dcgm "$base/f1/ok" >/dev/null || exit 4
"$gpuplan" collect --interval 0.3s --timeout 2s >"$tmp/full.out" 2>"$tmp/full.err" &
d=\$!
for _ in \$(seq 600); do grep -q '^cycle 1:' "$tmp/full.out" && break; sleep 0.1; done
dd if=/dev/zero of="$tmp/full/filler" bs=64k 2>/dev/null
for _ in \$(seq 600); do grep -q 'skipped' "$tmp/full.err" && break; kill -0 \$d || break; sleep 0.1; done
kill -0 \$d || exit 5
grep -q 'skipped' "$tmp/full.err" || exit 6
rm "$tmp/full/filler"
n=\$(grep -c '^cycle ' "$tmp/full.out")
for _ in \$(seq 600); do [ \$(grep -c '^cycle ' "$tmp/full.out") -gt \$n ] && break; kill -0 \$d || break; sleep 0.1; done
[ \$(grep -c '^cycle ' "$tmp/full.out") -gt \$n ] || exit 7
kill -TERM \$d; wait \$d || exit 8
exit 0
SH
    unshare -m bash "$tmp/full.sh"
    frc=$?
    check "9: a full disk skips cycles, the daemon goes on once there is room (step $frc)" [ "$frc" = 0 ]
else
    echo "skip 9: a full disk needs root and unshare for a private tmpfs"
fi

# ---- 11. bad input exits 2: money past 1e12, a directory for a file, an unknown name --------
export GPUPLAN_DB=$tmp/exit.db
sed 's/"server_price": 125000/"server_price": 1.7e308/' "$seed" >"$tmp/huge-price.json"
check "11: server_price 1.7e308 is refused" expect 2 'huge-price.json:$.self_hosted.server_price: must be in [0, 1e+12]' -- "$gpuplan" report "$tmp/huge-price.json" --format json
sed 's/"hourly": 32.784/"hourly": 1e300/' "$seed" >"$tmp/huge-hourly.json"
check "11: an hourly price of 1e300 is refused" expect 2 '$.cloud_options[0].hourly: must be in [0, 1e+12]' -- "$gpuplan" report "$tmp/huge-hourly.json"
check "11: no report of a valid scenario holds inf or nan" bash -c "! '$gpuplan' report '$seed' --format json | grep -Eiq '(^|[^a-z])-?(inf|nan)([^a-z]|$)'"
mkdir -p "$tmp/adir.json"
check "11: a directory as the scenario file" expect 2 'adir.json: is a directory' -- "$gpuplan" report "$tmp/adir.json"
check "11: a directory to scenario save" expect 2 'is a directory' -- "$gpuplan" scenario save "$tmp/adir.json"
check "11: a directory to import" expect 2 'is a directory' -- "$gpuplan" import prom "$tmp/adir.json" --node x
check "11: an unknown saved scenario" expect 2 'no scenario named "nosuch"' -- "$gpuplan" report nosuch
check "11: scenario export of an unknown name" expect 2 'no scenario named "nosuch"' -- "$gpuplan" scenario export nosuch
check "11: scenario measure of an unknown name" expect 2 'nosuch' -- "$gpuplan" scenario measure nosuch
check "11: node rm of an unknown node" expect 2 'nosuch' -- "$gpuplan" node rm nosuch
check "11: node test of an unknown node" expect 2 'nosuch' -- "$gpuplan" node test nosuch

finish "hardening"

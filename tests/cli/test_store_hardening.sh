#!/usr/bin/env bash
# Issue 25, hardening round three (the store's and the output's items): each section reproduces
# one item of the issue and checks its fix. Sections that need root (mounts) say so and skip.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
mounts=()
on_exit() { for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done; }
[ -n "${KEEP:-}" ] && trap - EXIT
chmod 755 "$tmp" # the read-only case run as nobody reads from here
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg GPUPLAN_DB=$tmp/db
mkdir -p "$HOME"
seed=$root/tests/fixtures/examples/seed-dgx-a100.json
seedname="Ten DGX A100 against AWS p4d (seed figures)"
skip() { echo "skip $1"; }
# expect STATUS STDERR-SUBSTRING -- command...: exit status, one stderr line, empty stdout
expect() {
    local want=$1 msg=$2
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    [ "$got" = "$want" ] || { echo "  exit $got, wanted $want: $*"; cat "$tmp/err"; return 1; }
    [ ! -s "$tmp/out" ] || { echo "  stdout not empty: $*"; return 1; }
    [ "$(wc -l <"$tmp/err")" = 1 ] || { echo "  stderr is not one line:"; cat "$tmp/err"; return 1; }
    grep -qF -- "$msg" "$tmp/err" || { echo "  stderr lacks '$msg':"; cat "$tmp/err"; return 1; }
}

# ---- 6. every command that only reads works on a read-only database ----------------------------
# A database with a scenario, the catalog and a node's telemetry; each read runs on it writable
# first, then on a read-only bind mount of its folder (root) and as a user who may not write
# the file or its folder: the same exit status 0 and the same bytes.
mkdir -p "$tmp/rw"
export GPUPLAN_DB=$tmp/rw/db
"$gpuplan" scenario save "$seed" >/dev/null
$py "$root/tests/cli/gen_telemetry.py" "$tmp" 1 n1 >/dev/null
"$gpuplan" import prom "$tmp/n1.prom" --node n1 >/dev/null
"$gpuplan" pricing list >/dev/null # the bundled catalog loaded (a write) before any reference
# The throughput refresh writes the workload estimates and published results (a few hundred
# KB, which db stats' file size shows) on its first run: done before the reference too.
"$gpuplan" throughput list >/dev/null
reads=("report|$seedname" "report|$seedname|--format|json" "report|$seedname|--format|csv"
    "capacity" "capacity|--csv" "node|list" "scenario|list" "scenario|show|$seedname"
    "scenario|export|$seedname" "db|stats" "db|check" "pricing|list" "throughput|list"
    "sweep|$seedname|--vary|gpus=8:16:3" "sensitivity|$seedname"
    "plan|--mix|$seedname|--option|p4d on-demand" "fleet")
run_reads() { # DIR: each read's stdout and status into DIR
    mkdir -p "$1"
    local i=0 c
    for c in "${reads[@]}"; do
        IFS='|' read -ra a <<<"$c"
        "$gpuplan" "${a[@]}" >"$1/$i.out" 2>"$1/$i.err"
        echo $? >"$1/$i.rc"
        i=$((i + 1))
    done
    "$gpuplan" report "$seedname" --format xlsx -o "$1/report.xlsx" 2>"$1/xlsx.err"
    echo $? >"$1/xlsx.rc"
}
same_reads() { # DIR: every read as on the writable database
    local i=0 c ok=0
    for c in "${reads[@]}"; do
        if [ "$(cat "$1/$i.rc")" != 0 ]; then
            echo "  ${c//|/ }: exit $(cat "$1/$i.rc"): $(head -c 300 "$1/$i.err")"
            ok=1
        elif [ "${c%%|*}" != fleet ] && ! cmp -s "$tmp/ro-ref/$i.out" "$1/$i.out"; then
            echo "  ${c//|/ }: other output than on the writable database"
            ok=1
        fi
        i=$((i + 1))
    done
    [ "$(cat "$1/xlsx.rc")" = 0 ] || { echo "  report --format xlsx: $(cat "$1/xlsx.err")"; ok=1; }
    return $ok
}
run_reads "$tmp/ro-ref"
check "6: every read works on the writable database" same_reads "$tmp/ro-ref"
mkdir -p "$tmp/romnt"
if [ "$(id -u)" = 0 ] && mount --bind "$tmp/rw" "$tmp/romnt" 2>/dev/null; then
    mounts+=("$tmp/romnt")
    if mount -o remount,bind,ro "$tmp/romnt" 2>/dev/null; then
        export GPUPLAN_DB=$tmp/romnt/db
        check "6: the bind mount is read-only" bash -c "! touch '$tmp/romnt/probe' 2>/dev/null"
        run_reads "$tmp/ro-mount"
        check "6: every read on a read-only mount: exit 0, the same output" same_reads "$tmp/ro-mount"
        check "6: a write on a read-only mount: one line, exit 1" \
            expect 1 "attempt to write a readonly database" -- "$gpuplan" scenario save "$seed"
        check "6: db check on a read-only mount finds it whole" \
            bash -c "'$gpuplan' db check | grep -q '^integrity:   ok'"
        # A -wal file that still holds changes (its writer died) cannot be read without
        # writing: refused in one line naming it, never read stale as immutable.
        umount "$tmp/romnt"
        mkdir -p "$tmp/wal"
        cp "$tmp/rw/db" "$tmp/wal/db"
        $py - "$tmp/wal/db" <<'PY'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('PRAGMA wal_autocheckpoint=0')
c.execute("INSERT INTO scenario(name) VALUES ('only in the wal')")
os._exit(0)  # no checkpoint: the row stays in the -wal file
PY
        rm -f "$tmp/wal/db-shm"
        mount --bind "$tmp/wal" "$tmp/romnt" && mount -o remount,bind,ro "$tmp/romnt"
        export GPUPLAN_DB=$tmp/romnt/db
        check "6: a read-only mount with changes left in the -wal file: refused, naming it" \
            expect 1 "romnt/db-wal: holds changes not yet in the database" -- "$gpuplan" scenario list
    else
        skip "6: read-only bind mount: remount,ro refused here"
    fi
    umount "$tmp/romnt"
    mounts=()
else
    skip "6: read-only bind mount: needs root and mount (CAP_SYS_ADMIN)"
fi
# db check on a damaged page: SQLite's integrity_check names it, one line a
# problem, the summary still printed, exit 1.
cp "$tmp/rw/db" "$tmp/page.db"
$py - "$tmp/page.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
size = db.execute('PRAGMA page_size').fetchone()[0]
root = db.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'price_lookup'").fetchone()[0]
db.close()
with open(sys.argv[1], 'r+b') as f:
    f.seek((root - 1) * size)
    f.write(b'\x07')  # no b-tree page type
PY
GPUPLAN_DB=$tmp/page.db "$gpuplan" db check >"$tmp/page.out" 2>"$tmp/page.err"
check "10: db check on a damaged page: exit 1, the page named, the summary printed" bash -c \
    "[ $? = 1 ] && grep -q '^damaged: integrity_check: Page [0-9]*: btreeInitPage' '$tmp/page.out' &&
     grep -q '^chunks: ' '$tmp/page.out' && grep -q 'integrity_check problems' '$tmp/page.err'"

# The cheaper case: a file and folder without write permission, read by a user other than root
# (root writes through file modes).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null &&
    setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$gpuplan"; then
    cp -r "$tmp/rw" "$tmp/perm"
    chmod 444 "$tmp/perm/db"
    chmod 555 "$tmp/perm"
    mkdir -p "$tmp/ro-perm" && chmod 777 "$tmp/ro-perm"
    export GPUPLAN_DB=$tmp/perm/db HOME=$tmp/ro-perm XDG_DATA_HOME=$tmp/ro-perm
    gpuplan_saved=$gpuplan
    gpuplan=$tmp/as-nobody
    printf '#!/bin/sh\nexec setpriv --reuid=nobody --regid=nogroup --clear-groups %s "$@"\n' "$gpuplan_saved" >"$gpuplan"
    chmod 755 "$gpuplan"
    mkdir -p "$tmp/ro-perm/out" && chmod 777 "$tmp/ro-perm/out"
    run_reads "$tmp/ro-perm/out"
    check "6: every read of a file and folder without write permission: exit 0, the same output" same_reads "$tmp/ro-perm/out"
    check "6: a write there: one line, exit 1" \
        expect 1 "attempt to write a readonly database" -- "$gpuplan" scenario save "$seed"
    # batch records each run: on a database it cannot write it writes no folder at all (a run in
    # place but unrecorded could never be replaced or pruned).
    mkdir -p "$tmp/ro-perm/batch" && chmod 777 "$tmp/ro-perm/batch"
    check "1: batch on a database it cannot write: one line, exit 1, nothing written" bash -c \
        "'$gpuplan' batch --out '$tmp/ro-perm/batch' >/dev/null 2>'$tmp/robatch.err'; [ \$? = 1 ] &&
         grep -q 'batch records each run, and the database cannot be written here' '$tmp/robatch.err' &&
         [ \$(wc -l <'$tmp/robatch.err') = 1 ] && [ -z \"\$(ls -A '$tmp/ro-perm/batch')\" ]"
    gpuplan=$gpuplan_saved
    export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg
else
    skip "6: read-only file modes: needs root to run as nobody (setpriv)"
fi

# ---- 7 and 11. batch on a nearly full disk: one line naming what failed and where -------------
# 18 scenarios into a 300 KB tmpfs, filled beforehand to run out at different points (a
# report, a workbook, summary.json, index.html). Each run: exit 1, exactly one line on stderr,
# gpuplan's, with the path and the system's reason; none of libxlsxwriter's own "[ERROR]"
# lines (batch writes workbooks on several threads at once); nothing left in the folder.
export GPUPLAN_DB=$tmp/batch.db
for f in "$root"/tests/fixtures/examples/*.json "$root"/scenarios/*.json; do
    "$gpuplan" scenario save "$f" >/dev/null 2>&1
done
mkdir -p "$tmp/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=300k tmpfs "$tmp/full" 2>/dev/null; then
    mounts+=("$tmp/full")
    full_runs() {
        local fill ok=0
        for fill in 0 0 0 40 80 120 160 200 240 280; do
            rm -rf "$tmp/full/out" "$tmp/full/filler"
            [ "$fill" = 0 ] || head -c "${fill}k" /dev/zero >"$tmp/full/filler" 2>/dev/null
            "$gpuplan" batch --out "$tmp/full/out" >"$tmp/full.out" 2>"$tmp/full.err"
            local rc=$?
            if [ "$rc" != 1 ] || [ "$(wc -l <"$tmp/full.err")" != 1 ] ||
                ! grep -Eq "^gpuplan: $tmp/full/out/.*: .*No space left on device" "$tmp/full.err"; then
                echo "  filled ${fill} KB: exit $rc, stderr:"
                sed 's/^/    /' "$tmp/full.err"
                ok=1
            fi
            if [ -n "$(ls -A "$tmp/full/out" 2>/dev/null)" ]; then
                echo "  filled ${fill} KB: left behind: $(ls -A "$tmp/full/out")"
                ok=1
            fi
        done
        return $ok
    }
    check "7: batch on a full 300 KB tmpfs, 10 runs: exit 1, one line naming the file and the reason, nothing left" full_runs
    rm -rf "$tmp/full/out" "$tmp/full/filler"
    head -c 250k /dev/zero >"$tmp/full/filler" 2>/dev/null
    check "11: report --format xlsx onto a full disk: gpuplan's one line, no [ERROR] of libxlsxwriter" \
        expect 1 "cannot write the workbook" -- "$gpuplan" report "$seedname" --format xlsx -o "$tmp/full/r.xlsx"
    umount "$tmp/full"
    mounts=()
else
    skip "7: batch on a full tmpfs: needs root and mount (CAP_SYS_ADMIN)"
fi

# ---- 5. the workbook carries only what XML 1.0 can: U+FFFE, U+FFFF and C0 controls in names ---
export GPUPLAN_DB=$tmp/xml.db
$py - "$seed" "$tmp/xml.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s['name'] = 'plan \ufffe\uffff\x01\x0b end'
s['cloud_options'][0]['name'] = 'opt \ufffe one \x1f two \uffff'
s['notes'] = 'note \uffff \x08'
open(sys.argv[2], 'w', encoding='utf-8').write(json.dumps(s, ensure_ascii=False))
PY
"$gpuplan" report "$tmp/xml.json" --format xlsx -o "$tmp/xml.xlsx"
check "5: a workbook with U+FFFE, U+FFFF and C0 controls in names loads in openpyxl, the names kept" $py - "$tmp/xml.xlsx" <<'PY'
import re, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])  # strict XML: refuses U+FFFE, U+FFFF, C0 controls
bad = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]')
names = 0
for ws in wb:
    for row in ws.iter_rows():
        for c in row:
            if isinstance(c.value, str):
                assert not bad.search(c.value), (ws.title, c.coordinate, c.value)
                names += c.value in ('plan  end', 'opt  one  two ')
assert names >= 2, names
assert not bad.search(wb.properties.title or ''), wb.properties.title
PY

# ---- 9. control characters from outside never leave gpuplan, through pipes too ---------------
# Scenario and node names, a server's error text: stdout and stderr are pipes here.
export GPUPLAN_DB=$tmp/ctl.db
$py - "$seed" "$tmp/ctl.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s['name'] = 'evil\x1b]0;pwned\x07\x1b[31m red\x9b2J'
open(sys.argv[2], 'w').write(json.dumps(s))
PY
timeout 120 $py "$root/tests/cli/evil_text_server.py" "$tmp/eport" 110 &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/eport" ] && break; sleep 0.1; done
eurl="http://127.0.0.1:$(cat "$tmp/eport")"
{
    "$gpuplan" scenario save "$tmp/ctl.json"
    "$gpuplan" scenario list
    "$gpuplan" scenario show "$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$tmp/ctl.json")"
    "$gpuplan" node add "$(printf 'n\033[31mode\007')" --dcgm "$eurl/metrics"
    "$gpuplan" collect --once
    "$gpuplan" node list
    "$gpuplan" import --prometheus "$eurl" --since 1d
    "$gpuplan" capacity --prometheus "$eurl"
    "$gpuplan" report "$(printf 'nosuch\033[2J')"
    "$gpuplan" "$(printf 'cmd\033[2J')"
} >"$tmp/ctl.out" 2>&1
check "9: no control character on stdout or stderr through pipes" $py - "$tmp/ctl.out" <<'PY'
import re, sys
b = open(sys.argv[1], 'rb').read()
m = re.search(rb'[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]', b)
assert not m, b[max(0, m.start() - 60):m.end() + 20]
t = b.decode()
for want in ('saved "evil]0;pwned[31m red2J"', 'added node "n[31mode"', 'bad query [31m2J here',
             'no scenario named "nosuch[2J"', 'unknown command "cmd[2J"'):
    assert want in t, (want, t)
PY

finish "store hardening"

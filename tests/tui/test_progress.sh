#!/usr/bin/env bash
# The progress line: the first command on a fresh database loads the bundled catalog, and a
# terminal is told so while it lasts ("gpuplan: loading the bundled catalog..."), then the
# line is blanked. Not a terminal, or --quiet: not a byte more. The real binary in tmux, its
# bytes logged with pipe-pane from before it starts; waits on the log, never on a sleep.
set -u
gpuplan=$1 root=$2
tmp=$(mktemp -d)
sock=$tmp/tmux.sock
t() { tmux -S "$sock" "$@"; }
trap 't kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/data
unset GPUPLAN_DB
fails=0
check() {
    local what=$1; shift
    if "$@"; then echo "ok $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
# run NAME ARGS...: gpuplan ARGS in a fresh tmux session, every byte it writes into $tmp/NAME.log;
# returns once the command has exited and its bytes are in.
run() {
    local name=$1; shift
    t kill-server 2>/dev/null
    while [ -S "$sock" ] && t has-session 2>/dev/null; do sleep 0.1; done
    rm -f "$sock"
    : >"$tmp/$name.log"
    t -f /dev/null new-session -d -s g -x 160 -y 24 \
        "tmux -S '$sock' wait-for go; '$gpuplan' $* >/dev/null; echo END-OF-RUN; sleep 60"
    t pipe-pane -t g -o "cat >>'$tmp/$name.log'"
    t wait-for -S go
    # until the mark the shell writes after it has reached the log (at most 120 s)
    for _ in $(seq 1 1200); do grep -q END-OF-RUN "$tmp/$name.log" && break; sleep 0.1; done
}

run fresh --db "$tmp/a.db" pricing list --gpu H100
check "a fresh database: the progress line while the catalog loads" \
    grep -qF "gpuplan: loading the bundled catalog into this database (once)..." "$tmp/fresh.log"
check "then blanked, and the notice of what was loaded" \
    bash -c "t() { tmux -S '$sock' \"\$@\"; }; s=\$(t capture-pane -p -t g); ! echo \"\$s\" | grep -q 'loading the bundled' && echo \"\$s\" | grep -q 'gpuplan: loaded the bundled catalog'"

run again --db "$tmp/a.db" pricing list --gpu H100
check "the catalog already there: no line" bash -c "! grep -q 'bundled catalog' '$tmp/again.log'"

run quiet --quiet --db "$tmp/b.db" pricing list --gpu H100
check "--quiet: no line, no notice" bash -c "! grep -q 'bundled catalog' '$tmp/quiet.log' && [ -s '$tmp/b.db' ]"

# An import says so while it reads (the catalog is there already: that line alone).
csv=$root/tests/fixtures/telemetry/nvidia_smi_csv/nvgpuexp__L40S__drv595.80__load__query-gpu.csv
run import --db "$tmp/a.db" import nvsmi "$csv" --node box
check "an import: the line while it reads" grep -qF "gpuplan: importing $csv..." "$tmp/import.log"
"$gpuplan" --db "$tmp/a.db" import nvsmi "$csv" --node box2 >"$tmp/i.out" 2>"$tmp/i.err"
check "an import not on a terminal: its one line on stdout, nothing on stderr" \
    bash -c "[ ! -s '$tmp/i.err' ] && [ \$(wc -l <'$tmp/i.out') = 1 ] && grep -q '^imported ' '$tmp/i.out'"

# Not a terminal: stderr stays empty, stdout is the listing alone.
"$gpuplan" --db "$tmp/c.db" pricing list --gpu H100 >"$tmp/c.out" 2>"$tmp/c.err"
"$gpuplan" --db "$tmp/c.db" pricing list --gpu H100 >"$tmp/c2.out" 2>/dev/null
check "not a terminal: nothing on stderr" bash -c "[ ! -s '$tmp/c.err' ]"
check "and stdout the same as on a loaded database" cmp -s "$tmp/c.out" "$tmp/c2.out"

echo "progress: $fails failed"
[ "$fails" = 0 ]

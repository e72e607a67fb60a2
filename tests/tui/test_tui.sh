#!/usr/bin/env bash
# The TUI, the real binary in a real terminal (tmux): keystrokes with send-keys, the screen
# read back with capture-pane, and assertions on what a person would see. Each session has
# its own tmux server socket and stops by itself.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
sock=$tmp/tmux.sock
t() { tmux -S "$sock" "$@"; }
trap 't kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/data
unset GPUPLAN_DB NO_COLOR
fails=0
# A check is retried for up to 3 s before it fails: the screen may still be catching up with
# the keys (an ASan build on a loaded machine is slow). Checks only read.
check() {
    local what=$1; shift
    for _ in $(seq 1 15); do
        if "$@" >/dev/null 2>&1; then echo "ok $what"; return; fi
        sleep 0.2
    done
    if "$@"; then echo "ok $what"; else echo "FAIL $what"; echo "--- screen:"; screen; fails=$((fails + 1)); fi
}
screen() { t capture-pane -p -t g; }
# Wait until the screen shows a text (up to 30 s: the demo database is built on first use).
wait_for() {
    for _ in $(seq 1 150); do screen | grep -qF -- "$1" && return 0; sleep 0.2; done
    return 1
}
keys() { t send-keys -t g "$@"; sleep 0.4; }
start() { # WIDTH HEIGHT ENV... : gpuplan --demo in a fresh session; the shell records how it ended
    local w=$1 h=$2; shift 2
    t kill-server 2>/dev/null
    while [ -S "$sock" ] && t has-session 2>/dev/null; do sleep 0.1; done
    rm -f "$sock" "$tmp/exit" "$tmp/stty"
    t -f /dev/null new-session -d -s g -x "$w" -y "$h" \
        "env $* HOME=$tmp XDG_DATA_HOME=$tmp/data '$gpuplan' --demo; echo \"EXIT=\$?\" >'$tmp/exit'; stty -a >'$tmp/stty'; echo 'shell prompt back'; sleep 60"
    t set-option -g default-terminal xterm-256color >/dev/null
}
demo_db=$tmp/data/gpuplan/demo.db

# A scenario whose name carries terminal escapes: it must show as plain text.
mkdir -p "$tmp/data/gpuplan"
cat >"$tmp/evil.json" <<'JSON'
{"name": "zz \u001b]2;pwned\u0007\u001b[31mred", "horizon_months": 12,
 "demand": {"gpus": 8, "utilization": 0.5}, "self_hosted": {"server_price": 100000},
 "cloud_options": [{"name": "od", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 30}]}
JSON
"$gpuplan" --db "$demo_db" scenario save "$tmp/evil.json" >/dev/null
# And one whose catalog reference names no offer: it cannot evaluate, and must not take the
# TUI down.
cat >"$tmp/broken.json" <<'JSON'
{"name": "broken ref", "horizon_months": 12, "demand": {"gpus": 8, "utilization": 0.5},
 "self_hosted": {"server_price": 100000},
 "cloud_options": [{"name": "gone", "pricing": "on_demand", "catalog": "aws/p9.nothing/us-east-1"}]}
JSON
"$gpuplan" --db "$demo_db" scenario save "$tmp/broken.json" >/dev/null

start 80 24 TERM=xterm-256color LANG=C.UTF-8 GPUPLAN_DB=$tmp/mine.db
check "it opens on the demo database" wait_for "cheapest:"
# 80 columns: the Results panel's break-even line does not fit, so its utilization wraps to
# the row under it, whole with its unit, as the exit value's basis does.
check "80x24: the Plan's break-even wraps, its utilization whole" bash -c "
    tmux -S '$sock' capture-pane -p -t g | grep -A1 -E '^  breaks even ' | cut -c1-32 >'$tmp/be.txt'
    sed -n 1p '$tmp/be.txt' | grep -qE '^  breaks even (month [0-9]+( \\([0-9-]+\\))?|never) *\$' &&
    sed -n 2p '$tmp/be.txt' | grep -qE '^    at ([0-9.]+ %|-) busy *\$'"
check "the demo never fills \$GPUPLAN_DB" bash -c "[ -s '$demo_db' ] && [ ! -e '$tmp/mine.db' ]"
check "the tab bar" bash -c "t() { tmux -S '$sock' \"\$@\"; }; t capture-pane -p -t g | head -1 | grep -q '1 Plan  2 Compare  3 Break-even  4 Fleet  5 Catalog  6 Capacity  7 Timeline'"
check "the hostile name is text" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qF 'zz ]2;pwned[31mred'"
check "the title was not set by it" bash -c "[ \"\$(tmux -S '$sock' display -p -t g '#{pane_title}')\" != pwned ]"

# Edit the utilization of the open scenario (the first: the H100 loan demo) to 0.5: the total
# on screen becomes the engine's.
name=$(screen | sed -n '4p' | cut -c1-28 | sed 's/^> //; s/ *$//')
keys l j j j Enter
keys BSpace BSpace BSpace BSpace BSpace BSpace 0 . 5
keys e
check "while editing, a bad value says why" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'is not a number'"
keys BSpace Enter
"$gpuplan" --db "$demo_db" scenario export "Demo: H100 servers on a time-of-use tariff, financed with a loan" >"$tmp/h100.json"
$py - "$tmp/h100.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s['demand']['utilization'] = 0.5
json.dump(s, open(sys.argv[1], 'w'))
PY
want=$("$gpuplan" report "$tmp/h100.json" --format json | $py -c '
import json, sys
r = json.load(sys.stdin)
print("{:,.0f}".format(r["self_hosted"]["total"]), "{:,.0f}".format(r["options"][0]["total"]))')
check "an edited input changes the totals to the engine's ($want)" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g)
    echo \"\$s\" | grep -qE 'self-hosted +${want% *} USD' && echo \"\$s\" | grep -qE 'p5 on-demand +${want#* }'"
check "the edited field shows the value" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE 'utilization +0.5 '"
# 2.1: the exit value within self-hosted's total, with its basis, as the engine credits it.
exit_want=$("$gpuplan" report "$tmp/h100.json" --format json | $py -c '
import json, sys
r = json.load(sys.stdin)["self_hosted"]
assert r["exit_value"] > 0 and r["exit_value_basis"] == "residual_pct", r["exit_value_basis"]
print("{:,.0f}".format(r["exit_value"]))')
check "self-hosted's exit value and its basis ($exit_want)" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g)
    echo \"\$s\" | grep -qE 'exit value credited +${exit_want}' && echo \"\$s\" | grep -qF '(flat 35 %)'"
keys s
saved_new_version() {
    screen | grep -q 'saved version 2 of' &&
        "$gpuplan" --db "$demo_db" scenario export "Demo: H100 servers on a time-of-use tariff, financed with a loan" |
        $py -c "import json, sys; d = json.load(sys.stdin); assert d[\"demand\"][\"utilization\"] == 0.5, d[\"demand\"]"
}
check "s saves a new version" saved_new_version
keys u
check "undo restores it" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE 'utilization +0.7 '"

keys t
check "t lists the tariff presets" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'Tariff preset'"
keys Enter
check "a preset replaces the tariff" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'applied'"
keys u

# Every tab renders.
keys 2
check "Compare ranks the options" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'option.*total.*NPV' && tmux -S '$sock' capture-pane -p -t g | grep -q 'p5 on-demand'"
keys Right r
check "Compare sorts by another column" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'NPV v'"
# 80 columns: the keys and the legend do not fit one line, so they wrap to the free row above,
# whole, the last hint included; never cut at the edge.
check "80x24: Compare's keys and legend wrap whole onto two lines" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g)
    [ \"\$(echo \"\$s\" | sed -n 22p)\" = 'Left/Right: sort column  r: reverse  * the cheapest (more than one: a tie)' ] &&
    [ \"\$(echo \"\$s\" | sed -n 23p)\" = 'even: where self-hosted breaks even against it' ]"
keys 3
check "Break-even draws both charts" bash -c "s=\$(tmux -S '$sock' capture-pane -p -t g); echo \"\$s\" | grep -q 'Cumulative cost by month' && echo \"\$s\" | grep -q 'even with p5 on-demand: month' && echo \"\$s\" | grep -q $'\u28'"
keys 4
check "Fleet shows the demo nodes" wait_for "demo-train-01"
# 80 columns: the scenario whose costs these are gives way whole, never "(costs" at the edge.
check "80x24: Fleet's summary lines end whole" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g)
    echo \"\$s\" | sed -n 3p | grep -qE '[0-9] (USD/h|kWh today|kWh today \\(facility\\))\$' &&
    echo \"\$s\" | sed -n 4p | grep -qE '(alerts: [0-9]+|\\(costs of \"[^\"]+\"\\))\$'"
check "Fleet shows money and an alert" bash -c "s=\$(tmux -S '$sock' capture-pane -p -t g); echo \"\$s\" | grep -q 'USD/h' && echo \"\$s\" | grep -q 'kWh today' && echo \"\$s\" | grep -q ' hot'"
keys Enter
check "Enter opens a node" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'Esc closes'"
keys Escape
keys 5
check "Catalog lists offers" wait_for "Offers in force today"
check "Catalog counts read with thousands separators" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE 'Offers in force today: [0-9]{1,3}(,[0-9]{3})+ of [0-9]{1,3}(,[0-9]{3})+'"
keys / H 1 0 0 Space a w s Enter
check "a filter narrows the catalog" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g)
    line=\$(echo \"\$s\" | grep 'Offers in force today' | tr -d ,)
    n=\$(echo \"\$line\" | sed -E 's/.*: ([0-9]+) of ([0-9]+).*/\1/'); total=\$(echo \"\$line\" | sed -E 's/.*: ([0-9]+) of ([0-9]+).*/\2/')
    [ \"\$n\" -gt 0 ] && [ \"\$n\" -lt \"\$total\" ] &&
    rows=\$(echo \"\$s\" | sed -n '5,21p' | grep -c .) && [ \"\$rows\" -gt 0 ] &&
    ! echo \"\$s\" | sed -n '5,21p' | grep -v '^aws.*H100' | grep -q ."
keys a
check "a adds the offer to the open scenario" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'added \"'"
keys 6
check "Capacity shows the curves and the optimum" wait_for "optimum: own"
check "Capacity shows the load duration curve" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'load duration curve'"
# 80 columns: both titles whole and apart (the first shortened, never cut into the second);
# the optimum whole, its two extremes on the line under it with their figures whole.
check "80x24: Capacity's two titles are whole and apart" bash -c "tmux -S '$sock' capture-pane -p -t g | sed -n 4p | grep -qE '^GPU-time by utilization {2,}load duration curve: busy GPUs \\(>= 5 %\\), sorted\$'"
check "80x24: Capacity's optimum and extremes are whole" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g)
    echo \"\$s\" | grep -oE 'optimum: own .*' | grep -qE '^optimum: own [0-9]+, [0-9]{1,3}(,[0-9]{3})*(\\.[0-9]{2})?\$' &&
    echo \"\$s\" | grep -oE 'all own .*' | grep -qE '^all own [0-9]{1,3}(,[0-9]{3})*(\\.[0-9]{2})?, all rent [0-9]{1,3}(,[0-9]{3})*(\\.[0-9]{2})?\$'"
keys Tab
check "Tab goes on to the Timeline" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'GPUs by month'"
keys Tab
check "Tab wraps to Plan" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'Scenarios'"
keys BTab BTab
check "Shift-Tab goes back" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'load duration curve'"
keys '?'
check "? lists the keys" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'Any key closes this help'"
check "? says what every key listed does (g / G too)" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'g / G  first / last field'"
keys Space

# The mouse (SGR reports, as xterm sends them): a click on a tab, on a header, on a row.
click() { # COLUMN ROW, 1-based
    t send-keys -t g -l $'\e[<0;'"$1;$2M"; t send-keys -t g -l $'\e[<0;'"$1;$2m"; sleep 0.4
}
click 21 1
check "a click on a tab opens it" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'Cumulative cost by month'"
keys 2
click 48 5
check "a click on a header sorts by it" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'per GPU-h [v^]'"
keys 1
click 4 6
# The open scenario has unsaved edits (the offer added from the catalog): opening another
# asks first, and d discards them.
check "opening another scenario over unsaved edits asks first" wait_for "Unsaved changes"
check "and names the one to open" wait_for 's  save a new version, then open "broken ref"'
keys d
check "a scenario that cannot evaluate says why" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'does not evaluate'"
keys 2
check "and the other tabs say to open one" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'Open a scenario'"
keys 1
click 4 5
check "a click on a scenario opens it" bash -c "tmux -S '$sock' capture-pane -p -t g | sed -n 3p | grep -q 'Demo: ten DGX'"

# Resize: everything redraws at 200x60 and back at 80x24.
t resize-window -t g -x 200 -y 60; sleep 0.6
check "200x60 redraws" bash -c "s=\$(tmux -S '$sock' capture-pane -p -t g); [ \$(echo \"\$s\" | wc -l) = 60 ] && echo \"\$s\" | head -1 | grep -q '6 Capacity' && echo \"\$s\" | tail -1 | grep -q '[a-z]'"
# With room, the long forms on one line each.
keys 6
check "200x60: Capacity's full titles and the optimum on one line" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g)
    echo \"\$s\" | sed -n 4p | grep -qE '^utilization: share of GPU-time +load duration curve: busy GPUs' &&
    echo \"\$s\" | grep -qE 'optimum: own [0-9]+, [0-9,.]+ \\(all own [0-9,.]+, all rent [0-9,.]+\\)\$'"
keys 2
check "200x60: Compare's keys and legend on one line" bash -c "tmux -S '$sock' capture-pane -p -t g | sed -n 59p | grep -q '^Left/Right: sort column  r: reverse  \\* the cheapest (more than one: a tie); even: where self-hosted breaks even against it\$'"
keys 1
t resize-window -t g -x 30 -y 8; sleep 0.6
keys 6 3 4 5 2 1
check "too small a terminal says so" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'needs 50x12'"
t resize-window -t g -x 80 -y 24; sleep 0.6
check "80x24 redraws" bash -c "s=\$(tmux -S '$sock' capture-pane -p -t g); [ \$(echo \"\$s\" | wc -l) = 24 ] && echo \"\$s\" | head -1 | grep -q '6 Capacity' && echo \"\$s\" | grep -q 'Scenarios'"

# Mouse: a click on a tab switches to it.
keys 1
# Export the open scenario: x asks for a path.
keys x
check "x asks for the path" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'Export to XLSX:'"
check "x offers the scenario's name as a file name, one - between words, none at the ends" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE 'Export to XLSX: [A-Za-z0-9_]+(-[A-Za-z0-9_]+)+\.xlsx_?\$'"
for _ in $(seq 1 80); do t send-keys -t g BSpace; done
t send-keys -t g -l "$tmp/out.xlsx"; sleep 0.2
keys Enter
check "export writes a workbook" bash -c "sleep 0.5; tmux -S '$sock' capture-pane -p -t g | grep -q 'wrote' && $py -c '
import openpyxl, sys
wb = openpyxl.load_workbook(sys.argv[1])
assert wb.sheetnames[:3] == [\"Summary\", \"Assumptions\", \"Plan\"], wb.sheetnames
' '$tmp/out.xlsx'"

keys q
check "q exits 0" bash -c "for _ in \$(seq 1 50); do [ -s '$tmp/exit' ] && break; sleep 0.1; done; grep -q 'EXIT=0' '$tmp/exit'"
check "the terminal is usable after" bash -c "grep -qE '(^| )icanon' '$tmp/stty' && grep -qE '(^| )echo ' '$tmp/stty' && tmux -S '$sock' capture-pane -p -t g | grep -q 'shell prompt back'"

# The commands on a terminal get the same protection: the hostile name listed in a pane.
t kill-server 2>/dev/null; while t has-session 2>/dev/null; do sleep 0.1; done; rm -f "$sock"
t -f /dev/null new-session -d -s g -x 120 -y 24 "'$gpuplan' --db '$demo_db' scenario list; sleep 30"
sleep 1
check "scenario list on a terminal shows the name as text" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qF 'zz ]2;pwned[31mred'"
check "and leaves the title alone" bash -c "[ \"\$(tmux -S '$sock' display -p -t g '#{pane_title}')\" != pwned ]"
check "a pipe gets the same filter: the name as text, no escape byte" bash -c "'$gpuplan' --db '$demo_db' scenario list >'$tmp/list.out' && grep -qF 'zz ]2;pwned[31mred' '$tmp/list.out' && ! grep -q $'\x1b' '$tmp/list.out'"

# Monochrome and ASCII: NO_COLOR and a non-UTF-8 locale.
start 80 24 TERM=xterm-256color LANG=C LC_ALL=C NO_COLOR=1
wait_for "cheapest:" >/dev/null
keys 3
check "ASCII charts without UTF-8" bash -c "s=\$(tmux -S '$sock' capture-pane -p -t g); echo \"\$s\" | grep -q 'Cumulative cost by month' && ! echo \"\$s\" | LC_ALL=C grep -qP '[\x80-\xff]' && echo \"\$s\" | grep -q '[*o]'"
check "NO_COLOR: no colour escapes" bash -c "s=\$(tmux -S '$sock' capture-pane -p -e -t g) && echo \"\$s\" | grep -q 'Cumulative cost' && ! echo \"\$s\" | grep -qE $'\x1b\\\\[(3[0-7]|4[0-7]|38;|48;|9[0-7])'"
t send-keys -t g C-c
check "Ctrl-C exits cleanly" bash -c "for _ in \$(seq 1 50); do [ -s '$tmp/exit' ] && break; sleep 0.1; done; grep -q 'EXIT=0' '$tmp/exit'"

# ---- the first hour: an empty database, a new plan, the guards, managing scenarios -------

# press KEYS...: send them without pacing; what follows waits for the screen instead.
press() { t send-keys -t g "$@"; }
start_db() { # WIDTH HEIGHT DB: gpuplan (no --demo) on DB
    local w=$1 h=$2 db=$3
    t kill-server 2>/dev/null
    while [ -S "$sock" ] && t has-session 2>/dev/null; do sleep 0.1; done
    rm -f "$sock" "$tmp/exit" "$tmp/stty"
    t -f /dev/null new-session -d -s g -x "$w" -y "$h" \
        "env TERM=xterm-256color LANG=C.UTF-8 HOME=$tmp XDG_DATA_HOME=$tmp/data GPUPLAN_DB='$db' '$gpuplan'; echo \"EXIT=\$?\" >'$tmp/exit'; sleep 60"
    t set-option -g default-terminal xterm-256color >/dev/null
}
exited() { for _ in $(seq 1 100); do [ -s "$tmp/exit" ] && break; sleep 0.1; done; grep -q "EXIT=$1" "$tmp/exit"; }
fresh=$tmp/fresh.db
start_db 80 24 "$fresh"
check "an empty database opens on the first-run screen" wait_for "This database has no plan yet"
check "which offers a new plan, the demo and the telemetry commands" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g)
    echo \"\$s\" | grep -q '  n   a new plan' && echo \"\$s\" | grep -q '  d   the demo' &&
    echo \"\$s\" | grep -q 'gpuplan node add NAME --dcgm URL' && echo \"\$s\" | grep -q 'gpuplan collect'"

# The new-plan flow: H100, 16 GPUs, 0.5, growing 5 % a month, 24 months, the newest price, a state's average, the
# offers checked to begin with, a name typed over the one offered.
press n
check "n opens the new-plan flow on the GPU models" wait_for "New plan, step 1 of 9"
press H 1 0 0
check "typing filters the models" wait_for "filter: H100_  (1 of"
press Enter
check "then the count, pre-filled" wait_for "GPUs: 8_"
press 1 6 Enter
check "typing replaced the count; then the utilization" wait_for "utilization: 0.6_"
press 0 . 5 Enter
check "then the growth, steady to begin with" wait_for "growth: 0_"
press 5 % Enter
wait_for "months: 36" >/dev/null
press 2 4 Enter
check "the server prices come with their dates" bash -c "
    tmux -S '$sock' capture-pane -p -t g | grep -qE 'NVIDIA H100.* USD .*[0-9]{4}-[0-9]{2}-[0-9]{2}'"
press Enter
check "then the electricity prices" wait_for "the electricity price"
press t e x a s
check "filtered to a state" wait_for "Texas  (industrial average)"
press Enter
check "then the cloud offers by provider and kind" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g); echo \"\$s\" | grep -q 'cloud offers to compare' &&
    echo \"\$s\" | grep -qE '\[x\] [a-z]+ .* on-demand' && echo \"\$s\" | grep -q '\[ \]'"
press Enter
check "the name is offered, selected" wait_for "name: 16 x H100: own or rent_"
press C-u
check "Ctrl-U clears a prompt" wait_for "name: _"
press -l "Texas trial plan"
press C-w
check "Ctrl-W deletes the word before the cursor" wait_for "name: Texas trial _"
press -l "H100"
press Enter
check "Enter saves the plan and opens it" wait_for 'saved "Texas trial H100", version 1'
plan_matches_report() {
    local s
    s=$(screen)
    "$gpuplan" --db "$fresh" report "Texas trial H100" --format json | $py -c '
import json, sys
r, screen = json.load(sys.stdin), sys.argv[1]
want = ["{:,.0f}".format(r["self_hosted"]["total"])] + ["{:,.0f}".format(o["total"]) for o in r["options"]]
missing = [w for w in want if w not in screen]
assert not missing and len(r["options"]) >= 1, (missing, screen)
' "$s" && echo "$s" | grep -qE 'GPUs needed +16 ' && echo "$s" | grep -qE 'utilization +0.5 ' &&
        echo "$s" | grep -q 'Texas trial H100 (version 1)'
}
check "its totals on screen are gpuplan report's" plan_matches_report
# Spot is the cheapest of these offers: the cheapest with guaranteed capacity shows beside it.
check "spot cheapest: the guaranteed alternative and its extra cost" bash -c "
    tmux -S '$sock' capture-pane -p -t g | grep -qE 'spot; guaranteed \(\+[0-9,]+\)'"
check "and the stored scenario has what was chosen" bash -c "
    '$gpuplan' --db '$fresh' scenario export 'Texas trial H100' | $py -c '
import json, sys
d = json.load(sys.stdin)
assert d[\"name\"] == \"Texas trial H100\" and d[\"demand\"] == {\"gpus\": 16, \"utilization\": 0.5, \"growth_per_month\": 0.05}, d
assert d[\"horizon_months\"] == 24 and \"Texas\" in d[\"self_hosted\"][\"tariff\"][\"periods\"][0][\"name\"], d
assert all(\"catalog\" in o for o in d[\"cloud_options\"]), d
# growing: a committed base of the 16 GPUs of month 1 bursting to the on-demand option checked
od = [o[\"name\"] for o in d[\"cloud_options\"] if o[\"pricing\"] == \"on_demand\"]
for o in d[\"cloud_options\"]:
    if o[\"pricing\"] == \"committed\":
        assert o[\"base_gpus\"] == 16 and o[\"burst\"] == od[0], o
# the notes say the rule the checked offers were picked by, and name each of them
assert \"with at least 8 GPUs an instance\" in d[\"notes\"] and \"Demand grows 5 % a month\" in d[\"notes\"], d[\"notes\"]
assert all(o[\"name\"] in d[\"notes\"] for o in d[\"cloud_options\"]), d[\"notes\"]'"

# The discard guard on quit: q over an edit asks; Esc stays; q then d quits without saving.
press Enter
wait_for "valid: the results show this value" >/dev/null
press C-u 2 0 Enter
check "an edit marks the scenario modified" wait_for "*modified*"
press q
check "q over unsaved edits asks first" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g); echo \"\$s\" | grep -q 'Unsaved changes' &&
    echo \"\$s\" | grep -q 's  save a new version, then quit' && echo \"\$s\" | grep -q 'd  discard the changes and quit'"
press Escape
check "Esc keeps the TUI and the edit" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g); ! echo \"\$s\" | grep -q 'Unsaved changes' && echo \"\$s\" | grep -q '*modified*' && [ ! -s '$tmp/exit' ]"
press q
wait_for "Unsaved changes" >/dev/null
press d
check "d discards and quits with status 0" exited 0
check "nothing was saved" bash -c "'$gpuplan' --db '$fresh' scenario export 'Texas trial H100' | $py -c '
import json, sys; assert json.load(sys.stdin)[\"horizon_months\"] == 24'"

# Copy, rename and delete on the Plan tab.
start_db 80 24 "$fresh"
check "the plan is listed" wait_for "> Texas trial H100"
press h c
check "c offers a copy's name, selected" wait_for "Copy as: Texas trial H100 (copy)_"
press Enter
check "c copies the scenario" wait_for 'copied the saved "Texas trial H100" to "Texas trial H100 (copy)"'
press r
check "r offers the name itself" wait_for "Rename to: Texas trial H100 (copy)_"
press -l "Dallas plan"
press Enter
check "typing replaced it: r renames" wait_for 'renamed "Texas trial H100 (copy)" to "Dallas plan"'
check "the store has the new name, inside the JSON too" bash -c "
    '$gpuplan' --db '$fresh' scenario export 'Dallas plan' | $py -c '
import json, sys; assert json.load(sys.stdin)[\"name\"] == \"Dallas plan\"' &&
    ! '$gpuplan' --db '$fresh' scenario export 'Texas trial H100 (copy)' >/dev/null 2>&1"
press d
check "d asks before deleting" wait_for 'Delete "Dallas plan" and every version of it?'
press n
check "n keeps it" bash -c "'$gpuplan' --db '$fresh' scenario export 'Dallas plan' >/dev/null && ! tmux -S '$sock' capture-pane -p -t g | grep -q 'Delete \"'"
press d
wait_for 'Delete "Dallas plan"' >/dev/null
press y
check "y deletes it" wait_for 'deleted "Dallas plan"'
check "from the store too" bash -c "! '$gpuplan' --db '$fresh' scenario export 'Dallas plan' >/dev/null 2>&1 && '$gpuplan' --db '$fresh' scenario list | grep -q 'Texas trial H100'"

# A cloud option removed, with the question first; undo brings it back.
press l G
wait_for "Enter edit  d remove option" >/dev/null
press d
check "d on an option's field asks before removing it" wait_for "Remove the cloud option"
press y
check "y removes it" wait_for "*modified*"
press u
check "u brings it back" wait_for "undone"
press q
check "q after undoing every change quits at once" exited 0

# Long names at 80x24 and 200x50: names that differ only at the end still differ on screen,
# and no figure is cut (whole, or 3 significant digits with a unit).
long=$tmp/long.db
for v in A B; do
    cat >"$tmp/long$v.json" <<JSON
{"name": "Capacity plan for the inference cluster in Frankfurt, financed over five years, variant $v",
 "horizon_months": 60, "demand": {"gpus": 2048, "utilization": 0.85},
 "self_hosted": {"server_price": 410000, "gpus_per_server": 8},
 "cloud_options": [
  {"name": "A very long on-demand cloud offer name from the first provider, region one", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 98.32},
  {"name": "A very long on-demand cloud offer name from the first provider, region two", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 101.5}]}
JSON
    "$gpuplan" --db "$long" scenario save "$tmp/long$v.json" >/dev/null
done
"$gpuplan" --db "$long" report "$tmp/longA.json" --format json >"$tmp/longA.report.json"
figures_whole() { # the report's totals each show whole or in compact form
    screen | $py -c '
import json, sys
r = json.load(open(sys.argv[1])); s = sys.stdin.read()
def compact(v):
    a, u = abs(v), 0
    while u < 3 and round(a / 1000) >= 1000: a /= 1000; u += 1
    a /= 1000
    return ("-" if v < 0 else "") + ("%.2f" if a < 9.995 else "%.1f" if a < 99.95 else "%.0f") % a + "kMBT"[u]
tot = [r["self_hosted"]["total"]] + [o["total"] for o in r["options"]]
bad = [v for v in tot if "{:,.0f}".format(v) not in s and compact(v) not in s]
assert not bad, (bad, s)
' "$tmp/longA.report.json"
}
names_differ() { # LINE-PATTERN...: the screen rows that match each pattern are all different
    local s rows
    s=$(screen)
    for p in "$@"; do
        rows=$(echo "$s" | grep -E -- "$p" | sed 's/^[> *]*//; s/  .*//')
        [ "$(echo "$rows" | wc -l)" -ge 2 ] && [ "$(echo "$rows" | sort -u | wc -l)" = "$(echo "$rows" | wc -l)" ] || return 1
    done
}
for size in "80 24" "200 50"; do
    set -- $size
    start_db "$1" "$2" "$long"
    wait_for "Capacity plan" >/dev/null
    press Enter
    check "$1x$2: the results' figures are whole" figures_whole
    check "$1x$2: the scenario and option names still differ" names_differ '^[> ] Capacity plan' '^A very l'
    check "$1x$2: the editor's numbers show their thousands" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'server price *410,000 USD'"
    check "$1x$2: each option's break-even said in words" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE '^  breaks even (never|month [0-9]+)'"
    press 2
    check "$1x$2: Compare's figures are whole" figures_whole
    check "$1x$2: Compare's option names differ" names_differ '^[* ] A very l'
    if [ "$1" = 200 ]; then
        check "200x50: the names show whole" bash -c "
            s=\$(tmux -S '$sock' capture-pane -p -t g); echo \"\$s\" | grep -q 'from the first provider, region two' &&
            tmux -S '$sock' send-keys -t g 1 && sleep 0.2 &&
            tmux -S '$sock' capture-pane -p -t g | grep -q 'in Frankfurt, financed over five years, variant A (version 1)'"
    fi
    press '?'
    check "$1x$2: the help is never cut mid-word" bash -c "
        s=\$(tmux -S '$sock' capture-pane -p -t g); echo \"\$s\" | grep -q 'Any key closes this help' &&
        echo \"\$s\" | grep -q 'Catalog  / filter' && echo \"\$s\" | grep -q '  scenario, g GPUs, o offers'"
    press Space q
    exited 0 >/dev/null
done

echo "tui: $fails failed"
[ "$fails" = 0 ]

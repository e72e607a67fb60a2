#!/usr/bin/env bash
# The TUI on a work-mode plan (docs/model.md version 2, demand as work): the real binary in tmux at
# 80x24 and 200x50, the screen read back with capture-pane and set against `gpuplan report
# --format json` of the same scenario. The Plan tab's results and the Compare tab show each
# side's cost per busy GPU-hour with its cost per unit of work beside it, named by its unit.
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
screen() { t capture-pane -p -t g; }
# A check is retried until the screen shows what it asserts (up to 30 s, for a loaded ASan
# build); checks only read.
check() {
    local what=$1; shift
    for _ in $(seq 1 150); do
        if "$@" >/dev/null 2>&1; then echo "ok $what"; return; fi
        sleep 0.2
    done
    if "$@"; then echo "ok $what"; else echo "FAIL $what"; echo "--- screen:"; screen; fails=$((fails + 1)); fi
}
wait_for() {
    for _ in $(seq 1 150); do screen | grep -qF -- "$1" && return 0; sleep 0.2; done
    return 1
}
press() { t send-keys -t g "$@"; }
start_db() { # WIDTH HEIGHT DB: gpuplan on DB
    local w=$1 h=$2 db=$3
    t kill-server 2>/dev/null
    while [ -S "$sock" ] && t has-session 2>/dev/null; do sleep 0.1; done
    rm -f "$sock" "$tmp/exit"
    t -f /dev/null new-session -d -s g -x "$w" -y "$h" \
        "env TERM=xterm-256color LANG=C.UTF-8 HOME=$tmp XDG_DATA_HOME=$tmp/data GPUPLAN_DB='$db' '$gpuplan'; echo \"EXIT=\$?\" >'$tmp/exit'; sleep 60"
}
exited() { for _ in $(seq 1 100); do [ -s "$tmp/exit" ] && break; sleep 0.1; done; grep -q "EXIT=$1" "$tmp/exit"; }

db=$tmp/work.db
scen=$root/tests/fixtures/examples/v2-work-mode-generations.json
"$gpuplan" --db "$db" scenario save "$scen" >/dev/null
"$gpuplan" --db "$db" report "$scen" --format json >"$tmp/report.json"

# The Plan tab's results: self-hosted's cost per busy GPU-hour (its total over its own busy
# GPU-hours, the work over its throughput) and, beside it, per M tokens.
plan_results() {
    screen | $py -c '
import json, sys
r = json.load(open(sys.argv[1])); s = sys.stdin.read()
sh, rho = r["self_hosted"], r["scenario_json"]["self_hosted"]["work_per_gpu_hour"]
per_h = sh["total"] / (sum(r["demand"]["work"]) / rho)
assert "%.2f a busy GPU-hour" % per_h in s, per_h
line = [l for l in s.splitlines() if l.startswith("  per M tokens ")][0].split()
assert line[3] == "%.6g" % sh["cost_per_work_unit"], (line, sh["cost_per_work_unit"])
' "$tmp/report.json"
}
# The Compare tab: every side's row holds its cost per busy GPU-hour and per unit of work.
compare_rows() {
    screen | $py -c '
import json, sys
r = json.load(open(sys.argv[1])); s = sys.stdin.read()
assert "per unit: per M tokens" in s and "per GPU-h" in s and "per unit" in s
work = sum(r["demand"]["work"])
sj = r["scenario_json"]
sides = [("self-hosted", r["self_hosted"], sj["self_hosted"])] + [
    (o["name"], o, c) for o, c in zip(r["options"], sj["cloud_options"])]
rows = [l.split() for l in s.splitlines()]
for name, res, scen in sides:  # names may be shortened at 80 columns: find rows by figures
    per_h = "%.3f" % (res["total"] / (work / scen["work_per_gpu_hour"]))
    per_u = ["%.*g" % (d, res["cost_per_work_unit"]) for d in range(6, 2, -1)]
    hit = [c for c in rows if per_h in c and any(u in c for u in per_u)]
    assert len(hit) == 1, (name, per_h, per_u, s)
    # beside each other, the GPU-hour first
    i = hit[0].index(per_h)
    assert hit[0][i + 1] in per_u, (name, hit[0])
' "$tmp/report.json"
}

for size in "80 24" "200 50"; do
    set -- $size
    start_db "$1" "$2" "$db"
    wait_for "Inference in tokens" >/dev/null
    press Enter
    check "$1x$2: the results show the cost per busy GPU-hour and per M tokens" plan_results
    press 2
    check "$1x$2: Compare shows both for every side, beside each other" compare_rows
    press Right Right Right
    check "$1x$2: Compare sorts by the cost per unit" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'per unit ^'"
    press q
    exited 0 >/dev/null || { t send-keys -t g n; exited 0 >/dev/null; }
done

# ---- the Catalog's generations view: `gpuplan compare` in the TUI ----------------------------
gdb=$tmp/gen.db
"$gpuplan" --db "$gdb" compare --work 200000 --unit "M tokens" --profile llm-training --format json >"$tmp/cmp.json"
# The ranked rows on screen (rank, GPU, side, ..., total, per unit, even) against the JSON: each
# row shown is the JSON row of that rank, every figure whole.
rows_match() { # JSON [MIN-ROWS]
    screen | $py -c '
import json, re, sys
want = {r["rank"]: r for r in json.load(open(sys.argv[1]))["rows"] if r["rank"]}
shown = [l.split() for l in sys.stdin.read().splitlines() if re.match(r"^ *\d+ ", l) and "Compare" not in l and " a month, " not in l]
assert len(shown) >= int(sys.argv[2]), shown
for c in shown:
    r = want[int(c[0])]
    assert c[1] == r["gpu"] and c[2] == r["side"], (c, r)
    even = "-" if r["side"] == "own" else "never" if r["break_even_month"] is None else str(r["break_even_month"])
    tail = ["%.4g" % r["work_per_gpu_hour"], r["throughput_kind"], str(r["gpus_needed"]),
            "{:,.0f}".format(r["total"]), "%.6g" % r["cost_per_unit"], even]
    assert c[-6:] == tail, (c, tail)
' "$1" "${2:-5}"
}
saved_equals_row() { # JSON RANK: `gpuplan report "gen pick"` gives the row's total and per unit
    "$gpuplan" --db "$gdb" report "gen pick" --format json | $py -c '
import json, sys
rep = json.load(sys.stdin)
row = [r for r in json.load(open(sys.argv[1]))["rows"] if r["rank"] == int(sys.argv[2])][0]
side = rep["self_hosted"] if row["side"] == "own" else rep["options"][0]
assert abs(side["total"] - row["total"]) <= 1e-9 * row["total"], (side["total"], row)
assert abs(side["cost_per_work_unit"] - row["cost_per_unit"]) <= 1e-9 * row["cost_per_unit"]
assert rep["demand"]["work_unit"] == "M tokens" and rep["horizon_months"] == 24
' "$1" "$2"
}
for size in "80 24" "200 50"; do
    set -- $size
    start_db "$1" "$2" "$gdb"
    wait_for "5 Catalog" >/dev/null
    press 5 w
    check "$1x$2: the generations view ranks as compare --format json" rows_match "$tmp/cmp.json" $(( $2 - 8 ))
    if [ "$1" = 80 ]; then
        press W C-u 100000 Enter H C-u 24 Enter p
        "$gpuplan" --db "$gdb" compare --work 100000 --unit "M tokens" --profile llm-inference-decode --horizon 24 --format json >"$tmp/cmp2.json"
        check "W, H and p change the inputs" wait_for "100,000 M tokens a month, llm-inference-decode, 24 months"
        check "the ranking follows them" rows_match "$tmp/cmp2.json" 10
        press Down s C-u "gen pick" Enter
        check "s saves the chosen row as a scenario" wait_for 'saved "gen pick", version 1: rank 2'
        check "its report equals the row" saved_equals_row "$tmp/cmp2.json" 2
    fi
    if [ "$1" = 200 ]; then
        press NPage NPage NPage NPage # (End reaches the TUI as ESC [ 4 ~ through tmux here)
        last=$($py -c 'import json, sys; r = json.load(open(sys.argv[1]))["rows"][-1]; print(r["gpu"], r["missing"], sep="\t")' "$tmp/cmp.json")
        check "200x50: a GPU model not compared is shown with what it lacks" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -F -- '${last##*$'\t'}' | grep -q -- ' ${last%%$'\t'*} '"
    fi
    press q
    check "$1x$2: q quits cleanly" exited 0
done

# ---- the Catalog's cost-per-unit column: a profile at a time, estimate or measured ----------
"$gpuplan" --db "$gdb" throughput set H100 llm-training 41.5 --unit "M tokens" --source "our run" >/dev/null
"$gpuplan" --db "$gdb" throughput list --json >"$tmp/tp.json"
per_unit_column() { # PROFILE: each offer row's cost per unit is its GPU-hour over the figure in use
    screen | $py -c '
import json, re, sys
prof = sys.argv[2]
tp = {}
for r in json.load(open(sys.argv[1])):
    if r["profile"] == prof and r["in_use"]:
        tp[r["gpu"]] = (r["value"], "meas" if r["kind"] == "measured" else "est")
s = sys.stdin.read()
assert "per unit: M tokens, " + prof in s or prof not in tp, s
rows = [l.split() for l in s.splitlines() if re.search(r" (est|meas)$", l)]
assert len(rows) >= 5, s
vals = []
for c in rows:
    value, kind = tp[next(x for x in c[1:] if x in tp)]  # regions may be several words
    per_h, unit = float(c[-3]), float(c[-2])   # per GPU-hour shown to 3 decimals
    assert c[-1] == kind, (c, kind)
    assert abs(unit - per_h / value) <= 0.0005 / value + 5e-4 * unit, (c, value)
    vals.append(unit)
assert vals == sorted(vals), vals   # sorted by the column, ascending
' "$tp_json" "$1"
}
tp_json=$tmp/tp.json
for size in "80 24" "200 50"; do
    set -- $size
    start_db "$1" "$2" "$gdb"
    wait_for "5 Catalog" >/dev/null
    press 5
    wait_for "Offers in force today" >/dev/null
    press l
    check "$1x$2: Catalog: the cost per unit of llm-training, sorted, estimate or measured" per_unit_column llm-training
    check "$1x$2: the measured H100 figure is used and says so" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -E ' H100 .* meas\$' >/dev/null"
    press p
    check "$1x$2: p moves the column to the next profile" per_unit_column llm-inference-decode
    press q
    check "$1x$2: q quits cleanly" exited 0
done

echo "generations tui: $fails failed"
[ "$fails" = 0 ]

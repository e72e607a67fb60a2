#!/usr/bin/env bash
# Plans over time in the TUI: the Plan editor's version 2 keys (a list of demand
# steps, the resale curve, a choice) and the Timeline tab, the real binary in tmux. Every
# figure checked is gpuplan report's on the scenario the TUI saved; the checks wait on the
# screen, never on a fixed delay.
set -u
gpuplan=$1 root=$2
. "$root/tests/tui/lib.sh"
ex=$root/tests/fixtures/examples
# Move the editor's selection down n fields, then wait until the row labelled label is the
# selected one (black on cyan: that escape precedes its label).
down_to() { # N LABEL
    for _ in $(seq 1 "$1"); do press j; done
    for _ in $(seq 1 50); do
        t capture-pane -p -e -t g | grep -qF -- $'\e[46m'"$2" && return 0
        sleep 0.1
    done
    echo "FAIL the selection did not reach \"$2\""; screen; fails=$((fails + 1))
}

db=$tmp/plans.db
growth="H100 cluster growing 4 % a month, bought as needed with a 3-month lead time, on-demand bridge"
steps="Stepped demand, one purchase all at once capped by rack space, spot bridge for the peak"
"$gpuplan" --db "$db" scenario save "$ex/v2-growth-as-needed-lead-bridge.json" >/dev/null
"$gpuplan" --db "$db" scenario save "$ex/v2-steps-all-at-once-cap-spot-bridge.json" >/dev/null
refresh="Six years, refresh every three: resale curve, a loan per purchase, maintenance after warranty"
"$gpuplan" --db "$db" scenario save "$ex/v2-refresh-resale-loan.json" >/dev/null

# gpuplan report on the stored scenario (exported first: a name with a "/" reads as a file).
report() { # NAME FORMAT
    "$gpuplan" --db "$db" scenario export "$1" >"$tmp/export.json" &&
        "$gpuplan" report "$tmp/export.json" --format "$2"
}
# The results column and the legend show each total as gpuplan report gives it.
totals_match() { # NAME: the stored scenario's totals are on screen
    local s
    s=$(screen)
    report "$1" json | $py -c '
import json, sys
r, s = json.load(sys.stdin), sys.argv[1]
def compact(v):
    a, u = abs(v), 0
    while u < 3 and round(a / 1000) >= 1000: a /= 1000; u += 1
    a /= 1000
    return ("-" if v < 0 else "") + ("%.2f" if a < 9.995 else "%.1f" if a < 99.95 else "%.0f") % a + "kMBT"[u]
tot = [r["self_hosted"]["total"]] + [o["total"] for o in r["options"]]
bad = [v for v in tot if "{:,.0f}".format(v) not in s and compact(v) not in s]
assert not bad, (bad, s)
' "$s"
}
stored() { # NAME PYTHON-ASSERTION on d, the stored document
    "$gpuplan" --db "$db" scenario export "$1" | $py -c "import json, sys; d = json.load(sys.stdin); assert $2, d"
}

start 80 24
check "the growth plan opens" wait_for "cheapest:"
press l

# A choice: the bridge, cycled to none, is refused with its JSON path (the plan needs one in
# months 1-3); Esc keeps the document as it was.
down_to 19 "bridge"
press Enter
check "a choice shows the one in force" wait_for "Left/Right choose"
press Left
check "no bridge: the engine's refusal with its path" wait_for '$.self_hosted.bridge: month 1 needs' 
press Escape
check "Esc leaves the choice as it was" bash -c "
    tmux -S '$sock' capture-pane -p -t g | grep -qE 'bridge +H100 on-demand'"

# A point of the resale curve: the second (36 months, 45 %) becomes 50 %.
down_to 7 "    worth"
press Enter C-u 0 . 5
check "a typed resale point waits for Enter" wait_for "a value: Enter evaluates it"
press Enter s
check "the resale edit is saved" wait_for "saved version 2 of"
check "the stored resale curve has the point" stored "$growth" \
    'd["self_hosted"]["resale"][1] == {"age_months": 36, "pct": 0.5}'
check "the totals after a resale edit are gpuplan report's" totals_match "$growth"

# A resale point added after the last (48 months, at the last share), then undone.
press a
check "a adds a resale point" wait_for "added resale 3"
check "the new point is on screen" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE 'resale 3: at age +48 '"
press u
check "u takes the point away" bash -c "! tmux -S '$sock' capture-pane -p -t g | grep -q 'resale 3:'"
press U
check "U (redo) puts it back" wait_for "redone"
check "the redone point is on screen" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE 'resale 3: at age +48 '"
press u
check "u takes it away again, back to the saved plan" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g); ! echo \"\$s\" | grep -q 'resale 3:' && ! echo \"\$s\" | grep -qF '*modified*'"

# The Timeline of the saved growth plan: the marks and the break-even month of the report.
timeline_matches() { # NAME [COLUMNS]: purchases, sales, bridge months, break-even as reported
    local s
    s=$(screen)
    report "$1" csv >"$tmp/r.csv"
    report "$1" json | $py -c '
import csv, json, sys
r, s = json.load(sys.stdin), sys.argv[1]
rows = list(csv.DictReader(open(sys.argv[2])))
lines = s.split("\n")
M = r["horizon_months"]
def ranges(v):
    v, out, i = sorted(set(v)), [], 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[j + 1] == v[j] + 1: j += 1
        out.append(str(v[i]) if i == j else "%d-%d" % (v[i], v[j])); i = j + 1
    return ", ".join(out) or "none"
sh = r["self_hosted"]
bought = [p["index"] for p in sh["purchases"]]
sold = [x["index"] for x in sh["sales"] if not x["end"]]
bridge = [int(x["index"]) for x in rows if x["index"] != "0" and float(x["bridge_hours"]) > 0]
want = "bridge months %s  sold at %s" % (ranges(bridge), ranges(sold))
assert want in s, (want, s)
# The line holds the purchases last, cut at the screen edge where they are many.
line = next(l for l in lines if l.startswith("bridge months")).rstrip()
full = "%s%s  %d purchase%s at %s" % (want, "  exit value at %d" % M if bought else "", len(bought),
                                     "" if len(bought) == 1 else "s", ranges(bought))
assert len(line) > len(want) + 16 and full.startswith(line), (full, line)
# The marks lie where the chart puts those indexes: a 9-column axis, braille.
W = (int(sys.argv[3]) - 10) * 2
col = lambda m: 10 + round(m / M * (W - 1)) // 2
lane = lambda name: next(l for l in lines if l.startswith("  " + name))
for m in bought: assert lane("bought")[col(m)] == "\u25b2", (m, lane("bought"))
for m in sold: assert lane("sold")[col(m)] == "\u25bc", (m, lane("sold"))
for j in bridge: assert lane("bridge")[col(j)] == "\u2550", (j, lane("bridge"))
assert lane("bought").count("\u25b2") == len({col(m) for m in bought}), lane("bought")
# The break-even marked: the earliest option, its month and the month it closes.
opts = [o for o in r["options"] if o["break_even_month"] is not None]
first = min(opts, key=lambda o: o["break_even_month"])
m = first["break_even_month"]
y, mo = int(r["start_date"][:4]), int(r["start_date"][5:7])
k = y * 12 + mo - 1 + m - 1
label = r["start_date"] if m == 0 else "%04d-%02d" % (k // 12, k % 12 + 1)
# The name whole, or shortened in the middle where the line is short of room.
line = next(l for l in lines if "even with " in l)
shown = line.split("even with ", 1)[1].split(": month ", 1)[0]
name = first["name"]
head, _, tail = shown.partition("\u2026")
assert shown == name or (_ and name.startswith(head) and name.endswith(tail)), (name, line)
assert line.rstrip().endswith("%s: month %d (%s)" % (shown, m, label)), (m, label, line)
for o in r["options"]:
    be = " even %d" % o["break_even_month"] if o["break_even_month"] is not None else " never"
    assert be in s, (be, s)
assert r["start_date"] in s and ("%d months from %s" % (M, r["start_date"])) in s, s
' "$s" "$tmp/r.csv" "${2:-80}"
}
press 7
check "80x24: the Timeline draws the plan" wait_for "GPUs by month"
check "80x24: its marks and break-even are the report's (growth plan)" timeline_matches "$growth"
press Right
check "Right marks another option's break-even month" bash -c "
    tmux -S '$sock' capture-pane -p -t g | grep -q 'even with H100 on-demand: month 36'"
press '?'
check "? lists the Timeline's keys" wait_for "Timeline  Left/Right: the option whose break-even"
press Space
# The Break-even tab dates its crossing from start_date as the Timeline and the report do.
cat >"$tmp/be.py" <<'PY'
import json, re, sys
screen, r = sys.argv[1], json.load(open(sys.argv[2]))
first = min((o for o in r["options"] if o["break_even_month"] is not None),
            key=lambda o: o["break_even_month"])
m = first["break_even_month"]
y, mo = int(r["start_date"][:4]), int(r["start_date"][5:7])
k = y * 12 + mo - 1 + m - 1
label = r["start_date"] if m == 0 else "%04d-%02d" % (k // 12, k % 12 + 1)
got = re.search(r"even with (.+?): month (\d+) \(([0-9-]+)\)", screen)
assert got and (int(got.group(2)), got.group(3)) == (m, label), (m, label, screen)
# The name whole, or shortened in the middle.
head, cut, tail = got.group(1).partition("\u2026")
name = first["name"]
assert got.group(1) == name or (cut and name.startswith(head) and name.endswith(tail)), got.group(1)
PY
report "$growth" json >"$tmp/be.json"
press 3
check "the Break-even tab's crossing is dated as the report's" bash -c "
    $py '$tmp/be.py' \"\$(tmux -S '$sock' capture-pane -p -t g)\" '$tmp/be.json'"

# The refresh plan as the example gives it: a sale and a purchase at 36, its break-even.
press 1 h j Enter
check "the refresh plan opens" wait_for "> Six years"
press 7
check "80x24: the refresh plan's sale, purchases and break-even are the report's" \
    timeline_matches "$refresh"

# Steps: the stepped plan's second step (month 19, 128 GPUs) becomes 144; a third step is
# added (month 20, the 144 in force) and set to 112; saved; the results are the report's.
press 1 h j Enter
check "the stepped plan opens" wait_for "> Stepped demand"
check "its steps are rows of the editor" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g); echo \"\$s\" | grep -qE 'step 1: month +7 ' &&
    echo \"\$s\" | grep -qE 'step 2: month +19 '"
down_to 10 "    GPUs"
press Enter C-u 1 4 4
check "a typed step's GPUs wait for Enter" wait_for "a value: Enter evaluates it"
press Enter
check "the step shows its new GPUs" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE ' GPUs +144 GPUs'"
press a
check "a adds a step after the last" wait_for "added step 3"
check "the new step starts a month later with the demand in force" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g); echo \"\$s\" | grep -qE 'step 3: month +20 '"
press j Enter C-u 1 1 2 Enter
press Enter C-u 2 0 0 0 0 0 0 0 Enter
check "a value out of range says why, with its JSON path" wait_for '$.demand.steps[2].gpus'
press Escape s
check "the step edits are saved" wait_for "saved version 2 of"
check "the stored steps have the edits" stored "$steps" \
    'd["demand"]["steps"][1]["gpus"] == 144 and d["demand"]["steps"][2] == {"month": 20, "gpus": 112}'
check "the totals after the step edits are gpuplan report's" totals_match "$steps"
# A bulk tier added (from 20 servers, at the last discount), then set to 16 servers at 10 %,
# which the one order of 16 servers now gets.
down_to 9 "  bulk tier 1: from"
press a
check "a adds a bulk tier" wait_for "added bulk tier 2"
check "the new tier is selected" bash -c "
    tmux -S '$sock' capture-pane -p -e -t g | grep -qF -- \$'\\e[46m  bulk tier 2: from'"
press Enter C-u 1 6 Enter j Enter C-u 0 . 1 Enter s
check "the tier is saved" wait_for "saved version 3 of"
check "the stored tiers have it" stored "$steps" \
    'd["self_hosted"]["bulk_discounts"][1] == {"min_servers": 16, "pct": 0.1}'
check "the totals after the tier edit are gpuplan report's" totals_match "$steps"
press 7
check "the stepped plan's Timeline is the report's" timeline_matches "$steps"

# 200x50: the same, larger; still readable (the dates under the lanes, the legend whole).
t resize-window -t g -x 200 -y 50
check "200x50: the Timeline redraws" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g); [ \$(echo \"\$s\" | wc -l) = 50 ] &&
    echo \"\$s\" | grep -q 'GPUs by month'"
check "200x50: the marks and break-even are the report's" timeline_matches "$steps" 200
t resize-window -t g -x 80 -y 24
press 1 q
check "q exits 0" exited 0

# ASCII: the lanes' marks and the charts without UTF-8.
start 80 24 LANG=C LC_ALL=C
wait_for "cheapest:" >/dev/null
press 7
check "ASCII: the Timeline marks with ^ v =" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g); echo \"\$s\" | grep -qE '^  bought +\\^' &&
    echo \"\$s\" | grep -qE '^  bridge +=' && ! echo \"\$s\" | LC_ALL=C grep -qP '[\\x80-\\xff]'"
press q
check "ASCII: q exits 0" exited 0

# Work mode: demand as work, each side's throughput; the editor shows the work keys, an edit
# of the work a month gives the report's totals, and the Timeline draws its marks.
db=$tmp/work.db
work="Inference in tokens: own H100 or rent A100 / H200 / reserved H100, per million tokens"
"$gpuplan" --db "$db" scenario save "$ex/v2-work-mode-generations.json" >/dev/null
start 80 24
check "work mode: the plan opens" wait_for "cheapest:"
press l
down_to 2 "work a month"
check "work mode: the unit and the sides' throughput are fields" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g); echo \"\$s\" | grep -qE 'work unit +M tokens'"
press Enter C-u 5 0 0 0 0 0 Enter s
check "work mode: the edit is saved" wait_for "saved version 2 of"
check "work mode: the stored work a month" stored "$work" 'd["demand"]["work_per_month"] == 500000'
check "work mode: the totals are gpuplan report's" totals_match "$work"
press 7
check "work mode: the Timeline draws demand as self-hosted GPUs" wait_for "demand as GPUs"
check "work mode: its marks and break-even are the report's" timeline_matches "$work"
press q
check "work mode: q exits 0" exited 0

echo "timeline: $fails failed"
[ "$fails" = 0 ]

#!/usr/bin/env bash
# The Plan editor while a value is typed: the first key typed replaces the
# value offered, as the prompt says; "70%" is a percentage, as the CLI takes it; a value the
# model refuses shows its reason, whole and wrapped, where the results were, never NaN
# totals; work mode shows the scenario's unit and groups the digits of the Compare title.
# The real binary in tmux, every saved value checked on the stored document.
set -u
gpuplan=$1 root=$2
. "$root/tests/tui/lib.sh"
db=$tmp/edit.db
gp() { "$gpuplan" --db "$db" "$@"; }
stored() { # NAME PYTHON-ASSERTION on d, the stored document
    gp scenario export "$1" | $py -c "import json, sys; d = json.load(sys.stdin); assert ($2), d"
}

a="edit plan"
cat >"$tmp/a.json" <<JSON
{"name": "$a", "horizon_months": 24,
 "demand": {"gpus": 16, "utilization": 0.5},
 "self_hosted": {"server_price": 200000, "lead_time_months": 3,
   "bridge": "od"},
 "cloud_options": [{"name": "od", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 60}]}
JSON
w="work plan"
cat >"$tmp/w.json" <<JSON
{"name": "$w", "horizon_months": 12,
 "demand": {"work_per_month": 2500000, "work_unit": "M tokens", "utilization": 0.5},
 "self_hosted": {"server_price": 200000, "work_per_gpu_hour": 10},
 "cloud_options": [{"name": "od", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 60,
   "work_per_gpu_hour": 10}]}
JSON
gp scenario save "$tmp/a.json" >/dev/null
gp scenario save "$tmp/w.json" >/dev/null

start 100 50
check "the plan opens" wait_for "cheapest:"
press l

# Typing replaces: utilization 0.5, then 7 gives 7 (refused: above 1), not 0.57.
goto_field "utilization"
press Enter
check "the value offered is shown for editing" wait_for "Enter commit  Esc cancel"
press 7
check "the first key typed replaced the value offered" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -E 'utilization +7_' >/dev/null"
# Typed, it is only read; Enter evaluates it. Refused: the reason where the results were,
# wrapped, no NaN anywhere, and the value still open for editing.
check "a typed value waits for Enter" wait_for "a value: Enter evaluates it"
check "the results are still the document's while typing" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -q 'cheapest:'"
press Enter
check "a refused value shows its reason instead of results" wait_for "refused, so none:"
check "a refused value stays open for editing" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -E 'utilization +7_' >/dev/null"
check "no NaN totals and no cheapest while refused" bash -c "! tmux -S '$sock' capture-pane -p -t g | grep -qiwE 'nan|cheapest:'"
# A backspace edits what was typed; 70% is a percentage.
press BSpace 7 0 %
check "70% reads as a value" wait_for "a value: Enter evaluates it"
press Enter
check "70% is committed" wait_for "*modified*"
press s
check "saved" wait_for "saved version 2"
check "70% stored as 0.7" stored "$a" 'd["demand"]["utilization"] == 0.7'

# A lead time past the horizon: refused, and its long reason wraps instead of being cut.
goto_field "lead time"
press Enter 3 0 Enter
check "the refused lead time's reason is there, whole" bash -c "
    tmux -S '$sock' capture-pane -p -t g | tr -s ' \n' ' ' | grep -qF 'lead_time_months'"
press Escape

# Work mode: the scenario's unit beside its work, grouped digits in the Compare title.
press h
press G
for _ in $(seq 1 20); do screen | grep -q "> $w" && break; press k; sleep 0.1; done
press g
for _ in $(seq 1 20); do screen | grep -qF -- "> $w" && break; press j; sleep 0.1; done
press Enter
check "the work plan opens" wait_for "$w (version 1)"
check "work is counted in the scenario's unit" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -E 'work a month +2,500,000 +M tokens' >/dev/null"
# 2,500,000 M tokens at 10 a GPU-hour and 50 % busy: 2,500,000 / 10 / 365 = 684.9, so 685.
check "work mode shows the GPUs that work needs" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -E 'GPUs needed, month 1 +685' >/dev/null"
press 2
check "the Compare title groups the digits of the work" wait_for "2,500,000 M tokens a month"

press q
exit $((fails > 0))

#!/usr/bin/env bash
# An API priced per unit of work in the Plan editor (revision 2.1): a cloud option added, its
# pricing turned per_unit (offered in work mode only), its price a unit, input price and input
# ratio typed as fields; saved and checked on the stored document and on gpuplan report's
# figures; then back to on-demand, its equivalent with the same totals. The real binary in tmux.
set -u
gpuplan=$1 root=$2
. "$root/tests/tui/lib.sh"
db=$tmp/api.db

gp() { "$gpuplan" --db "$db" "$@"; }
stored() { # PYTHON-ASSERTION on d, the stored document
    gp scenario export "$name" | $py -c "import json, sys; d = json.load(sys.stdin); assert ($1), d"
}
reported() { # PYTHON-ASSERTION on r, its report; close(a, b): docs/model.md's relative 1e-9
    gp report "$name" --format json | $py -c "
import json, sys
r = json.load(sys.stdin)
close = lambda a, b: abs(a - b) <= 1e-9 * max(1, abs(a), abs(b))
assert ($1), r"
}
row_of() { screen | grep -F -- "$1" | head -1; }
# Enter on a choice field, Right n times (each once the one before shows), the choice shown
# valid, Enter.
pick() { # LABEL RIGHTS SHOWN
    goto_field "$1" || return
    pick_here "$@"
}
# The same on the field selected (a set value shows whole in its selected row, so goto_field's
# exact label does not match it).
pick_here() { # LABEL RIGHTS SHOWN
    press Enter
    check "$1: the choice opens" wait_for "Left/Right choose"
    local before
    for _ in $(seq 1 "$2"); do
        before=$(row_of "$1")
        press Right
        for _ in $(seq 1 100); do [ "$(row_of "$1")" != "$before" ] && break; sleep 0.05; done
    done
    check "$1: $3 is chosen and valid" bash -c "
        tmux -S '$sock' capture-pane -p -t g | grep -F -- '$1' | grep -qF -- '$3' &&
        tmux -S '$sock' capture-pane -p -t g | grep -q 'valid: the results show this value'"
    press Enter
    check "$1: $3 committed" bash -c "! tmux -S '$sock' capture-pane -p -t g | grep -q 'Left/Right choose'"
}
selected_starts() { [[ "$(selected)" == "$1"* ]]; }
type_value() { # LABEL KEYS...
    local label=$1; shift
    goto_field "$label" || return
    press Enter C-u "$@" Enter
    check "$label: typed" bash -c "! tmux -S '$sock' capture-pane -p -t g | grep -q 'Enter keeps'"
}

name="tokens plan"
cat >"$tmp/plan.json" <<JSON
{"name": "$name", "horizon_months": 24, "start_date": "2027-01-01",
 "demand": {"work_per_month": 20000, "work_unit": "M tokens", "utilization": 0.6},
 "self_hosted": {"server_price": 300000, "work_per_gpu_hour": 20,
   "power": {"server_base_w": 1500, "gpu_idle_w": 60, "gpu_tdp_w": 700, "pue": 1.3}},
 "cloud_options": [{"name": "od", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 40,
   "work_per_gpu_hour": 10}]}
JSON
gp scenario save "$tmp/plan.json" >/dev/null

start 100 70
check "the plan opens" wait_for "cheapest:"
press l

goto_field "cloud options"
press Enter
check "Enter on the head adds an option" wait_for 'added "on-demand 2"'
pick "on-demand 2: pricing" 3 per_unit
check "an API shows its prices, not an hourly, instance size or throughput" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g)
    grep -q 'on-demand 2: price a unit' <<<\"\$s\" && grep -q 'on-demand 2: input price' <<<\"\$s\" &&
    grep -q 'on-demand 2: input ratio' <<<\"\$s\" && ! grep -q 'on-demand 2: hourly' <<<\"\$s\" &&
    ! grep -q 'on-demand 2: GPUs an instance' <<<\"\$s\" && ! grep -q 'on-demand 2: work a GPU-hour' <<<\"\$s\""
# The field after the pricing (its whole row shows selected: its value is set).
press j
check "the price a unit follows the pricing" selected_starts "on-demand 2: price a unit"
press Enter C-u 0 . 4 Enter
check "the price a unit typed" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE 'on-demand 2: price a unit +0.4 '"
type_value "on-demand 2: input price" 0 . 1
type_value "on-demand 2: input ratio" 2
press s
check "the API saved" wait_for "saved version 2 of \"$name\""
check "the API is stored with its three prices alone" stored '
    d["cloud_options"][1] == {"name": "on-demand 2", "pricing": "per_unit", "price_per_unit": 0.4,
                              "price_per_input_unit": 0.1, "input_units_per_unit": 2}'
check "its total is the work at 0.4 + 2 * 0.1 a unit" reported \
    "r['options'][1]['pricing'] == 'per_unit' and close(r['options'][1]['total'], 20000 * 24 * 0.6)
    and r['options'][1]['cost_per_gpu_hour'] is None"

# In work mode the API may be the bridge; back to on-demand it is its equivalent, the same total.
press k k k
check "back on the pricing" selected_starts "on-demand 2: pricing"
pick_here "on-demand 2: pricing" 1 on_demand
check "on-demand again: its hourly and size show" wait_for "on-demand 2: hourly"
press s
check "the equivalent saved" wait_for "saved version 3 of \"$name\""
check "the equivalent is stored" stored '
    d["cloud_options"][1] == {"name": "on-demand 2", "pricing": "on_demand", "gpus_per_instance": 1,
                              "hourly": 0.6, "work_per_gpu_hour": 1}'
check "the same total as the API's" reported "close(r['options'][1]['total'], 20000 * 24 * 0.6)"

press q
check "q quits" exited 0
exit $((fails > 0))

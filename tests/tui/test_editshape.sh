#!/usr/bin/env bash
# The Plan editor's changes of shape: the demand switched between GPU mode and work
# mode (in GPU-hours, and in a profile's unit from the throughput table), an option's pricing
# kind, a cloud option added, tariff periods added, renamed, priced and removed, the financing
# kind. The real binary in tmux; every change is saved and checked on the stored document
# (gpuplan scenario export) and on gpuplan report's figures for it.
set -u
gpuplan=$1 root=$2
. "$root/tests/tui/lib.sh"
db=$tmp/shapes.db

gp() { "$gpuplan" --db "$db" "$@"; }
stored() { # NAME PYTHON-ASSERTION on d, the stored document
    gp scenario export "$1" | $py -c "import json, sys; d = json.load(sys.stdin); assert ($2), d"
}
# The report of the stored scenario as r (v: of its version N when given), with close(a, b):
# equal to docs/model.md's relative 1e-9.
reported() { # NAME PYTHON-ASSERTION [VERSION]
    gp report "$1" --format json ${3:+--version "$3"} | $py -c "
import json, sys
r = json.load(sys.stdin)
close = lambda a, b: abs(a - b) <= 1e-9 * max(1, abs(a), abs(b))
assert ($2), r"
}
total_of() { # NAME VERSION: self-hosted's total
    gp report "$1" --format json --version "$2" | $py -c 'import json, sys; print(repr(json.load(sys.stdin)["self_hosted"]["total"]))'
}
# The row of the field labelled label, as shown.
row_of() { screen | grep -F -- "$1" | head -1; }
# Enter on a choice field, then Right n times, each key sent once the one before shows (an
# arrow key's bytes sent in a burst may reach a slow build apart).
open_choice() { # LABEL RIGHTS
    goto_field "$1" || return
    press Enter
    check "$1: the choice opens" wait_for "Left/Right choose"
    local before
    for _ in $(seq 1 "$2"); do
        before=$(row_of "$1")
        press Right
        for _ in $(seq 1 100); do [ "$(row_of "$1")" != "$before" ] && break; sleep 0.05; done
    done
}
# The same, then the choice shown checked and committed.
pick() { # LABEL RIGHTS SHOWN
    open_choice "$1" "$2"
    check "$1: $3 is chosen and valid" bash -c "
        tmux -S '$sock' capture-pane -p -t g | grep -F -- '$1' | grep -qF -- '$3' &&
        tmux -S '$sock' capture-pane -p -t g | grep -q 'valid: the results show this value'"
    press Enter
    check "$1: $3 committed" bash -c "! tmux -S '$sock' capture-pane -p -t g | grep -q 'Left/Right choose'"
}
# And saved as version v.
choose() { # LABEL RIGHTS SHOWN VERSION NAME
    pick "$1" "$2" "$3"
    press s
    check "$1: $3 saved" wait_for "saved version $4 of \"$5\""
}

a="a manual plan" b="b catalog plan"
cat >"$tmp/a.json" <<JSON
{"name": "$a", "horizon_months": 24, "start_date": "2027-01-01",
 "demand": {"gpus": 16, "utilization": 0.5},
 "self_hosted": {"server_price": 200000,
   "power": {"server_base_w": 1500, "gpu_idle_w": 60, "gpu_tdp_w": 700, "pue": 1.3}},
 "cloud_options": [{"name": "od", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 60,
   "idle_overhead": 0.1}]}
JSON
cat >"$tmp/b.json" <<JSON
{"name": "$b", "horizon_months": 24, "start_date": "2027-01-01",
 "demand": {"gpus": 16, "utilization": 0.5},
 "self_hosted": {"server_price": 200000,
   "power": {"server_base_w": 1500, "gpu_idle_w": 60, "gpu_tdp_w": 700, "pue": 1.3}},
 "cloud_options": [{"name": "p5", "pricing": "on_demand", "catalog": "aws/p5.48xlarge/us-east-1"}]}
JSON
gp scenario save "$tmp/a.json" >/dev/null
gp scenario save "$tmp/b.json" >/dev/null
gpu_total=$(total_of "$a" 1)

start 100 70
check "the first plan opens" wait_for "cheapest:"
press l

# GPU mode to work in busy GPU-hours: the same plan in other words, so the same totals, and a
# cost per unit of work that is the total over the work.
choose "demand counted in" 1 "GPU-hours" 2 "$a"
check "the work keys are stored, the GPUs gone" stored "$a" '
    d["demand"] == {"utilization": 0.5, "work_per_month": 16 * 730 * 0.5, "work_unit": "GPU-hours"}
    and d["self_hosted"]["work_per_gpu_hour"] == 1
    and [o["work_per_gpu_hour"] for o in d["cloud_options"]] == [1]'
check "in GPU-hours the totals are GPU mode's, the cost per unit the total over the work" \
    reported "$a" "close(r['self_hosted']['total'], $gpu_total)
    and close(r['demand_work'], 16 * 730 * 0.5 * 24)
    and close(r['self_hosted']['cost_per_work_unit'], r['self_hosted']['total'] / r['demand_work'])
    and close(r['options'][0]['cost_per_work_unit'], r['options'][0]['total'] / r['demand_work'])"
check "the results give the cost per unit of work" wait_for "per GPU-hours"
check "the work fields show" wait_for "work a GPU-hour"

# And back: the GPUs self-hosted needs for that work, every work key dropped.
choose "demand counted in" 1 "GPUs" 3 "$a"
check "back in GPU mode the document is the first one's" stored "$a" '
    d["demand"] == {"gpus": 16, "utilization": 0.5}
    and "work_per_gpu_hour" not in d["self_hosted"]
    and not any("work_per_gpu_hour" in o for o in d["cloud_options"])'
check "back in GPU mode the total is the first one's" reported "$a" \
    "close(r['self_hosted']['total'], $gpu_total) and r['self_hosted']['cost_per_work_unit'] is None"

# A profile needs the plan's GPU model: with no catalog offer the choice is refused with its
# path, and Esc keeps the document.
open_choice "demand counted in" 2
check "a profile without a GPU model is refused with its path" \
    wait_for '$.cloud_options: no option is a catalog offer'
press Escape
check "Esc keeps GPU mode" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE 'demand counted in +GPUs'"

# The pricing kind: spot shows the spot fields, committed the term and the base, and the
# keys of the kind left are dropped (the idle overhead is on-demand's and spot's only).
pick "od: pricing" 1 spot
check "spot shows its fields" wait_for "od: interruptions"
check "the choice stays selected" selected_is "od: pricing"
pick "od: pricing" 1 committed
check "committed shows the term and the base, not spot's fields" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g)
    grep -q 'od: term' <<<\"\$s\" && grep -q 'od: committed base' <<<\"\$s\" &&
    ! grep -q 'od: interruptions' <<<\"\$s\" && ! grep -q 'od: idle overhead' <<<\"\$s\""
press s
check "the pricing saved" wait_for "saved version 4 of \"$a\""
check "a committed od: the idle overhead dropped" stored "$a" '
    d["cloud_options"] == [{"name": "od", "pricing": "committed", "gpus_per_instance": 8, "hourly": 60}]'
check "its report prices a commitment" reported "$a" "r['options'][0]['pricing'] == 'committed'
    and close(r['options'][0]['total'], 60 * 2 * 730 * 24)"

# A cloud option added on the options' head: on-demand, a server's GPUs, at the per-GPU price
# of the first option.
goto_field "cloud options"
press Enter
check "Enter on the head adds an option" wait_for 'added "on-demand 2"'
press s
check "the new option saved" wait_for "saved version 5 of \"$a\""
check "the new option is stored" stored "$a" '
    d["cloud_options"][1] == {"name": "on-demand 2", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 60}'
check "the new option's total is its busy instance-hours at its price" reported "$a" \
    "close(r['options'][1]['total'], 60 * 16 * 730 * 0.5 / 8 * 24)"

# Tariff periods: the default flat one split in two, the new one renamed and priced.
power5=$(gp report "$a" --format json | $py -c 'import json, sys; print(repr(json.load(sys.stdin)["self_hosted"]["breakdown"]["power"]))')
goto_field "tariff periods"
press a
check "a adds a tariff period" wait_for "added period 2"
check "the new period is selected" selected_is "period 2: name"
press Enter C-u
press -l peak
press Enter
goto_field "peak price"
press Enter C-u 0 . 3 Enter s
check "the periods saved" wait_for "saved version 6 of \"$a\""
check "the periods are stored" stored "$a" '
    d["self_hosted"]["tariff"]["periods"] == [
        {"name": "flat", "hours_per_day": 12, "price_per_kwh": 0.12},
        {"name": "peak", "hours_per_day": 12, "price_per_kwh": 0.3}]'
check "power costs the time-weighted mean price" reported "$a" \
    "close(r['self_hosted']['breakdown']['power'], $power5 * (0.12 + 0.3) / 2 / 0.12)"

# Removing a period gives its hours to its neighbour; the last one stays.
goto_field "period 2: name"
press d
check "d removes the period" wait_for "removed period 2"
goto_field "period 1: name"
press d
check "the last period is not removed, with its path" \
    wait_for 'cannot remove period 1: $.self_hosted.tariff.periods: a tariff keeps at least one'
press s
check "the removal saved" wait_for "saved version 7 of \"$a\""
check "one period of 24 hours is stored" stored "$a" '
    d["self_hosted"]["tariff"]["periods"] == [{"name": "flat", "hours_per_day": 24, "price_per_kwh": 0.12}]'
check "power back at the flat price" reported "$a" "close(r['self_hosted']['breakdown']['power'], $power5)"

# Financing: a loan over the horizon, its fields then shown.
choose "financing" 1 "loan" 8 "$a"
check "the loan fields show" wait_for "loan APR"
check "the loan is stored" stored "$a" '
    d["self_hosted"]["financing"] == {"kind": "loan", "apr": 0.07, "term_months": 24}'
check "the loan costs interest" reported "$a" "r['self_hosted']['breakdown']['interest'] > 0"

# Shifting busy hours to the cheapest period: a flag, stored as true.
choose "shift to cheapest" 1 "yes" 9 "$a"
check "the shift is stored as a flag" stored "$a" 'd["self_hosted"]["tariff"]["shift_to_cheapest"] is True'

# A catalog plan to work in a profile's unit: the H100 of its offer, the throughput table's
# figure for self-hosted and the option, the same GPUs.
press h j Enter
check "the catalog plan opens" wait_for "p5: pricing"
press l
rho=$(gp throughput list --gpu H100 --profile llm-training --json | $py -c 'import json, sys; print(repr(json.load(sys.stdin)[0]["value"]))')
b_total=$(total_of "$b" 1)
choose "demand counted in" 2 "llm-training" 2 "$b"
check "the profile's work is stored" stored "$b" "
    d['demand']['work_unit'] == 'M tokens' and d['self_hosted']['work_per_gpu_hour'] == $rho
    and abs(d['demand']['work_per_month'] - 16 * 730 * 0.5 * $rho) <= 1e-9 * d['demand']['work_per_month']
    and d['cloud_options'][0]['work_per_gpu_hour'] == $rho and 'gpus' not in d['demand']"
check "per M tokens: the same totals, the cost per unit the total over the work" reported "$b" \
    "close(r['self_hosted']['total'], $b_total)
    and close(r['self_hosted']['cost_per_work_unit'], r['self_hosted']['total'] / r['demand_work'])
    and close(r['options'][0]['cost_per_work_unit'], r['options'][0]['total'] / r['demand_work'])"
check "the results say per M tokens" wait_for "per M tokens"

# A catalog reference turned spot takes the catalog's spot price.
choose "p5: pricing" 1 "spot" 3 "$b"
check "the reference is spot" stored "$b" '
    d["cloud_options"][0] == {"name": "p5", "pricing": "spot", "catalog": "aws/p5.48xlarge/us-east-1",
                              "work_per_gpu_hour": d["self_hosted"]["work_per_gpu_hour"]}'
check "priced from the catalog's spot entry" reported "$b" "r['sources'][0]['pricing'] == 'spot'
    and r['options'][0]['pricing'] == 'spot'"

# Committed, the reference takes the term its catalog has (36 months here), and its purchase
# option becomes a choice.
choose "p5: pricing" 1 "committed" 4 "$b"
check "the committed reference has the catalog's term" stored "$b" '
    d["cloud_options"][0]["pricing"] == "committed" and d["cloud_options"][0]["term_months"] == 36'
choose "p5: purchase" 2 "all_upfront" 5 "$b"
check "the purchase option is stored" stored "$b" 'd["cloud_options"][0]["purchase"] == "all_upfront"'
check "priced from the catalog's all-upfront entry" reported "$b" "r['sources'][0]['pricing'] == 'committed'
    and r['sources'][0]['upfront'] > 0"

press q
check "q quits" exited 0
exit $((fails > 0))

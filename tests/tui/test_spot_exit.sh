#!/usr/bin/env bash
# The Plan screen where spot is cheapest and the cheapest with guaranteed capacity is owning,
# whose total holds an exit value (model 2.1): the line under "spot; guaranteed" says how much
# of it is the exit value and that without it "od" is the guaranteed choice. 8 GPUs at 50 % for
# 12 months: od 70,080, sp 35,040, owning 100,000 less a flat 50 % exit value, 50,000. The
# real binary in tmux. Then a tie (owning and od at 8,760): the line under "cheapest:" names it.
set -u
gpuplan=$1 root=$2
. "$root/tests/tui/lib.sh"
db=$tmp/spot.db
cat >"$tmp/spot.json" <<'JSON'
{"name": "spot owned", "horizon_months": 12, "demand": {"gpus": 8, "utilization": 0.5},
 "self_hosted": {"server_price": 100000, "residual_pct": 0.5},
 "cloud_options": [{"name": "od", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 16},
                   {"name": "sp", "pricing": "spot", "gpus_per_instance": 8, "hourly": 8}]}
JSON
"$gpuplan" --db "$db" --quiet scenario save "$tmp/spot.json" >/dev/null

shows() { screen | grep -q -- "$1"; }
exit_lines() { # the exit value's amount, then the guaranteed choice without it
    local s
    s=$(screen)
    echo "$s" | grep -qE '^  exit value credited +50,000 ' && echo "$s" | grep -qE '^  without it: od +'
}

start 140 40
check "the plan opens" wait_for "cheapest:"
check "spot cheapest, owning guaranteed" shows "^spot; guaranteed (+14,960): se"
check "the exit value in owning's total, and who is cheaper without it" \
    exit_lines
press q
check "q quits" exited 0

# A tie: 8 GPUs at 50 % for 12 months rent for 8,760 at 2 an 8-GPU instance-hour, the price of
# the one server owned. The Results panel names the tie under "cheapest:", not a win alone.
db=$tmp/tie.db
cat >"$tmp/tie.json" <<'JSON'
{"name": "tie", "horizon_months": 12, "demand": {"gpus": 8, "utilization": 0.5},
 "self_hosted": {"server_price": 8760},
 "cloud_options": [{"name": "od", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 2}]}
JSON
"$gpuplan" --db "$db" --quiet scenario save "$tmp/tie.json" >/dev/null
start 140 40
check "the tie plan opens" wait_for "cheapest:"
tie_line() { screen | grep -A1 '^cheapest: self-hosted' | grep -q '^a tie: od costs the same'; }
check "a tie is said under cheapest" tie_line
press 2
both_starred() { screen | grep -q '^\* self-hosted ' && screen | grep -q '^\* od '; }
check "Compare stars both sides of the tie" both_starred
press q
check "q quits" exited 0
echo "tui spot exit: $fails failed"
[ "$fails" = 0 ]

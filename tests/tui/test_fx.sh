#!/usr/bin/env bash
# The Plan screen of a scenario in CNY whose cloud option is a USD catalog entry (model 2.1):
# the totals in CNY, and beside the option the currency it is priced in and the rate and date
# that converted it (the bundled ECB rates: USD/CNY 8.147 / 1.1252 on 2025-05-09), flagged
# stale with its age. The real binary in tmux.
set -u
gpuplan=$1 root=$2
. "$root/tests/tui/lib.sh"
db=$tmp/fx.db
cat >"$tmp/fx.json" <<'JSON'
{"name": "yuan plan", "currency": "CNY", "horizon_months": 24,
 "demand": {"gpus": 16, "utilization": 0.5}, "self_hosted": {"server_price": 1500000},
 "cloud_options": [{"name": "p4d", "pricing": "on_demand", "catalog": "aws/p4d.24xlarge/us-east-1"}]}
JSON
"$gpuplan" --db "$db" --quiet scenario save "$tmp/fx.json" >/dev/null

shows() { screen | grep -q -- "$1"; }

start 140 40
check "the plan opens" wait_for "cheapest:"
check "totals in the scenario's currency" shows "^self-hosted  *[0-9,]* CNY"
check "the converted option names its rate and date" shows "^  USD at 7.24049 of 2025-05-09"
# The TUI prices as of today (local): the bundle's last rate is more than 30 days old by then, flagged
# with its age as the Markdown's sources word it.
age=$(/usr/bin/python3 -c 'import datetime; print((datetime.date.today() - datetime.date(2025, 5, 9)).days)')
check "a stale rate: its age under it (the narrow panel leaves today's date out)" shows "^  rate $age days old (over 30) "
press q
check "q quits" exited 0
# A long scenario name widens the panel (up to 2/5 of the screen): the date fits.
sed 's/"yuan plan"/"yuan plan, named at length to widen the panel"/' "$tmp/fx.json" >"$tmp/fx-long.json"
"$gpuplan" --db "$db" --quiet scenario save "$tmp/fx-long.json" >/dev/null
start 200 40
check "the wide plan opens" wait_for "cheapest:"
check "a stale rate: its age and today's date" shows "^  rate $age days old on $(date +%F) (over 30) "
press q
check "q quits" exited 0
echo "tui fx: $fails failed"
[ "$fails" = 0 ]

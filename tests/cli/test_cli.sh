#!/usr/bin/env bash
# The gpuplan command line as a user meets it: exit codes, one-line errors naming the file and
# JSON path, nothing on stdout on error, stored scenarios with versions, atomic -o, the
# database location and mode, sweep and sensitivity.
set -u
gpuplan=$1 fixtures=$2
. "$(dirname "$0")/lib.sh"
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg
unset GPUPLAN_DB
mkdir -p "$HOME"
seed=$fixtures/seed-dgx-a100.json
# expect STATUS STDERR-SUBSTRING -- command...: exit status, one stderr line, empty stdout
expect() {
    local want=$1 msg=$2; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
    [ "$got" = "$want" ] || { echo "  exit $got, wanted $want: $*"; return 1; }
    [ ! -s "$tmp/out" ] || { echo "  stdout not empty: $*"; return 1; }
    [ "$(wc -l <"$tmp/err")" = 1 ] || { echo "  stderr is not one line:"; cat "$tmp/err"; return 1; }
    grep -qF -- "$msg" "$tmp/err" || { echo "  stderr lacks '$msg':"; cat "$tmp/err"; return 1; }
}

check "--version" bash -c "'$gpuplan' --version | grep -q '^gpuplan 0'"
# A --match applies to a Prometheus source: without one it would be dropped.
check "node add --match without --prometheus" expect 2 'gpuplan: node add: --match needs --prometheus (see --help)' -- "$gpuplan" node add x --dcgm http://127.0.0.1:1/metrics --match '{a="b"}'
# The line is read whole before any option's callback runs: --scenario (which loads the
# scenario from the database) is not reached when --match lacks its --prometheus.
check "capacity --scenario --match without --prometheus: the needs line" expect 2 'gpuplan: capacity: --match needs --prometheus (see --help)' -- "$gpuplan" --db "$tmp/needs.db" capacity --scenario nosuch --match '{a="b"}'
check "capacity --scenario --match without --prometheus: no database opened" test ! -e "$tmp/needs.db"
check "node add --match with --prometheus: no line about it" bash -c "'$gpuplan' --db '$tmp/match.db' node add x --prometheus http://127.0.0.1:1 --match '{a=\"b\"}' | grep -q 'added node'"
for cmd in report scenario sweep sensitivity; do
    check "$cmd --help" bash -c "'$gpuplan' $cmd --help | grep -q usage"
done
check "no command without a terminal: the TUI says it needs one" expect 2 'needs a terminal' -- "$gpuplan"
check "unknown command exits 2" expect 2 'unknown command' -- "$gpuplan" frobnicate
# An empty --db (a variable left unset) is refused, before or after the command; it never opens
# the default database in $XDG_DATA_HOME.
check "--db= before the command exits 2" expect 2 '--db: the path is empty' -- "$gpuplan" --db= db stats
check "--db '' after the command exits 2" expect 2 '--db: the path is empty' -- "$gpuplan" db stats --db ''
check "an empty --db made no database" test ! -e "$XDG_DATA_HOME/gpuplan/gpuplan.db"
check "a flag given a value is named" expect 2 'fleet: --json takes no value (--json=1)' -- "$gpuplan" fleet --json=1
check "an unknown option names its command" expect 2 'capacity: unknown option or missing value: --bogus' -- "$gpuplan" capacity --bogus
check "a count out of range says the range and the value" expect 2 '--concurrency: "0" is not a count from 1 to 1000000' -- "$gpuplan" capacity --prometheus http://127.0.0.1:9 --concurrency 0
check "bad format exits 2" expect 2 'not md, csv, json or xlsx' -- "$gpuplan" report "$seed" --format pdf
check "missing file exits 2" expect 2 'nope.json: cannot open' -- "$gpuplan" report "$tmp/nope.json"
# Version 2: a bad key names its JSON path; a plan that needs a bridge it lacks, or a result
# that is not a finite number, is refused with the path it concerns; every format refuses it.
cat >"$tmp/v2bad.json" <<'JSON'
{"name": "x", "horizon_months": 12, "demand": {"gpus": 8, "utilization": 0.5, "steps": [{"month": 3}]},
 "self_hosted": {"server_price": 1000}}
JSON
check "v2: a step without a key exits 2 with its path" expect 2 'v2bad.json:$.demand.steps[0]: a step gives' -- "$gpuplan" report "$tmp/v2bad.json"
cat >"$tmp/v2lead.json" <<'JSON'
{"name": "x", "horizon_months": 12, "demand": {"gpus": 8, "utilization": 0.5},
 "self_hosted": {"server_price": 1000, "lead_time_months": 2}}
JSON
for fmt in json md csv; do
    check "v2: a lead time without a bridge exits 2 ($fmt)" expect 2 '$.self_hosted.bridge: month 1 needs' -- "$gpuplan" report "$tmp/v2lead.json" --format "$fmt"
done
cat >"$tmp/v2inf.json" <<'JSON'
{"name": "x", "horizon_months": 2, "demand": {"work_per_month": 1e308, "utilization": 0.5},
 "self_hosted": {"server_price": 1000, "work_per_gpu_hour": 1e306}}
JSON
check "v2: a result that is not finite exits 2 naming it" expect 2 'demand_work: scenario "x" gives a result that is not a finite number' -- "$gpuplan" report "$tmp/v2inf.json" --format json

printf '{"name": "x",\n "horizon_months": 12,\n "demand": {"gpus": 8 "utilization": 0.5}}\n' >"$tmp/bad.json"
check "malformed JSON names line and column" expect 2 "bad.json:3:" -- "$gpuplan" report "$tmp/bad.json"
sed 's/"pue": 1.0/"pue": 0.5/' "$seed" >"$tmp/pue.json"
check "out of range names the JSON path" expect 2 'pue.json:$.self_hosted.power.pue: must be in [1, 5]' -- "$gpuplan" report "$tmp/pue.json"
sed 's/"hourly": 9.835/"hourly": 9.835, "houlry": 1/' "$seed" >"$tmp/typo.json"
check "unknown key" expect 2 'typo.json:$.cloud_options[1].houlry: unknown key' -- "$gpuplan" report "$tmp/typo.json"
sed 's/"name": "p4d spot"/"name": "p4d on-demand"/' "$seed" >"$tmp/dup.json"
check "duplicate option names" expect 2 '$.cloud_options[1].name: repeats' -- "$gpuplan" report "$tmp/dup.json"
sed 's/"hours_per_day": 24/"hours_per_day": 23/' "$seed" >"$tmp/hours.json"
check "periods not summing to 24" expect 2 'must sum to 24' -- "$gpuplan" report "$tmp/hours.json"
cat >"$tmp/cat.json" <<'JSON'
{"name": "catalog", "horizon_months": 12, "demand": {"gpus": 8, "utilization": 0.5},
 "self_hosted": {"server_price": 100000},
 "cloud_options": [{"name": "p4d", "pricing": "on_demand", "catalog": "aws/p4d.24xlarge/us-east-1"}]}
JSON
check "a catalog reference before the entry's date" expect 2 'cat.json:$.cloud_options[0].catalog: no on_demand price for aws/p4d.24xlarge/us-east-1 in force on 2024-01-15' -- "$gpuplan" report "$tmp/cat.json" --as-of 2024-01-15
head -c 5000000 /dev/zero | tr '\0' '[' >"$tmp/huge.json"
check "huge input is refused" expect 2 'larger than' -- "$gpuplan" report "$tmp/huge.json"
head -c 100000 /dev/zero | tr '\0' '[' >"$tmp/deep.json"
check "deep nesting is refused" expect 2 'malformed JSON' -- "$gpuplan" report "$tmp/deep.json"
check "bad input leaves no -o file" bash -c "! '$gpuplan' report '$tmp/pue.json' -o '$tmp/r.md' 2>/dev/null && [ ! -e '$tmp/r.md' ]"

# The default database: $XDG_DATA_HOME/gpuplan/gpuplan.db, mode 0600.
check "scenario save" bash -c "'$gpuplan' scenario save '$seed' | grep -q 'version 1'"
check "default db path and mode" bash -c "[ \"\$(stat -c %a '$XDG_DATA_HOME/gpuplan/gpuplan.db')\" = 600 ]"
sed 's/"utilization": 0.6/"utilization": 0.7/' "$seed" >"$tmp/seed2.json"
check "save a second version" bash -c "'$gpuplan' scenario save '$tmp/seed2.json' | grep -q 'version 2'"
name='Ten DGX A100 against AWS p4d (seed figures)'
check "scenario list" bash -c "'$gpuplan' scenario list | grep -qF '$name'"
check "scenario show lists versions" bash -c "'$gpuplan' scenario show '$name' | grep -c '  version' | grep -qx 2"
check "export version 1" bash -c "'$gpuplan' scenario export '$name' --version 1 | cmp -s - '$seed'"
check "export the latest" bash -c "'$gpuplan' scenario export '$name' | grep -q '\"utilization\": 0.7'"
check "report a stored scenario by name" bash -c "'$gpuplan' report '$name' --format json | grep -q '\"scenario\":[[:space:]]*\"$name\"'"
check "report --version 1 differs" bash -c "[ \"\$('$gpuplan' report '$name' --version 1 --format csv)\" != \"\$('$gpuplan' report '$name' --format csv)\" ]"
check "unknown scenario exits 2" bash -c "'$gpuplan' report nosuch >/dev/null 2>&1; [ \$? = 2 ]"
check "a mistyped name suggests the nearest" bash -c "'$gpuplan' report 'Ten DGX A100 against AWS p4d (seed figure)' 2>&1 >/dev/null | grep -qF 'did you mean \"$name\"'"
sed "s|\"name\": \"$name\"|\"name\": \"A100/H100 mix.json\"|" "$seed" >"$tmp/slash.json"
check "a stored name with a '/' and .json is a name, not a path" bash -c "'$gpuplan' scenario save '$tmp/slash.json' >/dev/null && '$gpuplan' report 'A100/H100 mix.json' --format json | grep -q '\"scenario\":[[:space:]]*\"A100/H100 mix.json\"'"
check "a path that names no file and no scenario is a missing file" expect 2 'A100/H100.json: cannot open' -- "$gpuplan" report "A100/H100.json"
check "scenario rm of an unknown name exits 2" bash -c "'$gpuplan' scenario rm nosuch 2>/dev/null; [ \$? = 2 ]"
check "bad scenario is not stored" expect 2 'pue.json:$.self_hosted.power.pue' -- "$gpuplan" scenario save "$tmp/pue.json"
check "--db chooses the database" bash -c "'$gpuplan' --db '$tmp/other.db' scenario save '$seed' >/dev/null && [ -f '$tmp/other.db' ]"
check "GPUPLAN_DB chooses the database" bash -c "GPUPLAN_DB='$tmp/env.db' '$gpuplan' scenario list >/dev/null && [ -f '$tmp/env.db' ]"
check "scenario rm" bash -c "'$gpuplan' scenario rm '$name' >/dev/null && ! '$gpuplan' scenario show '$name' 2>/dev/null"
# A database from a newer gpuplan is refused, byte for byte untouched.
/usr/bin/python3 - "$tmp/newer.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute('PRAGMA application_id = 1735421038')
db.execute('PRAGMA user_version = 999')
db.commit(); db.close()
PY
sum_before=$(md5sum <"$tmp/newer.db")
check "newer database refused" expect 2 'newer gpuplan' -- "$gpuplan" --db "$tmp/newer.db" scenario list
check "newer database untouched" bash -c "[ \"\$(md5sum <'$tmp/newer.db')\" = '$sum_before' ]"

# -o writes whole files.
check "report -o" bash -c "'$gpuplan' report '$seed' --format json -o '$tmp/r.json' && /usr/bin/python3 -m json.tool '$tmp/r.json' >/dev/null"
check "no temporary left" bash -c "! ls '$tmp' | grep -q '\\.tmp\\.'"

# Sweep: the 1-D utilization answer flips where break_even_utilization says.
check "sweep --summary finds the flip" bash -c "'$gpuplan' sweep '$seed' --vary utilization=0:1:101 --summary | grep -q 'p4d spot -> self_hosted between utilization 0.6 and 0.61'"
check "sweep CSV rows" bash -c "[ \$('$gpuplan' sweep '$seed' --vary pue=1:2:5 --vary gpus=8:80:10 | wc -l) = 51 ]"
# A catalog offer's name runs past 40 characters: the shares stay in one column, and one
# point is "1 point".
/usr/bin/python3 - "$seed" "$tmp/longname.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s['cloud_options'][0]['name'] = 'lambda gpu_8x_h100_sxm5 us-east-1 on-demand, reserved'
json.dump(s, open(sys.argv[2], 'w'))
PY
"$gpuplan" sweep "$tmp/longname.json" --vary utilization=0.5:0.5:1 --summary >"$tmp/long.txt"
check "sweep --summary: the shares in one column however long the names" bash -c "[ \$(grep -E '^  .* +[0-9.]+%  \\([0-9]+ points?\\)\$' '$tmp/long.txt' | awk '{ print index(\$0, \"%  (\") }' | sort -u | wc -l) = 1 ] && [ \$(grep -c '%  (' '$tmp/long.txt') -ge 3 ]"
check "sweep --summary: one point is a point" bash -c "grep -q '^1 grid point\$' '$tmp/long.txt' && grep -q '%  (1 point)\$' '$tmp/long.txt'"
check "sweep hourly:OPTION" bash -c "'$gpuplan' sweep '$seed' --vary 'hourly:p4d spot=5:15:3' | head -1 | grep -q '^hourly:p4d spot,self_hosted'"
check "sweep bad range" expect 2 'utilization: must stay in [0, 1]' -- "$gpuplan" sweep "$seed" --vary utilization=0:2:3
check "sweep unknown option" expect 2 'no option "nope"' -- "$gpuplan" sweep "$seed" --vary hourly:nope=1:2:3
check "sweep -o" bash -c "'$gpuplan' sweep '$seed' --vary utilization=0:1:3 -o '$tmp/sweep.csv' && [ \$(wc -l <'$tmp/sweep.csv') = 4 ]"
# Version 2 parameters: swept over plans over time, an unknown name answered with the valid
# ones, a point the engine refuses named with its path and its values.
v2grow=$fixtures/v2-growth-as-needed-lead-bridge.json
check "sweep a v2 parameter" bash -c "'$gpuplan' sweep '$v2grow' --vary lead_time_months=0:4:5 --vary utilization=0:1:11 --summary | grep -q '^55 grid points'"
check "sweep a v2 per-option parameter (CSV)" bash -c "'$gpuplan' sweep '$v2grow' --vary 'price_trend_per_year:H100 on-demand=-0.3:0:4' | head -1 | grep -q '^price_trend_per_year:H100 on-demand,self_hosted'"
check "sweep unknown parameter lists the valid ones" expect 2 'unknown parameter "grow"; one of utilization, gpus,' -- "$gpuplan" sweep "$seed" --vary grow=0:1:3
check "sweep v2 range names the axis" expect 2 'lead_time_months: must stay in [0, 24]' -- "$gpuplan" sweep "$v2grow" --vary lead_time_months=0:30:3
check "sweep a refused point exits 2, naming the file" expect 2 'v2lead.json:$.self_hosted.bridge: at lead_time_months=1: month 1 needs' -- "$gpuplan" sweep "$tmp/v2lead.json" --vary lead_time_months=0:2:3 --summary
check "sweep -o: a refused point names the file, no CSV left" bash -c "'$gpuplan' sweep '$tmp/v2lead.json' --vary lead_time_months=0:2:3 -o '$tmp/refused.csv' 2>'$tmp/refused.err'; [ \$? = 2 ] && grep -qF 'v2lead.json:\$.self_hosted.bridge: at lead_time_months=1' '$tmp/refused.err' && [ ! -e '$tmp/refused.csv' ]"
# Revision 2.1: an API priced per unit of work, through every command that names a pricing kind.
api=$fixtures/v2-api-bridge-level-months.json
sed 's/"work_per_month": 40000, "work_unit": "M tokens"/"gpus": 16/; s/"work_per_gpu_hour": [0-9]*, //g; s/, *"work_per_gpu_hour": [0-9]*//g' "$api" >"$tmp/api-gpu.json"
check "per_unit in GPU mode: one line at its pricing, exit 2, nothing written" bash -c "'$gpuplan' report '$tmp/api-gpu.json' -o '$tmp/api-gpu.md' 2>'$tmp/api-gpu.err'; [ \$? = 2 ] && [ \$(wc -l <'$tmp/api-gpu.err') = 1 ] && grep -qF 'api-gpu.json:\$.cloud_options[0].pricing: per_unit needs demand in work' '$tmp/api-gpu.err' && [ ! -e '$tmp/api-gpu.md' ]"
sed 's/"input_units_per_unit": 2/"input_units_per_unit": 2, "hourly": 1/' "$api" >"$tmp/api-hourly.json"
check "per_unit with an hourly price is refused at its path" expect 2 'api-hourly.json:$.cloud_options[0].hourly: applies to on_demand, spot and committed options only' -- "$gpuplan" report "$tmp/api-hourly.json"
check "report md: an API bridge's column counts its unit, not GPU-hours" bash -c "'$gpuplan' report '$api' | grep -qF '| bought | sold | bridge M tokens | self-hosted |'"
check "report md: a burst into an API counts its unit" bash -c "'$gpuplan' report '$fixtures/../scenarios/v2-api-burst-break-even.json' | grep -qF '| bridge GPU-h |' && '$gpuplan' report '$fixtures/../scenarios/v2-api-burst-break-even.json' | grep -qF '| burst M tokens |'"
check "report md names the API's prices" bash -c "'$gpuplan' report '$api' | grep -qF '| API | per_unit, 0.6 a M tokens plus 2 input units at 0.2 (1 in all), price -30% a year |'"
check "sweep price_per_unit:API at the scenario's price gives the report's totals" bash -c "'$gpuplan' sweep '$api' --vary 'price_per_unit:API=0.6:0.6:1' | tail -1 | grep -qx '0.6,424747.43,1435872.45,690283.03,self_hosted'"
sed 's/"price_per_input_unit": 0.2/"price_per_input_unit": 0/' "$api" >"$tmp/api-out.json"
check "sweep price_per_unit:API --summary: the API wins when cheap (no input part)" bash -c "'$gpuplan' sweep '$tmp/api-out.json' --vary 'price_per_unit:API=0:0.6:61' --summary | grep -q 'API -> self_hosted between price_per_unit:API'"
check "sweep hourly of an API names the way" expect 2 'option "API" is per_unit: vary price_per_unit:API instead' -- "$gpuplan" sweep "$api" --vary 'hourly:API=0:1:3'
check "sweep price_per_unit of an on-demand option is refused" expect 2 'option "H100 on-demand" is on_demand: vary hourly:H100 on-demand instead' -- "$gpuplan" sweep "$api" --vary 'price_per_unit:H100 on-demand=0:1:3'
check "sensitivity moves an API's prices, not an hourly" bash -c "'$gpuplan' sensitivity '$api' --delta 10% --all >'$tmp/api-sens.txt' && grep -qF 'cloud_options[0].price_per_unit' '$tmp/api-sens.txt' && grep -qF 'cloud_options[0].price_per_input_unit' '$tmp/api-sens.txt' && ! grep -qF 'cloud_options[0].hourly' '$tmp/api-sens.txt' && ! grep -qF 'cloud_options[0].work_per_gpu_hour' '$tmp/api-sens.txt'"
check "sensitivity of a refused plan names the file" expect 2 'v2lead.json:$.self_hosted.bridge: month 1 needs' -- "$gpuplan" sensitivity "$tmp/v2lead.json"

# Sensitivity: moving the on-demand price by 10% moves its total by 10% of 5,169,381.12.
check "sensitivity --all: the full table" bash -c "'$gpuplan' sensitivity '$seed' --delta 10% --all | sed -n '/^p4d on-demand/,/^\$/p' | grep -F 'cloud_options[0].hourly' | grep -F -- '-516,938.11' | grep -qF ' 516,938.11'"
cat >"$tmp/v2cap.json" <<'JSON'
{"name": "x", "horizon_months": 12, "demand": {"gpus": 80, "utilization": 0.5},
 "self_hosted": {"server_price": 1000, "buy": "as_needed", "max_servers": 10},
 "cloud_options": [{"name": "od", "gpus_per_instance": 8, "pricing": "on_demand", "hourly": 20}]}
JSON
check "sensitivity names the move whose plan is refused" bash -c "'$gpuplan' sensitivity '$tmp/v2cap.json' | grep -q '^1 move left out: the plan it makes is refused (the first, demand.gpus: month 1 needs'"
check "sensitivity --param: the cap, the plan's shape, only when asked" bash -c "'$gpuplan' sensitivity '$tmp/v2cap.json' --param max_servers --param demand.gpus | grep -q '^2 moves left out: the plan they make is refused (the first, demand.gpus: month 1 needs'"
check "sensitivity --param: a name that is no input" expect 2 '"gpus_per_sever" is no input sensitivity moves' -- "$gpuplan" sensitivity "$seed" --param gpus_per_sever
check "sensitivity leaves gpus_per_server out and moves the exit value's inputs" bash -c "'$gpuplan' sensitivity '$fixtures/v2-refresh-resale-loan.json' --format csv >'$tmp/sens-exit.csv' && ! grep -q gpus_per_server '$tmp/sens-exit.csv' && grep -q '^self-hosted,resale,self_hosted.resale,' '$tmp/sens-exit.csv' && grep -q '^self-hosted,refresh_months,' '$tmp/sens-exit.csv'"
check "sensitivity moves a version 2 key" bash -c "'$gpuplan' sensitivity '$v2grow' --all | grep -q '^  self_hosted.lead_time_months  *2  *4 '"
check "sensitivity bad delta" expect 2 'not a percentage' -- "$gpuplan" sensitivity "$seed" --delta lots
# The default is one screen: the cheapest (p4d spot leads self-hosted by 11,505.20 in the seed),
# then the top drivers as a tornado; a 20 % higher spot price hands it to self-hosted.
"$gpuplan" sensitivity "$seed" >"$tmp/sens.txt"
check "sensitivity: one screen" bash -c "[ \$(wc -l <'$tmp/sens.txt') -le 24 ] && grep -q '^Cheapest at the base point: p4d spot, 1,550,782.80; its lead over the next best: 11,505.20.' '$tmp/sens.txt'"
check "sensitivity: the spot price row, with its bar and its flip" bash -c "grep -E '^  p4d spot: hourly .*#+\|#+ .*! high: self-hosted\$' '$tmp/sens.txt' >/dev/null"
check "sensitivity: inputs of four digits or more read with thousands separators" bash -c "grep -qE '^  self-hosted: server_price +100,000 +150,000 ' '$tmp/sens.txt'"
check "report: hours a year per GPU with thousands separators" bash -c "'$gpuplan' report '$seed' > '$tmp/seed.md' && grep -qF '60% busy (5,256 h a year per GPU)' '$tmp/seed.md' && grep -qF '18.13% (1,588 h/yr)' '$tmp/seed.md'"
check "sensitivity --top 3" bash -c "[ \$('$gpuplan' sensitivity '$seed' --top 3 | grep -c '^  [a-z].*|') = 4 ]"
# --format json and csv: every row named by option and parameter, the path beside them, each
# side's total and the cheapest at both ends; the two agree with each other and with --all.
"$gpuplan" sensitivity "$seed" --format json >"$tmp/sens.json"
"$gpuplan" sensitivity "$seed" --format csv >"$tmp/sens.csv"
check "sensitivity json and csv" /usr/bin/python3 - "$tmp/sens.json" "$tmp/sens.csv" <<'PY'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert doc['base']['cheapest'] == 'p4d spot', doc['base']
assert len(rows) == len(doc['rows']) > 0
for j, c in zip(doc['rows'], rows):
    assert (c['option'], c['parameter'], c['path']) == (j['option'], j['parameter'], j['path'])
    assert '[' not in j['option'] + j['parameter']
    assert c['cheapest_at_low'] == j['at_low']['cheapest'] and c['cheapest_at_high'] == j['at_high']['cheapest']
    # The CSV prints totals to the cent: equal to the JSON's rounded so.
    assert c['self_hosted_at_low'] == '%.2f' % j['at_low']['self_hosted'], (c, j)
    for o in j['at_high']['options']:
        assert c[o['name'] + ' at high'] == '%.2f' % o['total'], (o, c)
spot = next(j for j in doc['rows'] if j['path'] == 'cloud_options[1].hourly')
assert (spot['option'], spot['parameter']) == ('p4d spot', 'hourly')
assert spot['at_high']['cheapest'] == 'self-hosted' and spot['at_low']['cheapest'] == 'p4d spot'
# 9.835 an hour, 20 % up: the spot total moves by 20 % of 1,550,782.80.
tot = {o['name']: o['total'] for o in spot['at_high']['options']}
assert abs(tot['p4d spot'] - 1.2 * 1550782.80) < 0.01, tot
PY
check "sensitivity --all is for md" expect 2 '--all applies to --format md' -- "$gpuplan" sensitivity "$seed" --all --format json
check "sensitivity bad format" expect 2 'not md, json or csv' -- "$gpuplan" sensitivity "$seed" --format pdf
check "sensitivity bad --top" expect 2 'not a count' -- "$gpuplan" sensitivity "$seed" --top 0

# Revision 2.1: level months are no break-even. 32 GPUs on order for 3 months, the bridge being
# the very option compared: both sides pay 200,966.08 in months 1 and 2, the servers at 3;
# owning is ahead from month 9. Every output says 9 (2.0 said 1), the sensitivity's base too.
level=$fixtures/../scenarios/level-months-bridge.json
"$gpuplan" report "$level" --format json >"$tmp/level.json"
"$gpuplan" report "$level" --format csv >"$tmp/level.csv"
"$gpuplan" report "$level" >"$tmp/level.md"
"$gpuplan" sensitivity "$level" --format json >"$tmp/level-sens.json"
check "level months: break-even and payback at 9 in json, csv, md and sensitivity" /usr/bin/python3 - "$tmp" <<'PY'
import csv, json, os, sys
t = sys.argv[1]
o = json.load(open(os.path.join(t, 'level.json')))['options'][0]
months = [o[k] for k in ('break_even_month', 'payback_month', 'break_even_month_without_exit',
                         'payback_month_without_exit')]
assert months == [9, 9, 9, 9], months
rows = list(csv.DictReader(open(os.path.join(t, 'level.csv'))))
assert rows[1]['self_hosted_cumulative'] == rows[1]['on-demand cumulative'] == '200966.08', rows[1]
assert [int(r['index']) for r in rows if r['break_even']] == [9], [r['break_even'] for r in rows]
md = open(os.path.join(t, 'level.md')).read()
assert '| on-demand | on_demand | 7,234,778.88 | 7,234,778.88 | 12.2900 | 9 | 9 | 9 / 9 |' in md
sens = json.load(open(os.path.join(t, 'level-sens.json')))
assert sens['base']['options'][0]['break_even_month'] == 9, sens['base']
PY
# Bought as needed with residual_pct not given, the straight line still credits value: the
# Assumptions say so (never "resale value 0") and the exit value stands beside the total.
/usr/bin/python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
s['self_hosted']['buy'] = 'as_needed'
del s['self_hosted']['residual_pct']
json.dump(s, open(sys.argv[2], 'w'))" "$level" "$tmp/level-an.json"
"$gpuplan" report "$tmp/level-an.json" >"$tmp/level-an.md"
check "an unset residual_pct under the straight line is stated, with the exit value" bash -c "
    ! grep -q 'resale value | 0' '$tmp/level-an.md' &&
    grep -qF '| residual value | 0 % at 60 months, the straight line'\''s end — not given (residual_pct) |' '$tmp/level-an.md' &&
    grep -qF 'includes an exit value of 531,000.00 USD credited at month 36 (book value of hardware still held, not cash): straight line from 100 % new to 0 % at 60 months' '$tmp/level-an.md'"
check "diff names the exit value that moved owning's total" bash -c "
    '$gpuplan' diff '$level' '$tmp/level-an.json' >'$tmp/level-diff.txt' &&
    grep -qF ': 236,000.00 -> 531,000.00 (residual_pct -> straight_line)' '$tmp/level-diff.txt' &&
    '$gpuplan' diff '$level' '$tmp/level-an.json' --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
t = [c for c in d[\"changes\"] if c[\"kind\"] == \"total\"][0]
assert \"exit value 236000 -> 531000 (residual_pct -> straight_line)\" in t[\"because\"], t'"

finish "cli"

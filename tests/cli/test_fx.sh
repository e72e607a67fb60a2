#!/usr/bin/env bash
# Exchange rates through the real binary (docs/catalog.md "Exchange rates", model 2.1): the
# bundled ECB rates, `pricing fx list|import`, and a catalog entry priced in CNY in a USD
# scenario (converted at the rate in force on --as-of, named in sources) and in a CNY one (as
# listed); a rate that changes between two dates; a pair with no rate in force refused; a
# tariff preset in a CNY draft; the seed clouds' shapes; the rate in a batch summary.
set -u
gpuplan=$1
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
export GPUPLAN_DB=$tmp/db HOME=$tmp

# The bundled ECB rates: EUR/CNY on 2025-05-09 is 8.147 in eurofxref-hist.csv.
check "bundled ECB rates in force" bash -c "'$gpuplan' pricing fx list --as-of 2025-06-01 --currency CNY | grep -q '^EUR/CNY *8.147 *from 2025-05-09'"
check "no rate in force before the bundle says so" bash -c "'$gpuplan' pricing fx list --as-of 2020-01-01 | grep -q 'no exchange rate in force on 2020-01-01'"

# Two dated rows before the bundle's first date, in the ECB's daily layout for the second.
printf 'Date,USD,CNY,\n2022-06-01,1.10,7.80,\n2022-05-02,1.05,N/A,\n' >"$tmp/fx1.csv"
printf 'Date, USD, CNY\n1 Jul 2022, 1.00, 7.00\n' >"$tmp/fx2.csv"
check "fx import (hist layout)" bash -c "'$gpuplan' pricing fx import '$tmp/fx1.csv' --source 'test rates' | grep -q '2 dated rows, 3 rates added'"
check "fx import (daily layout)" bash -c "'$gpuplan' pricing fx import '$tmp/fx2.csv' --source 'test rates' | grep -q '1 dated rows, 2 rates added'"
check "fx import again keeps what it has" bash -c "'$gpuplan' pricing fx import '$tmp/fx2.csv' | grep -q '0 rates added, 2 already held'"
printf 'Date,USD,EUR\n2022-08-01,1.1,1\n' >"$tmp/eur.csv"
check "a EUR column is refused as input naming file and line, exit 2, nothing written" bash -c "'$gpuplan' pricing fx import '$tmp/eur.csv' 2>'$tmp/err'; [ \$? = 2 ] && grep -q 'eur.csv:1: .*EUR is the base' '$tmp/err' && [ \$(wc -l <'$tmp/err') = 1 ] && ! '$gpuplan' pricing fx list --as-of 2022-08-15 | grep -q 2022-08-01"
printf 'Date,USD\n2022-08-01,-1\n' >"$tmp/bad.csv"
check "a bad rate names file and line, exit 2, nothing written" bash -c "'$gpuplan' pricing fx import '$tmp/bad.csv' 2>'$tmp/err'; [ \$? = 2 ] && grep -q 'bad.csv:2' '$tmp/err' && ! '$gpuplan' pricing fx list --as-of 2022-08-15 | grep -q 2022-08-01"

cat >"$tmp/cny.json" <<'JSON'
{"format": "gpuplan-catalog", "effective_from": "2022-01-01",
 "offers": [{"provider": "fxtest", "instance": "gn-a100x4", "region": "cn-hangzhou", "gpu": "A100",
   "gpu_count": 4, "currency": "CNY", "prices": [{"pricing": "on_demand", "hourly": 140.0}]}]}
JSON
check "import a CNY entry" bash -c "'$gpuplan' pricing import '$tmp/cny.json' | grep -q '1 added'"
plan() { # plan CURRENCY
    cat <<JSON
{"name": "fx $1", "currency": "$1", "horizon_months": 12, "demand": {"gpus": 8, "utilization": 0.5},
 "self_hosted": {"server_price": 100000},
 "cloud_options": [{"name": "gn", "pricing": "on_demand", "catalog": "fxtest/gn-a100x4/cn-hangzhou"}]}
JSON
}
plan USD >"$tmp/usd.json"
plan CNY >"$tmp/cnyplan.json"
# 2022-06-15: 1 CNY = 1.10 / 7.80 USD; 2022-07-15: 1.00 / 7.00 USD.
check "a CNY entry in a USD scenario: converted, named in sources" bash -c "'$gpuplan' report '$tmp/usd.json' --format json --as-of 2022-06-15 | $py -c '
import json, sys
r = json.load(sys.stdin)
s = r[\"sources\"][0]
rate = 1.10 / 7.80
assert abs(s[\"fx_rate\"] - rate) < 1e-12, s
assert abs(s[\"hourly\"] - 140.0 * rate) < 1e-9 and s[\"listed_hourly\"] == 140.0, s
assert s[\"currency\"] == \"CNY\" and s[\"fx_date\"] == \"2022-06-01\" and \"test rates\" in s[\"fx_source\"] and \"EUR\" in s[\"fx_source\"], s
assert abs(r[\"scenario_json\"][\"cloud_options\"][0][\"hourly\"] - 140.0 * rate) < 1e-9
'"
check "the rate changes between two dates" bash -c "'$gpuplan' report '$tmp/usd.json' --format json --as-of 2022-07-15 | $py -c '
import json, sys
s = json.load(sys.stdin)[\"sources\"][0]
assert abs(s[\"fx_rate\"] - 1.0 / 7.0) < 1e-12 and s[\"fx_date\"] == \"2022-07-01\", s
assert abs(s[\"hourly\"] - 20.0) < 1e-9, s
'"
check "the text report shows the rate and its date" bash -c "'$gpuplan' report '$tmp/usd.json' --as-of 2022-07-15 | grep -q 'listed 140 CNY/h, converted at 0.142857 USD per CNY of 2022-07-01'"
# A rate more than 30 days older than as_of is flagged with its age (md, JSON, the workbook);
# 14 days old is not.
check "a fresh rate: its age, not flagged" bash -c "'$gpuplan' report '$tmp/usd.json' --format json --as-of 2022-06-15 | $py -c '
import json, sys
s = json.load(sys.stdin)[\"sources\"][0]
assert s[\"fx_age_days\"] == 14 and s[\"fx_stale\"] is False, s
' && ! '$gpuplan' report '$tmp/usd.json' --as-of 2022-06-15 | grep -q 'days old'"
check "a stale rate: flagged with its age in md and JSON" bash -c "'$gpuplan' report '$tmp/usd.json' --as-of 2022-09-15 | grep -qF 'of 2022-07-01 (test rates' && '$gpuplan' report '$tmp/usd.json' --as-of 2022-09-15 | grep -qF '; **rate 76 days old on 2022-09-15** (over 30) |' && '$gpuplan' report '$tmp/usd.json' --format json --as-of 2022-09-15 | $py -c '
import json, sys
s = json.load(sys.stdin)[\"sources\"][0]
assert s[\"fx_date\"] == \"2022-07-01\" and s[\"fx_age_days\"] == 76 and s[\"fx_stale\"] is True, s
'"
"$gpuplan" report "$tmp/usd.json" --format xlsx --as-of 2022-09-15 -o "$tmp/stale.xlsx"
"$gpuplan" report "$tmp/usd.json" --format xlsx --as-of 2022-07-15 -o "$tmp/fresh.xlsx"
check "a stale rate: flagged on the workbook's Sources and Assumptions" $py - "$tmp/stale.xlsx" "$tmp/fresh.xlsx" <<'PY'
import sys, openpyxl
for path, age, flag, unit in [(sys.argv[1], 76, 'stale: over 30 days old', 'USD per CNY (of 2022-07-01, stale; see Sources)'),
                              (sys.argv[2], 14, None, 'USD per CNY (of 2022-07-01; see Sources)')]:
    wb = openpyxl.load_workbook(path)
    rows = list(wb['Sources'].iter_rows(values_only=True))
    head = next(r for r in rows if r[0] == 'option')
    assert head[11:13] == ('rate age on prices as of (days)', 'rate stale'), head
    gn = next(r for r in rows if r[0] == 'gn')
    assert gn[11:13] == (age, flag), gn
    a = [r for r in wb['Assumptions'].iter_rows(values_only=True) if r[0] == 'gn: exchange rate']
    assert len(a) == 1 and a[0][2] == unit, a
PY
check "a CNY entry in a CNY scenario: as listed, no rate" bash -c "'$gpuplan' report '$tmp/cnyplan.json' --format json --as-of 2022-06-15 | $py -c '
import json, sys
s = json.load(sys.stdin)[\"sources\"][0]
assert s[\"hourly\"] == 140.0 and \"fx_rate\" not in s and \"currency\" not in s, s
'"
check "no rate in force: refused naming the pair" bash -c "'$gpuplan' report '$tmp/usd.json' --as-of 2022-03-01 2>'$tmp/err' >/dev/null; [ \$? = 2 ] && grep -q 'usd.json:\$.cloud_options\[0\].catalog' '$tmp/err' && grep -q 'no exchange rate CNY/USD in force on 2022-03-01' '$tmp/err'"
plan GBP >"$tmp/gbp.json"
check "a pair with no rate at all refused" bash -c "'$gpuplan' report '$tmp/gbp.json' --as-of 2022-06-15 2>'$tmp/err' >/dev/null; [ \$? = 2 ] && grep -q 'no exchange rate CNY/GBP' '$tmp/err'"

# A draft in CNY: the catalog's USD purchase price and EIA electricity price converted at the
# bundled USD/CNY cross of 2025-05-09 (8.147 / 1.1252), stated in the notes.
check "scenario draft --currency CNY converts the catalog's USD inputs" bash -c "'$gpuplan' scenario draft --gpus 16 --gpu H100 --state California --as-of 2026-11-22 -o '$tmp/du.json' && '$gpuplan' scenario draft --gpus 16 --gpu H100 --state California --as-of 2026-11-22 --currency CNY -o '$tmp/dc.json' && $py -c '
import json, sys
u, c = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rate = 8.147 / 1.1252
assert c[\"currency\"] == \"CNY\" and \"currency\" not in u
assert abs(c[\"self_hosted\"][\"server_price\"] - u[\"self_hosted\"][\"server_price\"] * rate) < 0.01
pu = u[\"self_hosted\"][\"tariff\"][\"periods\"][0][\"price_per_kwh\"]
pc = c[\"self_hosted\"][\"tariff\"][\"periods\"][0][\"price_per_kwh\"]
assert abs(pc - pu * rate) < 1e-9
assert \"converted at 7.24049 CNY per USD, the rate of 2025-05-09\" in c[\"notes\"]
' '$tmp/du.json' '$tmp/dc.json'"
check "the CNY draft reports with its cloud offers converted" bash -c "'$gpuplan' report '$tmp/dc.json' --format json --as-of 2026-11-22 | $py -c '
import json, sys
r = json.load(sys.stdin)
assert r[\"currency\"] == \"CNY\" and r[\"sources\"]
for s in r[\"sources\"]:
    assert s[\"currency\"] == \"USD\" and abs(s[\"fx_rate\"] - 8.147 / 1.1252) < 1e-12 and s[\"fx_date\"] == \"2025-05-09\", s
    assert abs(s[\"hourly\"] - s[\"listed_hourly\"] * s[\"fx_rate\"]) < 1e-9, s
'"
check "a draft in a currency with no rate is refused" bash -c "'$gpuplan' scenario draft --gpus 16 --gpu H100 --as-of 2026-11-22 --currency CHF -o '$tmp/x.json' 2>'$tmp/err'; [ \$? = 2 ] && grep -q 'no exchange rate USD/CHF' '$tmp/err' && [ ! -e '$tmp/x.json' ]"

# A tariff preset in a CNY draft: every period's price and the demand charge at the same rate.
check "scenario draft --tariff preset --currency CNY converts every tariff figure" bash -c "'$gpuplan' scenario draft --gpus 16 --gpu H100 --tariff sce-tou-8-d --as-of 2026-11-22 -o '$tmp/tu.json' && '$gpuplan' scenario draft --gpus 16 --gpu H100 --tariff sce-tou-8-d --as-of 2026-11-22 --currency CNY -o '$tmp/tc.json' && $py -c '
import json, sys
u, c = (json.load(open(a))[\"self_hosted\"][\"tariff\"] for a in sys.argv[1:3])
rate = 8.147 / 1.1252
assert len(u[\"periods\"]) == len(c[\"periods\"]) == 6
for pu, pc in zip(u[\"periods\"], c[\"periods\"]):
    assert abs(pc[\"price_per_kwh\"] - pu[\"price_per_kwh\"] * rate) < 1e-9, (pu, pc)
    assert pc[\"hours_per_day\"] == pu[\"hours_per_day\"]
assert abs(c[\"demand_charge_per_kw_month\"] - u[\"demand_charge_per_kw_month\"] * rate) < 1e-9
' '$tmp/tu.json' '$tmp/tc.json'"

# The seed's clouds: their instance shapes are bundled without prices (no dated public price
# source, docs/catalog.md); `pricing list --provider` shows them as shapes, never as free.
check "pricing list --provider alibaba shows the gn7e, gn7i and gn7 shapes" bash -c "'$gpuplan' pricing list --provider alibaba >'$tmp/ali' && grep -q '^alibaba  ecs.gn7e-c16g1.32xlarge .* A100-80GB  *8  no price (shape) .* 8xA100-80GB 128 vCPU 1000 GiB' '$tmp/ali' && grep -q 'ecs.gn7i-c8g1.2xlarge .* A10 ' '$tmp/ali' && grep -q '^0 prices, 13 instance shapes without a price' '$tmp/ali'"
check "pricing list --provider tencent --json: GN10Xp in its eight regions, hourly null" bash -c "'$gpuplan' pricing list --provider tencent --gpu V100 --json | $py -c '
import json, sys
rows = json.load(sys.stdin)
big = [r for r in rows if r[\"instance\"] == \"GN10Xp.20XLARGE320\"]
assert sorted(r[\"region\"] for r in big) == sorted([\"ap-guangzhou\", \"ap-shanghai\", \"ap-nanjing\", \"ap-beijing\", \"ap-chengdu\", \"ap-chongqing\", \"ap-hongkong\", \"eu-frankfurt\"]), big
for r in rows:
    assert r[\"hourly\"] is None and r[\"pricing\"] is None and r[\"gpu\"] == \"V100-32GB\", r
assert big[0][\"gpu_count\"] == 8 and big[0][\"vcpus\"] == 80 and big[0][\"memory_gib\"] == 320
'"
check "pricing show of a shape says it has no price yet, exit 2" bash -c "'$gpuplan' pricing show tencent/GN10Xp.20XLARGE320/ap-guangzhou 2>'$tmp/err'; [ \$? = 2 ] && grep -q 'tencent/GN10Xp.20XLARGE320/ap-guangzhou is an instance shape with no price yet' '$tmp/err'"
check "a priced-only filter leaves shapes out" bash -c "'$gpuplan' pricing list --provider tencent --pricing on_demand | grep -q '^no offers match'"
cat >"$tmp/gn7e.json" <<'JSON'
{"format": "gpuplan-catalog", "effective_from": "2022-01-01",
 "offers": [{"provider": "alibaba", "instance": "ecs.gn7e-c16g1.4xlarge", "region": "all",
   "gpu": "A100-80GB", "gpu_count": 1, "currency": "CNY", "prices": [{"pricing": "on_demand", "hourly": 35.0}]}]}
JSON
check "a price imported for a shape makes it priced, in CNY" bash -c "'$gpuplan' pricing import '$tmp/gn7e.json' --source 'test page' | grep -q '1 added' && '$gpuplan' pricing list --provider alibaba >'$tmp/ali2' && grep -q '^alibaba  ecs.gn7e-c16g1.4xlarge  *all .* on_demand  *35.0000  *35.0000  2022-01-01 CNY' '$tmp/ali2' && grep -q '^1 prices, 12 instance shapes' '$tmp/ali2'"

# A batch summary records the rate that converted a price (summary.json and the page, which
# flags a stale rate with its age).
"$gpuplan" scenario save "$tmp/usd.json" >/dev/null
check "batch summary.json and page name the fx rate and date of a converted price, stale flagged" bash -c "'$gpuplan' batch --out '$tmp/out' >/dev/null 2>&1; $py -c '
import glob, json, sys
day = sorted(glob.glob(sys.argv[1] + \"/2*\"))[-1]
s = json.load(open(day + \"/summary.json\"))
p = [p for sc in s[\"scenarios\"] for p in sc[\"prices\"] if p[\"catalog\"] == \"fxtest/gn-a100x4/cn-hangzhou\"][0]
rate = 1.1252 / 8.147
assert p[\"currency\"] == \"CNY\" and abs(p[\"fx_rate\"] - rate) < 1e-12 and p[\"fx_date\"] == \"2025-05-09\", p
assert p[\"listed_hourly\"] == 140.0 and abs(p[\"hourly\"] - 140.0 * rate) < 1e-9 and \"EUR\" in p[\"fx_source\"], p
page = open(day + \"/index.html\").read()
assert \"fxtest/gn-a100x4/cn-hangzhou listed 140 CNY/h, converted at %.6g USD per CNY of 2025-05-09\" % rate in page
# Priced as of the run day, the last bundled rate is over 30 days old: flagged as the report is.
import datetime
age = (datetime.date.fromisoformat(s[\"as_of\"]) - datetime.date(2025, 5, 9)).days
assert age > 30, s[\"as_of\"]
assert \"of 2025-05-09 (\" in page and \"); <strong>rate %d days old on %s</strong> (over 30)</li>\" % (age, s[\"as_of\"]) in page
' '$tmp/out'"

finish "fx"

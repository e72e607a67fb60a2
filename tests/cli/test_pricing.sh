#!/usr/bin/env bash
# The price catalog through the real binary: the bundled catalog, filters, history, imports
# from files and from a loopback HTTP server (retries, errors), strict mode, diffs, catalog
# references in reports and drafted scenarios.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
export GPUPLAN_DB=$tmp/db HOME=$tmp
nprices() { "$gpuplan" pricing list --json | $py -c 'import json,sys; print(len(json.load(sys.stdin)))'; }

check "bundled catalog loads on first use" bash -c "[ \$('$gpuplan' pricing list --json | $py -c 'import json,sys; print(len(json.load(sys.stdin)))') -gt 10000 ]"
check "list --gpu --provider --pricing --json" bash -c "'$gpuplan' pricing list --gpu H100 --provider aws --pricing spot --json | $py -c '
import json, sys
rows = json.load(sys.stdin)
assert rows and all(r[\"gpu\"].startswith(\"H100\") and r[\"provider\"] == \"aws\" and r[\"pricing\"] == \"spot\" for r in rows)
assert all(abs(r[\"per_gpu_hour\"] - r[\"hourly\"] / r[\"gpu_count\"]) < 1e-12 for r in rows)
'"
check "list --sort gpu-hour --min-gpus 8" bash -c "'$gpuplan' pricing list --sort gpu-hour --min-gpus 8 --limit 50 --json | $py -c '
import json, sys
rows = json.load(sys.stdin)
per = [r[\"per_gpu_hour\"] for r in rows]
assert len(rows) == 50 and per == sorted(per) and all(r[\"gpu_count\"] >= 8 for r in rows)
'"
check "list --sort gpu-hour: whole GPUs first, a slice of one (NVv4's 1/8 MI25) after them, unpriced shapes last" bash -c "'$gpuplan' pricing list --sort gpu-hour --json | $py -c '
import json, sys
rows = json.load(sys.stdin)
priced = [r[\"hourly\"] is not None for r in rows]
assert priced.count(True) and priced.index(False) == priced.count(True)  # shapes after prices
rows = rows[:priced.count(True)]
whole = [r[\"gpu_count\"] == int(r[\"gpu_count\"]) for r in rows]
assert whole[0] and whole.index(False) == whole.count(True), whole.index(False)
nv = [r for r in rows if r[\"instance\"] == \"Standard_NV4as_v4\"]
assert nv and all(r[\"gpu_count\"] == 0.125 for r in nv)
assert not [r for r in rows if r[\"instance\"] == \"Standard_ND96isr_H200_v5\" and r[\"pricing\"] == \"spot\"]
'"
check "list --region-prefix" bash -c "'$gpuplan' pricing list --gpu L4 --region-prefix europe- --json | $py -c '
import json, sys
rows = json.load(sys.stdin)
assert rows and all(r[\"region\"].startswith(\"europe-\") for r in rows)
'"
check "show: every kind of an offer" bash -c "'$gpuplan' pricing show aws/p4d.24xlarge/us-east-1 > '$tmp/show' && grep -q '21.9576' '$tmp/show' && grep -q 'committed 12m no_upfront' '$tmp/show' && grep -q '13.9211' '$tmp/show'"
check "show: unknown offer exits 2" bash -c "'$gpuplan' pricing show aws/nope/us-east-1 2>/dev/null; [ \$? = 2 ]"
check "gpus --json" bash -c "'$gpuplan' pricing gpus --json | $py -c '
import json, sys
g = {r[\"name\"]: r for r in json.load(sys.stdin)}
assert g[\"H100\"][\"tdp_w\"] == 700 and g[\"A100-80GB\"][\"memory_gb\"] == 80
'"
check "hardware" bash -c "'$gpuplan' pricing hardware --gpu H100 | grep -q 'H100'"
check "tariff presets are valid scenario tariffs" bash -c "'$gpuplan' pricing tariff sce-tou-8-d | $py -c '
import json, sys
t = json.load(sys.stdin)
assert abs(sum(p[\"hours_per_day\"] for p in t[\"periods\"]) - 24) < 1e-9
'"
check "sources lists licenses" bash -c "'$gpuplan' pricing sources | grep -q 'Apache-2.0'"

# History: the same offer imported at two dates keeps both prices.
cat >"$tmp/v1.json" <<'JSON'
{"format": "gpuplan-catalog", "offers": [{"provider": "acme", "instance": "g8", "region": "eu-1",
 "gpu": "NVIDIA H100 80GB HBM3", "gpu_count": 8, "prices": [{"pricing": "on_demand", "hourly": 40}]}]}
JSON
sed 's/"hourly": 40/"hourly": 32/' "$tmp/v1.json" >"$tmp/v2.json"
check "import a file" bash -c "'$gpuplan' pricing import '$tmp/v1.json' --effective 2026-01-01 --source 'acme list' | grep -q '1 added'"
check "import again: unchanged" bash -c "'$gpuplan' pricing import '$tmp/v1.json' --effective 2026-01-01 | grep -q '1 unchanged'"
check "import a new price" bash -c "'$gpuplan' pricing import '$tmp/v2.json' --effective 2026-06-01 | grep -q '1 added'"
check "show lists the history" bash -c "'$gpuplan' pricing show acme/g8/eu-1 | grep -c '^    20' | grep -qx 2"
check "diff finds the cut" bash -c "'$gpuplan' pricing diff --since 2026-03-01 | grep -A1 '^cheaper' | grep -q 'acme/g8/eu-1.*40.0000 -> 32.0000'"

# Bad files: nothing imported, exit 2, file and line named.
before=$(nprices)
printf 'InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\nx,T4,1,4,16,"{broken,1.0,,r1\n' >"$tmp/broken_vast.csv"
"$gpuplan" pricing import "$tmp/broken_vast.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "broken CSV exits 2" [ "$rc" = 2 ]
check "broken CSV names file and line" grep -q "broken_vast.csv:2: unterminated quoted field" "$tmp/err"
check "broken CSV imports nothing" [ "$(nprices)" = "$before" ]
printf 'Name,Price\nx,1\n' >"$tmp/other.csv"
check "unknown format exits 2" bash -c "'$gpuplan' pricing import '$tmp/other.csv' 2>&1 >/dev/null | grep -q 'cannot tell the catalog format'"
printf 'InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\na,T4,1,4,16,,-1,,r1\nb,T4,1,4,16,,1.5,0.00,r1\n' >"$tmp/some_vast.csv"
check "--strict refuses a skip" bash -c "'$gpuplan' pricing import '$tmp/some_vast.csv' --strict 2>&1 >/dev/null | grep -q 'strict'; [ \${PIPESTATUS[0]} = 2 ]"
check "--strict imported nothing" bash -c "! '$gpuplan' pricing show vast/b/r1 >/dev/null 2>&1"
check "skips are counted and reported" bash -c "'$gpuplan' pricing import '$tmp/some_vast.csv' | grep -q '1 records skipped'"
check "vast spot 0 is no price" bash -c "! '$gpuplan' pricing show vast/b/r1 | grep -q spot"

# From a URL, served on loopback.
mkdir -p "$tmp/www"
cp "$root/tests/fixtures/catalog/aws_pricelist_offer_trimmed_opencost_pricing-us-east-1.json" "$tmp/www/offer.json"
cp "$root/pricing/prices/skypilot_fmt_lambda_vms_full.csv" "$tmp/www/lambda_vms.csv"
timeout 120 $py "$root/tests/cli/http_server.py" "$tmp/www" "$tmp/port" 100 &
pids+=($!)
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
base="http://127.0.0.1:$port"
check "import from a URL (format detected)" bash -c "'$gpuplan' pricing import '$base/offer.json' | grep -q 'as aws-offer for aws: 1 prices read'"
check "URL import kept the offer's date" bash -c "'$gpuplan' pricing show aws/p4d.24xlarge/us-east-1 | grep -Eq '2024-05-28 +32.7726'"
check "retries 503 with backoff" bash -c "'$gpuplan' pricing import '$base/flaky/2/lambda_vms.csv' --provider lambda | grep -q 'skypilot for lambda'"
check "404 is a failure of the world" bash -c "'$gpuplan' pricing import '$base/missing.csv' 2>'$tmp/err'; [ \$? = 1 ] && grep -q 'HTTP 404' '$tmp/err'"
check "unreachable host fails fast" bash -c "timeout 30 '$gpuplan' pricing import http://127.0.0.1:9/x.json 2>/dev/null; [ \$? = 1 ]"

# Catalog references in a report and a drafted scenario.
cat >"$tmp/cat.json" <<'JSON'
{"name": "catalog", "horizon_months": 36, "demand": {"gpus": 80, "utilization": 0.6},
 "self_hosted": {"server_price": 125000},
 "cloud_options": [{"name": "p4d 1y", "pricing": "committed", "catalog": "aws/p4d.24xlarge/us-east-1",
   "term_months": 12}]}
JSON
check "report fills catalog prices and lists sources" bash -c "'$gpuplan' report '$tmp/cat.json' --format json --as-of 2026-11-22 | $py -c '
import json, sys
r = json.load(sys.stdin)
s = r[\"sources\"][0]
assert s[\"hourly\"] == 13.921094 and s[\"effective_from\"] == \"2025-11-30\" and s[\"catalog\"] == \"aws/p4d.24xlarge/us-east-1\"
o = r[\"scenario_json\"][\"cloud_options\"][0]
assert o[\"hourly\"] == 13.921094 and o[\"gpus_per_instance\"] == 8 and \"catalog\" not in o
'"
check "the embedded scenario reproduces the report" bash -c "'$gpuplan' report '$tmp/cat.json' --format json --as-of 2026-11-22 | $py -c 'import json,sys; print(json.dumps(json.load(sys.stdin)[\"scenario_json\"]))' >'$tmp/again.json' && [ \"\$('$gpuplan' report '$tmp/cat.json' --format csv --as-of 2026-11-22)\" = \"\$('$gpuplan' report '$tmp/again.json' --format csv --as-of 2026-11-22)\" ]"
# A commitment priced by an effective rate: its fee at the start of each term and its rate
# follow the purchase option (docs/model.md "Catalog references"), and the report reproduces.
cat >"$tmp/catp.json" <<'JSON'
{"name": "catalog split", "horizon_months": 18, "demand": {"gpus": 80, "utilization": 0.6},
 "self_hosted": {"server_price": 125000},
 "cloud_options": [{"name": "partial", "pricing": "committed", "catalog": "aws/p4d.24xlarge/us-east-1",
   "term_months": 12, "purchase": "partial_upfront", "support_pct": 0.1},
  {"name": "all", "pricing": "committed", "catalog": "aws/p4d.24xlarge/us-east-1",
   "term_months": 12, "purchase": "all_upfront"}]}
JSON
check "catalog commitments: fee per term and rate by purchase option" bash -c "'$gpuplan' report '$tmp/catp.json' --format json --as-of 2026-11-22 | $py -c '
import json, sys
r = json.load(sys.stdin)
p, a = r[\"sources\"]
close = lambda x, y: abs(x - y) <= 1e-9 * max(1, abs(y))
assert p[\"split_derived\"] is True and a[\"split_derived\"] is False
assert a[\"hourly\"] == 0 and close(p[\"upfront\"], p[\"hourly\"] * 730 * 12)
po, ao = r[\"options\"]
# 10 instances; the fee at 0 and again at 12, support on the fee too.
assert close(po[\"monthly\"][0], 10 * p[\"upfront\"] * 1.1)
assert close(po[\"monthly\"][12], 10 * p[\"upfront\"] * 1.1 + 10 * 730 * p[\"hourly\"] * 1.1)
assert close(po[\"monthly\"][1], 10 * 730 * p[\"hourly\"] * 1.1)
assert close(ao[\"monthly\"][12], 10 * a[\"upfront\"]) and ao[\"monthly\"][1] == 0
# 6 months of the second term run past M = 18: their recurring part is paid at M.
assert close(po[\"monthly\"][18], 10 * 730 * p[\"hourly\"] * 1.1 * 7)
o = r[\"scenario_json\"][\"cloud_options\"][0]
assert o[\"upfront\"] == p[\"upfront\"] and o[\"hourly\"] == p[\"hourly\"] and \"purchase\" not in o
'"
check "catalog commitments: the embedded scenario reproduces the report" bash -c "'$gpuplan' report '$tmp/catp.json' --format json --as-of 2026-11-22 | $py -c 'import json,sys; print(json.dumps(json.load(sys.stdin)[\"scenario_json\"]))' >'$tmp/catp2.json' && [ \"\$('$gpuplan' report '$tmp/catp.json' --format csv --as-of 2026-11-22)\" = \"\$('$gpuplan' report '$tmp/catp2.json' --format csv --as-of 2026-11-22)\" ]"
# A source that gives a reservation's fee and rate apart (the AWS price list) and one that
# gives a spot interruption band: the scenario takes them as they are (docs/model.md "Catalog
# references"); an interruptions_per_hour set on the option wins over the band.
$py - "$root/tests/fixtures/catalog/aws_pricelist_offer_trimmed_opencost_pricing-us-east-1.json" "$tmp/reserved.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sku = 'H7NGEAC6UEHNTKSJ'
d['terms']['Reserved'] = {sku: {sku + '.R1': {'offerTermCode': 'R1', 'sku': sku,
    'effectiveDate': '2024-05-01T00:00:00Z',
    'priceDimensions': {sku + '.R1.h': {'unit': 'Hrs', 'pricePerUnit': {'USD': '9.5'}},
                        sku + '.R1.q': {'unit': 'Quantity', 'pricePerUnit': {'USD': '80000'}}},
    'termAttributes': {'LeaseContractLength': '1yr', 'OfferingClass': 'standard',
                       'PurchaseOption': 'Partial Upfront'}}}}
json.dump(d, open(sys.argv[2], 'w'))
PY
cat >"$tmp/bands.json" <<'JSON'
{"format": "gpuplan-catalog", "version": 1, "effective_from": "2024-06-01",
 "offers": [{"provider": "acme", "instance": "g8", "region": "eu-1", "gpu": "H100", "gpu_count": 8,
   "prices": [{"pricing": "spot", "hourly": 12.0, "interruption_band": ">20%"}]},
  {"provider": "acme", "instance": "g9", "region": "eu-1", "gpu": "H100", "gpu_count": 8,
   "prices": [{"pricing": "spot", "hourly": 12.0, "interruption_band": "20-30%"}]}]}
JSON
cat >"$tmp/terms.json" <<'JSON'
{"name": "catalog terms", "horizon_months": 12, "demand": {"gpus": 16, "utilization": 0.5},
 "self_hosted": {"server_price": 125000},
 "cloud_options": [{"name": "p4d 1y", "pricing": "committed", "catalog": "aws/p4d.24xlarge/us-east-1",
   "term_months": 12, "purchase": "partial_upfront"},
  {"name": "band", "pricing": "spot", "catalog": "acme/g8/eu-1"},
  {"name": "own", "pricing": "spot", "catalog": "acme/g8/eu-1", "interruptions_per_hour": 0.01}]}
JSON
check "catalog: a fee and rate given apart, a spot band" bash -c "'$gpuplan' pricing import '$tmp/reserved.json' >/dev/null && '$gpuplan' pricing import '$tmp/bands.json' 2>&1 | grep -q 'an unknown interruption band' && '$gpuplan' report '$tmp/terms.json' --format json --as-of 2025-01-01 | $py -c '
import json, sys
r = json.load(sys.stdin)
c, b, o = r[\"sources\"]
assert (c[\"hourly\"], c[\"upfront\"], c[\"split_derived\"]) == (9.5, 80000, False), c
assert b[\"interruption_band\"] == \">20%\" and o[\"interruption_band\"] == \">20%\"
close = lambda x, y: abs(x - y) <= 1e-9 * max(1, abs(y))
oc, ob, oo = r[\"scenario_json\"][\"cloud_options\"]
assert oc[\"upfront\"] == 80000 and oc[\"hourly\"] == 9.5
assert close(ob[\"interruptions_per_hour\"], 0.225 / 730) and oo[\"interruptions_per_hour\"] == 0.01
# 2 instances: the fee at 0, then 2 * 730 * 9.5 a month.
assert r[\"options\"][0][\"monthly\"][:2] == [160000, 13870]
# spot: 16 * 730 * 0.5 / 8 * 12 * (1 + lambda * (1/2 + 0)) a month.
assert close(r[\"options\"][1][\"monthly\"][1], 730 * 12 * (1 + 0.225 / 730 / 2))
'"
check "scenario draft writes a valid scenario" bash -c "'$gpuplan' scenario draft --gpus 64 --gpu H100 --region-prefix us- --tariff sce-tou-8-d -o '$tmp/draft.json' && '$gpuplan' report '$tmp/draft.json' --format json | $py -c '
import json, sys
r = json.load(sys.stdin)
assert len(r[\"options\"]) == 3 and len(r[\"sources\"]) == 3
assert {o[\"pricing\"] for o in r[\"options\"]} == {\"on_demand\", \"spot\", \"committed\"}
assert all(s[\"catalog\"].split(\"/\")[2].startswith(\"us-\") for s in r[\"sources\"])
assert r[\"scenario_json\"][\"self_hosted\"][\"power\"][\"gpu_tdp_w\"] == 700
'"
check "scenario draft --growth --spot-interruptions: a base that bursts, a stated spot rate" bash -c "'$gpuplan' scenario draft --gpus 32 --gpu H100 --growth 5% --spot-interruptions 20% | $py -c '
import json, sys
d = json.load(sys.stdin)
assert d[\"demand\"][\"growth_per_month\"] == 0.05 and d[\"self_hosted\"][\"buy\"] == \"as_needed\", d
by = {o[\"pricing\"]: o for o in d[\"cloud_options\"]}
assert by[\"committed\"][\"base_gpus\"] == 32 and by[\"committed\"][\"burst\"] == by[\"on_demand\"][\"name\"], by
assert abs(by[\"spot\"][\"interruptions_per_hour\"] - 0.2 / 730) < 1e-15, by
'"
check "scenario draft --growth out of range exits 2" bash -c "'$gpuplan' scenario draft --gpus 8 --gpu H100 --growth 200% 2>'$tmp/growth.err' >/dev/null; [ \$? = 2 ] && grep -qF 'scenario draft: --growth: bad value \"200%\" (a share a month, -50% to 100%' '$tmp/growth.err'"
check "scenario draft --utilization takes a percentage" bash -c "'$gpuplan' scenario draft --gpus 8 --gpu H100 --utilization 60% -o '$tmp/u60.json' && $py -c 'import json, sys; assert json.load(open(sys.argv[1]))[\"demand\"][\"utilization\"] == 0.6' '$tmp/u60.json'"
check "scenario draft for an unknown GPU" bash -c "'$gpuplan' scenario draft --gpus 8 --gpu NOPE9000 2>/dev/null; [ \$? = 2 ]"


# scenario draft --work --profile: a work-mode draft; --api adds a per_unit option from the
# catalog's API price in force (the cheapest provider, or PROVIDER/MODEL), its input price
# through the profile's prompt over generated tokens (llama3-8b-decode: 1024 / 256 = 4); the
# report's total for it is the demand's work times that price a unit.
"$gpuplan" pricing api list --as-of 2026-11-28 --model llama-3.1-8b-instruct >"$tmp/api8b"
for api in llama-3.1-8b-instruct amazon-bedrock/llama-3.1-8b-instruct; do
    "$gpuplan" scenario draft --work 5000 --profile llama3-8b-decode --gpu H100 --growth 3% --api "$api" --as-of 2026-11-28 -o "$tmp/api-draft.json"
    "$gpuplan" report "$tmp/api-draft.json" --as-of 2026-11-28 --format json >"$tmp/api-report.json"
    check "scenario draft --api $api: the report's total is the work times the catalog's price" $py -c "
import json
want = '$api'.split('/')[0] if '/' in '$api' else None
prices = {}
for line in open('$tmp/api8b').read().splitlines()[1:]:
    f = line.split()
    prices[f[0]] = (float(f[2]), float(f[3]))
assert len(prices) >= 2, prices
provider = want or min(prices, key=lambda p: (prices[p][1], prices[p][0]))
inp, out = prices[provider]
d = json.load(open('$tmp/api-draft.json'))
assert d['demand']['work_per_month'] == 5000 and 'gpus' not in d['demand']
assert d['self_hosted']['work_per_gpu_hour'] > 0
assert all(o['work_per_gpu_hour'] == d['self_hosted']['work_per_gpu_hour'] for o in d['cloud_options'] if o['pricing'] != 'per_unit')
api = [o for o in d['cloud_options'] if o['pricing'] == 'per_unit']
assert len(api) == 1 and api[0]['name'].startswith(provider + ' '), api
assert provider in d['notes'] and '4 input tokens an output token' in d['notes']
r = json.load(open('$tmp/api-report.json'))
o = [o for o in r['options'] if o['name'] == api[0]['name']][0]
want_total = r['demand_work'] * (out + 4 * inp)
assert abs(o['total'] - want_total) <= 1e-9 * want_total, (o['total'], want_total)
assert abs(r['demand_work'] - sum(5000 * 1.03 ** j for j in range(36))) <= 1e-6 * r['demand_work']
"
done
check "scenario draft --api an unknown model: refused naming it, exit 2" bash -c "'$gpuplan' scenario draft --work 5000 --profile llama3-8b-decode --gpu H100 --api llama-9-1t-chat --as-of 2026-11-28 >'$tmp/o' 2>'$tmp/e'; [ \$? = 2 ] && [ ! -s '$tmp/o' ] && [ \"\$(wc -l <'$tmp/e')\" = 1 ] && grep -q '^gpuplan: scenario draft: --api llama-9-1t-chat: no API price for llama-9-1t-chat in force on 2026-11-28' '$tmp/e'"
check "scenario draft --api on a GPU-mode draft: refused, exit 2" bash -c "'$gpuplan' scenario draft --gpus 8 --gpu H100 --api llama-3-8b-instruct >'$tmp/o' 2>'$tmp/e'; [ \$? = 2 ] && [ \"\$(wc -l <'$tmp/e')\" = 1 ] && grep -qx 'gpuplan: scenario draft: --api needs --work (see --help)' '$tmp/e'"
check "scenario draft --work without --profile: refused, exit 2" bash -c "'$gpuplan' scenario draft --work 5000 --gpu H100 2>'$tmp/e' >/dev/null; [ \$? = 2 ] && grep -qx 'gpuplan: scenario draft: --work needs --profile (see --help)' '$tmp/e'"
check "scenario draft --api with a profile that does not count generated tokens: refused" bash -c "'$gpuplan' scenario draft --work 5000 --profile llm-training --gpu H100 --api llama-3-8b-instruct --as-of 2026-11-28 2>'$tmp/e' >/dev/null; [ \$? = 2 ] && grep -q 'profile llm-training does not count generated tokens' '$tmp/e'"

finish "pricing"

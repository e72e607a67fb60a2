#!/usr/bin/env bash
# GPU generations per unit of work through the real binary on the bundled catalog: the
# throughput table (estimates with their source, a measured figure set and imported, winning
# and said so), compare's ranking in every format, a GPU model without a price listed as such,
# --save giving a scenario whose report total equals the compared total, and bad input exiting
# 2 with one line. (cJSON prints 15 significant digits where they read back within its
# epsilon, so JSON and CSV agree to about 1e-15.)
set -u
gpuplan=$1
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
export GPUPLAN_DB=$tmp/db HOME=$tmp
bad_input() { # what args...: exit 2, one line on stderr naming the problem, nothing on stdout
    local what=$1; shift
    "$gpuplan" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
        grep -q "^gpuplan: .*$what" "$tmp/err"; then
        echo "ok bad input: $what"
    else
        echo "FAIL bad input: $what (exit $rc): $(cat "$tmp/err")"; fails=$((fails + 1))
    fi
}
cmp=(compare --work 200000 --unit "M tokens" --profile llm-training --growth 2% --horizon 36)

# compare --help explains every option its usage lines name, each on a line of its own, with
# its value's placeholder where the usage lines give one (a flag, --spot, has none).
"$gpuplan" compare --help >"$tmp/help"
awk '!NF { exit } { print }' "$tmp/help" >"$tmp/usage"
for opt in $(grep -oE -- '(^|[ [])--?[a-z][a-z-]*' "$tmp/usage" | tr -d ' [' | sort -u); do
    value=' [A-Z]+'
    ! grep -qE -- "$opt(\]| \[|$)" "$tmp/usage" || value=''
    check "compare --help explains $opt" grep -qE -- "(^|  )$opt$value +[a-z(]" "$tmp/help"
done

check "throughput list: estimates with formula, factor and spec row" bash -c "'$gpuplan' throughput list --profile llm-training --json | $py -c '
import json, sys
rows = json.load(sys.stdin)
h = [r for r in rows if r[\"gpu\"] == \"H100\"]
assert len(h) == 1 and h[0][\"kind\"] == \"estimate\" and h[0][\"unit\"] == \"M tokens\" and h[0][\"in_use\"]
assert abs(h[0][\"value\"] - 0.40 * 989.4 * 3600e12 / (6 * 7e9) / 1e6) < 1e-9
for w in (\"eff = 0.40\", \"bf16_tflops = 989.4\", \"gpu_spec \\\"H100\\\"\", \"Epoch AI\"):
    assert w in h[0][\"source\"], w
assert all(r[\"profile\"] == \"llm-training\" and r[\"as_of\"] for r in rows) and len(rows) > 10
'"

"$gpuplan" "${cmp[@]}" --format json >"$tmp/before.json"
check "compare ranks by total, owned and rented, every provider's kinds" $py -c "
import json
c = json.load(open('$tmp/before.json'))
ranked = [r for r in c['rows'] if r['rank'] is not None]
assert [r['rank'] for r in ranked] == list(range(1, len(ranked) + 1))
totals = [r['total'] for r in ranked]
assert totals == sorted(totals) and len(ranked) > 20
assert all(abs(r['cost_per_unit'] - r['total'] / c['work']) <= 1e-9 * r['cost_per_unit'] for r in ranked)
assert {r['side'] for r in ranked} >= {'own', 'aws', 'gcp', 'azure', 'lambda'}
gpus = {r['gpu'] for r in ranked}
assert {'A100', 'H100', 'H200', 'B200', 'MI300X'} <= gpus, gpus
assert all(r['vs_owning'] for r in ranked if r['side'] != 'own')
own = {r['gpu']: r['total'] for r in ranked if r['side'] == 'own'}
assert own['B200'] < own['H100'] < own['A100'], own  # newer generations cost less a token owned
"
check "a GPU model without a price is listed as such, not dropped" $py -c "
import json
c = json.load(open('$tmp/before.json'))
miss = {r['gpu']: r['missing'] for r in c['rows'] if r['rank'] is None}
assert miss['MI325X'].startswith('no price'), miss.get('MI325X')
assert miss['GB200'].startswith('no price')
# L40S's spec row now has BF16 (the spec supplement): it is estimated, owned rows lack a price
assert any((r['missing'] or '').startswith('own: no purchase price') for r in c['rows'] if r['gpu'] == 'L40S')
assert all(r['total'] is None if 'total' in r else True for r in c['rows'] if r['rank'] is None)
"
"$gpuplan" "${cmp[@]}" >"$tmp/md"
check "md: the table and what is not compared" bash -c "grep -q '^| 1 | ' '$tmp/md' && grep -q '^## Not compared' '$tmp/md' && grep -q '^| MI325X | - | - | no price' '$tmp/md'"
check "md: the work over the horizon with thousands separators" grep -q '^10,398,873 M tokens over 36 months, prices as of ' "$tmp/md"
"$gpuplan" "${cmp[@]}" --format csv >"$tmp/csv"
# The CSV prints totals to the cent (numfmt.h): equal to the JSON's total rounded so.
check "csv: one row a candidate, the same totals" $py -c "
import csv, json
rows = list(csv.DictReader(open('$tmp/csv')))
c = json.load(open('$tmp/before.json'))
assert len(rows) == len(c['rows'])
for a, b in zip(rows, c['rows']):
    assert a['gpu'] == b['gpu'] and (a['total'] == '' if b['rank'] is None else a['total'] == '%.2f' % b['total'])
"

for rank in 1 2 3; do
    "$gpuplan" "${cmp[@]}" --format json --save "gen $rank" --pick $rank >"$tmp/saved.json" 2>"$tmp/err"
    "$gpuplan" report "gen $rank" --format json >"$tmp/report.json"
    check "--save --pick $rank: the report's total equals the compared total" $py -c "
import json
row = json.load(open('$tmp/saved.json'))['rows'][$rank - 1]
r = json.load(open('$tmp/report.json'))
total = r['self_hosted']['total'] if row['side'] == 'own' else r['options'][0]['total']
assert abs(total - row['total']) <= 1e-9 * abs(row['total']), (total, row['total'])
assert r['demand_work'] > 0 and r['demand']['work_unit'] == 'M tokens'
sj = r['scenario_json']
assert sj['demand']['work_per_month'] == 200000 and sj['self_hosted']['work_per_gpu_hour'] > 0
"
done
"$gpuplan" report "gen 3" >"$tmp/gen3.md"
check "report of a saved comparison: month 1's work with thousands separators" grep -qF 'the 200,000 M tokens of month 1 take' "$tmp/gen3.md"
check "--save says what it stored" grep -q 'saved rank 3 as "gen 3" version 1' "$tmp/err"

"$gpuplan" throughput set H100 llm-training 50 --unit "M tokens" --source "our 7B run, 2026-11" >"$tmp/set"
check "throughput set says the measured figure is used" grep -q 'measured (our 7B run, 2026-11), used instead of the estimate' "$tmp/set"
check "throughput list shows both, the measured one in use" bash -c "'$gpuplan' throughput list --gpu H100 --profile llm-training > '$tmp/list' && grep -q 'measured .* yes' '$tmp/list' && grep -q 'estimate .* no: the measured figure wins' '$tmp/list'"
"$gpuplan" "${cmp[@]}" --format json >"$tmp/after.json"
check "compare uses the measured figure and says so" $py -c "
import json
b = {(r['gpu'], r['side'], r['pricing']): r for r in json.load(open('$tmp/before.json'))['rows']}
a = [r for r in json.load(open('$tmp/after.json'))['rows'] if r['gpu'] == 'H100' and r['rank']]
assert a and all(r['work_per_gpu_hour'] == 50 and r['throughput_kind'] == 'measured' for r in a)
own = [r for r in a if r['side'] == 'own'][0]
assert own['total'] < b[('H100', 'own', 'own')]['total']  # fewer GPUs for the same work
"
printf 'gpu,profile,value,unit,source,date\nMI300X,llm-training,30,M tokens,"vendor run, 8 GPUs",2026-09-01\n' >"$tmp/m.csv"
check "throughput import" bash -c "'$gpuplan' throughput import '$tmp/m.csv' | grep -q 'imported 1 measured figure from'"
check "imported figure listed with its date and source" bash -c "'$gpuplan' throughput list --gpu MI300X --profile llm-training --json | $py -c '
import json, sys
r = json.load(sys.stdin)[0]
assert r[\"kind\"] == \"measured\" and r[\"value\"] == 30 and r[\"as_of\"] == \"2026-09-01\" and r[\"source\"] == \"vendor run, 8 GPUs\"
'"


# Workload profiles: published results listed as such with their source, compare using them
# and saying what its throughputs are, GPUs that cannot run the workload refused with why.
check "throughput list: MLPerf published results with repository, path and commit" bash -c "'$gpuplan' throughput list --profile llama2-70b-offline --json | $py -c '
import json, sys
rows = json.load(sys.stdin)
pub = {r[\"gpu\"]: r for r in rows if r[\"kind\"] == \"published\"}
assert set(pub) == {\"H100\", \"H200\", \"B200\", \"MI300X\"}, set(pub)
assert all(r[\"in_use\"] and r[\"as_of\"] == \"2024-08-28\" and \"inference_results_v4.1@\" in r[\"source\"] for r in pub.values())
est = {r[\"gpu\"] for r in rows if r[\"kind\"] == \"estimate\"}
assert {\"L40S\", \"GH200\", \"A100-80GB\"} <= est and not {\"T4\", \"V100\"} & est, est
assert pub[\"B200\"][\"value\"] > pub[\"H200\"][\"value\"] > pub[\"H100\"][\"value\"] > pub[\"MI300X\"][\"value\"]
'"
"$gpuplan" compare --work 100000 --unit "M tokens" --profile llama2-70b-offline >"$tmp/wl.md"
check "compare on a workload: a line above the rows says what the throughputs are" grep -qE '^Throughputs: [0-9]+ rows on an estimate, [1-9][0-9]* on a published result, 0 on a measured figure' "$tmp/wl.md"
check "compare --format json counts the ranked rows' throughput kinds" bash -c "'$gpuplan' compare --work 100000 --unit 'M tokens' --profile llama2-70b-offline --format json | $py -c '
import json, sys
c = json.load(sys.stdin)
k = c[\"ranked_throughputs\"]
ranked = [r for r in c[\"rows\"] if r[\"rank\"] is not None]
assert sum(k.values()) == len(ranked) and k[\"published\"] == sum(r[\"throughput_kind\"] == \"published\" for r in ranked) > 0, k
'"
check "compare on a workload: T4 and V100 do not fit 70B" bash -c "grep -q '^| T4 | - | - | does not fit: ' '$tmp/wl.md' && grep -q '^| V100 | - | - | does not fit: ' '$tmp/wl.md'"
# A rented instance must hold a whole replica: Llama 3 70B spans 2 H100s and 8 V100-32GBs
# (the estimate's TP), so 1x-H100 and 2x-V100 instances are left out there, not in the 8B profile.
"$gpuplan" pricing list --json >"$tmp/offers.json"
check "compare: rented rows only on instances that hold a replica of the model" bash -c "'$gpuplan' compare --work 1000 --unit 'M tokens' --profile llama3-70b-decode --spot --format json >'$tmp/r70.json' && '$gpuplan' compare --work 1000 --unit 'M tokens' --profile llama3-8b-decode --spot --format json >'$tmp/r8.json' && $py -c '
import json, sys
count = {o[\"catalog\"]: o[\"gpu_count\"] for o in json.load(open(sys.argv[1]))}
def rented(path, gpu):
    return [count[r[\"offer\"]] for r in json.load(open(path))[\"rows\"]
            if r[\"gpu\"] == gpu and r[\"side\"] != \"own\" and r[\"offer\"] in count]
h70, v70, h8 = rented(sys.argv[2], \"H100\"), rented(sys.argv[2], \"V100-32GB\"), rented(sys.argv[3], \"H100\")
assert h70 and min(h70) >= 2, h70
assert all(n >= 8 for n in v70), v70
assert h8 and min(h8) == 1, h8
' '$tmp/offers.json' '$tmp/r70.json' '$tmp/r8.json'"
# A GH200 server is one superchip (the workload hardware table), not eight.
check "compare: an owned GH200 server holds one GPU, an H100 server eight" $py -c '
import json, sys
own = {r["gpu"]: r["offer"] for r in json.load(open(sys.argv[1]))["rows"] if r["side"] == "own"}
assert own["GH200"].startswith("1 x "), own["GH200"]
assert own["H100"].startswith("node: ") or own["H100"].startswith("8 x "), own["H100"]
' "$tmp/r70.json"
check "compare on BF16 training: V100 refused for precision" bash -c "'$gpuplan' compare --work 1000 --unit 'M tokens' --profile llama2-7b-training | grep -q '^| V100 | - | - | precision: V100 has no bf16 tensor support'"

src=$(cd "$(dirname "$0")/../.." && pwd)
check "throughput profile add: a user's workload, estimated and compared" bash -c "'$gpuplan' throughput profile add '$src/tests/fixtures/workloads/mixtral-8x7b-decode.json' | grep -q '^added profile mixtral-8x7b-decode (decode, 46.7 B parameters)' && '$gpuplan' compare --work 1000 --unit 'M tokens' --profile mixtral-8x7b-decode --format json | $py -c '
import json, sys
c = json.load(sys.stdin)
assert c[\"profile\"] == \"mixtral-8x7b-decode\" and c[\"rows\"][0][\"rank\"] == 1
'"
printf '{"name": "llama3-8b-decode", "source": "x", "phase": "decode", "params_b": 8, "layers": 32, "kv_heads": 8, "head_dim": 128, "input_len": 10, "output_len": 10, "batch": 1, "precision": ["fp8"]}' >"$tmp/dup.json"
bad_input "dup.json: \$.name: \"llama3-8b-decode\" is a bundled profile" throughput profile add "$tmp/dup.json"
printf '{"name": "x", "source": "x", "phase": "decode", "params_b": -1}' >"$tmp/neg.json"
bad_input "neg.json:\$.params_b: must be a number in" throughput profile add "$tmp/neg.json"

bad_input "--profile: unknown profile \"llm-trianing\" (did you mean llm-training?" compare --work 1 --unit "M tokens" --profile llm-trianing
bad_input "--unit: \"tokens\": profile llm-training is counted in \"M tokens\"" compare --work 1 --unit tokens --profile llm-training
bad_input "--work: \"lots\" is not a number" compare --work lots --unit "M tokens" --profile llm-training
bad_input "--work: must be a number above 0" compare --work -5 --unit "M tokens" --profile llm-training
bad_input "compare needs --work, --unit and --profile" compare --work 5
bad_input "--work: must be a number above 0" compare --work 0 --unit "M tokens" --profile llm-training
bad_input "--provider: no offer from \"nope\" in the catalog" "${cmp[@]}" --provider nope
check "--provider keeps that provider's offers and owning" bash -c "'$gpuplan' ${cmp[*]@Q} --provider lambda --format csv | $py -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r[\"rank\"] != \"0\"]
assert rows and {r[\"side\"] for r in rows} == {\"own\", \"lambda\"}, {r[\"side\"] for r in rows}
'"
check "--gpu and --pricing keep those rows; owned H100 priced from the catalog's node" bash -c "'$gpuplan' ${cmp[*]@Q} --gpu H100 --pricing own --format csv | $py -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert len(rows) == 1 and rows[0][\"gpu\"] == \"H100\" and rows[0][\"side\"] == \"own\", rows
assert rows[0][\"offer\"].startswith(\"node: NVIDIA H100 node (8x H100\"), rows[0][\"offer\"]
'"
check "--region keeps that region's offers" bash -c "'$gpuplan' ${cmp[*]@Q} --region us-east-1 --pricing on_demand --format csv | $py -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r[\"rank\"] != \"0\"]
assert rows and all(r[\"offer\"].endswith(\"/us-east-1\") and r[\"pricing\"] == \"on_demand\" for r in rows), rows
'"
check "spot rows over a 36-month horizon: listed with their interruption assumption, ranked with --spot" bash -c "'$gpuplan' ${cmp[*]@Q} --format csv | $py -c '
import csv, sys
spot = [r for r in csv.DictReader(sys.stdin) if r[\"pricing\"].startswith(\"spot, \")]
assert spot and all(r[\"rank\"] == \"0\" and \"interruptions/h assumed\" in r[\"missing\"] for r in spot)
' && '$gpuplan' ${cmp[*]@Q} --spot --format csv | $py -c '
import csv, sys
spot = [r for r in csv.DictReader(sys.stdin) if r[\"pricing\"].startswith(\"spot, \")]
assert spot and all(r[\"rank\"] != \"0\" for r in spot)
'"
bad_input "--pricing: \"cheap\" is not own, on_demand, spot, committed or api" "${cmp[@]}" --pricing cheap
bad_input "--gpu: no candidate of GPU NOPE" "${cmp[@]}" --gpu nope
bad_input "--server-overhead: must be in \[1, 10\]" "${cmp[@]}" --server-overhead 0.5
bad_input "--pick: no row ranked 9999" "${cmp[@]}" --save x --pick 9999
bad_input "compare: --save needs --pick" "${cmp[@]}" --save x
bad_input "compare: --pick needs --save" "${cmp[@]}" --pick 1
bad_input "--tariff: no tariff preset \"nope\"" "${cmp[@]}" --tariff nope
bad_input "--horizon: must be 1..240 months" compare --work 1 --unit PFLOP --profile fp32 --horizon 0
bad_input "--format xlsx writes a file: give -o FILE.xlsx" compare --work 1 --unit PFLOP --profile fp32 --format xlsx
bad_input "unit \"tokens\": profile llm-training is counted in \"M tokens\"" throughput set H100 llm-training 5 --unit tokens --source x
printf 'gpu,profile,value,unit,source\nH100,fp32,-1,PFLOP,x\n' >"$tmp/bad.csv"
bad_input "bad.csv:2: value: not a number above 0" throughput import "$tmp/bad.csv"
bad_input "VALUE -5: must be a number above 0" throughput set H100 llm-training -5 --unit "M tokens" --source x
check "scenario gen 1 stored once, no scenario x" bash -c "'$gpuplan' scenario list | grep -c '^gen ' | grep -q 3 && ! '$gpuplan' scenario list | grep -q '^x '"

# API rows (docs/compare.md "API rows"): a profile whose model has API prices in force gets one
# row a provider, priced per M output tokens at the catalog's output price plus its input price
# times the profile's input tokens an output token (llama3-70b-decode: 1024 prompt over 256
# generated, 4), ranked with the GPU rows; a second provider imported as history.
printf 'provider,model,input_per_m,output_per_m,currency,effective_from,source\ntestapi,llama-3-70b-instruct,0.25,1.10,USD,2026-11-20,"https://example.com/pricing (a test price), read 2026-11-20"\n' >"$tmp/api.csv"
"$gpuplan" pricing api import "$tmp/api.csv" >/dev/null
"$gpuplan" pricing api list --as-of 2026-11-28 --model llama-3-70b-instruct >"$tmp/apilist"
api=(compare --work 1000 --unit "M tokens" --profile llama3-70b-decode --as-of 2026-11-28)
"$gpuplan" "${api[@]}" --format json >"$tmp/api.json"
check "API rows: one a provider, cost a M tokens = output price + 4 x input price from the catalog" $py -c "
import json
prices = {}
for line in open('$tmp/apilist').read().splitlines()[1:]:
    f = line.split()
    prices[f[0]] = (float(f[2]), float(f[3]))
assert set(prices) == {'fireworks', 'testapi'}, prices
c = json.load(open('$tmp/api.json'))
rows = [r for r in c['rows'] if r['pricing'] == 'api']
assert {r['side'] for r in rows} == set(prices), rows
for r in rows:
    inp, out = prices[r['side']]
    want = out + 4 * inp
    assert abs(r['cost_per_unit'] - want) <= 1e-12 * want, (r['cost_per_unit'], want)
    assert abs(r['total'] - want * c['work']) <= 1e-9 * r['total']
    assert r['gpu'] is None and r['gpus_needed'] is None and r['work_per_gpu_hour'] is None
    a = r['api']
    assert a['model'] == 'llama-3-70b-instruct' and a['input_units_per_unit'] == 4
    assert a['source'].startswith('https://') and r['price_date'] == a['effective_from']
    assert r['rank'] is not None and r['vs_owning']
assert c['ranked_throughputs']['api'] == 2
ranked = [r['total'] for r in c['rows'] if r['rank'] is not None]
assert ranked == sorted(ranked) and len(ranked) > len(rows)
"
"$gpuplan" "${api[@]}" >"$tmp/api.md"
check "API rows in md: marked API with no GPUs, their sources listed" bash -c "grep -qE '^\| [0-9]+ \| API \| testapi \| api \| testapi/llama-3-70b-instruct \| 2026-11-20 \| - \| api \| - \| ' '$tmp/api.md' && grep -q '^## API rows' '$tmp/api.md' && grep -qF '| testapi | llama-3-70b-instruct | 1.1 | 0.25 | 4 | 2.1 | https://example.com/pricing (a test price), read 2026-11-20 (from 2026-11-20) |' '$tmp/api.md'"
check "API rows in csv: no GPU, the source column" bash -c "'$gpuplan' ${api[*]@Q} --format csv | $py -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r[\"pricing\"] == \"api\"]
assert len(rows) == 2 and all(r[\"gpu\"] == \"\" and r[\"gpus_needed\"] == \"\" and r[\"source\"].startswith(\"https://\") for r in rows), rows
'"
check "--pricing api keeps the API rows only; --pricing on_demand none of them" bash -c "'$gpuplan' ${api[*]@Q} --pricing api --format json | $py -c '
import json, sys
c = json.load(sys.stdin)
assert [r[\"side\"] for r in c[\"rows\"]] == [\"testapi\", \"fireworks\"], c[\"rows\"]
' && '$gpuplan' ${api[*]@Q} --pricing on_demand --format json | $py -c '
import json, sys
assert not [r for r in json.load(sys.stdin)[\"rows\"] if r[\"pricing\"] == \"api\"]
'"
check "--provider names an API provider: its row and owning only" bash -c "'$gpuplan' ${api[*]@Q} --provider testapi --format json | $py -c '
import json, sys
rows = [r for r in json.load(sys.stdin)[\"rows\"] if r[\"rank\"] is not None]
assert {r[\"side\"] for r in rows} == {\"own\", \"testapi\"}, rows
'"
check "no API price in force on the date, or no model: no API rows" bash -c "'$gpuplan' compare --work 1000 --unit 'M tokens' --profile llama3-70b-decode --as-of 2026-11-01 --format json | $py -c '
import json, sys
c = json.load(sys.stdin)
assert not [r for r in c[\"rows\"] if r[\"pricing\"] == \"api\"] and c[\"ranked_throughputs\"][\"api\"] == 0
' && '$gpuplan' ${cmp[*]@Q} --format json | $py -c '
import json, sys
assert not [r for r in json.load(sys.stdin)[\"rows\"] if r[\"pricing\"] == \"api\"]
'"
bad_input "--pricing: no candidate of api for profile llm-training" "${cmp[@]}" --pricing api
"$gpuplan" "${api[@]}" --pricing api --format json --save "api row" --pick 1 >"$tmp/apisaved.json" 2>/dev/null
"$gpuplan" report "api row" --format json >"$tmp/apireport.json"
check "--save an API row: a per_unit option whose report total is the row's" $py -c "
import json
row = json.load(open('$tmp/apisaved.json'))['rows'][0]
r = json.load(open('$tmp/apireport.json'))
o = r['options'][0]
assert o['pricing'] == 'per_unit' and abs(o['total'] - row['total']) <= 1e-9 * row['total'], (o, row)
assert abs(o['total'] - r['demand_work'] * (1.10 + 4 * 0.25)) <= 1e-9 * o['total']
assert 'https://example.com/pricing' in r['scenario_json']['notes']
"

finish

#!/usr/bin/env bash
# Hosted-model (API) prices through the real binary (docs/catalog.md "API prices"): the bundled
# table in force, `pricing api list|import` and `pricing import --format api`, history (a later
# price in force from its date on, a repeat adding nothing), a bad file importing nothing.
set -u
gpuplan=$1
. "$(dirname "$0")/lib.sh"
export GPUPLAN_DB=$tmp/db HOME=$tmp

"$gpuplan" pricing api list --as-of 2026-12-01 >"$tmp/list.out"
check "the bundled table: seven prices in force" test "$(grep -c USD "$tmp/list.out")" -eq 7
check "each with its URL" test "$(grep -c ' https://' "$tmp/list.out")" -eq 7
check "by model, then output price: DeepInfra's 8B before Bedrock's" \
    bash -c "grep -n 'llama-3.1-8b-instruct' '$tmp/list.out' | head -1 | grep -q deepinfra"
check "none in force before the reading date" \
    bash -c "'$gpuplan' pricing api list --as-of 2026-01-01 | grep -q '^no API price in force on 2026-01-01'"
check "--provider and --model filter" \
    bash -c "'$gpuplan' pricing api list --as-of 2026-12-01 --provider fireworks --model mixtral-8x7b-instruct | grep -c USD | grep -qx 1"

# A later price for one pair, imported through pricing import --format api.
cat >"$tmp/later.csv" <<'CSV'
provider,model,input_per_m,output_per_m,currency,effective_from,source
fireworks,llama-3-70b-instruct,0.70,0.80,USD,2027-01-01,test table
CSV
check "pricing import --format api" \
    bash -c "'$gpuplan' pricing import '$tmp/later.csv' --format api | grep -q '1 API prices read, 1 added, 0 already held'"
check "pricing api import of the same file adds nothing" \
    bash -c "'$gpuplan' pricing api import '$tmp/later.csv' | grep -q '1 API prices read, 0 added, 1 already held'"
check "the old price in force before the new one's date" \
    bash -c "'$gpuplan' pricing api list --as-of 2026-12-31 --provider fireworks --model llama-3-70b-instruct | grep -Eq ' 0\.9000 +0\.9000 USD +2026-11-27 +2 '"
check "the new one from its date on" \
    bash -c "'$gpuplan' pricing api list --as-of 2027-01-01 --provider fireworks --model llama-3-70b-instruct | grep -Eq ' 0\.7000 +0\.8000 USD +2027-01-01 +2 +test table'"
check "--history lists both" \
    bash -c "'$gpuplan' pricing api list --history --model llama-3-70b-instruct --provider fireworks | grep -c USD | grep -qx 2"

# A bad row: exit 2, one line naming file, line and column; nothing written.
cat >"$tmp/bad.csv" <<'CSV'
provider,model,input_per_m,output_per_m,currency,effective_from,source
deepinfra,mixtral-8x7b-instruct,0.2,0.2,USD,2027-02-01,ok row
deepinfra,llama-3-8b-instruct,-1,0.2,USD,2027-02-01,bad row
CSV
"$gpuplan" pricing api import "$tmp/bad.csv" >"$tmp/out" 2>"$tmp/err"
check "a bad price exits 2" test $? -eq 2
check "naming file, line and column in one line" \
    bash -c "grep -q 'bad.csv:3: input_per_m' '$tmp/err' && [ \$(wc -l <'$tmp/err') = 1 ]"
check "nothing of the file written" \
    bash -c "'$gpuplan' pricing api list --history --provider deepinfra --model mixtral-8x7b-instruct | grep -q '^no API price'"
check "an unknown --format is refused" \
    bash -c "'$gpuplan' pricing import '$tmp/later.csv' --format apis 2>&1 | grep -q 'gcp-cud or api'"
finish

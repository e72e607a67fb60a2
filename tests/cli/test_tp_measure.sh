#!/usr/bin/env bash
# throughput import --prometheus against a real Prometheus on loopback holding a day of a
# serving fleet (tests/cli/gen_serving.py): vLLM, SGLang and TGI token counters and
# dcgm-exporter's GPU_UTIL with pod labels. The measured figure per busy GPU-hour must equal
# the generated served rate within 1 % (a counter reset and an idle stretch included), a pod
# with no GPU series is reported, a re-run keeps history, the figure wins in throughput list and
# compare, a node's Prometheus source narrows the GPUs; bad requests exit 2 and store nothing.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
export HOME=$tmp
if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
    echo "FAIL prometheus and promtool are not installed (apt-get install prometheus)"
    exit 1
fi
free_port() { $py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
end=$(( $(date +%s) / 300 * 300 ))
$py "$root/tests/cli/gen_serving.py" "$tmp" "$end" >"$tmp/rates"
promtool tsdb create-blocks-from openmetrics "$tmp/serving.om" "$tmp/tsdb" >/dev/null
port=$(free_port)
printf 'global:\n  scrape_interval: 1m\nscrape_configs: []\n' >"$tmp/prom.yml"
timeout 280 prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
    --storage.tsdb.retention.time=10y --web.listen-address="127.0.0.1:$port" \
    >"$tmp/prom.log" 2>&1 &
echo $! >"$tmp/prom.pid"
url="http://127.0.0.1:$port"
for _ in $(seq 300); do
    curl -s "$url/api/v1/query?query=count(DCGM_FI_DEV_GPU_UTIL)&time=$end" |
        grep -q '"value":\[[0-9.]*,"6"\]' && break
    sleep 0.1
done
check "Prometheus is up with the serving day" \
    grep -q . <(curl -s "$url/api/v1/query?query=count(DCGM_FI_DEV_GPU_UTIL)&time=$end" | grep '"6"')
export GPUPLAN_DB=$tmp/a.db
rate() { awk -v m="$1" '$1 == m {print $2}' "$tmp/rates"; }
# figure MODEL FILE: the PER BUSY GPU-H column of MODEL's row
figure() { awk -v m="$1" '$1 == m && $2 ~ /^llm-/ {print $3}' "$2"; }
within() { $py -c 'import sys; a, b = float(sys.argv[1] or "nan"), float(sys.argv[2]); sys.exit(0 if abs(a - b) <= 0.01 * b else 1)' "$1" "$2"; }

"$gpuplan" throughput import --prometheus "$url" --profile llm-inference-decode --since 1d \
    --until "$end" >"$tmp/m1.out" 2>"$tmp/m1.err"
check "the import exits 0" test $? -eq 0
cat "$tmp/m1.out"
check "H100 measured within 1 % of the served rate ($(rate H100))" \
    within "$(figure H100 "$tmp/m1.out")" "$(rate H100)"
check "A100 (SGLang and TGI) within 1 % of the served rate ($(rate A100-80GB))" \
    within "$(figure A100-80GB "$tmp/m1.out")" "$(rate A100-80GB)"
# The H100s were idle 2 h of 24: busy share 22/24.
check "L40S (dcgm-exporter's labels renamed exported_pod) within 1 % of $(rate L40S)" \
    within "$(figure L40S "$tmp/m1.out")" "$(rate L40S)"
check "the H100s' busy share is 91.7 %" grep -Eq '^H100 .* 91\.7% +1 vllm$' "$tmp/m1.out"
check "the A100 row counts two pods, sglang and tgi" grep -Eq '^A100-80GB .* 2 sglang,tgi$' "$tmp/m1.out"
check "the pod with no GPU series is reported" \
    grep -q '^pod llm/vllm-orphan (vllm): 8.6400 M tokens, no GPU series' "$tmp/m1.out"
check "the training pod's GPU is not counted (A100: 48 GPU-hours held)" \
    grep -Eq '^A100-80GB .* 48\.00 ' "$tmp/m1.out"
"$gpuplan" throughput list --profile llm-inference-decode --gpu H100 >"$tmp/list.out"
check "throughput list: the measured H100 figure is in use" \
    grep -Eq '^H100 +llm-inference-decode +2\.7[0-9]* +M tokens +measured .* yes$' "$tmp/list.out"
check "its source names the engine, the server and the window" \
    grep -q "source: measured from the serving engine (vllm, output tokens) at $url" "$tmp/list.out"
"$gpuplan" compare --work 1000 --unit "M tokens" --profile llm-inference-decode \
    --format csv >"$tmp/cmp.csv" 2>&1
check "compare uses the measured H100 figure" \
    $py -c 'import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r.get("gpu") == "H100"]
ok = rows and all("measured" in ",".join(r.values()) for r in rows)
sys.exit(0 if ok else 1)' "$tmp/cmp.csv"

# One host a query: the GPU series asked for in three groups, the same figures.
"$gpuplan" throughput import --prometheus "$url" --profile llm-inference-decode --since 1d \
    --until "$end" --hosts-per-query 1 >"$tmp/m1b.out" 2>&1
check "--hosts-per-query 1 gives the same figures" \
    bash -c "diff <(grep -E '^(H100|A100|L40S|pod) ' '$tmp/m1.out') <(grep -E '^(H100|A100|L40S|pod) ' '$tmp/m1b.out')"

# A re-run (prompt tokens now) replaces the figure in force and keeps both in history.
"$gpuplan" throughput import --prometheus "$url" --profile llm-inference-decode --since 1d \
    --until "$end" --tokens input >"$tmp/m2.out" 2>&1
check "prompt tokens: H100 within 1 % of $(rate H100-input)" \
    within "$(figure H100 "$tmp/m2.out")" "$(rate H100-input)"
"$gpuplan" throughput history --gpu H100 >"$tmp/hist.out"
check "history keeps every run (two of generated tokens, one of prompt tokens)" \
    test "$(grep -c '^H100 ' "$tmp/hist.out")" -eq 3
"$gpuplan" throughput list --profile llm-inference-decode --gpu H100 >"$tmp/list2.out"
check "the latest run is the figure in force" \
    grep -Eq '^H100 +llm-inference-decode +5\.(39|40)[0-9]* +M tokens +measured' "$tmp/list2.out"
# --match narrows the token counters: only SGLang's pod.
"$gpuplan" throughput import --prometheus "$url" --profile llm-inference-decode --since 1d \
    --until "$end" --match '{pod="sglang-b"}' >"$tmp/m3.out" 2>&1
check "--match: one A100 at SGLang's 400 tokens/s (1.44)" \
    within "$(figure A100-80GB "$tmp/m3.out")" 1.44
check "--match: no H100 figure" test -z "$(figure H100 "$tmp/m3.out")"

# A node's Prometheus source: its selector narrows the GPUs to host h1.
"$gpuplan" node add h1 --prometheus "$url" --match '{Hostname="h1"}' >/dev/null
"$gpuplan" throughput import --node h1 --profile llm-inference-decode --since 1d \
    --until "$end" >"$tmp/m4.out" 2>&1
check "--node: the A100 figure from the node's source" \
    within "$(figure A100-80GB "$tmp/m4.out")" "$(rate A100-80GB)"
check "--node: vLLM's pod on another host is reported, not counted" \
    grep -q '^pod llm/vllm-a (vllm): ' "$tmp/m4.out"

# Bad requests: one line, exit 2, nothing stored.
before=$("$gpuplan" throughput history | wc -l)
bad() {
    local what=$1 want=$2; shift 2
    "$gpuplan" throughput import "$@" >"$tmp/bad.out" 2>&1
    local rc=$?
    check "$what: exit $want" test "$rc" -eq "$want"
    check "$what: one line" test "$(wc -l <"$tmp/bad.out")" -eq 1
}
bad "a profile counted in PFLOP" 2 --prometheus "$url" --profile fp32
bad "a selector without braces" 2 --prometheus "$url" --profile llm-inference-decode --match 'pod="x"'
bad "credentials in the URL" 2 --prometheus "http://u:secret@127.0.0.1:$port" --profile llm-inference-decode
check "the password is not repeated" test "$(grep -c secret "$tmp/bad.out")" -eq 0
bad "no token counters in the window" 2 --prometheus "$url" --profile llm-inference-decode \
    --since 1h --until "$((end - 3 * 86400))"
bad "a node without a Prometheus source" 2 --node nosuch --profile llm-inference-decode
bad "the server's refusal" 2 --prometheus "$url" --profile llm-inference-decode --match '{pod=~"("}'
kill "$(cat "$tmp/prom.pid")"
wait 2>/dev/null
bad "a server gone" 1 --prometheus "$url" --profile llm-inference-decode --timeout 5s
check "nothing stored by the failures" test "$("$gpuplan" throughput history | wc -l)" -eq "$before"
finish

# Sourced by test_capacity_rules.sh and test_history_rules.sh: the real servers they compare
# gpuplan's recorded series on, started on loopback from the history in $tmp/history.om
# (tests/cli/gen_history.py) and waited on by state. Needs $py, $tmp and $end (the history's
# end, Unix seconds); each server stops by itself after 280 s (timeout) if the test does not.

free_port() { $py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# wait_for URL QUERY N: until the server answers QUERY at the history's last minute with N.
wait_for() {
    for _ in $(seq 600); do
        curl -s "$1/api/v1/query" --data-urlencode "query=$2" --data "time=$((end - 60))" |
            grep -q "\"value\":\[[0-9.]*,\"$3\"\]" && return 0
        sleep 0.1
    done
    return 1
}
# start_prom NAME: a Prometheus on $tmp/tsdb, its URL in $url once it answers for the data,
# its pid in $tmp/NAME.pid, its query log in $tmp/NAME.queries.
start_prom() {
    local port
    port=$(free_port)
    printf 'global:\n  scrape_interval: 1m\n  query_log_file: %s\nscrape_configs: []\n' \
        "$tmp/$1.queries" >"$tmp/prom.yml"
    timeout 280 prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
        --storage.tsdb.retention.time=10y --web.listen-address="127.0.0.1:$port" \
        >"$tmp/$1.log" 2>&1 &
    echo $! >"$tmp/$1.pid"
    url=http://127.0.0.1:$port
    wait_for "$url" 'count(DCGM_FI_DEV_POWER_USAGE)' 8
}
# start_vm: a VictoriaMetrics on $tmp/vm holding the raw history, its URL in $url, its pid in
# $tmp/vm.pid; the caller checks that it answers for the data (wait_for).
start_vm() {
    local port
    port=$(free_port)
    timeout 280 victoria-metrics -storageDataPath="$tmp/vm" -httpListenAddr="127.0.0.1:$port" \
        -retentionPeriod=100y -search.latencyOffset=0s >"$tmp/vm.log" 2>&1 &
    echo $! >"$tmp/vm.pid"
    url=http://127.0.0.1:$port
    for _ in $(seq 300); do curl -s "$url/health" | grep -q OK && break; sleep 0.1; done
    awk '/^#/ {next} {$NF = $NF "000"; print}' "$tmp/history.om" >"$tmp/vm.txt" # ms times
    curl -s --data-binary @"$tmp/vm.txt" "$url/api/v1/import/prometheus"
    curl -s "$url/internal/force_flush"
}

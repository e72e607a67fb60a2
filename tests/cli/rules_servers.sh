# Sourced by test_capacity_rules.sh, test_history_rules.sh and the benches
# tests/bench/bench_{capacity,history}_rules.sh: the real servers they compare gpuplan's
# recorded series on, started on loopback and waited on by state. Needs $py, $tmp and $end (the
# history's end, Unix seconds). Each server's pid is in $tmp/NAME.pid (the caller's exit trap
# stops them: tests/cli/lib.sh's, or stop_servers), its output in $tmp/NAME.log. Settings a caller may change before it calls:
#   server_life  seconds after which a server stops by itself if the caller has not stopped it
#                (default 280, for the tests; 0: never, for the benches' long loads)
#   wait_tries   how many times wait_for asks, 0.1 s apart (default 600)

free_port() { $py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# wait_for URL QUERY N: until the server answers QUERY at the history's last minute with N.
wait_for() {
    for _ in $(seq "${wait_tries:-600}"); do
        curl -s "$1/api/v1/query" --data-urlencode "query=$2" --data "time=$((end - 60))" |
            grep -q "\"value\":\[[0-9.]*,\"$3\"\]" && return 0
        sleep 0.1
    done
    echo "no answer $3 to $2 from $1" >&2
    return 1
}
# serve NAME COMMAND...: COMMAND in the background (stopped after $server_life seconds unless
# that is 0), its output in $tmp/NAME.log and its pid in $tmp/NAME.pid: the server's own pid
# when it has no time limit, so that the benches can read its CPU time from /proc.
serve() {
    local name=$1; shift
    local life=${server_life:-280}
    [ "$life" -gt 0 ] && set -- timeout "$life" "$@"
    "$@" >"$tmp/$name.log" 2>&1 &
    echo $! >"$tmp/$name.pid"
}
# stop_server NAME: the server in $tmp/NAME.pid stopped, and gone, before the caller goes on
# (its files can then be moved).
stop_server() {
    local p
    p=$(cat "$tmp/$1.pid")
    kill "$p" 2>/dev/null || :
    while kill -0 "$p" 2>/dev/null; do wait "$p" 2>/dev/null || sleep 0.1; done
    rm -f "$tmp/$1.pid"
}
# stop_servers: every server still up stopped, and gone (the benches' exit trap: the servers
# gone before their files are).
stop_servers() {
    local f
    for f in "$tmp"/*.pid; do [ ! -f "$f" ] || stop_server "$(basename "$f" .pid)"; done
}
# start_prom NAME [QUERY N [FLAGS...]]: a Prometheus on $tmp/tsdb (with FLAGS), its URL in
# $url once it answers QUERY with N (by default the 8 GPUs' power of tests/cli/gen_history.py),
# its query log in $tmp/NAME.queries.
start_prom() {
    local name=$1 query=${2:-count(DCGM_FI_DEV_POWER_USAGE)} n=${3:-8} port
    shift $(($# < 3 ? $# : 3))
    port=$(free_port)
    printf 'global:\n  scrape_interval: 1m\n  query_log_file: %s\nscrape_configs: []\n' \
        "$tmp/$name.queries" >"$tmp/$name.yml"
    serve "$name" prometheus --config.file="$tmp/$name.yml" --storage.tsdb.path="$tmp/tsdb" \
        --storage.tsdb.retention.time=10y --web.listen-address="127.0.0.1:$port" "$@"
    url=http://127.0.0.1:$port
    wait_for "$url" "$query" "$n"
}
# start_vm [FLAGS...]: a VictoriaMetrics on $tmp/vm (with FLAGS), its URL in $url once it is
# healthy, its pid in $tmp/vm.pid. Queries see every sample at once (no latency offset).
start_vm() {
    local port
    port=$(free_port)
    serve vm victoria-metrics -storageDataPath="$tmp/vm" -httpListenAddr="127.0.0.1:$port" \
        -retentionPeriod=100y -search.latencyOffset=0s "$@"
    url=http://127.0.0.1:$port
    for _ in $(seq 300); do curl -s "$url/health" | grep -q OK && break; sleep 0.1; done
}
# vm_import [FILE]: OpenMetrics text (FILE, or the standard input) streamed into the
# VictoriaMetrics at $url, flushed; the caller checks that it answers for the data (wait_for).
vm_import() {
    awk '/^#/ {next} {$NF = $NF "000"; print}' "$@" | # ms times
        curl -s -X POST -T - "$url/api/v1/import/prometheus" # streamed: --data-binary holds it all
    curl -s "$url/internal/force_flush"
}
# vm_replay FROM TO [FLAGS...]: vmalert evaluates $rules over [FROM, TO] (Unix seconds) against
# the VictoriaMetrics at $url and writes the results into it (with FLAGS; its output appended to
# $tmp/vmalert.log), at most 10,000 points a query unless FLAGS say otherwise.
vm_replay() {
    local from=$1 to=$2; shift 2
    vmalert -rule="$rules" -datasource.url="$url" -remoteWrite.url="$url" \
        -replay.timeFrom="$(date -u -d @"$from" +%FT%TZ)" -replay.timeTo="$(date -u -d @"$to" +%FT%TZ)" \
        -replay.disableProgressBar -replay.rulesDelay=0s -replay.maxDatapointsPerQuery=10000 \
        -httpListenAddr="127.0.0.1:$(free_port)" "$@" >>"$tmp/vmalert.log" 2>&1
}

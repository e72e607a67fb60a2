# Sourced by the shell tests in tests/cli, first thing after `set -u` and their arguments:
#   . "$(dirname "$0")/lib.sh"
# the header they share. It defines:
#   tmp     a new empty folder (mktemp -d), removed when the script exits
#   pids    an empty array for the pids of the background processes the script starts; at
#           exit they, and every pid in $tmp/*.pid (tests/cli/rules_servers.sh writes those),
#           are stopped and waited for (at most 10 s each, then killed) before $tmp is removed:
#           the servers gone before their files are
#   fails   0, the count of failed checks
#   check WHAT COMMAND...  runs COMMAND: prints "ok WHAT", or "FAIL WHAT" and counts it
#   finish [NAME]          the script's last line: prints "NAME: N failed" (or "N failed"); its
#                          status, the script's, is 0 only when no check failed
# A script must set nothing before; it may define on_exit, a function the exit trap runs once
# the processes are stopped and before $tmp is removed (for what is not a pid: a tmux server).

tmp=$(mktemp -d)
pids=()
cleanup() {
    local p
    for p in "${pids[@]}" $(cat "$tmp"/*.pid 2>/dev/null); do
        kill "$p" 2>/dev/null || continue
        for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
    done
    [ "$(type -t on_exit)" != function ] || on_exit
    rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
check() {
    local what=$1; shift
    if "$@"; then echo "ok $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
finish() {
    echo "${1:+$1: }$fails failed"
    [ "$fails" = 0 ]
}

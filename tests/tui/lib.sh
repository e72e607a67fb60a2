# The tmux helpers of a TUI test, sourced after setting gpuplan (the binary) and db (the
# database the TUI opens): the real binary in a real terminal, keystrokes with send-keys, the
# screen read back with capture-pane. Each test has its own tmux server socket, stopped with
# its temporary directory on exit. Checks wait on the screen, never on a fixed delay.
py=/usr/bin/python3
tmp=$(mktemp -d)
sock=$tmp/tmux.sock
t() { tmux -S "$sock" "$@"; }
trap 't kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/data
unset GPUPLAN_DB NO_COLOR GPUPLAN_ASCII
fails=0
screen() { t capture-pane -p -t g; }
# A check is retried for up to 6 s: the screen may still be catching up with the keys (an
# ASan build on a loaded machine is slow). Checks only read.
check() {
    local what=$1; shift
    for _ in $(seq 1 30); do
        if "$@" >/dev/null 2>&1; then echo "ok $what"; return; fi
        sleep 0.2
    done
    if "$@"; then echo "ok $what"; else echo "FAIL $what"; echo "--- screen:"; screen; fails=$((fails + 1)); fi
}
# Wait until the screen shows a text (up to 30 s).
wait_for() {
    for _ in $(seq 1 150); do screen | grep -qF -- "$1" && return 0; sleep 0.2; done
    return 1
}
press() { t send-keys -t g "$@"; }
start() { # WIDTH HEIGHT [ENV...]: gpuplan on $db in a fresh session
    local w=$1 h=$2; shift 2
    t kill-server 2>/dev/null
    while [ -S "$sock" ] && t has-session 2>/dev/null; do sleep 0.1; done
    rm -f "$sock" "$tmp/exit"
    t -f /dev/null new-session -d -s g -x "$w" -y "$h" \
        "env TERM=xterm-256color LANG=C.UTF-8 $* HOME=$tmp XDG_DATA_HOME=$tmp/data GPUPLAN_DB='$db' '$gpuplan'; echo \"EXIT=\$?\" >'$tmp/exit'; sleep 60"
    t set-option -g default-terminal xterm-256color >/dev/null
}
exited() { for _ in $(seq 1 100); do [ -s "$tmp/exit" ] && break; sleep 0.1; done; grep -q "EXIT=$1" "$tmp/exit"; }
# The label of the editor's selected field (black on cyan), leading spaces dropped.
selected() {
    t capture-pane -p -e -t g | grep -m1 -oP ' \e\[30m\e\[46m\K[^\e]*' | sed 's/^ *//; s/ *$//'
}
selected_is() { [ "$(selected)" = "$1" ]; }
# Select the editor's field labelled label (the editor has the focus): from the top, one field
# at a time, each move waited for on the screen. False when no field is labelled so.
goto_field() { # LABEL
    press g
    local prev="" now
    for _ in $(seq 1 100); do [ "$(selected)" = horizon ] && break; sleep 0.05; done
    for _ in $(seq 1 150); do
        for _ in $(seq 1 50); do
            now=$(selected)
            [ -n "$now" ] && [ "$now" != "$prev" ] && break
            sleep 0.05
        done
        [ "$now" = "$1" ] && return 0
        [ "$now" = "$prev" ] && break # the last field: it did not move
        prev=$now
        press j
    done
    echo "FAIL no field \"$1\" (stopped at \"$now\")"; screen; fails=$((fails + 1))
    return 1
}

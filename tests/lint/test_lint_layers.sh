#!/usr/bin/env bash
# The lint's include rules bite: on a scratch copy of the tracked tree, each mutation below (a
# report file including a store header, a TUI file including the store or taking the
# session's store, a command including the collector, the model including a report header, a
# header with no layer, a stale allow-list entry, a circle of calls among the store's files,
# an hour typed as digits, a command moved into another command's file) makes
# tests/lint/lint.sh fail
# with a line naming it, while the copy as committed passes.
set -u
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

copy() { # the tracked tree into $tmp/t, as its own git repository (lint.sh reads git's index)
    mkdir "$tmp/t" && (cd "$root" && git ls-files -z | xargs -0 cp --parents -t "$tmp/t") &&
        git -C "$tmp/t" init -q && git -C "$tmp/t" add -A &&
        git -C "$tmp/t" -c user.name=lint -c user.email=lint@localhost commit -qm copy
}
fresh() { # the copy as committed again, the last mutation undone
    git -C "$tmp/t" reset -q --hard && git -C "$tmp/t" clean -qfd
}
lint() { (cd "$tmp/t" && LINT_ONLY=includes bash tests/lint/lint.sh . >"$tmp/out" 2>&1); }
include_in() { # file, header: add the include after the file's first one, as git tracks it
    sed -i "0,/^#include /s||#include \"$2\"\n#include |" "$tmp/t/$1" && git -C "$tmp/t" add -A
}
bites() { # what, the line lint must print
    if lint; then
        fail "$1: the lint passed"
    elif ! grep -qF -- "$2" "$tmp/out"; then
        fail "$1: the lint failed without naming it ($2)"; cat "$tmp/out"
    fi
}

copy || { echo "FAIL cannot copy the tree"; exit 1; }
lint || { fail "the tree as committed fails the lint"; cat "$tmp/out"; }

fresh && include_in src/report/svg.c gpuplan/store_catalog.h
bites "a report file including store_catalog.h" "src/report/svg.c:"
grep -qF "report includes gpuplan/store_catalog.h (store)" "$tmp/out" || fail "the report line says why"

fresh && include_in tui/ui.c gpuplan/store.h
bites "a TUI file including store.h" "tui/ui.c:"
grep -qF "front includes gpuplan/store.h (store)" "$tmp/out" || fail "the TUI line says why"

fresh && sed -i '0,/^}/s||}\nstatic void leak(gp_session *s, gp_store **st, gp_err *e) { gp_session_store(s, st, e); }|' "$tmp/t/tui/ui.c" &&
    git -C "$tmp/t" add -A
bites "a TUI file taking the session's store" "tui/ui.c:"
grep -qF "a front end calls the store or the collector" "$tmp/out" || fail "the call's line says why"

fresh && include_in src/cli/cmd_exporter.c gpuplan/collect.h
bites "a command including collect.h" "src/cli/cmd_exporter.c:"

fresh && include_in src/model/engine.c gpuplan/report.h
bites "the model including a report header" "src/model/engine.c:"

fresh && printf '#ifndef GPUPLAN_WIDGET_H\n#define GPUPLAN_WIDGET_H\n#endif\n' \
    >"$tmp/t/include/gpuplan/widget.h" && git -C "$tmp/t" add -A
bites "a header with no layer" "include/gpuplan/widget.h has no layer"

fresh && cat "$tmp/t/src/cli/cmd_fleet.c" >>"$tmp/t/src/cli/cmd_node.c" &&
    git -C "$tmp/t" rm -q src/cli/cmd_fleet.c && git -C "$tmp/t" add -A
bites "a command in another command's file" "cmd_fleet is not defined in src/cli/cmd_fleet.c"

fresh && sed -i '/#include "gpuplan\/samples.h"/d' "$tmp/t/include/gpuplan/fleet.h" && git -C "$tmp/t" add -A
bites "a stale allow-list entry" "include/gpuplan/fleet.h including gpuplan/samples.h, which it no longer does"

fresh && printf '\nvoid store_hours_touch(gp_store *st);\nvoid store_hours_touch(gp_store *st) {\n    size_t n;\n    gp_err e;\n    store_seal(st, 0, 1, &n, &e);\n}\n' \
    >>"$tmp/t/src/store/store_hours.c" && git -C "$tmp/t" add -A
bites "a circle of calls among the store's files" "src/store/store_hours.c calls store_seal"

fresh && sed -i 's/now_ms - GP_HOUR_MS/now_ms - 3600000/' "$tmp/t/src/store/store_seal.c" && git -C "$tmp/t" add -A
bites "an hour typed as digits" "src/store/store_seal.c:"

echo "lint layers: $fails failed"
[ "$fails" = 0 ]

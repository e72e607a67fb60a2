#!/usr/bin/env bash
# Structural checks (docs/development.md): each library is called from its one layer, lower layers
# never include upper layers' headers, banned functions stay out, and every public header
# compiles on its own.
set -u
root=$1 cc=${2:-cc}
cd "$root" || exit 1
fails=0
bad() { echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2"; fails=$((fails + 1)); }

layer() { # pattern, allowed path regex, what
    local hits
    hits=$(git grep -nE "$1" -- 'src/*.c' 'src/*.h' 'include/*.h' 'tui/*.c' 'tui/*.h' 2>/dev/null |
           grep -vE "^($2)")
    [ -z "$hits" ] || bad "$3 is called outside its layer" "$hits"
}
layer '\bsqlite3_[a-z_]+\(' 'src/store/' 'SQLite'
layer '\b(initscr|newwin|wgetch|mvaddstr|getmouse)\(' 'tui/' 'ncurses'
layer '\bcurl_(easy|multi)_[a-z_]+\(' 'src/collect/|src/net/' 'libcurl'
layer '#include *[<"](n?curses|ncursesw/curses)\.h' 'tui/' 'ncurses'
layer '\b(workbook_new|worksheet_write_[a-z_]+)\(' 'src/report/xlsx' 'libxlsxwriter'
layer '\bMHD_[a-z_]+\(|#include *<microhttpd\.h>' 'src/cli/cmd_exporter\.c' 'libmicrohttpd'

# Every include of a public header against the layers (docs/architecture.md, Layers). Each
# header of include/gpuplan/ has a layer, by its prefix or by the table below; a header with
# none fails, so a new one is placed when it is written. Each folder may include the layers
# listed for it; a header may include what its layer's folder may.
header_layer() { # header's base name -> base|model|formats|store|collect|report|app
    case $1 in
        app_*) echo app ;;
        report_* | report | svg) echo report ;;
        store | store_*) echo store ;;
        collect | collect_* | fetch | catalog_load) echo collect ;;
        error | xmem | files | parse | text | numfmt | output | clock | embedded) echo base ;;
        scenario | engine | sweep | sensitivity | capacity | batch_diff | compare | fleet | metrics | workload | inputs) echo model ;;
        scenario_json | csv | catalog | reference | samples | prom_range | chunk | url | batch_json | throughput | workload_json | fx | api_price) echo formats ;;
        *) echo none ;;
    esac
}
may_include() { # layer of the including file -> the layers it may include
    case $1 in
        base) echo 'base' ;;
        model) echo 'base model' ;;
        formats) echo 'base model formats' ;;
        store) echo 'base model formats store' ;;
        report) echo 'base model formats report' ;;
        collect) echo 'base model formats store collect' ;;
        app) echo 'base model formats store collect report app' ;;
        front) echo 'base model formats report app' ;; # src/cli/, tui/: no store, no collector
    esac
}
file_layer() { # a path -> its layer
    case $1 in
        include/gpuplan/*) header_layer "$(basename "$1" .h)" ;;
        src/base/*) echo base ;;
        src/model/*) echo model ;;
        src/formats/*) echo formats ;;
        src/store/*) echo store ;;
        src/collect/*) echo collect ;;
        src/report/*) echo report ;;
        src/app/*) echo app ;;
        src/cli/* | tui/*) echo front ;;
        *) echo none ;;
    esac
}
# Debt being paid, each include named, to be removed with it; nothing may be added here (a
# stale entry fails below): two model headers that take a type from formats (gp_metric for
# the fleet's walls, gp_tp_kind for a comparison's row).
allowed_debt='
include/gpuplan/compare.h gpuplan/throughput.h
include/gpuplan/fleet.h gpuplan/samples.h
'
for h in include/gpuplan/*.h; do
    [ "$(header_layer "$(basename "$h" .h)")" != none ] ||
        bad "$h has no layer (give it one in tests/lint/lint.sh, header_layer)"
done
hits=$(git grep -nE '^#include "gpuplan/[A-Za-z0-9_]+\.h"' -- 'src/*.c' 'src/*.h' 'include/*.h' 'tui/*.c' 'tui/*.h' 2>/dev/null |
    while IFS=: read -r file line text; do
        inc=${text#*\"}; inc=${inc%%\"*}
        from=$(file_layer "$file") to=$(header_layer "$(basename "$inc" .h)")
        case " $(may_include "$from") " in *" $to "*) continue ;; esac
        case $allowed_debt in *"
$file $inc
"*) continue ;; esac
        echo "$file:$line: $from includes $inc ($to)"
    done)
[ -z "$hits" ] || bad "an include crosses the layers (docs/architecture.md, Layers)" "$hits"
hits=$(git grep -nE '#include "(\.\./)*(cli|tui)' -- 'src/model' 'src/formats' 'src/store' 'src/report' 'src/collect' 'src/app' 'src/base' 2>/dev/null)
[ -z "$hits" ] || bad "the library includes a front end's header" "$hits"
# The allow-list only shrinks: an entry whose include is gone is stale.
while read -r file inc; do
    [ -n "$file" ] || continue
    grep -qF "#include \"$inc\"" "$file" 2>/dev/null ||
        bad "tests/lint/lint.sh lists $file including $inc, which it no longer does: remove the entry"
done <<<"$allowed_debt"
# Nor through a header an app_*.h brings along: the front ends call no store or collector
# function, and the session's store is for the services (a front end opens it, gp_session_open).
hits=$(git grep -nE '\bgp_(store_[a-z0-9_]+|session_store|session_catalog|catalog_load_bundle|catalog_bundle_[a-z]+|collect_(cycle|store_result|token_file_check)|history_(import|query|selector|hosts|label_values))\(' -- 'src/cli/*' 'tui/*' 2>/dev/null)
[ -z "$hits" ] || bad "a front end calls the store or the collector (ask a service in src/app/)" "$hits"
# The store's files call each other one way (docs/architecture.md, "A sample's life"): no
# circle of calls among src/store/*.c. And time and day-id constants are named once
# (include/gpuplan/clock.h, src/store/store_int.h), never typed as digits elsewhere.
hits=$(git ls-files -z 'src/store/*.c' | xargs -0 /usr/bin/python3 -c '
import os, re, sys
defs, edges = {}, {}
for f in sys.argv[1:]:
    for m in re.finditer(r"^[a-z_0-9]+[ *]+((?:gp_)?store_\w+)\(", open(f).read(), re.M):
        defs[m.group(1)] = f
for f in sys.argv[1:]:
    for m in re.finditer(r"\b((?:gp_)?store_\w+)\(", open(f).read()):
        d = defs.get(m.group(1))
        if d and d != f:
            edges.setdefault(f, {}).setdefault(d, m.group(1))
def path(a, b, seen):
    for n, fn in edges.get(a, {}).items():
        if n == b:
            return [(a, fn)]
        if n not in seen:
            seen.add(n)
            p = path(n, b, seen)
            if p:
                return [(a, fn)] + p
for f in sorted(edges):
    p = path(f, f, set())
    if p:
        print(f + ": a circle of calls: " + ", ".join(a + " calls " + fn for a, fn in p))
        break
' 2>&1)
[ -z "$hits" ] || bad "the store's files call each other in a circle" "$hits"
hits=$(git grep -nE '\b(86400000|3600000|1048576|1048575)\b' -- 'src' 'tui' 'include' |
       grep -vE '^include/gpuplan/clock\.h:|^src/store/store_int\.h:')
[ -z "$hits" ] || bad "a time or day-id constant typed as digits (name it: GP_HOUR_MS, GP_DAY_MS, STORE_DAY_ID_SPAN)" "$hits"
# One file a command (docs/development.md, Source layout): each command of src/cli/main.c's
# table is defined in src/cli/cmd_<command>.c, and each src/cli/cmd_*.c is a command's.
table=$(grep -oE '\bcmd_[a-z_]+ *\}' src/cli/main.c | tr -d ' }')
hits=$(for fn in $table; do
           grep -qE "^int $fn\(" "src/cli/$fn.c" 2>/dev/null ||
               echo "src/cli/main.c: $fn is not defined in src/cli/$fn.c"
       done
       git ls-files 'src/cli/cmd_*.c' | while read -r f; do
           case " $(echo $table) " in *" $(basename "$f" .c) "*) ;; *) echo "$f: no command of that name" ;; esac
       done)
[ -n "$table" ] || hits="src/cli/main.c: no command table found"
[ -z "$hits" ] || bad "a command is not in its own src/cli/cmd_<command>.c" "$hits"
[ "${LINT_ONLY:-}" = includes ] && { echo "lint: $fails failed"; [ "$fails" = 0 ]; exit; }

# Front ends share src/app/ and never call each other; services return data, never print.
hits=$(git grep -nE '#include "[^"]*cli[^"]*\.h"|\bcli_[a-z_]+\(' -- 'tui/*.c' 'tui/*.h' 2>/dev/null)
[ -z "$hits" ] || bad "the TUI uses the CLI (front ends share src/app/)" "$hits"
hits=$(git grep -nE '\b(printf|puts|fputs|fprintf)\(|\bstdout\b|\bstderr\b|curses\.h' -- 'src/app/*.c' 'include/gpuplan/app_*.h' 2>/dev/null |
       grep -v snprintf)
[ -z "$hits" ] || bad "src/app/ writes to the terminal (services return data)" "$hits"

# Banned functions (docs/development.md, Formatting).
hits=$(git grep -nE '\b(strcpy|strcat|sprintf|gets|atoi|atof|strtok|localtime|system)\(' -- '*.c' '*.h' |
       grep -vE 'snprintf|vsnprintf|localtime_r')
[ -z "$hits" ] || bad "banned functions" "$hits"

# Every public header compiles on its own (docs/development.md, Headers and ownership).
cflags=$(pkg-config --cflags libcjson sqlite3 2>/dev/null)
for h in include/gpuplan/*.h; do
    if ! echo "#include \"gpuplan/$(basename "$h")\"" |
        $cc -std=c17 -Wall -Wextra -Werror -fsyntax-only -Iinclude $cflags -x c - 2>/tmp/lint.$$; then
        bad "$h does not compile alone" "$(cat /tmp/lint.$$)"
    fi
    grep -q "GPUPLAN_$(basename "$h" .h | tr a-z A-Z)_H" "$h" || bad "$h lacks its GPUPLAN_..._H guard"
done
rm -f /tmp/lint.$$
# Formatting (docs/development.md): every C file as clang-format writes it with .clang-format.
unformatted=$(git ls-files '*.c' '*.h' | while read -r f; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"; done)
[ -z "$unformatted" ] || bad "not clang-formatted (run clang-format -i)" "$unformatted"

echo "lint: $fails failed"
[ "$fails" = 0 ]

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
# The exporter's front end reaches the store only through its service (src/app/exporter.c).
hits=$(git grep -nE '#include "gpuplan/store' -- src/cli/cmd_exporter.c 2>/dev/null)
[ -z "$hits" ] || bad "the exporter's front end includes a store header" "$hits"

# Lower layers must not include the headers of the layers above them (docs/architecture.md, Layers).
upper() { # folder, headers it must not include
    local hits
    hits=$(git grep -nE "#include \"gpuplan/($2)\.h\"" -- "$1" 2>/dev/null)
    [ -z "$hits" ] || bad "$1 includes a header of a layer above it" "$hits"
}
upper 'src/model/' 'store|report|collect|scenario_json|catalog|telemetry_store'
upper 'src/formats/' 'store|report|collect'
upper 'src/store/' 'report|collect'
upper 'src/report/' 'store|collect'
hits=$(git grep -nE '#include "(\.\./)*(cli|tui)' -- 'src/model' 'src/formats' 'src/store' 'src/report' 'src/collect' 2>/dev/null)
[ -z "$hits" ] || bad "the library includes a front end's header" "$hits"
hits=$(git grep -nE '#include "gpuplan/app_' -- 'src/base' 'src/model' 'src/formats' 'src/store' 'src/report' 'src/collect' 2>/dev/null)
[ -z "$hits" ] || bad "a layer below src/app/ includes an application header" "$hits"

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

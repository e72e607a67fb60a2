#!/usr/bin/env bash
# Everything `gpuplan --help` offers is documented in docs/: every command (as "gpuplan CMD"),
# every subcommand its help lists (as "gpuplan CMD SUB"), and every option of its usage lines
# and of a subcommand's own help (scenario draft, scenario measure). And the README stays a
# front page: at most 160 lines, with the Quick start's two commands.
set -u
gpuplan=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/data
unset GPUPLAN_DB
docs=$root/docs
cat "$docs"/*.md >"$tmp/docs.md" || { echo "FAIL no docs/*.md"; exit 1; }
fails=0 checked=0
need() { # what text: the text must appear in docs/
    checked=$((checked + 1))
    if grep -qE -- "$2([^a-z0-9-]|\$)" "$tmp/docs.md"; then echo "ok $1"; else echo "FAIL $1: \"$2\" is in no docs/*.md"; fails=$((fails + 1)); fi
}
usage() { awk '!NF { exit } { print }'; } # the first block of a help: its usage lines
options() { grep -oE -- '(^|[ [])--?[a-z][a-z0-9-]*' | tr -d ' [' | sort -u; }

"$gpuplan" --help >"$tmp/help" || { echo "FAIL gpuplan --help"; exit 1; }
awk '/^commands:/ { f = 1; next } f && !NF { exit } f { print $1 }' "$tmp/help" >"$tmp/commands"
[ "$(wc -l <"$tmp/commands")" -ge 10 ] || { echo "FAIL gpuplan --help lists no commands"; exit 1; }
need "the global option --db" "--db"
need "the global option --demo" "--demo"
while read -r cmd; do
    "$gpuplan" "$cmd" --help >"$tmp/cmd" || { echo "FAIL gpuplan $cmd --help"; fails=$((fails + 1)); continue; }
    need "command $cmd" "gpuplan $cmd"
    for opt in $(usage <"$tmp/cmd" | options); do need "$cmd option $opt" "$opt"; done
    for sub in $(grep -oE "gpuplan $cmd [a-z]+( |$)" "$tmp/cmd" | awk '{ print $3 }' | sort -u); do
        need "subcommand $cmd $sub" "gpuplan $cmd $sub"
        if "$gpuplan" "$cmd" "$sub" --help >"$tmp/sub" 2>/dev/null && ! cmp -s "$tmp/sub" "$tmp/cmd"; then
            for opt in $(usage <"$tmp/sub" | options); do need "$cmd $sub option $opt" "$opt"; done
        fi
    done
done <"$tmp/commands"

readme=$root/README.md
checked=$((checked + 3))
n=$(wc -l <"$readme")
if [ "$n" -le 160 ]; then echo "ok README is $n lines"; else echo "FAIL README is $n lines (at most 160)"; fails=$((fails + 1)); fi
for c in 'tools/dev run' 'tools/dev test'; do
    if grep -A12 '^## Quick start' "$readme" | grep -q "^$c"; then echo "ok Quick start: $c"
    else echo "FAIL the README's Quick start lacks $c"; fails=$((fails + 1)); fi
done
# The README and the planning page name the cost model version the binary follows.
model=$("$gpuplan" --version | sed -nE 's/.*\(cost model ([0-9]+)\).*/\1/p')
for page in "$readme" "$docs/planning.md"; do
    checked=$((checked + 1))
    named=$(grep -oE 'model\.md\]\([^)]*model\.md\) \(version [0-9]+\)' "$page" | grep -oE '[0-9]+\)$' | tr -d ')')
    if [ -n "$model" ] && [ "$named" = "$model" ]; then echo "ok $(basename "$page") names cost model version $model"
    else echo "FAIL $(basename "$page") names cost model version '${named}', the binary follows '$model'"; fails=$((fails + 1)); fi
done
echo "$checked checked, $fails failed"
[ "$fails" = 0 ]

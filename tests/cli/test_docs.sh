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
# No reference outside the repository: the cost model, the design and the conventions are
# docs/model.md, docs/architecture.md and docs/development.md. The patterns are written so
# that this file does not match them itself.
outside='[.][.]/shared|MODEL[.]md|DESIGN[.]md|STYLE[.]md|STYLE [LNHMEPSCXTQBF][0-9]|fresh[-]machine'
outside_refs() { # dir: prints every line of its tracked (else all) text files citing outside
    if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$1" grep -nIE "$outside" -- . ':!build*'
    else
        grep -rnIE --exclude-dir='build*' --exclude-dir=.git "$outside" "$1"
    fi
}
mkdir -p "$tmp/planted" && printf 'see ../%s/MODEL%smd\n' shared . >"$tmp/planted/a.md"
checked=$((checked + 1))
if [ -n "$(outside_refs "$tmp/planted")" ]; then echo "ok the outside-reference check finds a planted one"
else echo "FAIL the outside-reference check misses a planted reference"; fails=$((fails + 1)); fi
checked=$((checked + 1))
hits=$(outside_refs "$root")
if [ -z "$hits" ]; then echo "ok no reference outside the repository"
else echo "FAIL references outside the repository:"; printf '%s\n' "$hits" | head -20; fails=$((fails + 1)); fi

# docs/development.md's Source layout names every source file in its folder's entry, and only
# files that are there.
layout() { # development.md, root: prints each file missing from its folder's entry, each stale name
    /usr/bin/python3 - "$1" "$2" <<'PY'
import os, re, sys
text, root = open(sys.argv[1]).read(), sys.argv[2]
m = re.search(r'^## Source layout\n(.*?)(?=^## )', text, re.S | re.M)
if not m:
    print('no "## Source layout" section'); sys.exit()
entries = {}
for bullet in re.split(r'^- ', m.group(1), flags=re.M)[1:]:
    f = re.match(r'`([^`]+/)`', bullet)
    if f:
        entries[f.group(1)] = set(re.findall(r'`([A-Za-z0-9_]+\.[ch])`', bullet))
folders = ['src/' + d + '/' for d in sorted(os.listdir(os.path.join(root, 'src')))] + ['tui/', 'include/gpuplan/']
for d in folders:
    have = {n for n in os.listdir(os.path.join(root, d)) if n.endswith(('.c', '.h'))}
    named = entries.get(d)
    if named is None:
        print('%s has no entry' % d); continue
    for n in sorted(have - named):
        print('%s%s is not named' % (d, n))
    for n in sorted(named - have - set(os.listdir(os.path.join(root, 'include/gpuplan')))):
        print('%s%s is named but is not there' % (d, n))
PY
}
sed 's/`chunk\.c`//' "$docs/development.md" >"$tmp/layout.md"
checked=$((checked + 1))
if layout "$tmp/layout.md" "$root" | grep -q 'src/formats/chunk.c is not named'; then echo "ok the layout check finds a file left out"
else echo "FAIL the layout check misses a file left out"; fails=$((fails + 1)); fi
checked=$((checked + 1))
missing=$(layout "$docs/development.md" "$root")
if [ -z "$missing" ]; then echo "ok docs/development.md names every source file"
else echo "FAIL docs/development.md, Source layout:"; printf '%s\n' "$missing"; fails=$((fails + 1)); fi
echo "$checked checked, $fails failed"
[ "$fails" = 0 ]

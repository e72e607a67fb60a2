#!/usr/bin/env bash
# The workbook's cached values against two real spreadsheet engines: every formula cell of every
# worked scenario (and the plans of fixtures/scenarios) holds what LibreOffice's recalculation
# computes, cell for cell; Gnumeric's ssconvert, a second engine, agrees on the version 2 plans.
# First the check itself must catch one changed cached value.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp GPUPLAN_DB=$tmp/db
fails=0
check=$root/tests/xlsx/check_cached.py
seed=$root/tests/fixtures/examples/seed-dgx-a100.json
if $py "$check" "$gpuplan" "$seed" "$tmp/mutated" --mutate >"$tmp/mutated.log" 2>&1; then
    echo "FAIL the check accepts a changed cached value"; fails=$((fails + 1))
else
    echo "ok the check catches a changed cached value"
fi
for scen in "$root"/tests/fixtures/examples/*.json "$root"/tests/fixtures/scenarios/*.json; do
    case $scen in *.expected.json) continue ;; esac
    name=$(basename "$scen" .json)
    engines=libreoffice
    case $name in v2-*) engines="libreoffice gnumeric" ;; esac
    for engine in $engines; do
        if $py "$check" "$gpuplan" "$scen" "$tmp/$name" --engine "$engine" >"$tmp/$name.log" 2>&1; then
            echo "ok $name ($engine)"
        else
            echo "FAIL $name ($engine)"; tail -n 3 "$tmp/$name.log"; fails=$((fails + 1))
        fi
    done
done
echo "xlsx_cached: $fails failed"
[ "$fails" = 0 ]

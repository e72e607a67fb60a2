#!/usr/bin/env bash
# Every worked scenario of MODEL.md's examples/ through the real binary: the whole report JSON
# must match the expected one (numbers to a relative 1e-9, as_of excepted), and the CSV and
# Markdown reports must agree with it.
set -u
gpuplan=$1 examples=$2 cmp=$3
py=/usr/bin/python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export GPUPLAN_DB=$tmp/db
fail=0
for scen in "$examples"/*.json; do
    case $scen in *.expected.json) continue ;; esac
    name=$(basename "$scen" .json)
    if ! "$gpuplan" report "$scen" --format json --as-of 2026-01-15 -o "$tmp/$name.json"; then
        echo "FAIL $name: report exited $?"; fail=1; continue
    fi
    if ! $py "$cmp" --ignore as_of "$examples/$name.expected.json" "$tmp/$name.json"; then
        echo "FAIL $name: report differs from $name.expected.json"; fail=1; continue
    fi
    grep -Eq '"as_of":[[:space:]]*"2026-01-15"' "$tmp/$name.json" || { echo "FAIL $name: as_of"; fail=1; }
    "$gpuplan" report "$scen" --format csv -o "$tmp/$name.csv" || { echo "FAIL $name: csv"; fail=1; }
    # The CSV's last row holds each cumulative total: it must equal the JSON totals.
    $py - "$tmp/$name.json" "$tmp/$name.csv" <<'PY' || { echo "FAIL $name: csv vs json"; fail=1; }
import csv, json, sys
rep = json.load(open(sys.argv[1]))
rows = list(csv.reader(open(sys.argv[2])))
assert len(rows) == rep['horizon_months'] + 2, len(rows)
assert rows[0][1] == 'self_hosted' and rows[0][2:] == [o['name'] for o in rep['options']], rows[0]
totals = [rep['self_hosted']['total']] + [o['total'] for o in rep['options']]
for got, want in zip(map(float, rows[-1][1:]), totals):
    assert abs(got - want) <= 1e-9 * max(1, abs(want)), (got, want)
PY
    "$gpuplan" report "$scen" -o "$tmp/$name.md" || { echo "FAIL $name: md"; fail=1; }
    cheapest=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["cheapest"])' "$tmp/$name.json")
    [ "$cheapest" = self_hosted ] && cheapest=self-hosted
    grep -qF "Cheapest over" "$tmp/$name.md" && grep -qF "$cheapest" "$tmp/$name.md" ||
        { echo "FAIL $name: md does not name the cheapest ($cheapest)"; fail=1; }
    echo "ok $name"
done
exit $fail

#!/usr/bin/env bash
# The Generations workbook of `gpuplan compare --format xlsx`, recalculated in a real
# LibreOffice and compared with `compare --format json`, before and after edits
# (check_compare_xlsx.py says what is checked).
set -u
gpuplan=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp GPUPLAN_DB=$tmp/db
if /usr/bin/python3 "$root/tests/xlsx/check_compare_xlsx.py" "$gpuplan" "$tmp/work"; then
    echo "ok generations workbook"
else
    echo "FAIL generations workbook"
    exit 1
fi

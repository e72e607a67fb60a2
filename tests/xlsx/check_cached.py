#!/usr/bin/python3
"""The workbook's cached values (what a reader that does not recalculate sees: file previews,
pandas, openpyxl, Excel in manual mode) must equal a real recalculation cell for cell: every
formula cell of gpuplan's workbook against LibreOffice's recalculated value (numbers to a
relative 1e-9, within 1e-6 near 0; text and empty results exactly).
Gnumeric's ssconvert is the second engine (--engine gnumeric). --mutate changes one cached value
in the file first, and the check must then fail (a check that cannot fail proves nothing).
Usage: check_cached.py GPUPLAN SCENARIO.json WORKDIR [--list] [--engine gnumeric] [--mutate]"""
import os
import shutil
import subprocess
import sys

import openpyxl

gpuplan, scenario, work = sys.argv[1:4]
listing = '--list' in sys.argv[4:]
gnumeric = 'gnumeric' in sys.argv[4:]
mutate = '--mutate' in sys.argv[4:]
os.makedirs(work, exist_ok=True)
profile = os.path.join(work, 'lo-profile')
os.makedirs(os.path.join(profile, 'user'), exist_ok=True)
# Recalculate on load, always (LibreOffice would otherwise keep the cached values it checks).
with open(os.path.join(profile, 'user', 'registrymodifications.xcu'), 'w') as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/'
            '2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3'
            '.org/2001/XMLSchema-instance"><item oor:path="/org.openoffice.Office.Calc/Formula/'
            'Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>'
            '</oor:items>\n')
name = os.path.splitext(os.path.basename(scenario))[0]
book = os.path.join(work, name + '.xlsx')
subprocess.run([gpuplan, 'report', scenario, '--format', 'xlsx', '--as-of', '2026-11-22',
                '-o', book], check=True)
if mutate:  # the Plan's first cached power figure (a month of running costs) off by 1
    import re
    import zipfile
    src = zipfile.ZipFile(book)
    parts = {n: src.read(n) for n in src.namelist()}
    src.close()
    wbx = parts['xl/workbook.xml'].decode()
    sheets = re.findall(r'<sheet name="([^"]+)" sheetId="\d+" r:id="rId(\d+)"', wbx)
    plan = 'xl/worksheets/sheet%s.xml' % dict(sheets)['Plan']
    xml = parts[plan].decode()
    cell = re.search(r'(<c r="[A-Z]+3"[^>]*><f>[^<]*</f><v>)([^<]+)(</v>)', xml)
    xml = xml[:cell.start(2)] + repr(float(cell.group(2)) + 1) + xml[cell.end(2):]
    parts[plan] = xml.encode()
    with zipfile.ZipFile(book, 'w', zipfile.ZIP_DEFLATED) as z:
        for n, data in parts.items():
            z.writestr(n, data)
out = os.path.join(work, 'recalc')
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
if gnumeric:
    subprocess.run(['ssconvert', '--recalc', book, os.path.join(out, name + '.xlsx')], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
else:
    subprocess.run(['soffice', '-env:UserInstallation=file://' + profile, '--headless',
                    '--norestore', '--convert-to', 'xlsx', '--outdir', out, book], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
formulas = openpyxl.load_workbook(book)
cached = openpyxl.load_workbook(book, data_only=True)
recalc = openpyxl.load_workbook(os.path.join(out, name + '.xlsx'), data_only=True)


def same(a, b):
    if isinstance(b, bool) or isinstance(a, bool):
        return bool(a) == bool(b) if isinstance(a, (bool, int, float)) and isinstance(b, (bool, int, float)) else a == b
    if isinstance(b, (int, float)) and isinstance(a, (int, float)):
        return abs(a - b) <= 1e-9 * max(1.0, abs(b)) or (abs(a) < 1e-6 and abs(b) < 1e-6)
    if hasattr(a, 'date') and hasattr(b, 'date'):
        return a == b
    return (a if a is not None else '') == (b if b is not None else '')


n = 0
bad = []
for ws in formulas:
    for row in ws.iter_rows():
        for c in row:
            if not (isinstance(c.value, str) and c.value.startswith('=')):
                continue
            n += 1
            a = cached[ws.title][c.coordinate].value
            b = recalc[ws.title][c.coordinate].value
            if not same(a, b):
                head = ws.cell(1, c.column).value
                bad.append((ws.title, c.coordinate, head, a, b))
if listing:
    by = {}
    for t, coord, head, a, b in bad:
        by.setdefault((t, head, ''.join(ch for ch in coord if ch.isalpha())), []).append((coord, a, b))
    for k, v in sorted(by.items(), key=lambda kv: -len(kv[1])):
        print(len(v), k, v[:2])
if bad:
    raise SystemExit('%d of %d formula cells cache another value than %s computes, first %r'
                     % (len(bad), n, 'Gnumeric' if gnumeric else 'LibreOffice', bad[:3]))
print('%d formula cells cache what %s computes' % (n, 'Gnumeric' if gnumeric else 'LibreOffice'))

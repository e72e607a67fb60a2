#!/usr/bin/python3
"""XLSX proof: recalculate gpuplan's workbook in a real LibreOffice and compare every computed
figure with the engine's report JSON (relative 1e-9); then change assumptions in the file
(PUE, utilization, an hourly price; the horizon kept), recalculate, and compare with the
engine run on the scenario changed the same way.
Usage: check_xlsx.py GPUPLAN SCENARIO.json WORKDIR"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

import openpyxl

gpuplan, scenario, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
profile = os.path.join(work, 'lo-profile')
os.makedirs(os.path.join(profile, 'user'), exist_ok=True)
with open(os.path.join(profile, 'user', 'registrymodifications.xcu'), 'w') as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/'
            '2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3'
            '.org/2001/XMLSchema-instance"><item oor:path="/org.openoffice.Office.Calc/Formula/'
            'Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>'
            '</oor:items>\n')

def recalc(path):
    out = os.path.join(work, 'out')
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run(['soffice', '-env:UserInstallation=file://' + profile, '--headless',
                    '--norestore', '--convert-to', 'xlsx', '--outdir', out, path],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
    return os.path.join(out, os.path.basename(path))

def report(scen_path):
    r = subprocess.run([gpuplan, 'report', scen_path, '--format', 'json'], check=True,
                       capture_output=True, text=True)
    return json.loads(r.stdout)

def close(a, b, what):
    if a is None or abs(a - b) > 1e-9 * max(1.0, abs(b)):
        raise SystemExit('%s: workbook %r, engine %r' % (what, a, b))

def compare(xlsx, rep):
    wb = openpyxl.load_workbook(xlsx, data_only=True)
    sh, cl, be, su = wb['Self-hosted'], wb['Cloud'], wb['Break-even'], wb['Summary']
    # Self-hosted: find the month table (header "month" in column A).
    head = next(r for r in range(1, sh.max_row + 1) if sh.cell(r, 1).value == 'month')
    M = rep['horizon_months']
    n = 0
    for m in range(M + 1):
        close(sh.cell(head + 1 + m, 12).value, rep['self_hosted']['monthly'][m], 'self month %d' % m)
        n += 1
    close(sh.cell(head + 2 + M, 12).value, rep['self_hosted']['total'], 'self total')
    close(sh.cell(head + 3 + M, 12).value, rep['self_hosted']['npv'], 'self NPV')
    bd = rep['self_hosted']['breakdown']
    for col, key in [(3, 'power'), (4, 'colo'), (5, 'demand_charge'), (6, 'maintenance'),
                     (7, 'staff'), (8, 'other'), (11, 'residual')]:
        close(sh.cell(head + 2 + M, col).value, bd[key], 'self ' + key)
    chead = next(r for r in range(1, cl.max_row + 1) if cl.cell(r, 1).value == 'month')
    for i, o in enumerate(rep['options']):
        assert cl.cell(1, 2 + i).value == o['name'], (cl.cell(1, 2 + i).value, o['name'])
        for m in range(M + 1):
            close(cl.cell(chead + 1 + m, 2 + i).value, o['monthly'][m], '%s month %d' % (o['name'], m))
            n += 1
        close(cl.cell(chead + 2 + M, 2 + i).value, o['total'], o['name'] + ' total')
        close(cl.cell(chead + 3 + M, 2 + i).value, o['npv'], o['name'] + ' NPV')
        close(su.cell(8 + i, 2).value, o['total'], 'summary ' + o['name'])
        bem = o['break_even_month'] if o['break_even_month'] is not None else -1
        close(su.cell(8 + i, 6).value, bem, 'summary break-even ' + o['name'])
        if o['cost_per_gpu_hour'] is not None:
            close(su.cell(8 + i, 4).value, o['cost_per_gpu_hour'], 'per GPU-hour ' + o['name'])
    close(su.cell(7, 2).value, rep['self_hosted']['total'], 'summary self total')
    want = 'self-hosted' if rep['cheapest'] == 'self_hosted' else rep['cheapest']
    if su.cell(2, 2).value != want:
        raise SystemExit('cheapest: workbook %r, engine %r' % (su.cell(2, 2).value, want))
    cs = 0
    for m in range(M + 1):
        cs += rep['self_hosted']['monthly'][m]
        close(be.cell(2 + m, 2).value, cs, 'break-even self %d' % m)
    return n

def csv_agrees(scen_path, rep, xlsx):
    """report --format csv: the cumulative series of the JSON report, and of the workbook's
    Break-even sheet, column for column."""
    r = subprocess.run([gpuplan, 'report', scen_path, '--format', 'csv'], check=True,
                       capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    series = [('self_hosted_cumulative', rep['self_hosted']['monthly'])] + \
        [(o['name'] + ' cumulative', o['monthly']) for o in rep['options']]
    be = openpyxl.load_workbook(xlsx, data_only=True)['Break-even']
    M = rep['horizon_months']
    assert len(rows) == M + 1, len(rows)
    for c, (column, flows) in enumerate(series):
        cum = 0
        for m in range(M + 1):
            cum += flows[m]
            close(float(rows[m][column]), cum, 'csv %s month %d' % (column, m))
            close(be.cell(2 + m, 2 + c).value, float(rows[m][column]),
                  'xlsx against csv %s month %d' % (column, m))

base = report(scenario)
xlsx = os.path.join(work, 'plan.xlsx')
subprocess.run([gpuplan, 'report', scenario, '--format', 'xlsx', '-o', xlsx], check=True)
recalculated = recalc(xlsx)
n = compare(recalculated, base)
print('recalculated workbook agrees with the engine (%d monthly flows)' % n)
csv_agrees(scenario, base, recalculated)
print('csv, json and the workbook agree')

# Change assumptions in the file; openpyxl keeps formulas and drops cached values, so only a
# recalculation can produce the numbers compared below.
wb = openpyxl.load_workbook(xlsx)
a = wb['Assumptions']
rows = {a.cell(r, 1).value: r for r in range(2, a.max_row + 1)}
s = json.load(open(scenario))
s['self_hosted'].setdefault('power', {})
new_pue = min(5.0, s['self_hosted']['power'].get('pue', 1.0) + 0.25)
a.cell(rows['PUE'], 2).value = new_pue
s['self_hosted']['power']['pue'] = new_pue
new_u = round(min(1.0, s['demand']['utilization'] * 0.8 + 0.1), 6)
a.cell(rows['demand: busy share of GPU-hours'], 2).value = new_u
s['demand']['utilization'] = new_u
if s.get('cloud_options'):
    o = s['cloud_options'][0]
    o['hourly'] = round(o['hourly'] * 1.1 + 0.01, 6)
    a.cell(rows[o['name'] + ': hourly'], 2).value = o['hourly']
# The bulk tier reached is an input the workbook takes from the engine; demand is unchanged
# in GPUs, so it stays right.
changed = os.path.join(work, 'changed.xlsx')
wb.save(changed)
scen2 = os.path.join(work, 'changed.json')
json.dump(s, open(scen2, 'w'))
n = compare(recalc(changed), report(scen2))
print('changed assumptions recalculate to the engine (%d monthly flows)' % n)

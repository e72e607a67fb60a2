#!/usr/bin/python3
"""XLSX proof: recalculate gpuplan's workbook in a real LibreOffice and compare every computed
figure with the engine's reports (JSON at relative 1e-9; the CSV's bridge and burst hours at
the precision it prints, 0.1 h): the Plan sheet month by month
(demand, servers in service, purchases and sales, bridge and burst hours, every side's flow and
running sum), its totals against the breakdown, the Summary (totals, NPV, cost per unit,
break-even and payback months with and without the exit value, break-even hourly and utilization, cheapest,
per-year totals), the BOM's capex. Then change assumptions in the file (version 1: PUE,
utilization, an hourly price, or a converted catalog price's exchange rate; version 2: the growth or a price trend, and the lead time where
a bridge carries it), recalculate, and compare with the engine run on the scenario changed the
same way (with shifting, the dearest and cheapest tariff prices swapped too). Inputs must be unlocked and styled as inputs; formulas locked.
Usage: check_xlsx.py GPUPLAN SCENARIO.json WORKDIR"""
import csv
import datetime
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

AS_OF = '2026-11-22'


def recalc(path):
    out = os.path.join(work, 'out')
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run(['soffice', '-env:UserInstallation=file://' + profile, '--headless',
                    '--norestore', '--convert-to', 'xlsx', '--outdir', out, path],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
    return os.path.join(out, os.path.basename(path))


def run(scen_path, fmt):
    r = subprocess.run([gpuplan, 'report', scen_path, '--format', fmt, '--as-of', AS_OF],
                       check=True, capture_output=True, text=True)
    return r.stdout


def close(a, b, what):
    if b is None:
        if a not in (None, ''):
            raise SystemExit('%s: workbook %r, engine null (never)' % (what, a))
        return
    if not isinstance(a, (int, float)) or abs(a - b) > 1e-9 * max(1.0, abs(b)):
        if isinstance(a, (int, float)) and abs(a) < 1e-6 and abs(b) < 1e-6:
            return
        raise SystemExit('%s: workbook %r, engine %r' % (what, a, b))


def close_printed(a, text, what):
    """A figure the CSV prints rounded for display (numfmt.h): hours to 0.1, so the workbook's
    value must be within half of the last printed digit."""
    decimals = len(text.split('.')[1]) if '.' in text else 0
    if not isinstance(a, (int, float)) or abs(a - float(text)) > 0.5 * 10 ** -decimals + 1e-9 * abs(a):
        raise SystemExit('%s: workbook %r, CSV %s' % (what, a, text))


def columns(ws):
    return {ws.cell(1, c).value: c for c in range(1, ws.max_column + 1) if ws.cell(1, c).value}


def year_of(start, m, fiscal_start):
    y, mo = int(start[:4]), int(start[5:7])
    k = y * 12 + mo - 1 + max(m, 1) - 1
    year, month = k // 12, k % 12 + 1
    return year + (1 if fiscal_start > 1 and month >= fiscal_start else 0)


def compare(xlsx, rep, rows, fiscal_start=1):
    wb = openpyxl.load_workbook(xlsx, data_only=True)
    errors = [(ws.title, c.coordinate, c.value) for ws in wb for row in ws.iter_rows() for c in row
              if isinstance(c.value, str) and (c.value.startswith('#') or c.value.startswith('Err:'))]
    if errors:
        raise SystemExit('error values after recalculation: %r' % errors[:5])
    pl, su = wb['Plan'], wb['Summary']
    col = columns(pl)
    M = rep['horizon_months']
    sh = rep['self_hosted']
    n = 0
    bought = [0] * (M + 1)
    sold = [0] * (M + 1)
    for p in sh['purchases']:
        bought[p['index']] += p['servers']
    for s in sh['sales']:
        sold[s['index']] += s['servers']
    series = [('self-hosted', sh['monthly'])] + [(o['name'], o['monthly']) for o in rep['options']]
    running = {name: 0.0 for name, _ in series}
    for m in range(M + 1):
        row = 2 + m
        assert pl.cell(row, col['index']).value == m
        close(pl.cell(row, col['servers bought']).value, bought[m], 'bought at %d' % m)
        close(pl.cell(row, col['servers sold or exiting']).value, sold[m], 'sold at %d' % m)
        for name, flows in series:
            close(pl.cell(row, col[name]).value, flows[m], '%s at %d' % (name, m))
            # The running sums against the engine's flows (the CSV prints them to the cent).
            running[name] += flows[m]
            close(pl.cell(row, col[name + ': cumulative'] if name != 'self-hosted'
                          else col['self-hosted cumulative']).value,
                  running[name], '%s cumulative at %d' % (name, m))
            n += 1
        if m == 0:
            continue
        j = m - 1
        close(pl.cell(row, col['busy share']).value, rep['demand']['utilization'][j], 'u %d' % m)
        w = 'work' if rep['demand']['work_unit'] is not None else 'busy GPU-hours'
        close(pl.cell(row, col[w]).value, rep['demand']['work'][j], 'work %d' % m)
        if rep['demand']['gpus'] is not None:
            close(pl.cell(row, col['demand GPUs']).value, rep['demand']['gpus'][j], 'N %d' % m)
        close(pl.cell(row, col['servers in service']).value, sh['servers_in_service'][j],
              'I %d' % m)
        close(pl.cell(row, col['GPUs at work']).value, float(rows[m]['gpus_at_work']), 'G %d' % m)
        if 'bridge busy GPU-hours' in col:
            close_printed(pl.cell(row, col['bridge busy GPU-hours']).value, rows[m]['bridge_hours'],
                          'bridge hours %d' % m)
        for o in rep['options']:
            key = o['name'] + ': burst busy GPU-hours'
            if key in col:
                close_printed(pl.cell(row, col[key]).value, rows[m][o['name'] + ' burst_hours'],
                              key + ' %d' % m)
    tot, npv = M + 3, M + 4
    assert pl.cell(tot, 1).value == 'total'
    bd = sh['breakdown']
    for head, key in [('power', 'power'), ('colocation', 'colo'), ('demand charge', 'demand_charge'),
                      ('maintenance', 'maintenance'), ('staff', 'staff'), ('other', 'other'),
                      ('bridge', 'bridge')]:
        if head in col:
            close(pl.cell(tot, col[head]).value, bd[key], 'breakdown ' + key)
        else:
            close(0, bd[key], 'breakdown ' + key)
    close(pl.cell(tot, col['sales']).value + pl.cell(tot, col['exit value']).value, bd['residual'],
          'breakdown residual')
    close(pl.cell(tot, col['facility kWh']).value, sh['energy_kwh'], 'energy')
    close(wb['BOM'].cell(5, 4).value, sh['capex'], 'BOM capex')
    # Summary.
    want = 'self-hosted' if rep['cheapest'] == 'self_hosted' else rep['cheapest']
    if su.cell(2, 2).value != want:
        raise SystemExit('cheapest: workbook %r, engine %r' % (su.cell(2, 2).value, want))
    # Spot can be reclaimed: the cheapest with guaranteed capacity and its total beside the
    # cheapest, and a line saying so when the cheapest rests on spot.
    g = rep['cheapest_guaranteed']
    side = sh if g == 'self_hosted' else next((o for o in rep['options'] if o['name'] == g), None)
    g = 'none' if g is None else 'self-hosted' if g == 'self_hosted' else g
    if su.cell(3, 2).value != g:
        raise SystemExit('cheapest guaranteed: workbook %r, engine %r' % (su.cell(3, 2).value, g))
    close(su.cell(3, 3).value, side['total'] if side else None, 'cheapest guaranteed total')
    note = su.cell(4, 1).value or ''
    if rep['cheapest_rests_on_spot']:
        if note != '%s rests on spot capacity, which the provider can reclaim; cheapest with ' \
                   'guaranteed capacity: %s.' % (want, g):
            raise SystemExit('no reclaim note under a cheapest on spot: %r' % note)
    elif note:
        raise SystemExit('reclaim note without spot: %r' % note)
    # Beside the guaranteed total, as the Markdown says it: a tie on the guaranteed side, and
    # self-hosted's exit value credited at 0 when it is one of them and owns servers.
    tw = ['self-hosted' if t == 'self_hosted' else t for t in rep['guaranteed_tied_with']]
    want_d = 'A tie with %s: the same total.' % ', '.join(tw) if tw else ''
    if (g == 'self-hosted' or 'self-hosted' in tw) and sh['exit_value'] == 0 and sh['servers'] > 0:
        want_d += (' ' if want_d else '') + ("Self-hosted's total includes no exit value: hardware "
                                             'still held at month %d is credited at 0.'
                                             % rep['horizon_months'])
    if (su.cell(3, 4).value or '') != want_d:
        raise SystemExit('beside the guaranteed total: workbook %r, engine %r'
                         % (su.cell(3, 4).value, want_d))
    per = 'cost_per_work_unit' if rep['demand']['work_unit'] is not None else 'cost_per_gpu_hour'
    assert su.cell(11, 1).value == 'self-hosted'
    close(su.cell(11, 2).value, sh['total'], 'summary self total')
    close(su.cell(11, 3).value, sh['npv'], 'summary self NPV')
    close(su.cell(11, 4).value, sh[per], 'summary self ' + per)
    work_unit = rep['demand']['work_unit']
    sj = rep['scenario_json']
    if work_unit is not None:
        # The cost per unit of work is headed by its unit; the cost per busy GPU-hour of the
        # side's own throughput stands beside it (column R, after the hidden helpers).
        assert su.cell(10, 4).value == 'per ' + work_unit, su.cell(10, 4).value
        assert su.cell(10, 18).value.startswith('per busy GPU-hour'), su.cell(10, 18).value
        close(su.cell(11, 18).value, sh['total'] / (sum(rep['demand']['work']) /
              sj['self_hosted']['work_per_gpu_hour']), 'summary self per busy GPU-hour')
    for i, o in enumerate(rep['options']):
        r = 12 + i
        assert su.cell(r, 1).value == o['name'], (su.cell(r, 1).value, o['name'])
        close(su.cell(r, 2).value, o['total'], o['name'] + ' total')
        close(su.cell(r, 3).value, o['npv'], o['name'] + ' NPV')
        close(su.cell(r, 4).value, o[per], o['name'] + ' ' + per)
        if work_unit is not None and o['pricing'] == 'per_unit':
            # 2.1: an API bills the work; it has no GPU-hours.
            assert su.cell(r, 18).value == 'none: an API bills the work', su.cell(r, 18).value
        elif work_unit is not None:
            rho = sj['cloud_options'][i]['work_per_gpu_hour']
            close(su.cell(r, 18).value, o['total'] / (sum(rep['demand']['work']) / rho),
                  o['name'] + ' per busy GPU-hour')
        close(su.cell(r, 5).value, o['total'] - sh['total'], o['name'] + ' difference')
        for c, key in [(6, 'break_even_month'), (7, 'payback_month'),
                       (8, 'break_even_month_without_exit'), (9, 'payback_month_without_exit'),
                       (10, 'break_even_hourly')]:
            close(su.cell(r, c).value, o[key], '%s %s' % (o['name'], key))
        # Never: "none", as the CLI says it (a blank could read as 0 %).
        if o['break_even_utilization'] is None and work_unit is None:  # GPU mode
            assert su.cell(r, 11).value == su.cell(r, 12).value == 'none', (su.cell(r, 11).value, su.cell(r, 12).value)
        close(su.cell(r, 11).value if su.cell(r, 11).value != 'none' else None,
              o['break_even_utilization'], o['name'] + ' break-even u')
        if o['break_even_utilization'] is not None:
            close(su.cell(r, 12).value, o['break_even_utilization'] * 8760, o['name'] + ' hours a year')
    # 2.1: beside self-hosted's total, the exit value it includes and its basis.
    ex = [r for r in range(1, su.max_row + 1)
          if str(su.cell(r, 1).value).startswith("self-hosted's total includes the exit value")]
    assert len(ex) == 1, ex
    close(su.cell(ex[0], 2).value, sh['exit_value'], 'exit value')
    words = {'resale': 'resale curve', 'straight_line': 'straight line', 'residual_pct': 'flat'}
    assert words[sh['exit_value_basis']] in su.cell(ex[0], 3).value, su.cell(ex[0], 3).value
    # Per-year totals: calendar, then fiscal.
    tables = [r for r in range(1, su.max_row + 1)
              if su.cell(r, 1).value in ('calendar year', 'fiscal year (named by the year it ends in)')]
    assert len(tables) == 2, tables
    for t, fs in zip(tables, (1, fiscal_start)):
        for c, (name, flows) in enumerate(series):
            want = {}
            for m in range(M + 1):
                y = year_of(rep['start_date'], m, fs)
                want[y] = want.get(y, 0) + flows[m]
            got = {}
            r = t + 1
            while su.cell(r, 1).value not in (None, ''):
                got[su.cell(r, 1).value] = su.cell(r, 2 + c).value
                r += 1
            if sorted(got) != sorted(want):
                raise SystemExit('years of %s: workbook %r, engine %r' % (name, sorted(got), sorted(want)))
            for y in want:
                close(got[y], want[y], '%s year %s (fiscal start %d)' % (name, y, fs))
    return n


def check_protection(path):
    wb = openpyxl.load_workbook(path)
    for ws in wb:
        assert ws.protection.sheet, ws.title + ' is not protected'
    a = wb['Assumptions']
    inputs = 0
    for row in a.iter_rows(min_row=2):
        c = row[1]
        if c.value is None or row[0].value is None:
            continue
        if c.protection.locked:
            continue
        inputs += 1
        assert c.font.color is not None and c.font.color.rgb.endswith('0000FF'), c.coordinate
    assert inputs > 10, inputs
    pl = wb['Plan']
    assert pl.cell(3, 1).protection.locked
    assert pl.print_title_rows, 'Plan: header row not repeated'


def load(path):
    return json.load(open(path))


base_json = json.loads(run(scenario, 'json'))
base_rows = list(csv.DictReader(io.StringIO(run(scenario, 'csv'))))
xlsx = os.path.join(work, 'plan.xlsx')
subprocess.run([gpuplan, 'report', scenario, '--format', 'xlsx', '--as-of', AS_OF, '-o', xlsx],
               check=True)
check_protection(xlsx)
n = compare(recalc(xlsx), base_json, base_rows)
print('recalculated workbook agrees with the engine (%d monthly flows)' % n)

# Change assumptions in the file; openpyxl keeps formulas and drops cached values, so only a
# recalculation can produce the numbers compared below.
wb = openpyxl.load_workbook(xlsx)
a = wb['Assumptions']
rows = {a.cell(r, 1).value: r for r in range(2, a.max_row + 1)}
s = load(scenario)
sh = s['self_hosted']
changed_what = []
if os.path.basename(scenario).startswith('v2-'):
    d = s['demand']
    if 'growth_per_month' in d:
        d['growth_per_month'] = round(d['growth_per_month'] + 0.01, 6)
        a.cell(rows['demand growth (compound; 0 with steps)'], 2).value = d['growth_per_month']
        changed_what.append('growth')
    else:
        o = s['cloud_options'][0]
        o['price_trend_per_year'] = round(o.get('price_trend_per_year', 0) - 0.07, 6)
        a.cell(rows[o['name'] + ': price trend'], 2).value = o['price_trend_per_year']
        changed_what.append(o['name'] + ' price trend')
    t = sh.setdefault('tariff', {})
    t['price_trend_per_year'] = round(t.get('price_trend_per_year', 0) + 0.04, 6)
    a.cell(rows['electricity price trend'], 2).value = t['price_trend_per_year']
    changed_what.append('electricity trend')
    for o in s['cloud_options']:
        if o['pricing'] == 'per_unit':
            # 2.1: an API's prices are inputs; its price a unit in all is their formula.
            o['price_per_unit'] = round(o['price_per_unit'] * 1.25 + 0.01, 6)
            o['price_per_input_unit'] = round(o.get('price_per_input_unit', 0) + 0.05, 6)
            o['input_units_per_unit'] = round(o.get('input_units_per_unit', 0) + 0.5, 6)
            for key, label in (('price_per_unit', 'price a unit of work'),
                               ('price_per_input_unit', 'price an input unit'),
                               ('input_units_per_unit', 'input units a unit of work')):
                a.cell(rows[o['name'] + ': ' + label], 2).value = o[key]
            changed_what.append(o['name'] + "'s prices")
    if 'bridge' in sh and sh.get('lead_time_months', 0) + 1 < s['horizon_months']:
        sh['lead_time_months'] = sh.get('lead_time_months', 0) + 1
        a.cell(rows['lead time'], 2).value = sh['lead_time_months']
        changed_what.append('lead time')
    fiscal = 4
else:
    sh.setdefault('power', {})
    new_pue = min(5.0, sh['power'].get('pue', 1.0) + 0.25)
    a.cell(rows['PUE'], 2).value = new_pue
    sh['power']['pue'] = new_pue
    new_u = round(min(1.0, s['demand']['utilization'] * 0.8 + 0.1), 6)
    a.cell(rows['demand: busy share of GPU-hours'], 2).value = new_u
    s['demand']['utilization'] = new_u
    fx = [src for src in base_json['sources'] if 'fx_rate' in src]
    if fx:
        # 2.1: the exchange rate is an input; the engine's side is the resolved scenario with
        # the listed prices converted at the new rate.
        s = base_json['scenario_json']
        sh = s['self_hosted']
        for src in fx:
            o = next(c for c in s['cloud_options'] if c['name'] == src['option'])
            rate = round(src['fx_rate'] * 1.1, 6)
            a.cell(rows[o['name'] + ': exchange rate'], 2).value = rate
            o['hourly'] = src['listed_hourly'] * rate
            if 'upfront' in o:
                o['upfront'] = src['upfront'] / src['fx_rate'] * rate
        changed_what.append('the exchange rates')
    elif s.get('cloud_options'):
        o = s['cloud_options'][0]
        if 'hourly' in o:
            o['hourly'] = round(o['hourly'] * 1.1 + 0.01, 6)
            a.cell(rows[o['name'] + ': hourly'], 2).value = o['hourly']
    changed_what.append('PUE, utilization, an hourly price')
    fiscal = 10
periods = sh.get('tariff', {}).get('periods', [])
if sh.get('tariff', {}).get('shift_to_cheapest') and len(periods) > 1:
    # Swap the dearest and the cheapest price: shifting fills the periods in a new order.
    hi = max(range(len(periods)), key=lambda k: periods[k]['price_per_kwh'])
    lo = min(range(len(periods)), key=lambda k: periods[k]['price_per_kwh'])
    periods[hi]['price_per_kwh'], periods[lo]['price_per_kwh'] = \
        periods[lo]['price_per_kwh'], periods[hi]['price_per_kwh']
    for k in (hi, lo):
        a.cell(rows['tariff %s: price' % periods[k]['name']], 2).value = periods[k]['price_per_kwh']
    changed_what.append('the tariff order')
# A fiscal year from the chosen month, and a later start date: labels and years only.
a.cell(rows['fiscal year starts in month (1 = calendar year)'], 2).value = fiscal
a.cell(rows['plan starts (month 1 begins)'], 2).value = datetime.datetime(2027, 1, 31)
s['start_date'] = '2027-01-31'
changed = os.path.join(work, 'changed.xlsx')
wb.save(changed)
scen2 = os.path.join(work, 'changed.json')
json.dump(s, open(scen2, 'w'))
n = compare(recalc(changed), json.loads(run(scen2, 'json')),
            list(csv.DictReader(io.StringIO(run(scen2, 'csv')))), fiscal)
print('changed %s recalculate to the engine (%d monthly flows)' % (', '.join(changed_what), n))

#!/usr/bin/python3
"""The Generations workbook in a real LibreOffice: `gpuplan compare --format xlsx` over the
bundled catalog, recalculated, every figure of the Generations sheet (rank, GPUs needed, total,
cost per unit of work, break-even month against owning and the GPU model owned) equal to
`compare --format json` at relative 1e-9; inputs unlocked and styled as inputs (one
throughput a GPU model, on its first row, the others referring to it), figures formulas; the
same for a time-of-use tariff with a demand charge, and for a shorter horizon typed in against
compare run with it. Then H100's throughput cell (the figure `throughput set H100` stores)
and one price cell (an H100 on-demand offer, halved, as `pricing import` can state it) are
edited with openpyxl, the file recalculated again, and compared with compare re-run after
those two commands: equal again, ranks following. Last, a profile with API rows: ranked with
the others, their prices inputs; an API's output price halved in the file equals compare after
the same price is imported.
Usage: check_compare_xlsx.py GPUPLAN WORKDIR"""
import json
import os
import shutil
import subprocess
import sys

import openpyxl

gpuplan, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
profile = os.path.join(work, 'lo-profile')
os.makedirs(os.path.join(profile, 'user'), exist_ok=True)
# LibreOffice recalculates an OOXML file on load only when told to (check_xlsx.py does the same).
with open(os.path.join(profile, 'user', 'registrymodifications.xcu'), 'w') as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/'
            '2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3'
            '.org/2001/XMLSchema-instance"><item oor:path="/org.openoffice.Office.Calc/Formula/'
            'Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>'
            '</oor:items>\n')

AS_OF = '2026-11-22'
ARGS = ['compare', '--work', '200000', '--unit', 'M tokens', '--profile', 'llm-training',
        '--growth', '2%', '--horizon', '36', '--as-of', AS_OF]
NEW_H100 = 41.5


def run(*args):
    return subprocess.run([gpuplan, *args], check=True, capture_output=True, text=True).stdout


def recalc(path):
    out = os.path.join(work, 'out')
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run(['soffice', '-env:UserInstallation=file://' + profile, '--headless',
                    '--norestore', '--convert-to', 'xlsx', '--outdir', out, path],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    return os.path.join(out, os.path.basename(path))


def close(a, b, what):
    if not isinstance(a, (int, float)) or abs(a - b) > 1e-9 * max(1.0, abs(b)):
        raise SystemExit('%s: workbook %r, compare %r' % (what, a, b))


def layout(ws):
    head = next(r for r in range(1, 40) if ws.cell(r, 1).value == 'rank')
    cols = {ws.cell(head, c).value: c for c in range(1, ws.max_column + 1) if ws.cell(head, c).value}
    rows = []
    r = head + 1
    while ws.cell(r, cols['GPU']).value:
        rows.append(r)
        r += 1
    return cols, rows


def key(gpu, side, pricing, offer):
    return (gpu, side, pricing, offer)


def compare_sheet(path, js, what):
    ws = openpyxl.load_workbook(path, data_only=True)['Generations']
    cols, rows = layout(ws)
    # an API row has no GPU: null in JSON, "API" on the sheet
    want = {key(r['gpu'] or 'API', r['side'], r['pricing'], r['offer']): r for r in js['rows']
            if r['rank'] is not None}
    got = {}
    for r in rows:
        v = lambda name: ws.cell(r, cols[name]).value
        got[key(v('GPU'), v('side'), v('pricing'), v('offer or server'))] = r
    if set(got) != set(want):
        raise SystemExit('%s: candidates differ: %s' % (what, set(got) ^ set(want)))
    total_row = next(r for r in range(1, 20) if ws.cell(r, 1).value == 'work over the horizon')
    close(ws.cell(total_row, 2).value, js['work'], what + ': work over the horizon')
    for k, j in want.items():
        r = got[k]
        v = lambda name: ws.cell(r, cols[name]).value
        w = '%s: %s' % (what, ' '.join(k))
        if v('rank') != j['rank']:
            raise SystemExit('%s: rank %r, compare %r' % (w, v('rank'), j['rank']))
        if v('GPUs needed') != (j['gpus_needed'] if j['pricing'] != 'api' else '-'):
            raise SystemExit('%s: GPUs %r, compare %r' % (w, v('GPUs needed'), j['gpus_needed']))
        if j['pricing'] == 'api':
            close(v('price a GPU-hour'), j['api']['price_per_unit'] + j['api']['input_units_per_unit']
                  * j['api']['price_per_input_unit'], w + ': API price a unit')
        else:
            close(v('work a GPU-hour'), j['work_per_gpu_hour'], w + ': throughput')
        close(v('total'), j['total'], w + ': total')
        close(v('per unit of work'), j['cost_per_unit'], w + ': per unit')
        be = v('break-even month vs owning')
        if j['side'] == 'own':
            continue
        if (be if be not in ('', None) else None) != j['break_even_month']:
            raise SystemExit('%s: break-even %r, compare %r' % (w, be, j['break_even_month']))
        if v('owning') != j['vs_owning']:
            raise SystemExit('%s: owning %r, compare %r' % (w, v('owning'), j['vs_owning']))
    print('ok %s: %d candidates equal to compare --format json' % (what, len(want)))


def styled(path, api=0):
    wb = openpyxl.load_workbook(path)
    ws = wb['Generations']
    assert wb['Generation months'].sheet_state == 'hidden'
    assert ws.protection.sheet
    cols, rows = layout(ws)
    first = {}
    apis = 0
    for r in rows:
        if ws.cell(r, cols['pricing']).value == 'api':  # its three prices inputs, its price a formula
            for name in ('API: a M output tokens', 'API: a M input tokens',
                         'API: input tokens an output token'):
                c = ws.cell(r, cols[name])
                assert isinstance(c.value, (int, float)) and not c.protection.locked, name
            for name in ('rank', 'total', 'per unit of work', 'price a GPU-hour'):
                assert str(ws.cell(r, cols[name]).value).startswith('='), name
            apis += 1
            continue
        for name in ('rank', 'GPUs needed', 'total', 'per unit of work'):
            c = ws.cell(r, cols[name])
            assert isinstance(c.value, str) and c.value.startswith('='), (name, c.value)
            assert c.protection.locked
        # one throughput input a GPU model (its first row); its other rows refer to it
        c = ws.cell(r, cols['work a GPU-hour'])
        gpu = ws.cell(r, cols['GPU']).value
        if gpu not in first:
            first[gpu] = '=$%s$%d' % (c.column_letter, r)
            assert not c.protection.locked and c.font.color.rgb.endswith('0000FF'), 'input style'
        else:
            assert c.value == first[gpu] and c.protection.locked, (gpu, c.value)
        side = ws.cell(r, cols['side']).value
        price = ws.cell(r, cols['server price' if side == 'own' else 'price a GPU-hour'])
        assert isinstance(price.value, (int, float)) and not price.protection.locked, side
    assert apis == api, (apis, api)
    print('ok inputs unlocked and blue on yellow, figures formulas, the sheet protected')


os.environ['GPUPLAN_DB'] = os.path.join(work, 'db')
before = json.loads(run(*ARGS, '--format', 'json'))
book = os.path.join(work, 'gen.xlsx')
run(*ARGS, '--format', 'xlsx', '-o', book)
styled(book)
# openpyxl writes formulas without their cached values, so every figure checked is LibreOffice's.
bare = os.path.join(work, 'bare.xlsx')
openpyxl.load_workbook(book).save(bare)
compare_sheet(recalc(bare), before, 'as exported')

# A shorter horizon typed in (the month columns stay laid out for 36): the committed terms of
# 36 months then run past it and their remaining months are paid at its end.
wb = openpyxl.load_workbook(book)
ws = wb['Generations']
row = next(r for r in range(1, 20) if str(ws.cell(r, 1).value).startswith('horizon'))
ws.cell(row, 2).value = 30
short = os.path.join(work, 'short.xlsx')
wb.save(short)
args30 = [a if a != '36' else '30' for a in ARGS]
compare_sheet(recalc(short), json.loads(run(*args30, '--format', 'json')), 'horizon 30 typed in')

# A time-of-use tariff with a demand charge, declining work, another utilization.
args_tou = ['compare', '--work', '150000', '--unit', 'M tokens', '--profile', 'llm-training',
            '--growth', '-1%', '--utilization', '0.8', '--horizon', '24', '--tariff',
            'sce-tou-8-d', '--as-of', AS_OF]
tou = os.path.join(work, 'tou.xlsx')
run(*args_tou, '--format', 'xlsx', '-o', tou)
openpyxl.load_workbook(tou).save(bare)
compare_sheet(recalc(bare), json.loads(run(*args_tou, '--format', 'json')), 'tariff sce-tou-8-d')

# A workload profile with bundled published results: the sheet names each row's figure as
# compare does, "published" among them.
args_wl = ['compare', '--work', '100000', '--unit', 'M tokens', '--profile', 'llama2-70b-offline',
           '--as-of', AS_OF]
wl = os.path.join(work, 'wl.xlsx')
run(*args_wl, '--format', 'xlsx', '-o', wl)
wl_js = json.loads(run(*args_wl, '--format', 'json'))
ws = openpyxl.load_workbook(wl)['Generations']
cols, rows = layout(ws)
figure = {(ws.cell(r, cols['GPU']).value, ws.cell(r, cols['side']).value,
           ws.cell(r, cols['pricing']).value, ws.cell(r, cols['offer or server']).value):
          ws.cell(r, cols['figure (estimate, published or measured)']).value for r in rows}
ranked = [j for j in wl_js['rows'] if j['rank'] is not None]
assert any(j['throughput_kind'] == 'published' for j in ranked)
for j in ranked:
    k = key(j['gpu'], j['side'], j['pricing'], j['offer'])
    assert figure[k] == j['throughput_kind'], (k, figure[k], j['throughput_kind'])
openpyxl.load_workbook(wl).save(bare)
compare_sheet(recalc(bare), wl_js, 'llama2-70b-offline')

# The edits: H100's throughput measured, and one H100 on-demand offer at half its price.
offer = next(r for r in before['rows'] if r['gpu'] == 'H100' and r['side'] == 'aws'
             and r['pricing'] == 'on_demand')
wb = openpyxl.load_workbook(book)
ws = wb['Generations']
cols, rows = layout(ws)
edited = 0
for r in rows:
    v = lambda name: ws.cell(r, cols[name]).value
    if v('GPU') == 'H100' and not str(v('work a GPU-hour')).startswith('='):
        ws.cell(r, cols['work a GPU-hour']).value = NEW_H100  # the one H100 throughput cell
        ws.cell(r, cols['figure (estimate, published or measured)']).value = 'measured'
        edited += 10
    if v('offer or server') == offer['offer'] and v('pricing') == 'on_demand':
        per_gpu = v('price a GPU-hour')
        gi = v('GPUs an instance')
        hourly = round(per_gpu * gi / 2, 4)
        ws.cell(r, cols['price a GPU-hour']).value = hourly / gi
        edited += 1
assert edited == 11, edited  # one throughput cell, one price cell
edited_book = os.path.join(work, 'edited.xlsx')
wb.save(edited_book)
provider, instance, region = offer['offer'].split('/', 2)
catalog = os.path.join(work, 'cheaper.json')
with open(catalog, 'w') as f:
    json.dump({'format': 'gpuplan-catalog', 'offers': [
        {'provider': provider, 'instance': instance, 'region': region, 'gpu': 'H100',
         'gpu_count': gi, 'prices': [{'pricing': 'on_demand', 'hourly': hourly}]}]}, f)
run('pricing', 'import', catalog, '--effective', AS_OF, '--source', 'test: half price')
run('throughput', 'set', 'H100', 'llm-training', str(NEW_H100), '--unit', 'M tokens',
    '--source', 'test: measured')
after = json.loads(run(*ARGS, '--format', 'json'))
moved = sum(1 for a in after['rows'] for b in before['rows']
            if a['rank'] is not None and (a['gpu'], a['side'], a['pricing'], a['offer']) ==
            (b['gpu'], b['side'], b['pricing'], b['offer']) and a['rank'] != b['rank'])
assert moved > 0, 'the edits moved no rank'
compare_sheet(recalc(edited_book), after, 'after the edits (%d ranks moved)' % moved)

# API rows (docs/compare.md "API rows"): a profile whose model has API prices in force ranks
# them with the GPU rows; on the sheet each its three prices as inputs. The Fireworks output
# price is halved in the file and the same price imported dated the same day: LibreOffice's
# recalculation equals compare re-run, ranks following.
args_api = ['compare', '--work', '2000', '--unit', 'M tokens', '--profile', 'llama3-70b-decode',
            '--as-of', '2026-11-28']
api_book = os.path.join(work, 'api.xlsx')
run(*args_api, '--format', 'xlsx', '-o', api_book)
api_js = json.loads(run(*args_api, '--format', 'json'))
n_api = sum(1 for r in api_js['rows'] if r['pricing'] == 'api' and r['rank'] is not None)
assert n_api >= 1, n_api
styled(api_book, n_api)
openpyxl.load_workbook(api_book).save(bare)
compare_sheet(recalc(bare), api_js, 'llama3-70b-decode with API rows')
fw = next(r for r in api_js['rows'] if r['pricing'] == 'api' and r['side'] == 'fireworks')
wb = openpyxl.load_workbook(api_book)
ws = wb['Generations']
cols, rows = layout(ws)
row = next(r for r in rows if ws.cell(r, cols['offer or server']).value == fw['offer'])
half = fw['api']['price_per_unit'] / 2
ws.cell(row, cols['API: a M output tokens']).value = half
edited_api = os.path.join(work, 'api-edited.xlsx')
wb.save(edited_api)
cheaper = os.path.join(work, 'api-cheaper.csv')
with open(cheaper, 'w') as f:
    f.write('provider,model,input_per_m,output_per_m,currency,effective_from,source\n'
            'fireworks,%s,%r,%r,USD,2026-11-28,"test: half the output price"\n'
            % (fw['api']['model'], fw['api']['price_per_input_unit'], half))
run('pricing', 'api', 'import', cheaper)
api_after = json.loads(run(*args_api, '--format', 'json'))
fw_after = next(r for r in api_after['rows'] if r['pricing'] == 'api' and r['side'] == 'fireworks')
assert fw_after['rank'] < fw['rank'], (fw['rank'], fw_after['rank'])
compare_sheet(recalc(edited_api), api_after, 'API output price halved (rank %d to %d)'
              % (fw['rank'], fw_after['rank']))

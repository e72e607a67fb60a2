#!/usr/bin/env bash
# gpuplan batch and diff through the real binary: four saved scenarios (one priced from an
# imported catalog entry, one measured from imported telemetry, one named like a script tag),
# a first run, then a catalog price cut and a re-measured utilization, a second run whose
# comparison must name exactly those changes and the two decisions they flip, with exit
# status 3; the HTML rendered by headless Chromium (DOM against summary.json, every chart's
# series, no network, the script name shown as text); --against, diff, pruning.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
[ -z "${GP_TEST_KEEP:-}" ] || trap - EXIT # GP_TEST_KEEP=1: $tmp kept to look at
export GPUPLAN_DB=$tmp/db HOME=$tmp

# ---- the catalog entry, the telemetry and the scenarios ------------------------------------
cat >"$tmp/v1.json" <<'JSON'
{"format": "gpuplan-catalog", "offers": [{"provider": "acme", "instance": "g8", "region": "eu-1",
 "gpu": "NVIDIA H100 80GB HBM3", "gpu_count": 8, "prices": [{"pricing": "on_demand", "hourly": 40}]}]}
JSON
sed 's/"hourly": 40/"hourly": 10/' "$tmp/v1.json" >"$tmp/v2.json"
"$gpuplan" pricing import "$tmp/v1.json" --effective 2020-01-01 --source 'acme list' >/dev/null

# Node a: the profile of gen_telemetry.py (busy share 0.5, busy GPUs at 325 W on average);
# node c: the same window with GPUs 0 to 2 busy all day at 400 W and GPU 3 idle at 60 W as on
# a (busy share 0.75, idle draw unchanged).
$py "$root/tests/cli/gen_telemetry.py" "$tmp" 2 a >/dev/null
sed -e 's/-a-/-c-/g; s/Hostname="a"/Hostname="c"/' \
    -e '/gpu="3"/!s/^\(DCGM_FI_DEV_GPU_UTIL{[^}]*}\) [0-9]* /\1 100 /' \
    -e '/gpu="3"/!s/^\(DCGM_FI_DEV_POWER_USAGE{[^}]*}\) [0-9]* /\1 400 /' "$tmp/a.prom" >"$tmp/c.prom"
"$gpuplan" import prom "$tmp/a.prom" --node a >/dev/null
"$gpuplan" import prom "$tmp/c.prom" --node c >/dev/null

cat >"$tmp/rent.json" <<'JSON'
{"name": "rent-or-own", "horizon_months": 36, "demand": {"gpus": 8, "utilization": 0.5},
 "self_hosted": {"gpus_per_server": 8, "server_price": 300000},
 "cloud_options": [{"name": "acme on-demand", "catalog": "acme/g8/eu-1", "pricing": "on_demand"}]}
JSON
cat >"$tmp/fleet.json" <<'JSON'
{"name": "fleet-plan", "horizon_months": 36, "demand": {"gpus": 4, "utilization": 0.2},
 "self_hosted": {"gpus_per_server": 4, "server_price": 200000,
                 "power": {"gpu_idle_w": 60, "gpu_tdp_w": 300, "pue": 1.2}},
 "cloud_options": [{"name": "cloud od", "gpus_per_instance": 4, "pricing": "on_demand", "hourly": 12}]}
JSON
cat >"$tmp/steady.json" <<'JSON'
{"name": "steady", "horizon_months": 24, "demand": {"gpus": 16, "utilization": 0.6},
 "self_hosted": {"gpus_per_server": 8, "server_price": 150000, "residual_pct": 0.2},
 "cloud_options": [{"name": "od", "gpus_per_instance": 8, "pricing": "on_demand", "hourly": 30},
                   {"name": "spot", "gpus_per_instance": 8, "pricing": "spot", "hourly": 12},
                   {"name": "1y", "gpus_per_instance": 8, "pricing": "committed", "hourly": 20,
                    "term_months": 12}]}
JSON
sed 's/"name": "steady"/"name": "<script>alert(1)<\/script>"/' "$tmp/steady.json" >"$tmp/xss.json"
for f in rent fleet steady xss; do "$gpuplan" scenario save "$tmp/$f.json" >/dev/null; done
# A version 2 plan over time (docs/model.md): demand growing, servers bought as needed.
"$gpuplan" scenario save "$root/tests/fixtures/examples/v2-growth-as-needed-lead-bridge.json" >/dev/null
"$gpuplan" scenario measure fleet-plan --since 3d --node a >/dev/null

# ---- --out a file (or a file above the folder): bad usage, one line naming it, nothing written
: >"$tmp/afile"
for o in "$tmp/afile" "$tmp/afile/sub"; do
    "$gpuplan" batch --out "$o" >"$tmp/file.out" 2>"$tmp/file.err"; rc=$?
    check "batch --out $o (a file in the way) exits 2 with one line naming it" bash -c \
        "[ $rc = 2 ] && [ \$(wc -l <'$tmp/file.err') = 1 ] && grep -qF '$o: --out: not a folder' '$tmp/file.err' && [ ! -s '$tmp/file.out' ] && [ ! -s '$tmp/afile' ]"
done

# ---- the first run ----------------------------------------------------------------------------
out=$tmp/reports
"$gpuplan" batch --out "$out" >"$tmp/run1.out" 2>"$tmp/run1.err"; rc=$?
day=$(date -u +%Y-%m-%d)
run=$out/$day
check "first run exits 0" [ "$rc" = 0 ]
check "first run: no earlier run" grep -q 'no earlier run to compare with' "$tmp/run1.out"
check "a spot strongest rental: the strongest guaranteed one and its break-even month" $py - "$run" <<'PY'
import html, json, os, re, sys
run = sys.argv[1]
sc = [s for s in json.load(open(os.path.join(run, 'summary.json')))['scenarios'] if s['name'] == 'steady'][0]
rep = json.load(open(os.path.join(run, sc['files']['json'])))
assert sc['rival'] == 'spot', sc['rival']
kinds = {o['name']: o['pricing'] for o in rep['scenario_json']['cloud_options']}
firm = min((o for o in rep['options'] if kinds[o['name']] != 'spot'), key=lambda o: o['total'])
assert sc['guaranteed_rival'] == firm['name'], (sc['guaranteed_rival'], firm['name'])
assert sc['guaranteed_break_even_month'] == firm['break_even_month'], sc
row = [r for r in open(os.path.join(run, 'index.html')).read().split('<tr') if '>steady</a>' in r][0]
cell = html.unescape(re.sub('<[^>]+>', '', re.search('data-field="rival">(.*?)</td>', row).group(1)))
want = 'spot (spot; guaranteed: %s, break-even month %d)' % (firm['name'], firm['break_even_month'])
assert cell == want, (cell, want)
PY
check "no progress lines off a terminal" [ ! -s "$tmp/run1.err" ]
check "the run folder holds every report" $py - "$run" <<'PY'
import json, os, sys
run = sys.argv[1]
s = json.load(open(os.path.join(run, 'summary.json')))
assert s['format'] == 'gpuplan-batch-summary' and len(s['scenarios']) == 5, s
for sc in s['scenarios']:
    # Every scenario, the version 2 plan over time included, has its workbook.
    assert set(sc['files']) == {'md', 'csv', 'json', 'xlsx'}, (sc['name'], sc['files'])
    for f in sc['files'].values():
        assert os.path.getsize(os.path.join(run, f)) > 0, f
    rep = json.load(open(os.path.join(run, sc['files']['json'])))
    assert rep['scenario'] == sc['name'] and rep['cheapest'] == sc['cheapest'], (rep['cheapest'], sc)
    assert abs(rep['self_hosted']['total'] - sc['choices'][0]['total']) < 1e-6
for f in ('fleet.json', 'capacity.json', 'capacity.txt', 'capacity.csv', 'index.html'):
    assert os.path.getsize(os.path.join(run, f)) > 0, f
assert not [e for e in os.listdir(os.path.dirname(run)) if e.startswith('.')], 'temporary left'
by = {sc['name']: sc for sc in s['scenarios']}
r, f = by['rent-or-own'], by['fleet-plan']
assert r['cheapest'] == 'self_hosted' and r['prices'][0]['hourly'] == 40, r
assert r['prices'][0]['catalog'] == 'acme/g8/eu-1' and r['prices'][0]['source'] == 'acme list'
assert r['prices'][0]['effective_from'] == '2020-01-01'
assert f['measured'] and f['utilization'] == 0.5 and f['gpu_tdp_w'] == 325, f
assert f['cheapest'] == 'cloud od', f
PY
cp -r "$run" "$tmp/run1"

# ---- what moves: a price cut in the catalog, a fleet now busy all day ------------------------
"$gpuplan" pricing import "$tmp/v2.json" --effective 2021-01-01 --source 'acme cut' >/dev/null
"$gpuplan" scenario measure fleet-plan --since 3d --node c >/dev/null

"$gpuplan" batch --out "$out" --jobs 2 >"$tmp/run2.out" 2>&1; rc=$?
check "a flipped decision exits 3" [ "$rc" = 3 ]
check "the text names both flips" bash -c "grep -q '^FLIP  rent-or-own: acme on-demand is now the cheapest (was self_hosted' '$tmp/run2.out' && grep -q '^FLIP  fleet-plan: self_hosted is now the cheapest (was cloud od' '$tmp/run2.out'"
check "the comparison names exactly what moved" $py - "$run" <<'PY'
import json, os, sys
d = json.load(open(os.path.join(sys.argv[1], 'changes.json')))
assert d['against'] == 'the run of ' + os.path.basename(sys.argv[1]), d['against']
ch = d['changes']
inputs = sorted((c['kind'], c['scenario'], c['what']) for c in ch if c['kind'] in ('price', 'measured'))
assert inputs == [('measured', 'fleet-plan', 'gpu_tdp_w'), ('measured', 'fleet-plan', 'utilization'),
                  ('price', 'rent-or-own', 'acme on-demand')], inputs
price = [c for c in ch if c['kind'] == 'price'][0]
assert (price['old'], price['new'], price['catalog']) == (40, 10, 'acme/g8/eu-1'), price
assert (price['source'], price['effective_from']) == ('acme cut', '2021-01-01'), price
m = {c['what']: c for c in ch if c['kind'] == 'measured'}
assert (m['utilization']['old'], m['utilization']['new']) == (0.5, 0.75), m
assert (m['gpu_tdp_w']['old'], m['gpu_tdp_w']['new']) == (325, 400), m
flips = sorted((c['scenario'], c['was'], c['what']) for c in ch if c['kind'] == 'flip')
assert flips == [('fleet-plan', 'cloud od', 'self_hosted'),
                 ('rent-or-own', 'self_hosted', 'acme on-demand')], flips
assert d['flips'] == 2
why = {c['scenario']: c['because'] for c in ch if c['kind'] == 'flip'}
assert 'acme on-demand price 40 -> 10 (acme cut, 2021-01-01)' in why['rent-or-own'], why
assert 'utilization 0.5 -> 0.75' in why['fleet-plan'] and 'gpu_tdp_w 325 -> 400' in why['fleet-plan'], why
# Totals past the threshold: only those of the two scenarios whose inputs moved.
moved = {(c['scenario'], c['what']) for c in ch if c['kind'] == 'total'}
assert ('rent-or-own', 'acme on-demand') in moved and ('fleet-plan', 'cloud od') in moved, moved
assert {s for s, _ in moved} == {'rent-or-own', 'fleet-plan'}, moved
assert all(c['scenario'] in ('rent-or-own', 'fleet-plan') for c in ch), ch
# The inputs that moved are the catalog price and the measured figures, named as such.
assert not [c for c in ch if c['kind'] == 'input'], ch
PY
check "the run is recorded with its prices and figures" $py - "$tmp/db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
runs = db.execute('SELECT id, flipped, scenarios FROM batch_run ORDER BY id').fetchall()
assert [(f, n) for _, f, n in runs] == [(0, 5), (2, 5)], runs
p = db.execute('SELECT hourly, source FROM batch_price WHERE run_id = ? AND scenario = ?',
               (runs[1][0], 'rent-or-own')).fetchall()
assert p == [(10.0, 'acme cut')], p
m = db.execute('SELECT measured, utilization, gpu_tdp_w FROM batch_measure WHERE run_id = ? '
               'AND scenario = ?', (runs[1][0], 'fleet-plan')).fetchall()
assert m == [(1, 0.75, 400.0)], m
PY

# ---- the page in a real browser --------------------------------------------------------------
if ! command -v chromium >/dev/null; then
    echo "FAIL chromium is not installed (tools/dev installs it)"; fails=$((fails + 1))
else
    browse() { # extra chromium arguments...
        timeout 60 chromium --headless --disable-gpu --no-sandbox --user-data-dir="$tmp/chrome" \
            --no-first-run --disable-extensions "$@" 2>>"$tmp/chromium.log"
    }
    # A proxy on a closed port: any fetch would fail, and the page must not need one.
    browse --proxy-server=127.0.0.1:9 --dump-dom "file://$run/index.html" >"$tmp/dom.html"
    browse --proxy-server=127.0.0.1:9 --window-size=1200,2400 --screenshot="$tmp/page.png" \
        "file://$run/index.html" >/dev/null
    check "chromium rendered a screenshot" $py -c "
import sys; b = open('$tmp/page.png', 'rb').read(); assert b[:8] == b'\x89PNG\r\n\x1a\n' and len(b) > 20000, len(b)"
    check "nothing in the page can reach the network" bash -c "! grep -Eiq 'https?://|src=|url\\(|@import|<link|<script' '$run/index.html'"
    check "the DOM matches summary.json, every chart has its series" $py - "$tmp/dom.html" "$run" <<'PY'
import json, os, sys
from html.parser import HTMLParser

class Dom(HTMLParser):
    """A flat list of elements with their attributes, parents and text."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.els, self.stack = [], []
    def handle_starttag(self, tag, attrs):
        el = {'tag': tag, 'a': dict(attrs), 'parents': list(self.stack), 'text': ''}
        self.els.append(el)
        if tag not in ('meta', 'br', 'img', 'input', 'link', 'hr'):
            self.stack.append(el)
    def handle_startendtag(self, tag, attrs):
        self.els.append({'tag': tag, 'a': dict(attrs), 'parents': list(self.stack), 'text': ''})
    def handle_endtag(self, tag):
        if not any(el['tag'] == tag for el in self.stack):
            return
        while self.stack:
            if self.stack.pop()['tag'] == tag:
                break
    def handle_data(self, data):
        for el in self.stack:
            el['text'] += data

dom = Dom()
dom.feed(open(sys.argv[1]).read())
run = sys.argv[2]
summary = json.load(open(os.path.join(run, 'summary.json')))
els = dom.els
def cls(el): return el['a'].get('class', '').split()
assert not [e for e in els if e['tag'] == 'script'], 'a script element'
rows = [e for e in els if e['tag'] == 'tr' and 'scenario' in cls(e)]
assert len(rows) == len(summary['scenarios']), len(rows)
for row, sc in zip(rows, summary['scenarios']):
    cells = {e['a']['data-field']: e for e in els if e['tag'] == 'td' and row in e['parents']
             and 'data-field' in e['a']}
    assert cells['name']['text'] == sc['name'], (cells['name']['text'], sc['name'])
    assert cells['cheapest']['text'] == sc['cheapest']
    assert float(cells['cheapest_total']['a']['data-v']) == sc['cheapest_total']
    assert float(cells['self_total']['a']['data-v']) == sc['choices'][0]['total']
    assert float(cells['utilization']['a']['data-v']) == sc['utilization']
    if sc['break_even_month'] is None:
        assert 'data-v' not in cells['break_even_month']['a']
    else:
        assert float(cells['break_even_month']['a']['data-v']) == sc['break_even_month']
    # 2.1: the exit value within owning's total, with its basis, beside that total.
    if sc['exit_value']:
        assert float(cells['exit_value']['a']['data-v']) == sc['exit_value'], sc['name']
        assert sc['exit_value_basis'].split('_')[0] in cells['exit_value']['text'], cells['exit_value']['text']
    else:
        assert 'data-v' not in cells['exit_value']['a'], sc['name']
names = [e['text'] for e in els if e['tag'] == 'h2' and any('scenario' in cls(p) for p in e['parents'])]
assert names == [sc['name'] for sc in summary['scenarios']], names
assert '<script>alert(1)</script>' in names, names
sections = [e for e in els if e['tag'] == 'section' and 'scenario' in cls(e)]
for sec, sc in zip(sections, summary['scenarios']):
    inside = [e for e in els if sec in e['parents']]
    cum = [e for e in inside if e['tag'] == 'svg' and 'cumulative' in cls(e)]
    assert len(cum) == 1, sc['name']
    lines = [e for e in inside if e['tag'] == 'polyline' and 'series' in cls(e) and cum[0] in e['parents']]
    assert int(cum[0]['a']['data-series']) == len(lines) == len(sc['choices'])
    assert [l['a']['data-name'] for l in lines] == [c['name'] for c in sc['choices']]
    for l in lines:
        assert len(l['a']['points'].split()) == sc['horizon_months'] + 1
    rep = json.load(open(os.path.join(run, sc['files']['json'])))
    ev = rep['self_hosted']['exit_value']
    assert ev == sc['exit_value'], (ev, sc['exit_value'])
    exits = [e for e in inside if e['tag'] == 'g' and 'exit-value' in cls(e) and cum[0] in e['parents']]
    said = [e for e in inside if e['tag'] == 'b' and 'exit-value' in cls(e)]
    if ev:
        assert len(exits) == 1 and '{:,.2f}'.format(ev) in exits[0]['a']['data-name'], exits
        assert len(said) == 1 and float(said[0]['a']['data-v']) == ev, said
    else:
        assert not exits and not said, sc['name']
    # Round ticks: evenly spaced at 1, 2, 2.5 or 5 times a power of ten, printed short.
    ticks = [e['text'] for e in inside if e['tag'] == 'text' and 'tick' in cls(e)
             and cum[0] in e['parents'] and e['a'].get('text-anchor') == 'end']
    import re
    assert all(re.fullmatch(r'-?\d+(\.\d{1,2})?( [kM])?', t) for t in ticks), ticks
    vals = [float(t.split()[0]) * {'k': 1e3, 'M': 1e6}.get(t.split()[-1], 1) for t in ticks]
    steps = {round(b - a, 6) for a, b in zip(vals, vals[1:])}
    assert len(vals) >= 3 and len(steps) == 1, ticks
    step = steps.pop()
    mant = step / 10 ** __import__('math').floor(__import__('math').log10(step))
    assert min(abs(mant - m) for m in (1, 2, 2.5, 5)) < 1e-9, (ticks, step)
    marks = [e for e in inside if e['tag'] == 'circle' and 'break-even' in cls(e)]
    assert len(marks) == sum(c['break_even_month'] is not None for c in sc['choices']), sc['name']
    plan = [e for e in inside if e['tag'] == 'svg' and 'plan' in cls(e)]
    if sc['name'].startswith('H100 cluster growing'):  # the version 2 plan: its steps by month
        assert len(plan) == 1, sc['name']
        steps = [e for e in inside if e['tag'] == 'polyline' and plan[0] in e['parents']]
        assert [l['a']['data-name'] for l in steps] == ['GPUs demanded', 'GPUs owned']
        for l in steps:
            assert len(l['a']['points'].split()) == 2 * sc['horizon_months']
    else:
        assert not plan, sc['name']
    tor = [e for e in inside if e['tag'] == 'svg' and 'tornado' in cls(e)]
    assert len(tor) == 1, sc['name']
    bars = [e for e in inside if e['tag'] == 'g' and 'series' in cls(e) and tor[0] in e['parents']]
    assert 0 < len(bars) == int(tor[0]['a']['data-series']), sc['name']
    # Rows named as the CLI names them ("owner: parameter"), not by JSON path.
    for b in bars:
        n = b['a']['data-name']
        assert ': ' in n and not n.startswith(('cloud_options', 'self_hosted.', 'demand.')), n
heat = [e for e in els if e['tag'] == 'svg' and 'heatmap' in cls(e)]
assert len(heat) == 1
nodes = [e for e in els if e['tag'] == 'g' and heat[0] in e['parents']]
assert [n['a']['data-name'] for n in nodes] == ['a', 'c'], nodes
for n in nodes:
    assert len([e for e in els if e['tag'] == 'rect' and n in e['parents']]) == 24
idle = [e for e in els if e['tag'] == 'svg' and 'idle' in cls(e)]
assert len(idle) == 1 and int(idle[0]['a']['data-series']) == 2
flips = [e for e in els if e['a'].get('id') == 'flips']
assert flips and flips[0]['a']['data-v'] == '2', flips
changes = json.load(open(os.path.join(run, 'changes.json')))['changes']
items = [e for e in els if e['tag'] == 'li' and 'change' in cls(e)]
assert [i['a']['data-kind'] for i in items if 'flip' in cls(i)] == ['flip', 'flip'], items
assert sorted(i['a']['data-kind'] for i in items) == sorted(c['kind'] for c in changes)
price = [i for i in items if i['a']['data-kind'] == 'price'][0]['text']
assert 'price of acme on-demand (acme/g8/eu-1): 40 \u2192 10 (acme cut, 2021-01-01)' in price, price
PY
fi

# ---- against a folder, diff, the same day again, pruning -----------------------------------
"$gpuplan" batch --out "$tmp/other" --against "$tmp/run1" >"$tmp/against.out"; rc=$?
check "--against a folder compares with it" bash -c "[ $rc = 3 ] && grep -q 'Compared with $tmp/run1: 2 decisions flipped' '$tmp/against.out'"
"$gpuplan" diff "$tmp/run1" "$run" --json >"$tmp/diff.json"; rc=$?
check "diff of two runs exits 3 and finds both flips" bash -c "[ $rc = 3 ] && $py -c 'import json; d = json.load(open(\"$tmp/diff.json\")); assert d[\"flips\"] == 2'"
"$gpuplan" diff "$run" "$run" >"$tmp/same.out"; rc=$?
check "diff of a run with itself: nothing" bash -c "[ $rc = 0 ] && grep -q '0 decisions flipped, 0 changes' '$tmp/same.out'"
sed 's/"hourly": 12}/"hourly": 1}/' "$tmp/fleet.json" >"$tmp/fleet-cheap.json"
"$gpuplan" diff "$tmp/fleet.json" "$tmp/fleet-cheap.json" >"$tmp/sdiff.out"; rc=$?
check "diff of two scenario files" bash -c "[ $rc = 0 ] && grep -q 'total fleet-plan: cloud od' '$tmp/sdiff.out'"
# A flip between two scenarios names the input that moved it, old -> new, with its JSON path.
seedf=$root/tests/fixtures/examples/seed-dgx-a100.json
sed 's/"hourly": 9.835/"hourly": 11/' "$seedf" >"$tmp/seed-dear.json"
"$gpuplan" diff "$seedf" "$tmp/seed-dear.json" >"$tmp/idiff.out"; rc=$?
check "diff: a flip names the input that changed" bash -c "[ $rc = 3 ] && grep -qF 'FLIP  Ten DGX A100 against AWS p4d (seed figures): self_hosted is now the cheapest (was p4d spot; 1,550,782.80 -> 1,562,288.00) because p4d spot: hourly 9.835 -> 11' '$tmp/idiff.out' && grep -qxF 'input Ten DGX A100 against AWS p4d (seed figures): p4d spot: hourly 9.835 -> 11 (cloud_options[1].hourly)' '$tmp/idiff.out'"
"$gpuplan" diff "$seedf" "$tmp/seed-dear.json" --json >"$tmp/idiff.json"
check "diff --json: the input as a change with its path" $py -c "import json; c = [c for c in json.load(open('$tmp/idiff.json'))['changes'] if c['kind'] == 'input']; assert [(x['what'], x['path'], x['old'], x['new']) for x in c] == [('p4d spot: hourly', 'cloud_options[1].hourly', 9.835, 11)], c"
api=$root/tests/fixtures/examples/v2-api-bridge-level-months.json
sed 's/"price_per_unit": 0.6/"price_per_unit": 0.2/' "$api" >"$tmp/api-cheap.json"
"$gpuplan" diff "$api" "$tmp/api-cheap.json" >"$tmp/apidiff.out"; rc=$?
check "diff: an API's price a unit of work (2.1), and the totals it moves" bash -c "[ $rc = 0 ] && grep -qF 'price Llama 70B serving: own B200 servers, rent H100s, or buy tokens from an API: API 1 -> 0.6 a unit of work (the scenario)' '$tmp/apidiff.out' && grep -qF 'API 1,435,872.45 -> 861,523.47' '$tmp/apidiff.out'"
check "diff: a missing run is bad input" bash -c "'$gpuplan' diff 1999-01-01 '$run' 2>/dev/null; [ \$? = 2 ]"
check "diff: a run folder that is not there is named as such, not as a scenario" bash -c "'$gpuplan' diff '$tmp/nope/2026-01-05' '$run' 2>'$tmp/nope.err'; [ \$? = 2 ] && [ \"\$(cat '$tmp/nope.err')\" = 'gpuplan: $tmp/nope/2026-01-05: no such run folder, summary.json or scenario file (No such file or directory), nor a stored scenario of that name' ]"

# Pruning removes only what this database recorded and gpuplan marked. Old runs are made as a
# run of an earlier day would leave them: a record in batch_run and a folder with its marker.
check "a run folder carries its marker" bash -c "printf 'gpuplan batch run\nday: %s\nstarted_at: ' '$day' | cmp -s -n \$((36 + 10)) - '$run/.gpuplan-batch-run'"
abs_out=$(realpath "$out")
old_run() { # day, marker: yes|no
    mkdir -p "$out/$1"
    echo "<html>" >"$out/$1/index.html"
    [ "$2" = no ] || printf 'gpuplan batch run\nday: %s\nstarted_at: %sT06:00:00Z\n' "$1" "$1" >"$out/$1/.gpuplan-batch-run"
    $py -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("INSERT INTO batch_run(day, started_at, out_dir, scenarios, flipped, summary) VALUES (?, ?, ?, 0, 0, ?)", (sys.argv[2], sys.argv[2] + "T06:00:00Z", sys.argv[3], "{}")); c.commit()' \
        "$GPUPLAN_DB" "$1" "$abs_out/$1"
}
mkdir -p "$out/2001-01-01" "$out/notes" "$tmp/precious" "$tmp/precious2"
echo mine >"$out/2001-01-01/notes.txt"          # a user's folder named like a day: never recorded
old_run 2001-01-02 yes                            # a recorded run with its marker: removed
old_run 2001-01-03 no                             # recorded, but its marker is gone: left and named
old_run 2001-01-04 yes                            # recorded, then replaced by a link: left, target kept
mv "$out/2001-01-04" "$tmp/precious/run"; ln -s "$tmp/precious/run" "$out/2001-01-04"
old_run 2001-01-05 yes                            # recorded, holding a link out: removed, not followed
echo keep >"$tmp/precious2/data.txt"; ln -s "$tmp/precious2" "$out/2001-01-05/link"
"$gpuplan" batch --out "$out" --keep-days 30 >"$tmp/run3.out"; rc=$?
check "nothing moved since: exit 0, no change" bash -c "[ $rc = 0 ] && grep -q '0 decisions flipped, 0 changes' '$tmp/run3.out'"
check "a recorded, marked old run is removed and named" bash -c "[ ! -e '$out/2001-01-02' ] && [ ! -e '$out/2001-01-05' ] && grep -qx 'removed $abs_out/2001-01-02 (a run older than --keep-days)' '$tmp/run3.out'"
check "a folder gpuplan never recorded is left whole" bash -c "[ \"\$(cat '$out/2001-01-01/notes.txt')\" = mine ] && [ -d '$out/notes' ] && [ -f '$run/index.html' ]"
check "a recorded run without its marker is left, and said" bash -c "[ -f '$out/2001-01-03/index.html' ] && grep -q '^left $abs_out/2001-01-03 (not removed: no .gpuplan-batch-run' '$tmp/run3.out'"
check "a link in place of a run is not followed" bash -c "[ -L '$out/2001-01-04' ] && [ -f '$tmp/precious/run/.gpuplan-batch-run' ] && [ -f '$tmp/precious/run/index.html' ]"
check "a link inside a removed run is not followed" bash -c "[ \"\$(cat '$tmp/precious2/data.txt')\" = keep ]"
check "old records are forgotten" bash -c "[ \"\$($py -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT count(*) FROM batch_run WHERE day < \x272002\x27\").fetchone()[0])' '$GPUPLAN_DB')\" = 0 ]"
mkdir -p "$tmp/theirs/$day"; echo mine >"$tmp/theirs/$day/notes.txt"
"$gpuplan" batch --out "$tmp/theirs" --keep-days 0 >/dev/null 2>"$tmp/theirs.err"; rc=$?
check "today's folder not written by gpuplan is refused, not replaced" bash -c "[ $rc = 2 ] && grep -q 'is not a run this database wrote there' '$tmp/theirs.err' && [ \"\$(cat '$tmp/theirs/$day/notes.txt')\" = mine ] && [ \$(ls -A '$tmp/theirs' | wc -l) = 1 ]"
check "a second run the same day replaced the folder" bash -c "[ ! -e '$run/changes.json' ] || grep -q '\"flips\":[[:space:]]*0' '$run/changes.json'"
check "--scenario picks one" bash -c "'$gpuplan' batch --out '$tmp/one' --scenario steady --keep-days 0 | grep -q '1 scenario'"
check "--scenario: unknown name is bad input" bash -c "'$gpuplan' batch --out '$tmp/one' --scenario nope 2>/dev/null; [ \$? = 2 ]"
check "--since: no run that early is bad input" bash -c "'$gpuplan' batch --out '$tmp/one' --since 1999-01-01 2>/dev/null; [ \$? = 2 ]"
check "progress on a terminal" bash -c "script -qec \"'$gpuplan' batch --out '$tmp/tty' --scenario steady --keep-days 0\" /dev/null | grep -q '\[1/1\] steady'"
check "--out is required" bash -c "'$gpuplan' batch 2>/dev/null; [ \$? = 2 ]"

# ---- work mode: the cost per GPU-hour with the cost per unit of work beside it --------------
export GPUPLAN_DB=$tmp/work.db
"$gpuplan" scenario save "$root/tests/fixtures/examples/v2-work-mode-generations.json" >/dev/null
"$gpuplan" batch --out "$tmp/work" >/dev/null; rc=$?
check "work mode: the batch runs" [ "$rc" = 0 ]
check "work mode: summary, page and report carry both costs, named by the unit" $py - "$tmp/work/$day" <<'PY'
import html.parser, json, os, sys
run = sys.argv[1]
sc = json.load(open(os.path.join(run, 'summary.json')))['scenarios'][0]
rep = json.load(open(os.path.join(run, sc['files']['json'])))
assert sc['work_unit'] == 'M tokens', sc
sj = rep['scenario_json']
sides = [(rep['self_hosted'], sj['self_hosted'])] + list(zip(rep['options'], sj['cloud_options']))
work = sum(rep['demand']['work'])
for ch, (r, s) in zip(sc['choices'], sides):
    assert ch['cost_per_work_unit'] == r['cost_per_work_unit'], (ch, r)
    busy_hours = work / s['work_per_gpu_hour']  # the side's own busy GPU-hours
    assert abs(ch['cost_per_gpu_hour'] - r['total'] / busy_hours) <= 1e-9 * r['total'] / busy_hours, ch
best = [c for c in sc['choices'] if c['name'] == sc['cheapest']][0]
assert sc['cost_per_gpu_hour'] == best['cost_per_gpu_hour'] and sc['cost_per_work_unit'] == best['cost_per_work_unit']
class Cells(html.parser.HTMLParser):
    cells, field = {}, None
    def handle_starttag(self, tag, attrs):
        self.field = dict(attrs).get('data-field') if tag == 'td' else None
    def handle_data(self, data):
        if self.field:
            self.cells[self.field] = self.cells.get(self.field, '') + data
p = Cells()
p.feed(open(os.path.join(run, 'index.html')).read())
assert p.cells['cost_per_work_unit'] == '%.6g per M tokens' % best['cost_per_work_unit'], p.cells
md = open(os.path.join(run, sc['files']['md'])).read()
assert '| per busy GPU-hour | per M tokens |' in md, md
PY

# A scenario edited between two runs: the later run names the input, from the inputs each
# summary.json keeps.
sed 's/"server_price": 150000/"server_price": 180000/' "$tmp/steady.json" >"$tmp/steady-dear.json"
"$gpuplan" scenario save "$tmp/steady-dear.json" >/dev/null
"$gpuplan" batch --out "$tmp/edited" --against "$tmp/run1" --scenario steady --keep-days 0 >"$tmp/edited.out"
check "a run names a scenario input edited since the run it is compared with" $py - "$tmp/edited" <<'PY'
import glob, json, os, sys
[changes] = glob.glob(os.path.join(sys.argv[1], '*', 'changes.json'))
c = [(x['scenario'], x['what'], x['path'], x['old'], x['new'])
     for x in json.load(open(changes))['changes'] if x['kind'] == 'input']
assert c == [('steady', 'server price', 'self_hosted.server_price', 150000, 180000)], c
PY

finish "batch"

#!/usr/bin/python3
"""Checks for tests/cli/test_exporter.sh (the exporter against a real Prometheus).
  families SERVED.txt          the served family names (as the text format names them), one a line
  promql DASHBOARD RULES SERVED.txt DCGM_LIST... --prom URL
      every PromQL expression of the Grafana dashboard and of the rules file uses only names the
      exporter served or dcgm-exporter's (DCGM_FI_* in its counter lists), parses (Prometheus
      answers it with status success) and, where it uses only gpuplan's names, has a result.
Exit status 1 with a line per problem."""
import json
import re
import sys
import urllib.parse
import urllib.request

import yaml

KEYWORDS = {'and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left',
            'group_right', 'bool', 'offset', 'inf', 'nan'}
VARIABLES = {'$node': '.*', '${node}': '.*', '$label': 'pod', '${label}': 'pod'}


def families(path):
    out = []
    for line in open(path):
        if line.startswith('# TYPE '):
            out.append(line.split()[2])
    return out


def served_names(path):
    names = set()
    for line in open(path):
        if line and not line.startswith('#') and line.strip():
            names.add(re.match(r'[a-zA-Z_:][a-zA-Z0-9_:]*', line).group(0))
    return names


def metric_names(expr):
    """The metric names a PromQL expression reads (strings, matchers, ranges and label lists
    taken out first; a name followed by "(" is a function)."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    e = re.sub(r'\{[^}]*\}', ' ', e)
    e = re.sub(r'\[[^\]]*\]', ' ', e)
    e = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', ' ', e)
    names = set()
    for m in re.finditer(r'(?<![\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?', e):
        if m.group(2) or m.group(1) in KEYWORDS:
            continue
        names.add(m.group(1))
    return names


def dashboard_exprs(dash):
    out = []
    for p in dash.get('panels', []):
        for t in p.get('targets', []):
            out.append(('panel "%s"' % p['title'], t['expr']))
    for v in dash.get('templating', {}).get('list', []):
        q = v.get('query')
        if isinstance(q, dict) and 'label_values(' in q.get('query', ''):
            m = re.match(r'label_values\((.*),\s*\w+\)$', q['query'])
            out.append(('variable %s' % v['name'], m.group(1)))
    return out


def substitute(expr):
    for k, v in VARIABLES.items():
        expr = expr.replace(k, v)
    return expr


def query(prom, expr):
    url = prom + '/api/v1/query?' + urllib.parse.urlencode({'query': expr})
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        return json.load(e)


def promql(args):
    prom = args[args.index('--prom') + 1]
    dash_path, rules_path, served_path = args[:3]
    dcgm = set()
    for f in args[3:args.index('--prom')]:
        dcgm |= set(re.findall(r'DCGM_FI_[A-Z0-9_]+', open(f).read()))
    served = served_names(served_path)
    exprs = dashboard_exprs(json.load(open(dash_path)))
    for g in yaml.safe_load(open(rules_path))['groups']:
        recorded = set()
        for r in g['rules']:
            exprs.append(('rule %s' % (r.get('record') or r.get('alert')), r['expr']))
        for r in g['rules']:
            if 'record' in r:
                recorded.add(r['record'])
        served |= recorded  # a recording rule's output is a name alerts may use
    problems = 0
    for where, expr in exprs:
        expr = substitute(expr)
        names = metric_names(expr)
        if not names:
            print('FAIL %s: no metric in %r' % (where, expr))
            problems += 1
        for n in sorted(names):
            if n not in served and n not in dcgm:
                print('FAIL %s: %s is neither served nor dcgm-exporter\'s' % (where, n))
                problems += 1
        ans = query(prom, expr)
        if ans.get('status') != 'success':
            print('FAIL %s: Prometheus refuses %r: %s' % (where, expr, ans.get('error')))
            problems += 1
            continue
        gpuplan_only = all(n in served for n in names) and where.startswith(('panel', 'variable'))
        if gpuplan_only and not ans['data']['result']:
            print('FAIL %s: no result for %r' % (where, expr))
            problems += 1
    print('%d expressions checked, %d problems' % (len(exprs), problems))
    return 1 if problems else 0


if __name__ == '__main__':
    if sys.argv[1] == 'families':
        print('\n'.join(families(sys.argv[2])))
        sys.exit(0)
    sys.exit(promql(sys.argv[2:]))

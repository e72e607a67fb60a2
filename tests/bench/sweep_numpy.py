#!/usr/bin/python3
"""What an analyst would write instead of `gpuplan sweep SCENARIO --vary ... --summary`: the
closed-form totals of docs/model.md (version 1) on the whole grid at once with numpy, the winner
of every point by docs/model.md's Ties rule (the first total within 1e-9 relative of the lowest),
each contender's wins and the flips of the answer along the last axis. Prints the seconds
spent computing (after import and reading the scenario) and the counts, so both can be checked
against gpuplan's.

Usage: sweep_numpy.py SCENARIO PARAM=FROM:TO:STEPS ...  (utilization, price_per_kwh,
server_price; the last one changes fastest). Supports what the benchmark scenarios use: cash
financing, no bulk tiers, tariffs with or without shifting, no gpu_avg_w, no demand charge,
on-demand, spot and committed options. Run with Debian's numpy: /usr/bin/python3."""
import json
import sys
import time

import numpy as np


def axis_values(spec):
    name, rng = spec.split('=')
    lo, hi, steps = rng.split(':')
    return name, np.linspace(float(lo), float(hi), int(steps))


def main():
    s = json.load(open(sys.argv[1]))
    axes = [axis_values(a) for a in sys.argv[2:]]
    sh = s['self_hosted']
    assert sh.get('financing', {'kind': 'cash'})['kind'] == 'cash'
    assert not sh.get('bulk_discounts') and 'gpu_avg_w' not in sh.get('power', {})
    tariff = sh.get('tariff', {})
    assert not tariff.get('demand_charge_per_kw_month')
    periods = tariff.get('periods', [{'hours_per_day': 24, 'price_per_kwh': 0.12}])
    shift = tariff.get('shift_to_cheapest', False)
    power = sh.get('power', {})

    t0 = time.perf_counter()
    shape = [len(v) for _, v in axes]

    def grid(name, default):
        for k, (n, v) in enumerate(axes):
            if n == name:
                return v.reshape([-1 if j == k else 1 for j in range(len(axes))])
        return np.full([1] * len(axes), float(default))

    m = s['horizon_months']
    n = s['demand']['gpus']
    g = sh.get('gpus_per_server', 8)
    servers = -(-n // g)
    u = grid('utilization', s['demand']['utilization'])
    mean_price = sum(p['hours_per_day'] * p['price_per_kwh'] for p in periods) / 24
    price = grid('price_per_kwh', mean_price)
    server_price = grid('server_price', sh['server_price'])

    hw = servers * server_price * sh.get('price_factor', 1.0) + servers * sh.get('network_per_server', 0)
    base_w = servers * power.get('server_base_w', 0) + n * power.get('gpu_idle_w', 0)
    inc_w = power.get('gpu_tdp_w', 0) - power.get('gpu_idle_w', 0)
    pue = power.get('pue', 1.0)
    # Busy GPU-hours a day in each period: spread by hours, or the cheapest periods first.
    busy = 24.0 * n * u
    order = sorted(range(len(periods)), key=lambda k: periods[k]['price_per_kwh'])
    before, placed = 0.0, {}
    for k in order:
        h = periods[k]['hours_per_day']
        placed[k] = np.clip(busy - n * before, 0, n * h) if shift else busy * h / 24
        before += h
    cost_wh = 0.0
    for k, p in enumerate(periods):
        e = base_w * p['hours_per_day'] + inc_w * placed[k]
        cost_wh = cost_wh + e * (p['price_per_kwh'] * price / mean_price)
    power_month = pue * cost_wh * (730 / 24 / 1000)
    peak_kw = (servers * power.get('server_base_w', 0) + n * power.get('gpu_tdp_w', 0)) / 1000
    monthly = (power_month + sh.get('colo_per_kw_month', 0) * peak_kw
               + sh.get('staff_per_month', 0) + sh.get('other_per_month', 0))
    maint_months = max(0, m - sh.get('warranty_months', 0))
    self_total = (hw + sh.get('fixed_capex', 0) + m * monthly
                  + maint_months * sh.get('maintenance_pct_per_year', 0) * hw / 12
                  - sh.get('residual_pct', 0) * hw)

    totals = [self_total]
    q = n * 730 * u
    for o in s.get('cloud_options', []):
        gi = o['gpus_per_instance']
        extras = o.get('storage_gb', 0) * o.get('storage_per_gb_month', 0) + \
            o.get('egress_gb_per_month', 0) * o.get('egress_per_gb', 0)
        support = 1 + o.get('support_pct', 0)
        if o['pricing'] == 'committed':
            inst = -(-n // gi)
            t = o.get('term_months', 12)
            inside = (m - 1) // t
            after = max(0, inside * t + t - m)
            rec = inst * 730 * o['hourly'] * support
            total = np.full([1] * len(axes), inst * o.get('upfront', 0) * support * (1 + inside)
                            + m * (rec + extras) + after * rec)
        else:
            over = 1 + o.get('idle_overhead', 0)
            if o['pricing'] == 'spot':
                over *= 1 + o.get('interruptions_per_hour', 0) * (
                    o.get('checkpoint_interval_h', 1) / 2 + o.get('restart_h', 0))
            total = m * (q / gi * over * o['hourly'] * support + extras)
        totals.append(total)
    # The lowest total, then the first contender within Ties of it (the last write wins, so
    # go backwards); each total broadcasts over the axes it does not depend on.
    best = totals[0]
    for t in totals[1:]:
        best = np.minimum(best, t)
    best = np.broadcast_to(best, shape)
    scale_best = np.maximum(np.abs(best), 1.0)
    winner = np.zeros(shape, dtype=np.int8)
    for c in range(len(totals) - 1, -1, -1):
        t = totals[c]
        tied = np.abs(t - best) <= 1e-9 * np.maximum(scale_best, np.abs(t))
        winner[tied] = c
    wins = np.bincount(winner.ravel(), minlength=len(totals))
    flips = int(np.count_nonzero(winner[..., 1:] != winner[..., :-1]))
    elapsed = time.perf_counter() - t0
    print('numpy: %d points in %.3f s (%.1f M points/s)' % (winner.size, elapsed,
                                                           winner.size / elapsed / 1e6))
    names = ['self_hosted'] + [o['name'] for o in s.get('cloud_options', [])]
    for name, w in zip(names, wins):
        print('  %-40s %6.2f%%  (%d points)' % (name, 100.0 * w / winner.size, w))
    print('  %d flips along %s' % (flips, axes[-1][0]))


if __name__ == '__main__':
    main()

#!/usr/bin/python3
"""The same sweep as `gpuplan sweep SCENARIO --vary utilization=... --vary price_per_kwh=...
--vary server_price=... --summary`, computed with numpy: the closed-form totals of MODEL.md on
the whole grid at once, then each contender's share of wins. Prints the seconds spent
computing (after import and reading the scenario) and the shares, so the two can be checked
against each other.

Supports what the benchmark scenario uses: cash financing, tariffs without shifting, and
on-demand, spot and committed options. Run with Debian's numpy: /usr/bin/python3."""
import json
import sys
import time

import numpy as np

def main():
    path, steps = sys.argv[1], [int(x) for x in sys.argv[2:5]]
    s = json.load(open(path))
    sh = s['self_hosted']
    assert sh.get('financing', {'kind': 'cash'})['kind'] == 'cash'
    tariff = sh.get('tariff', {})
    assert not tariff.get('shift_to_cheapest', False)
    periods = tariff.get('periods', [{'hours_per_day': 24, 'price_per_kwh': 0.12}])
    power = sh.get('power', {})

    t0 = time.perf_counter()
    m = s['horizon_months']
    n = s['demand']['gpus']
    g = sh.get('gpus_per_server', 8)
    servers = -(-n // g)
    u = np.linspace(0.0, 1.0, steps[0])[:, None, None]
    mean_price = sum(p['hours_per_day'] * p['price_per_kwh'] for p in periods) / 24
    price = np.linspace(0.05, 0.5, steps[1])[None, :, None]
    server_price = np.linspace(80000, 200000, steps[2])[None, None, :]

    hw = servers * server_price * sh.get('price_factor', 1.0) + servers * sh.get('network_per_server', 0)
    base_w = servers * power.get('server_base_w', 0) + n * power.get('gpu_idle_w', 0)
    inc_w = power.get('gpu_tdp_w', 0) - power.get('gpu_idle_w', 0)
    pue = power.get('pue', 1.0)
    # Each period's price scales with the swept mean; busy hours spread by period length.
    cost_wh = 0.0
    for p in periods:
        h = p['hours_per_day']
        e = base_w * h + inc_w * (n * u) * h
        cost_wh = cost_wh + e * (p['price_per_kwh'] * price / mean_price)
    power_month = pue * cost_wh * (730 / 24 / 1000)
    peak_kw = (servers * power.get('server_base_w', 0) + n * power.get('gpu_tdp_w', 0)) / 1000
    monthly = (power_month + sh.get('colo_per_kw_month', 0) * peak_kw
               + tariff.get('demand_charge_per_kw_month', 0) * peak_kw * pue
               + sh.get('staff_per_month', 0) + sh.get('other_per_month', 0))
    maint_months = max(0, m - sh.get('warranty_months', 0))
    self_total = (hw + sh.get('fixed_capex', 0) + m * monthly
                  + maint_months * sh.get('maintenance_pct_per_year', 0) * hw / 12
                  - sh.get('residual_pct', 0) * hw)

    totals = [np.broadcast_to(self_total, (steps[0], steps[1], steps[2]))]
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
            total = inst * o.get('upfront', 0) * (1 + inside) + m * (rec + extras) + after * rec
            total = np.full(u.shape, total)
        else:
            over = 1 + o.get('idle_overhead', 0)
            if o['pricing'] == 'spot':
                over *= 1 + o.get('interruptions_per_hour', 0) * (
                    o.get('checkpoint_interval_h', 1) / 2 + o.get('restart_h', 0))
            total = m * (q / gi * over * o['hourly'] * support + extras)
        totals.append(np.broadcast_to(total, (steps[0], steps[1], steps[2])))
    stacked = np.stack(totals)                     # contenders x grid
    winner = np.argmin(stacked, axis=0)            # ties: the first, as gpuplan's rule
    shares = np.bincount(winner.ravel(), minlength=len(totals)) / winner.size
    elapsed = time.perf_counter() - t0
    print('numpy: %d points in %.3f s (%.1f M points/s)' % (winner.size, elapsed,
                                                           winner.size / elapsed / 1e6))
    names = ['self_hosted'] + [o['name'] for o in s.get('cloud_options', [])]
    for name, share in zip(names, shares):
        print('  %-40s %6.2f%%' % (name, share * 100))

if __name__ == '__main__':
    main()

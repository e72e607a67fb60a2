#!/usr/bin/python3
"""The Telemetry rows of bench_xlsx.c written by Python XlsxWriter in constant-memory mode:
the same header, the same N rows x 8 columns, the same number formats.
Usage: xlsx_python.py N OUT.xlsx"""
import sys

import xlsxwriter

n, out = int(sys.argv[1]), sys.argv[2]
wb = xlsxwriter.Workbook(out, {'constant_memory': True})
ws = wb.add_worksheet('Telemetry')
bold = wb.add_format({'bold': True})
pct = wb.add_format({'num_format': '0.00%'})
num = wb.add_format({'num_format': 'General'})
ws.write_string(0, 0, 'measured from', bold)
ws.write_string(0, 1, '2026-10-23T00:00:00Z')
ws.write_string(0, 2, 'until', bold)
ws.write_string(0, 3, '2026-11-22T00:00:00Z')
ws.write_string(0, 4, 'busy at', bold)
ws.write_number(0, 5, 0.05, pct)
heads = ['node', 'GPU', 'model', 'UUID', 'hours observed', 'mean utilization', 'busy share',
         'mean power W']
for c, h in enumerate(heads):
    ws.write_string(2, c, h, bold)
for i in range(n):
    row = 3 + i
    ws.write_string(row, 0, 'node-%06d' % (i // 8))
    ws.write_number(row, 1, i % 8)
    ws.write_string(row, 2, 'NVIDIA H100 80GB HBM3')
    ws.write_string(row, 3, 'GPU-%08x-0000-4000-8000-%012x' % (i, i * 7919))
    ws.write_number(row, 4, 720, num)
    ws.write_number(row, 5, (i % 101) / 100, pct)
    ws.write_number(row, 6, (i % 97) / 96, pct)
    ws.write_number(row, 7, 60 + i % 641, num)
ws.freeze_panes(3, 0)
ws.autofilter(2, 0, 2 + n, 7)
wb.close()

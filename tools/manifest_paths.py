#!/usr/bin/env python3
"""Print the paths pricing/MANIFEST.csv lists, one a line (for meson.build)."""
import csv
import sys

for row in csv.DictReader(open(sys.argv[1])):
    print(row['path'])

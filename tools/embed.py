#!/usr/bin/env python3
"""Embed small files into C: `embed.py OUT.c TABLE FILE...` writes a table
`const gp_embedded TABLE[]` of {name, data, len}, ended by a zeroed entry, in argument order.
Used for db/*.sql migrations and the demo scenarios (docs/development.md, Build)."""
import os
import sys

def main():
    out, table, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    lines = ['#include "gpuplan/embedded.h"', '']
    for i, path in enumerate(files):
        data = open(path, 'rb').read()
        lines.append('static const unsigned char %s_%d[] = {' % (table, i))
        for off in range(0, len(data), 16):
            lines.append('    ' + ', '.join('0x%02x' % b for b in data[off:off + 16]) + ',')
        lines.append('    0x00};')
    lines.append('const gp_embedded %s[] = {' % table)
    for i, path in enumerate(files):
        lines.append('    {"%s", %s_%d, %d},' % (os.path.basename(path), table, i,
                                                 os.path.getsize(path)))
    lines.append('    {0, 0, 0}};')
    open(out, 'w').write('\n'.join(lines) + '\n')

if __name__ == '__main__':
    main()

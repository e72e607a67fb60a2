#!/usr/bin/env python3
"""Embed the bundled catalog: `embed_bundle.py OUT.S OUT.c MANIFEST.csv` writes an assembly
file that pulls every file the manifest lists in with .incbin (multi-megabyte catalogs must
not become C initializers; docs/development.md) and a C table `gp_bundle[]` of {path, data, len}
ending with a zeroed entry. The manifest itself is entry 0."""
import csv
import os
import sys

def main():
    out_s, out_c, manifest = sys.argv[1:4]
    root = os.path.dirname(os.path.abspath(manifest))
    paths = ['MANIFEST.csv'] + [row['path'] for row in csv.DictReader(open(manifest))]
    asm = ['    .section .rodata']
    for i, rel in enumerate(paths):
        full = os.path.join(root, rel)
        asm += ['    .balign 16', '    .global gp_bundle_%d' % i, 'gp_bundle_%d:' % i,
                '    .incbin "%s"' % full.replace('\\', '\\\\').replace('"', '\\"'),
                '    .byte 0']
    asm.append('    .section .note.GNU-stack,"",@progbits')
    open(out_s, 'w').write('\n'.join(asm) + '\n')
    c = ['#include "gpuplan/embedded.h"', '']
    c += ['extern const unsigned char gp_bundle_%d[];' % i for i in range(len(paths))]
    c += ['', 'const gp_embedded gp_bundle[] = {']
    c += ['    {"%s", gp_bundle_%d, %d},' % (rel, i, os.path.getsize(os.path.join(root, rel)))
          for i, rel in enumerate(paths)]
    c += ['    {0, 0, 0}};']
    open(out_c, 'w').write('\n'.join(c) + '\n')

if __name__ == '__main__':
    main()

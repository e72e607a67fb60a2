#!/usr/bin/env python3
"""Compare two report JSON documents: same structure and keys, strings equal, numbers equal
to a relative 1e-9 (absolute 1e-9 near zero). Keys listed with --ignore are skipped; keys
present only in the actual document are allowed (docs/model.md: "more keys may be added").
Exit 0 when they agree, 1 with every difference listed otherwise."""
import json
import sys

def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) or abs(a - b) <= 1e-9

def walk(exp, act, path, out, ignore):
    if isinstance(exp, dict):
        if not isinstance(act, dict):
            out.append('%s: expected an object' % path); return
        for k, v in exp.items():
            if k in ignore: continue
            if k not in act:
                out.append('%s.%s: missing' % (path, k)); continue
            walk(v, act[k], '%s.%s' % (path, k), out, ignore)
    elif isinstance(exp, list):
        if not isinstance(act, list) or len(act) != len(exp):
            out.append('%s: expected a list of %d' % (path, len(exp))); return
        for i, (e, a) in enumerate(zip(exp, act)):
            walk(e, a, '%s[%d]' % (path, i), out, ignore)
    elif isinstance(exp, bool) or exp is None or isinstance(exp, str):
        if exp != act or type(exp) != type(act):
            out.append('%s: expected %r, got %r' % (path, exp, act))
    else:
        if isinstance(act, bool) or not isinstance(act, (int, float)) or not close(exp, act):
            out.append('%s: expected %r, got %r' % (path, exp, act))

def main():
    args = sys.argv[1:]
    ignore = set()
    while args and args[0] == '--ignore':
        ignore.add(args[1]); args = args[2:]
    exp, act = (json.load(open(p)) for p in args)
    out = []
    walk(exp, act, '$', out, ignore)
    for line in out[:50]:
        print(line)
    sys.exit(1 if out else 0)

if __name__ == '__main__':
    main()

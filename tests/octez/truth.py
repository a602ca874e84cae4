#!/usr/bin/env python3
"""truth.py WASMDBG TRUTH.json: wasmdbg against Octez's own figures.

../shared/reference/octez-ticks/truth.json holds what the Octez regression tests measured
on the real PVM for small scenarios, at every PVM version: for each kernel run its period
start and the window of its first Padding tick (exact for the link_* scenarios), or the
tick it got stuck at. Each scenario whose runs pad runs here under `wasmdbg run` with the
regression's set-up (its ticks per snapshot, -p VERSION, the scenario's messages as level
0's inbox): every run's start and effective ticks must fall in Octez's window. The link_*
scenarios whose version cannot link the kernel get stuck at start-up in wasmdbg, as in the
reference debugger: tests/unit/pvmticks_test.c checks their stuck ticks (it installs the
kernel through durable storage). One line per scenario and version, then `N passed, N
failed`.
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    wasmdbg, truth_path = sys.argv[1], sys.argv[2]
    with open(truth_path) as f:
        truth = json.load(f)
    versions = truth['versions']
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, sc in truth['scenarios'].items():
            wasm = os.path.join(tmp, name + '.wasm')
            with open(wasm, 'wb') as f:
                f.write(bytes.fromhex(sc['wasm_hex']))
            # SOL, Info_per_level, the messages, EOL: wasmdbg frames the messages itself
            msgs = [{'serialized': m} for m in sc['inputs'][2:-1]]
            inputs = os.path.join(tmp, name + '.inputs.json')
            with open(inputs, 'w') as f:
                json.dump([msgs], f)
            tps = sc['ticks_per_snapshot']
            for tag, want in sorted(sc['runs'].items()):
                if any('padding' not in w for w in want):
                    continue  # stuck at link: tests/unit/pvmticks_test.c
                version = versions[tag]
                if version == '2.0.0-experimental':
                    version = '2.0.0-r6'  # wasmdbg's newest; the same rules
                p = subprocess.run([wasmdbg, 'run', wasm, '--inputs', inputs, '--json',
                                    '--no-kernel-debug', '--without-time', '-p', version,
                                    '--ticks-per-snapshot', str(tps)],
                                   capture_output=True, text=True, timeout=120)
                try:
                    doc = json.loads(p.stdout)
                    runs = [r['ticks'] for lv in doc['levels'] for r in lv['runs']]
                except (ValueError, KeyError):
                    runs = None
                bad = runs is None or len(runs) != len(want)
                if not bad:
                    for i, (got, w) in enumerate(zip(runs, want)):
                        lo, hi = w['padding']
                        # run i of the inbox starts a period after the Collect one
                        bad |= w['period_start'] != (i + 1) * tps or not lo <= got <= hi
                shown = ', '.join('%d..%d' % tuple(w['padding']) for w in want)
                if bad:
                    failed += 1
                    print('FAIL %s %s: wasmdbg %s, Octez %s %s' % (
                        name, tag, runs if runs is not None else p.stderr.strip()[-200:],
                        shown, '' if runs is None else ''))
                else:
                    passed += 1
                    print('ok %s %s: wasmdbg %s, Octez %s' % (
                        name, tag, ', '.join(map(str, runs)), shown))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
"""kernels.py: random kernels (genkernel.py) run through the Octez tick model and through
`wasmdbg run --json`, compared run by run as tests/octez/compare.py compares its corpus:
the outcome, effective ticks, phases (decode, link, init, kernel_run), reboots, the
number of runs, outboxes and whether the PVM ends stuck.

  kernels.py --wasmdbg PATH --count N [--seed S] [--jobs J] [--out DIR] [--verbose]

Kernel i of seed S is drawn from random.Random("kernel:S:i") (`--seed S --only i`
reproduces it). Per kernel one line when something is wrong: `FAIL NAME: what differed`
(its text, binary, inputs and the difference saved under OUT/mismatch/NAME/) or
`skip NAME: why` (the model refuses it); `ok NAME` too with --verbose. Then
`N passed, N failed, N skipped`; exit status 1 when a kernel failed.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'octez'))
import compare  # noqa: E402  (tests/octez/compare.py)
import genkernel  # noqa: E402


def check_kernel(opts, index):
    """('ok'|'FAIL'|'skip', name, detail, ticks of the model's runs)."""
    name = 'kernel-%s-%d' % (opts.seed, index)
    rng = random.Random('kernel:%s:%d' % (opts.seed, index))
    wat, inputs, args, tps = genkernel.kernel(rng)
    work = tempfile.mkdtemp(prefix='kernel-', dir=opts.tmp)
    try:
        paths = {ext: os.path.join(work, name + ext) for ext in ('.wat', '.wasm', '.inputs.json')}
        with open(paths['.wat'], 'w') as f:
            f.write(wat)
        with open(paths['.inputs.json'], 'w') as f:
            json.dump(inputs, f)
        p = subprocess.run(['wat2wasm', '--debug-names', paths['.wat'], '-o', paths['.wasm']],
                           capture_output=True, text=True)
        case = {'name': name, 'wasm': paths['.wasm'], 'inputs': paths['.inputs.json'],
                'args': args, 'ticks_per_snapshot': tps}
        if p.returncode != 0:
            status, detail = 'FAIL', 'the generator wrote an invalid module: %s' % (
                p.stderr.strip().splitlines() or ['?'])[0]
        else:
            status, detail = compare.check(opts, case)
            if status == 'FAIL' and detail.startswith('the model gives no effective ticks'):
                # an edge-fit or edge-late period needs the first run's ticks, and a run
                # that gets stuck (call stack exhausted) has none: the debugger's period
                case['ticks_per_snapshot'] = None
                status, detail = compare.check(opts, case)
            if status == 'FAIL' and re.match(r'wasmdbg exited 2: .*: unlinkable: ', detail):
                status, detail = unlinkable(opts, case, detail)
        if status == 'FAIL':
            save(opts, name, paths, case, detail)
        return status, name, detail
    finally:
        shutil.rmtree(work, ignore_errors=True)


def unlinkable(opts, case, detail):
    """wasmdbg refuses a kernel whose imports do not link (a host function the PVM
    version lacks) before running it, as it refuses floats: the author learns it at the
    desk (tests/golden/nds-r5). The PVM gets stuck in its first run (Link_error, no
    fallback kernel). They agree when the model's first run is that."""
    try:
        m = compare.model(opts, case, case['ticks_per_snapshot'])
    except (compare.Skip, compare.Fail) as e:
        return 'FAIL', '%s; the model: %s' % (detail, e)
    runs = m['runs']
    if runs and runs[0]['outcome'] == 'stuck' and 'Link_error' in (runs[0]['message'] or ''):
        return 'ok', ''
    return 'FAIL', '%s; the model: %s' % (detail, runs[0]['outcome'] if runs else 'no run')


def save(opts, name, paths, case, detail):
    d = os.path.join(opts.out, 'mismatch', name)
    os.makedirs(d, exist_ok=True)
    for p in paths.values():
        if os.path.exists(p):
            shutil.copy(p, d)
    tps = case['ticks_per_snapshot']
    with open(os.path.join(d, 'report.txt'), 'w') as f:
        f.write('%s\n\n%s\n\n' % (name, detail))
        f.write('options for both: %s%s\n' % (' '.join(case['args']) or '-',
                                             ' ticks per snapshot: %s' % tps if tps else ''))
        f.write('reproduce: python3 tests/difftest/kernels.py --wasmdbg build/wasmdbg '
                '--seed %s --only %s --verbose\n' % (opts.seed, name.rsplit('-', 1)[1]))
        f.write('by hand: build/wasmdbg run %s.wasm --inputs %s.inputs.json --json %s; '
                'python3 tests/octez/model.py %s %s.wasm --inputs %s.inputs.json --json %s\n'
                % (name, name, ' '.join(case['args']), opts.model_dir, name, name,
                   ' '.join(case['args'])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--wasmdbg', required=True)
    ap.add_argument('--model-dir')
    ap.add_argument('--count', type=int, default=50)
    ap.add_argument('--seed', default=str(random.randrange(1 << 32)))
    ap.add_argument('--only', type=int)
    ap.add_argument('--first', type=int, default=0)
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    ap.add_argument('--out', default='build/difftest')
    ap.add_argument('--verbose', action='store_true')
    opts = ap.parse_args()
    opts.wasmdbg = os.path.abspath(opts.wasmdbg)
    shared = os.environ.get('WD_SHARED_DIR', os.path.join(HERE, '..', '..', '..', 'shared'))
    opts.model_dir = opts.model_dir or os.path.join(shared, 'reference', 'octez-ticks', 'model')
    opts.period_option = '--ticks-per-snapshot'
    if not os.path.isfile(os.path.join(opts.model_dir, 'octez_ticks.py')):
        print('skip kernels: the Octez tick model is not at %s (set WD_SHARED_DIR)'
              % opts.model_dir)
        print('0 passed, 0 failed, 1 skipped')
        return 0
    if shutil.which('wat2wasm') is None:
        print('skip kernels: wat2wasm not found (wabt; tests/deps.sh installs it)')
        print('0 passed, 0 failed, 1 skipped')
        return 0
    os.makedirs(opts.out, exist_ok=True)
    opts.tmp = tempfile.mkdtemp(prefix='kernels-', dir=opts.out)
    indices = [opts.only] if opts.only is not None else \
        range(opts.first, opts.first + opts.count)
    print('== kernels: seed %s, %d kernels against the Octez tick model' % (
        opts.seed, len(indices)), flush=True)
    counts = {'ok': 0, 'FAIL': 0, 'skip': 0}
    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as pool:
            for n, (status, name, detail) in enumerate(
                    pool.map(lambda i: check_kernel(opts, i), indices), 1):
                counts[status] += 1
                if status != 'ok' or opts.verbose:
                    print('%s %s%s' % (status, name, ': ' + detail if detail else ''), flush=True)
                if n % 200 == 0:
                    print('.. %d kernels: %d ok, %d failed, %d skipped' % (
                        n, counts['ok'], counts['FAIL'], counts['skip']), flush=True)
    finally:
        shutil.rmtree(opts.tmp, ignore_errors=True)
    print('%d passed, %d failed, %d skipped' % (counts['ok'], counts['FAIL'], counts['skip']))
    return 1 if counts['FAIL'] else 0


if __name__ == '__main__':
    sys.exit(main())

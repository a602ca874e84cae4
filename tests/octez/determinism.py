#!/usr/bin/env python3
"""determinism.py CORPUS.json SHARED_DIR VARIANT... : the same ticks at every event,
whichever way the interpreter charges them.

Each VARIANT is NAME=COMMAND, a wasmdbg to run (with extra arguments, and WD_ALWAYS_SLOW=1
in front for the variant that charges every instruction on its own). For every kernel of
the corpus (tests/octez/gen_corpus.py), of SHARED_DIR/kernels and kernels/counter, each
variant runs `run --json --without-time` and `profile --without-time -o DIR`; the first
variant's outputs are the reference: the other variants' run JSON (every run's ticks,
phases, outcome, outbox) and time-ordered folded stacks (every call's and return's tick,
as the profiler saw them) must be identical. One line per kernel and variant, then
`N passed, N failed`.
"""
import glob
import json
import os
import shlex
import subprocess
import sys
import tempfile

TIMEOUT = 300


def cases(corpus_path, shared):
    with open(corpus_path) as f:
        corpus = json.load(f)
    out = []
    for c in corpus:
        if c.get('error'):
            continue
        args = list(c['args'])
        tps = c.get('ticks_per_snapshot')
        if isinstance(tps, int):
            args += ['--ticks-per-snapshot', str(tps)]
        elif tps is not None:
            continue  # an edge period computed from the model's figures: run.sh's
        out.append((c['name'], c['wasm'], c['inputs'], args))
    k = os.path.join(shared, 'kernels')
    empty = os.path.join(k, 'empty-two-levels.inputs.json')
    for wasm in sorted(glob.glob(os.path.join(k, '*.wasm'))):
        name = os.path.basename(wasm)
        if name.startswith('echo'):
            out.append((name, wasm, os.path.join(k, 'echo.inputs.json'), []))
        elif name.startswith('tx-kernel'):
            out.append((name, wasm, os.path.join(k, 'tx-kernel.inputs.json'),
                        ['--rollup', 'sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg']))
        else:
            out.append((name, wasm, empty, []))
    out.append(('counter', 'kernels/counter/counter.wasm', 'kernels/counter/counter.inputs.json',
                []))
    return out


def outputs(cmd, wasm, inputs, args, tmp):
    """(run JSON text, folded stacks text) of one variant, or an error string."""
    env = dict(os.environ)
    words = shlex.split(cmd)
    while words and '=' in words[0] and not words[0].startswith('-'):
        key, value = words.pop(0).split('=', 1)
        env[key] = value
    base = words + [wasm, '--inputs', inputs, '--no-kernel-debug', '--without-time'] + args
    try:
        run = subprocess.run([base[0], 'run'] + base[1:] + ['--json'], env=env,
                             capture_output=True, text=True, timeout=TIMEOUT)
        d = tempfile.mkdtemp(dir=tmp)
        prof = subprocess.run([base[0], 'profile'] + base[1:] + ['-o', d], env=env,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 'timed out'
    if run.returncode > 1 or prof.returncode > 1:
        return 'exit %d/%d: %s' % (run.returncode, prof.returncode,
                                   (run.stderr or prof.stderr).strip()[-200:])
    folded = ''
    for path in sorted(glob.glob(os.path.join(d, '*.out'))):
        with open(path) as f:
            folded += f.read()
    return run.stdout, folded


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    corpus, shared = sys.argv[1], sys.argv[2]
    variants = [v.split('=', 1) for v in sys.argv[3:]]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, wasm, inputs, args in cases(corpus, shared):
            ref = outputs(variants[0][1], wasm, inputs, args, tmp)
            for vname, cmd in variants[1:]:
                got = outputs(cmd, wasm, inputs, args, tmp)
                if isinstance(ref, str) or isinstance(got, str):
                    why = 'reference: %s' % ref if isinstance(ref, str) else got
                elif got[0] != ref[0]:
                    why = 'run JSON differs from %s' % variants[0][0]
                elif got[1] != ref[1]:
                    why = 'profile events (folded stacks) differ from %s' % variants[0][0]
                elif not ref[1]:
                    why = 'no folded stacks written'
                else:
                    why = None
                if why is None:
                    passed += 1
                    print('ok %s %s' % (name, vname))
                else:
                    failed += 1
                    print('FAIL %s %s: %s' % (name, vname, why))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

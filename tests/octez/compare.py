#!/usr/bin/env python3
"""compare.py: runs kernels through the Octez tick model and through `wasmdbg run`, and
compares them run by run (tests/octez/run.sh calls it; see tests/octez/README.md).

  compare.py --model-dir DIR --wasmdbg PATH [--period-option OPT] [--jobs N]
             [--corpus CORPUS.json] [--cases CASES.tsv]

--corpus is gen_corpus.py's manifest; --cases a file of extra kernels, one a line:
NAME<TAB>WASM<TAB>INPUTS<TAB>ARGS (ARGS: options for both tools, space-separated).
--period-option is wasmdbg run's option for the ticks per snapshot (empty: it has none,
and kernels that need one are skipped with that reason).

Per kernel it prints `ok NAME`, `FAIL NAME: ...` (what differs, both values) or
`skip NAME: <why>` (the model refused the kernel: exit 2 and its message), then ends with
`N passed, N failed[, N skipped]`. Exit status 1 when something failed.

Compared for every kernel run, in order (model JSON `runs[]` against wasmdbg JSON
`levels[].runs[]`): the run's level; the outcome (model result/trapped/fallback/stuck =
wasmdbg ok/trapped/failed/stuck); the effective ticks (model `effective`, or `stuck_at`
for a run that ends stuck, against wasmdbg `ticks`); the profiler's phases when the model
gives them (model `phases` decode/link/init/kernel_run against wasmdbg `phases`
decode/link/init/kernel_run); the decision at the period's end (model `then` == "reboot"
against wasmdbg `reboot`). Then the number of runs, each level's outbox (model
`outboxes`, wasmdbg `levels[].outbox`) and whether the PVM ends stuck (`stuck` on both
sides).
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = {'result': 'ok', 'trapped': 'trapped', 'fallback': 'failed', 'stuck': 'stuck'}
PHASES = ('decode', 'link', 'init', 'kernel_run')
MODEL_TIMEOUT = 1800
WASMDBG_TIMEOUT = 600
MAX_DIFFS = 8


class Skip(Exception):
    pass


class Fail(Exception):
    pass


def last_line(text):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ''


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, '', 'timed out after %d s' % timeout
    except OSError as e:
        return None, '', str(e)
    return p.returncode, p.stdout, p.stderr


def model(opts, case, tps):
    cmd = [sys.executable, os.path.join(HERE, 'model.py'), opts.model_dir, case['wasm'],
           '--inputs', case['inputs'], '--json'] + case['args']
    if tps is not None:
        cmd += ['--ticks-per-snapshot', str(tps)]
    rc, out, err = run(cmd, MODEL_TIMEOUT)
    if rc == 2:
        msg = last_line(err)
        if msg.startswith('octez_ticks: '):
            msg = msg[len('octez_ticks: '):]
        raise Skip(msg or 'the model refused it (exit 2)')
    if rc != 0:
        raise Fail('the model %s: %s' % ('exited %s' % rc if rc is not None else 'failed',
                                         last_line(err) or err.strip()))
    try:
        return json.loads(out)
    except ValueError as e:
        raise Fail('the model printed no JSON (%s)' % e)


def wasmdbg(opts, case, tps):
    cmd = [opts.wasmdbg, 'run', case['wasm'], '--inputs', case['inputs'], '--json',
           '--no-kernel-debug', '--without-time'] + case['args']
    if tps is not None:
        cmd += [opts.period_option, str(tps)]
    rc, out, err = run(cmd, WASMDBG_TIMEOUT)
    if rc != 0:
        raise Fail('wasmdbg %s: %s' % ('exited %s' % rc if rc is not None else 'failed',
                                       last_line(err) or err.strip() or last_line(out)))
    try:
        return json.loads(out), err
    except ValueError as e:
        raise Fail('wasmdbg printed no JSON (%s)' % e)


def compare(m, w):
    """The differences between the model's document m and wasmdbg's w, the ones about
    what happened (outcomes, reboots, run counts, outboxes) before the ones about ticks."""
    diffs = []  # (rank, text)
    mruns = m['runs']
    wruns = [dict(r, level=lv['level']) for lv in w.get('levels', []) for r in lv['runs']]
    for i, (a, b) in enumerate(zip(mruns, wruns)):
        where = 'level %d run %d' % (a['level'], a['index'])
        if a['level'] != b['level']:
            diffs.append((0, 'kernel run #%d is at level %d in the model, %d in wasmdbg'
                          % (i, a['level'], b['level'])))
            break
        want = OUTCOMES.get(a['outcome'], a['outcome'])
        if want != b.get('outcome'):
            diffs.append((0, '%s outcome: model %s (%s), wasmdbg %s%s' % (
                where, a['outcome'], a.get('message') or '-', b.get('outcome'),
                ' (%s)' % b['reason'] if b.get('reason') else '')))
        reboot = a['then'] == 'reboot'
        if reboot != bool(b.get('reboot')):
            diffs.append((0, '%s then: model %s, wasmdbg %s' % (
                where, a['then'] or 'nothing (stuck)',
                'reboot' if b.get('reboot') else 'no reboot')))
        ticks = a['effective'] if a['effective'] is not None else a['stuck_at']
        if ticks is not None and ticks != b.get('ticks'):
            diffs.append((2, '%s ticks: model %d%s, wasmdbg %s' % (
                where, ticks, ' (stuck at)' if a['effective'] is None else '', b.get('ticks'))))
        if a['phases'] is not None:
            bp = b.get('phases') or {}
            if any(a['phases'][ph] != bp.get(ph) for ph in PHASES):
                diffs.append((3, '%s phases decode/link/init/kernel_run: model %s, wasmdbg %s'
                              % (where, '/'.join(str(a['phases'][ph]) for ph in PHASES),
                                 '/'.join(str(bp.get(ph)) for ph in PHASES))))
    if len(mruns) != len(wruns):
        diffs.append((0, 'kernel runs: model %d, wasmdbg %d' % (len(mruns), len(wruns))))
    if bool(m.get('stuck')) != bool(w.get('stuck')):
        diffs.append((0, 'stuck at the end: model %s, wasmdbg %s'
                      % (m.get('stuck'), w.get('stuck'))))
    mout = {int(k): v for k, v in m.get('outboxes', {}).items()}
    wout = {lv['level']: lv.get('outbox', []) for lv in w.get('levels', [])}
    for lv in sorted(set(mout) | set(wout)):
        a, b = mout.get(lv, []), wout.get(lv, [])
        if a != b:
            k = next((j for j in range(min(len(a), len(b))) if a[j] != b[j]), None)
            if k is None:
                diffs.append((1, 'level %d outbox: model %d messages, wasmdbg %d'
                              % (lv, len(a), len(b))))
            else:
                diffs.append((1, 'level %d outbox message %d: model %s, wasmdbg %s'
                              % (lv, k, a[k][:40], b[k][:40])))
    return [text for _, text in sorted(diffs, key=lambda d: d[0])]


def check(opts, case):
    """('ok'|'FAIL'|'skip', detail)."""
    try:
        if case.get('error'):
            raise Fail('wat2wasm refused it: %s' % last_line(case['error']))
        tps = case.get('ticks_per_snapshot')
        if tps in ('edge-fit', 'edge-late'):
            first = model(opts, case, None)['runs']
            if not first or first[0]['effective'] is None:
                raise Fail('the model gives no effective ticks for the first run')
            tps = first[0]['effective'] + (1 if tps == 'edge-fit' else 0)
        m = model(opts, case, tps)
        if tps is not None and not opts.period_option:
            raise Skip('wasmdbg run has no option to set the ticks per snapshot (the model '
                       'ran with --ticks-per-snapshot %d)' % tps)
        w, err = wasmdbg(opts, case, tps)
        diffs = compare(m, w)
        if diffs and case['name'].startswith('garbage-return-'):
            # a known divergence (docs/ticks.md, "Not modelled"): wasmdbg must say so
            if 'with values below its results' not in err:
                raise Fail('differs from the model without the warning wasmdbg owes: '
                           + '; '.join(diffs[:MAX_DIFFS]))
            return 'ok', ''
        if diffs:
            more = len(diffs) - MAX_DIFFS
            raise Fail('; '.join(diffs[:MAX_DIFFS]) + (' (and %d more)' % more if more > 0 else ''))
        return 'ok', ''
    except Skip as e:
        return 'skip', str(e)
    except Fail as e:
        return 'FAIL', str(e)


def load_cases(opts):
    cases = []
    if opts.corpus:
        with open(opts.corpus) as f:
            corpus = json.load(f)
        base = os.path.dirname(os.path.abspath(opts.corpus))
        for c in corpus:
            c = dict(c)
            c['args'] = [a.replace('@DIR@', base) for a in c.get('args', [])]
            cases.append(c)
    if opts.cases:
        with open(opts.cases) as f:
            for line in f:
                line = line.rstrip('\n')
                if not line.strip() or line.startswith('#'):
                    continue
                fields = line.split('\t')
                name, wasm, inputs = fields[:3]
                args = fields[3].split() if len(fields) > 3 else []
                cases.append({'name': name, 'wasm': wasm, 'inputs': inputs, 'args': args,
                              'ticks_per_snapshot': None})
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--model-dir', required=True)
    ap.add_argument('--wasmdbg', required=True)
    ap.add_argument('--period-option', default='')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    ap.add_argument('--corpus')
    ap.add_argument('--cases')
    ap.add_argument('--only', help='only the kernels whose name contains this')
    opts = ap.parse_args()
    cases = load_cases(opts)
    if opts.only:
        cases = [c for c in cases if opts.only in c['name']]
    counts = {'ok': 0, 'FAIL': 0, 'skip': 0}
    with concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as pool:
        futures = [pool.submit(check, opts, c) for c in cases]
        for c, fut in zip(cases, futures):
            status, detail = fut.result()
            counts[status] += 1
            print('%s %s%s' % (status, c['name'], ': ' + detail if detail else ''), flush=True)
    summary = '%d passed, %d failed' % (counts['ok'], counts['FAIL'])
    if counts['skip']:
        summary += ', %d skipped' % counts['skip']
    print(summary)
    return 1 if counts['FAIL'] else 0


if __name__ == '__main__':
    sys.exit(main())

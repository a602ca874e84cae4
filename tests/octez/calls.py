#!/usr/bin/env python3
"""calls.py WASMDBG: a profile's function figures where the reference debugger's profiler
puts them (src/lib_wasm_debugger/profiling.ml, update_on_eval), computed by hand from
../shared/reference/octez-ticks/RULES.md for tests/octez/modules/calls.wat:

  f (1 param, 1 local), called with the value 5 below its argument in kernel_run's label:
    its node opens at the LS_Start of Plain (Call f), 2 ticks before the call's end;
    then invoke 8 + 2 + 2, nop 6, the body's end (From_block 3, Label_result 3):
    2 + 12 + 6 + 6 = 26; its frame's return (2 + 0 results + 1 value below) is the caller's
  write_debug: 2, then the host's invoke up to its countdown (3), h = 0: 5
  kernel_run (1 local): IK_Stop -> Eval 1, invoke 8 + 2, i32.const 6, i32.const 6, call f 6
    (4 its own), f 26, f's return 3, drop 6, i32.const 6, i32.const 6, call 6 (4), wd 5,
    its return 2, the body's end 6: 91 in all, 91 - 26 - 5 = 60 its own

Prints `N passed, N failed`.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WANT = {'kernel_run': (91, 60), 'f': (26, 26), 'smart_rollup_core.write_debug': (5, 5)}


def main():
    wasmdbg = sys.argv[1]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        wasm = os.path.join(tmp, 'calls.wasm')
        subprocess.run(['wat2wasm', '--debug-names', os.path.join(HERE, 'modules', 'calls.wat'),
                        '-o', wasm], check=True)
        inputs = os.path.join(tmp, 'in.json')
        with open(inputs, 'w') as f:
            f.write('[[]]')
        subprocess.run([wasmdbg, 'profile', wasm, '--inputs', inputs, '--no-kernel-debug',
                        '--without-time', '-o', tmp], check=True, capture_output=True)
        with open(glob.glob(os.path.join(tmp, '*[0-9].json'))[0]) as f:
            doc = json.load(f)
        run = doc['levels'][0]['runs'][0]
        got = {fn['name']: (fn['total'], fn['self']) for fn in run['functions']}
        for name, want in WANT.items():
            if got.get(name) == want:
                passed += 1
                print('ok %s: total %d, self %d' % ((name,) + want))
            else:
                failed += 1
                print('FAIL %s: total, self %s, want %s' % (name, got.get(name), want))
        # the run: 1 + D + (1 + I) + (1 + N) + kernel_run 91 + its return into the PVM (2),
        # frame0's end (3), SK_Result (1), the step to Padding (1)
        full = sum(run['phases'].values())
        if run['ticks'] == full + 1 + 7 and run['phases']['kernel_run'] == 91:
            passed += 1
            print('ok the run: %d ticks, %d in its phases' % (run['ticks'], full))
        else:
            failed += 1
            print('FAIL the run: %d ticks, phases %s' % (run['ticks'], run['phases']))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

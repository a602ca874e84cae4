#!/usr/bin/env python3
"""model.py MODEL_DIR ARGS...: runs MODEL_DIR/octez_ticks.py ARGS... (the Octez tick model,
read-only reference) with one fix applied in-process, and nothing else changed.

The fix: the model's octez_eval.Machine.exec_plain compares the opcode with integer ranges
(`0x28 <= op <= 0x35`, loads) before it reaches its own memory.fill and memory.copy
branches, but it represents 0xFC-prefixed opcodes as tuples (0xFC, sub), so every
memory.fill or memory.copy in kernel code dies there with a TypeError (Python 3 does not
order a tuple against an int). Here those opcodes are handed to exec_plain as a tuple
subclass that is simply neither less nor greater than any integer, so the comparisons are
false and the model's own bulk-memory branches run as written. When the model no longer
has the problem, the wrapper changes nothing.
"""
import os
import sys


class _PrefixedOp(tuple):
    """(0xFC, sub): equal and hashed as the plain tuple; no order against integers."""

    def _cmp(self, other, op):
        if isinstance(other, int):
            return False
        return op(tuple(self), other)

    def __lt__(self, other):
        return self._cmp(other, tuple.__lt__)

    def __le__(self, other):
        return self._cmp(other, tuple.__le__)

    def __gt__(self, other):
        return self._cmp(other, tuple.__gt__)

    def __ge__(self, other):
        return self._cmp(other, tuple.__ge__)

    __hash__ = tuple.__hash__


def main():
    if len(sys.argv) < 2:
        print('usage: model.py MODEL_DIR ARGS...', file=sys.stderr)
        return 2
    model_dir = os.path.abspath(sys.argv[1])
    sys.path.insert(0, model_dir)
    sys.argv = [os.path.join(model_dir, 'octez_ticks.py')] + sys.argv[2:]
    import octez_eval
    import octez_ticks

    plain = octez_eval.Machine.exec_plain

    def exec_plain(self, ins, fr, L):
        op = ins[0]
        if isinstance(op, tuple) and not isinstance(op, _PrefixedOp):
            ins = (_PrefixedOp(op),) + tuple(ins[1:])
        return plain(self, ins, fr, L)

    octez_eval.Machine.exec_plain = exec_plain
    return octez_ticks.main()


if __name__ == '__main__':
    sys.exit(main())

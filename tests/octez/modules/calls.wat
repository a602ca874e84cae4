;; A call and a host call, for the function figures of tests/octez/calls.py.
(module
  (import "smart_rollup_core" "write_debug" (func $wd (param i32 i32)))
  (memory (export "mem") 1)
  (func $f (param i32) (local i64) nop)
  (func (export "kernel_run") (local i32)
    i32.const 5
    (call $f (i32.const 1))
    drop
    (call $wd (i32.const 0) (i32.const 3))))

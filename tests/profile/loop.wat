;; loop.wat: a kernel that never returns (Ctrl-C tests in run.sh): it says "looping", then
;; spins in $spin.
(module
  (import "smart_rollup_core" "write_debug" (func $write_debug (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "looping")
  (func $spin (param $n i32) (result i32)
    (loop $l
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $l))
    (local.get $n))
  (func $kernel_run (export "kernel_run")
    (call $write_debug (i32.const 16) (i32.const 7))
    (drop (call $spin (i32.const 0)))))

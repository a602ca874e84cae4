;; A kernel with names for the REPL's tests: named functions, parameters, locals and a
;; global (wat2wasm --debug-names keeps them), and a trap three frames deep on the second
;; call of $leaf.
(module
  (import "smart_rollup_core" "write_debug" (func $write_debug (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "deep\n")
  (global $depth (mut i32) (i32.const 0))
  (global $limit i64 (i64.const 7))
  (func $leaf (param $n i32) (param $big i64) (result i32)
    (local $tmp i32)
    (local $wide i64)
    (local.set $tmp (i32.add (local.get $n) (i32.const 1)))
    (local.set $wide (i64.mul (local.get $big) (i64.const 3)))
    (global.set $depth (local.get $tmp))
    (if (i32.eq (local.get $n) (i32.const 3))
      (then (unreachable)))
    (local.get $tmp))
  (func $middle (param $x i32) (result i32)
    (call $write_debug (i32.const 16) (i32.const 5))
    (call $leaf (local.get $x) (i64.const -5)))
  (func (export "kernel_run")
    (drop (call $middle (i32.const 1)))
    (drop (call $middle (i32.const 3)))))

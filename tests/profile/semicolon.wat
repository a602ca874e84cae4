;; semicolon.wat: a write_debug section whose name holds a `;` (run.sh): the name is shown
;; as it is in the summary, the JSON profile and budgets; only folded stacks, where `;`
;; separates frames, write it `:`.
(module
  (import "smart_rollup_core" "write_debug" (func $write_debug (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "__wasm_debugger__::start_section(load;store)")
  (data (i32.const 80) "__wasm_debugger__::end_section(load;store)")
  (func $work (param $n i32) (result i32)
    (loop $l
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (local.get $n)))
    (local.get $n))
  (func $kernel_run (export "kernel_run")
    (call $write_debug (i32.const 16) (i32.const 44))
    (drop (call $work (i32.const 100)))
    (call $write_debug (i32.const 80) (i32.const 42))))

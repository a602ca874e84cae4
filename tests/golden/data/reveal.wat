(module
  (import "smart_rollup_core" "reveal_preimage" (func $reveal_preimage (param i32 i32 i32 i32) (result i32)))
  (import "smart_rollup_core" "reveal_metadata" (func $reveal_metadata (param i32 i32) (result i32)))
  (import "smart_rollup_core" "write_output" (func $write_output (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "\00\44\89\73\31\77\24\8d\85\8b\be\53\6e\7e\9e\9a\a0\63\46\c4\9c\9b\4c\b9\e2\d0\3c\f5\9a\18\cb\9a\84")
  ;; kernel_run: reveals the preimage of the hash at 0 and the metadata, writes both to the outbox
  (func (export "kernel_run")
    (local $n i32)
    (local.set $n (call $reveal_preimage (i32.const 0) (i32.const 33) (i32.const 100) (i32.const 64)))
    (drop (call $write_output (i32.const 100) (local.get $n)))
    (local.set $n (call $reveal_metadata (i32.const 200) (i32.const 64)))
    (drop (call $write_output (i32.const 200) (local.get $n)))))

;; Host functions the model does not cover, with success and error results: their ticks are
;; checked against RULES.md section 7 by tests/octez/hand.py.
(module
  (import "smart_rollup_core" "store_create" (func $create (param i32 i32 i32) (result i32)))
  (import "smart_rollup_core" "store_get_nth_key"
    (func $nth (param i32 i32 i64 i32 i32) (result i32)))
  (memory (export "mem") 1)
  (data (i32.const 0) "/k/a")
  (func (export "kernel_run")
    (drop (call $create (i32.const 0) (i32.const 4) (i32.const 8)))    ;; ok: 42*4 + 1
    (drop (call $create (i32.const 0) (i32.const 4) (i32.const 8)))    ;; exists (-13): 0
    (drop (call $nth (i32.const 0) (i32.const 2) (i64.const 0) (i32.const 64) (i32.const 8)))
                                                                       ;; ok: 42*2 + 1
    (drop (call $nth (i32.const 0) (i32.const 2) (i64.const 9) (i32.const 64) (i32.const 8)))))
                                                                       ;; no such child: 0

;; The host functions' limits (docs/limits.md): each call's result, printed by write_debug as
;; "what: result". The inputs give one message of 5,000 bytes (a "serialized" one is not
;; size-checked), which read_input truncates to 4,096.
(module
  (import "smart_rollup_core" "read_input" (func $read_input (param i32 i32 i32) (result i32)))
  (import "smart_rollup_core" "write_output" (func $write_output (param i32 i32) (result i32)))
  (import "smart_rollup_core" "write_debug" (func $write_debug (param i32 i32)))
  (import "smart_rollup_core" "store_has" (func $store_has (param i32 i32) (result i32)))
  (import "smart_rollup_core" "store_read" (func $store_read (param i32 i32 i32 i32 i32) (result i32)))
  (import "smart_rollup_core" "store_write" (func $store_write (param i32 i32 i32 i32 i32) (result i32)))
  (import "smart_rollup_core" "store_create" (func $store_create (param i32 i32 i32) (result i32)))
  (import "smart_rollup_core" "reveal_preimage" (func $reveal_preimage (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (table $t 0 funcref)
  ;; 0..31: scratch for the decimal; 32..: texts; 1024..: a key of 241 bytes "/aaa..."
  (data (i32.const 32) "read_input of a 5000-byte message into 8192 bytes: ")       ;; 51
  (data (i32.const 96) "write_output of 4097 bytes: ")                              ;; 28
  (data (i32.const 160) "write_output, message 101 of the level: ")                 ;; 40
  (data (i32.const 208) "store_write of 2049 bytes: ")                              ;; 27
  (data (i32.const 240) "store_write of 2048 bytes: ")                              ;; 27
  (data (i32.const 272) "store_read of 2049 bytes: ")                               ;; 26
  (data (i32.const 304) "store_read of 2048 bytes: ")                               ;; 26
  (data (i32.const 336) "store_has of a 241-byte key: ")                            ;; 29
  (data (i32.const 368) "store_has of a 240-byte key: ")                            ;; 29
  (data (i32.const 400) "store_create of 2^31 bytes: ")                             ;; 28
  (data (i32.const 432) "reveal_preimage of a 4097-byte hash: ")                    ;; 37
  (data (i32.const 480) "memory.grow to 65537 pages: ")                             ;; 28
  (data (i32.const 512) "table.grow to 10000001 elements: ")                        ;; 33
  (data (i32.const 560) "/k")
  (data (i32.const 576) "/c")
  ;; "what: n\n" on the debug output
  (func $report (param $text i32) (param $len i32) (param $n i32)
    (local $p i32) (local $neg i32) (local $v i32)
    (call $write_debug (local.get $text) (local.get $len))
    (local.set $neg (i32.lt_s (local.get $n) (i32.const 0)))
    (local.set $v (select (i32.sub (i32.const 0) (local.get $n)) (local.get $n) (local.get $neg)))
    (local.set $p (i32.const 31))
    (i32.store8 (local.get $p) (i32.const 10))
    (loop $digits
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p) (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (br_if $digits (local.get $v)))
    (if (local.get $neg)
      (then (local.set $p (i32.sub (local.get $p) (i32.const 1)))
            (i32.store8 (local.get $p) (i32.const 45))))
    (call $write_debug (local.get $p) (i32.sub (i32.const 32) (local.get $p))))
  (func (export "kernel_run")
    (local $i i32)
    ;; a key of 241 bytes at 1024: "/" and 240 "a"
    (i32.store8 (i32.const 1024) (i32.const 47))
    (memory.fill (i32.const 1025) (i32.const 97) (i32.const 240))
    ;; read_input: skip the level's first two messages (start of level, info per level)
    (drop (call $read_input (i32.const 600) (i32.const 8192) (i32.const 8192)))
    (drop (call $read_input (i32.const 600) (i32.const 8192) (i32.const 8192)))
    (call $report (i32.const 32) (i32.const 51)
      (call $read_input (i32.const 600) (i32.const 8192) (i32.const 8192)))
    (call $report (i32.const 96) (i32.const 28) (call $write_output (i32.const 8192) (i32.const 4097)))
    ;; 100 messages of a byte (0) fill the outbox: its limit per level
    (local.set $i (i32.const 100))
    (loop $fill
      (drop (call $write_output (i32.const 2000) (i32.const 1)))
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (br_if $fill (local.get $i)))
    (call $report (i32.const 160) (i32.const 40) (call $write_output (i32.const 2000) (i32.const 1)))
    (call $report (i32.const 208) (i32.const 27)
      (call $store_write (i32.const 560) (i32.const 2) (i32.const 0) (i32.const 8192) (i32.const 2049)))
    (call $report (i32.const 240) (i32.const 27)
      (call $store_write (i32.const 560) (i32.const 2) (i32.const 0) (i32.const 8192) (i32.const 2048)))
    (call $report (i32.const 272) (i32.const 26)
      (call $store_read (i32.const 560) (i32.const 2) (i32.const 0) (i32.const 8192) (i32.const 2049)))
    (call $report (i32.const 304) (i32.const 26)
      (call $store_read (i32.const 560) (i32.const 2) (i32.const 0) (i32.const 8192) (i32.const 2048)))
    (call $report (i32.const 336) (i32.const 29) (call $store_has (i32.const 1024) (i32.const 241)))
    (call $report (i32.const 368) (i32.const 29) (call $store_has (i32.const 1024) (i32.const 240)))
    (call $report (i32.const 400) (i32.const 28)
      (call $store_create (i32.const 576) (i32.const 2) (i32.const 0x80000000)))
    (call $report (i32.const 432) (i32.const 37)
      (call $reveal_preimage (i32.const 8192) (i32.const 4097) (i32.const 8192) (i32.const 100)))
    (call $report (i32.const 480) (i32.const 28) (memory.grow (i32.const 65535)))
    (call $report (i32.const 512) (i32.const 33)
      (table.grow $t (ref.null func) (i32.const 10000001)))))

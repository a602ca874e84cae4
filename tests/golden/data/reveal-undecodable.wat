(module
  ;; Reveal requests that the protocol's reveal_encoding does not decode: the reference
  ;; answers each with the empty preimage (the well-known hash's) and goes on; 0 bytes are
  ;; revealed. Then one that decodes (metadata), to see the answers land where they should.
  (import "smart_rollup_core" "reveal" (func $reveal (param i32 i32 i32 i32) (result i32)))
  (import "smart_rollup_core" "write_output" (func $write_output (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "\05")                ;; an unknown tag
  (data (i32.const 32) "\ff\01\02")          ;; another, with more bytes
  (data (i32.const 48) "\01\00")             ;; metadata, a byte too many
  (data (i32.const 64) "\00\01\44\89\73\31\77\24\8d\85\8b\be\53\6e\7e\9e\9a\a0\63\46\c4\9c\9b\4c\b9\e2\d0\3c\f5\9a\18\cb\9a\84")
                                              ;; raw data with hash scheme 01 (only 00 exists)
  (data (i32.const 112) "\00\00\44\89")      ;; raw data, a hash too short
  (data (i32.const 128) "\02\ff\ff\ff\ff\00\00\00") ;; a DAL page at level -1
  (data (i32.const 144) "\02\00\00\00\01\00\00") ;; a DAL page id a byte short
  (data (i32.const 160) "\03\00")            ;; DAL parameters, a byte too many
  (data (i32.const 176) "\04\00\00\00\01\00\00\00\32\02") ;; adaptive DAL page, option tag 02
  (data (i32.const 192) "\01")               ;; metadata: decodes
  (data (i32.const 1000) "\ee\ee\ee\ee")     ;; the answers' place, untouched by empty ones
  ;; reveal(req, len) into 1000 (64 bytes at most); its result at 900 + 4 * slot
  (func $try (param $req i32) (param $len i32) (param $slot i32)
    (i32.store (i32.add (i32.const 900) (i32.shl (local.get $slot) (i32.const 2)))
      (call $reveal (local.get $req) (local.get $len) (i32.const 1000) (i32.const 64))))
  (func (export "kernel_run")
    (call $try (i32.const 0) (i32.const 0) (i32.const 0)) ;; an empty request
    (call $try (i32.const 16) (i32.const 1) (i32.const 1))
    (call $try (i32.const 32) (i32.const 3) (i32.const 2))
    (call $try (i32.const 48) (i32.const 2) (i32.const 3))
    (call $try (i32.const 64) (i32.const 34) (i32.const 4))
    (call $try (i32.const 112) (i32.const 4) (i32.const 5))
    (call $try (i32.const 128) (i32.const 8) (i32.const 6))
    (call $try (i32.const 144) (i32.const 7) (i32.const 7))
    (call $try (i32.const 160) (i32.const 2) (i32.const 8))
    (call $try (i32.const 176) (i32.const 10) (i32.const 9))
    ;; ten results of 0, and the bytes at 1000 as they were
    (drop (call $write_output (i32.const 900) (i32.const 40)))
    (drop (call $write_output (i32.const 1000) (i32.const 4)))
    (call $try (i32.const 192) (i32.const 1) (i32.const 10))
    ;; 24, and the metadata: the rollup address and origination level 0
    (drop (call $write_output (i32.const 940) (i32.const 4)))
    (drop (call $write_output (i32.const 1000) (i32.const 24)))))

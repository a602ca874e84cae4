;; calls.wat: a kernel that makes 11,405,773 calls in one kernel_run (a recursive fib 33),
;; for the profiler's overhead and memory figures (bench/profile-overhead.sh): a full call
;; tree would need a node per call, the calling-context tree needs 33.
(module
  (memory (export "memory") 1)
  (func $fib (param $n i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else
        (i32.add
          (call $fib (i32.sub (local.get $n) (i32.const 1)))
          (call $fib (i32.sub (local.get $n) (i32.const 2)))))))
  (func (export "kernel_run")
    (drop (call $fib (i32.const 33)))))

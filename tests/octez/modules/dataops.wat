;; The elaboration walk stops at the first memory.init or data.drop in breadth-first order:
;; in $d1 the data.drop in the if's else list (depth 1) comes before the memory.init two
;; blocks deep, although it is later in the body; every later function costs one step.
(module
  (memory 1)
  (export "mem" (memory 0))
  (data "abc")
  (data "de")
  (func $early
    block
      nop
    end)
  (func $d1
    block
      block
        i32.const 0
        i32.const 0
        i32.const 1
        memory.init 0
      end
      loop
        nop
      end
    end
    i32.const 1
    if
      nop
      nop
    else
      nop
      data.drop 1
      nop
    end
    i32.const 0
    if
      nop
    end)
  (func $later (export "kernel_run")
    i32.const 0
    if
      block
        nop
      end
    end
    i32.const 0
    i32.const 0
    i32.const 1
    memory.init 1))

;; A data op in dead code still stops the elaboration walk (the decoder reads every opcode);
;; if lists without else; a data op in a then list reached after its else.
(module
  (memory 1)
  (export "mem" (memory 0))
  (data "xyz")
  (func $f (export "kernel_run")
    block
      br 0
      i32.const 0
      drop
    end
    i32.const 0
    if
      block
        loop
          data.drop 0
        end
      end
    else
      nop
    end
    unreachable
    i32.const 0
    i32.const 0
    i32.const 0
    memory.init 0)
  (func $g (param i32) (result i32)
    local.get 0))

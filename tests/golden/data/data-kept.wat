;; invoke reads a module's data segments from the file's bytes it keeps (bytes_kept), not
;; from copies: an active segment written at instantiation, a passive one by memory.init
;; after it, then dropped. Memory: "active" at 0, "passive segment" at 100, zeros elsewhere
;; (fnv1a32 of the page computed apart: 0xdae88acb).
(module
  (memory 1)
  (data (i32.const 0) "active")
  (data $p "passive segment")
  (func (export "init") (result i32)
    (memory.init $p (i32.const 100) (i32.const 0) (i32.const 15))
    (data.drop $p)
    (i32.load8_u (i32.const 108))))

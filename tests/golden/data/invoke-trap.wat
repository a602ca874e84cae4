;; invoke's exit status on a trap (1) and what it prints: an i32.div_u by zero two calls deep.
(module
  (func $div (param i32 i32) (result i32) (i32.div_u (local.get 0) (local.get 1)))
  (func (export "outer") (param i32) (result i32) (call $div (local.get 0) (i32.const 0))))

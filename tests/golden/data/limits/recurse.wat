;; A function that calls itself forever: `invoke` gives it 60,000 frames (cli/invoke.c
;; MAX_FRAMES, the PVM's limit), then "call stack exhausted".
(module
  (func $f (export "f") (call $f)))

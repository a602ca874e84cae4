invoke tests/golden/data/limits/deep-frames.wasm kernel_run

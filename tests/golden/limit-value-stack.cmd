run tests/golden/data/limits/deep-frames.wasm --inputs tests/golden/data/one-level.inputs.json --without-time

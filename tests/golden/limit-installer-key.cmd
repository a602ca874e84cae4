run kernels/counter/counter.wasm --inputs tests/golden/data/one-level.inputs.json --installer-config tests/golden/data/limits/key-241.installer.json

run kernels/counter/counter.wasm --inputs tests/golden/data/bad.inputs.json

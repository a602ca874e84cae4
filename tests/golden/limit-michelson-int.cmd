run kernels/counter/counter.wasm --inputs tests/golden/data/limits/int-10001.inputs.json

run kernels/counter/counter.wasm --inputs tests/golden/data/limits/depth-2049.inputs.json

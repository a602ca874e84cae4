run kernels/counter/counter.wasm --inputs tests/golden/data/limits/annot-256.inputs.json

run kernels/counter/counter.wasm --inputs tests/golden/data/limits/address-201.inputs.json

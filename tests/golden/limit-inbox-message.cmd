run kernels/counter/counter.wasm --inputs tests/golden/data/limits/message-4097.inputs.json

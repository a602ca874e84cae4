nonexistent.wasm --inputs kernels/counter/counter.inputs.json

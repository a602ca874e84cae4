run kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --max-ticks 1e6

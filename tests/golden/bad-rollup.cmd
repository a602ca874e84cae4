run kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --rollup sr1Bad

run kernels/counter/counter.wasm

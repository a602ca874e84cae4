run kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --no-kernel-debug --without-time --max-ticks 100000

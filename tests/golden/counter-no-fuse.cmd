run kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --without-time --no-fuse

debug kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --no-kernel-debug --echo

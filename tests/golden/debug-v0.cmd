run $SHARED/kernels/debug_kernel.wasm --inputs $SHARED/kernels/empty-two-levels.inputs.json --without-time -p 2.0.0

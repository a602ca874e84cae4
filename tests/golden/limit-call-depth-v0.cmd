run $SHARED/kernels/stack_overflow.wasm --inputs $SHARED/kernels/empty-two-levels.inputs.json --without-time -p 2.0.0

debug $SHARED/kernels/stack_overflow.wasm --inputs $SHARED/kernels/empty-two-levels.inputs.json --echo

debug $SHARED/kernels/unreachable_kernel.wasm --inputs $SHARED/kernels/empty-two-levels.inputs.json --echo

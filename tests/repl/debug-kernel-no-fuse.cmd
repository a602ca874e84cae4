$SHARED/kernels/debug_kernel.wasm --inputs $SHARED/kernels/empty-two-levels.inputs.json --no-fuse --echo

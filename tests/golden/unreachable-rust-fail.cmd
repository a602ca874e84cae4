run $SHARED/kernels/unreachable_rust.wasm --inputs $SHARED/kernels/empty-two-levels.inputs.json --without-time --fail-on-stuck

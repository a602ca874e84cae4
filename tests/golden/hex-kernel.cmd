run tests/golden/data/debug_kernel.hex --inputs $SHARED/kernels/empty-two-levels.inputs.json --without-time

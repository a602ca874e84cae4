run $SHARED/kernels/nds_host_func_kernel.wasm -p 2.0.0-r5

invoke --tick-model /dev/zero kernels/fib.wasm div 7 2

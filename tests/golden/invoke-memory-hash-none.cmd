invoke --memory-hash kernels/fib.wasm div 7 2

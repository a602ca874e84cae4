debug kernels/counter/counter.wasm -x /nonexistent/commands

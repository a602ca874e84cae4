run kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --no-kernel-debug --timings-file tests/golden/no-such-dir/timings.jsonl

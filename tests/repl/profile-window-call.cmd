debug kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --flamecharts-dir $TMP/fc --echo

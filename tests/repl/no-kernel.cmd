debug --inputs kernels/counter/counter.inputs.json

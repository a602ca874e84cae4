debug tests/repl/loop.wat --inputs kernels/counter/counter.inputs.json --max-ticks 5000 --echo

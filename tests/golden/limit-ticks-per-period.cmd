run tests/repl/loop.wat --inputs tests/golden/data/one-level.inputs.json --ticks-per-snapshot 1000 --without-time

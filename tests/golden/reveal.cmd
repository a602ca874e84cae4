run tests/golden/data/reveal.wat --inputs tests/golden/data/one-level.inputs.json --preimage-dir tests/golden/data/preimage --rollup sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg --without-time

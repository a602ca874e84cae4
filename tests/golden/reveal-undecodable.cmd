run tests/golden/data/reveal-undecodable.wat --inputs tests/golden/data/one-level.inputs.json --rollup sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg --without-time --fail-on-stuck

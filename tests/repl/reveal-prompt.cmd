debug tests/golden/data/reveal-missing.wat --inputs tests/golden/data/one-level.inputs.json --preimage-dir tests/golden/data/preimage --echo

invoke --memory-hash --max-ticks 4 tests/golden/data/memory-hash.wat trap 255

invoke --memory-hash tests/golden/data/memory-hash.wat trap 255

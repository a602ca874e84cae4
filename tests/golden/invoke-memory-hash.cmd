invoke --memory-hash tests/golden/data/memory-hash.wat grow 0x01020304

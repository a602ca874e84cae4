invoke --memory-hash tests/golden/data/data-kept.wat init

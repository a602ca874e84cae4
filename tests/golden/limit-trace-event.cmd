report tests/golden/data/limits/event-1048577.trace

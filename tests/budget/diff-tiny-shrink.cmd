diff tests/budget/diff-tiny-old.json tests/budget/diff-tiny-new.json

diff tests/budget/diff-retired-old.json tests/budget/diff-small-new.json

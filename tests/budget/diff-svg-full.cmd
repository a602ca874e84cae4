diff tests/budget/diff-small-old.json tests/budget/diff-small-new.json --svg /dev/full

# From seed 002_a5901dade20b64e5.txt, code block 2 of 4 (section 梯度清零) (lines 371-371): the fragment `optimizer.zero_grad()` (optimizer is defined nowhere in the document).
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
optimizer.zero_grad()

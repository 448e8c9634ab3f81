# From seed 004_7aa96bc17c364ae4.txt, code block 7 of 9 (section 关于 backward()) (lines 127-127): the fragment `z.backward(gradient=grads)` (z and grads are defined nowhere in the document).
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
z.backward(gradient=grads)

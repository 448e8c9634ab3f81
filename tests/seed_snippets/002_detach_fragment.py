# From seed 002_a5901dade20b64e5.txt, code block 3 of 4 (section 使用detach()切断) (lines 376-376): the fragment `input_B = output_A.detach()` (output_A is defined nowhere in the document).
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
input_B = output_A.detach()

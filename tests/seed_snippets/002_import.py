# From seed 002_a5901dade20b64e5.txt, cell In [1] (lines 24-24): import torch.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch

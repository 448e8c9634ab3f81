"""Differential fuzzing of whole autograd programs (``python -m conformance fuzz``).

``generator`` draws programs step by step (leaves, operators of the operator table, views,
in-place operations, detach, backward and autograd.grad with their options, optimizer steps),
with ``bookkeeping`` drawing hooks, grad modes, custom Functions and batched gradients;
``program`` holds what they build and renders it as a catalog-style scenario; ``campaign`` runs
programs side by side on torch and the implementation through the same pool, recorder and
judge as the catalog, and shrinks the first difference to a minimal program it writes out;
``ops`` reads the operators off the operator table.
"""

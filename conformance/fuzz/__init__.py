"""Differential fuzzing of whole autograd programs (``python -m conformance fuzz``).

``program`` draws programs step by step (leaves, operators of the operator table, views,
in-place operations, detach, hooks, grad modes, backward and autograd.grad with their options)
and renders each as a catalog-style scenario; ``campaign`` runs them side by side on torch and
the implementation through the same pool, recorder and judge as the catalog, and shrinks the
first difference to a minimal program it writes out; ``ops`` reads the elementwise operators
off the operator table.
"""

"""Differential fuzzing of whole autograd programs (``python -m conformance fuzz``).

``generator`` draws programs step by step (leaves, operators of the operator table, views,
in-place operations, detach, backward and autograd.grad with their options, optimizer steps),
with ``bookkeeping`` drawing hooks, grad modes, custom Functions and batched gradients;
``program`` holds what they build and renders it as a catalog-style scenario; ``campaign`` runs
programs side by side on torch and the implementation through the same pool, recorder and
judge as the catalog, and shrinks the first difference to a minimal program it writes out (with
hypothesis, or, where the budget left affords few runs of a program, by deleting its steps:
``deletion``); ``ops`` reads the operators off the operator table; ``gate`` keeps out of programs
what the implementation's profile lacks.
"""

# how long after its budget a campaign may take to end: the program running at the budget is
# stopped there (its process killed), then the finding is written and the workers are stopped
GRACE = 5.0

# how a campaign shrinks its first difference (``--shrinker``): "hypothesis" through the choices that
# drew the program, "steps" by deleting the program's steps (``deletion``), "auto" hypothesis where the
# budget left affords HYPOTHESIS_RUNS runs of a program at the cost measured so far, steps where not
SHRINKERS = ("auto", "hypothesis", "steps")
HYPOTHESIS_RUNS = 100

"""Planted gradient bugs, each at a known graph node, for the divergence locator (``conformance.locate``).

Each module is an implementation under test (``--impl tests.broken.gradients.<name>``): myautograd
with one bug patched in, installed on the first attribute access made in a process other than the
one that imported the module (the forked child of the side under test, as ``tests.broken._fault``
does for torch). None of them imports torch: the implementation's worker never holds the
reference.

* ``formula``: mul's gradient for its second operand reads the second operand instead of the
  first (``grad * other``): wrong at ``MulBackward0``, ``grad_inputs[1]``;
* ``broadcast``: a gradient that ``AddBackward0`` sends to a broadcast operand is the first copy
  along the broadcast dimensions instead of their sum: wrong at ``AddBackward0``;
* ``accumulation``: a leaf that already has a ``.grad`` gets the new gradient in its place, not
  added to it: wrong at that leaf's ``AccumulateGrad`` (only there);
* ``no_node_hooks``: ``formula``'s bug in an engine whose graph nodes take no hooks
  (``Node.register_hook`` is missing): the locator must say it cannot locate, and why.

``locatecheck`` is not an implementation: it holds small cases (registry ``LOCATE_CHECK``) on which each
bug shows at a node that is one of several.
"""

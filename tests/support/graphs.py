"""Reading an autograd graph in tests, the same way on torch and on myautograd."""

from __future__ import annotations


def graph_names(tensor) -> list[str]:
    """The names of the nodes a tensor's graph holds, depth first (``[]`` without a ``grad_fn``)."""
    names, stack = [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None:
            names.append(node.name())
            stack.extend(next_node for next_node, _ in node.next_functions)
    return names

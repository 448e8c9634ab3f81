"""The engine's queue of ready nodes: it hands them out in the order torch's engine runs them.

torch keeps the nodes that are ready to run in a ``std::priority_queue`` ordered by sequence
number, so the most recently created node runs first, and gives every gradient accumulator the
largest sequence number, so accumulators run before anything else. Accumulators that are ready at
the same time tie, and which of them runs first is decided by how libstdc++'s binary heap moves
its elements: a push appends and sifts up past strictly smaller parents; a pop takes the root,
slides the larger child of each hole up to the bottom (the right child unless the left is
larger), puts the last element there and sifts it up. ``(a + b).sum()`` accumulates into ``a``
first; with three or more the order follows the heap's layout. The order is visible wherever
hooks record, print or raise. This queue makes the same moves on a list of (priority, node).
"""

from __future__ import annotations

from .node import AccumulateGrad, Node

ACCUMULATOR = 1 << 64   # above every sequence number, as torch's UINT64_MAX


def priority(node: Node) -> int:
    return ACCUMULATOR if node.__class__ is AccumulateGrad else node._seq


class ReadyQueue:
    __slots__ = ("items",)

    def __init__(self, nodes=()) -> None:
        self.items: list[tuple[int, Node]] = []
        for node in nodes:
            self.push(node)

    def __bool__(self) -> bool:
        return bool(self.items)

    def push(self, node: Node) -> None:
        items = self.items
        entry = (priority(node), node)
        items.append(entry)
        self._sift_up(len(items) - 1, 0, entry)

    def pop(self) -> Node:
        items = self.items
        top = items[0]
        last = items.pop()
        length = len(items)
        if length:
            hole = child = 0
            while child < (length - 1) // 2:
                child = 2 * (child + 1)
                if items[child][0] < items[child - 1][0]:
                    child -= 1
                items[hole] = items[child]
                hole = child
            if length % 2 == 0 and child == (length - 2) // 2:
                child = 2 * (child + 1)
                items[hole] = items[child - 1]
                hole = child - 1
            self._sift_up(hole, 0, last)
        return top[1]

    def _sift_up(self, hole: int, top: int, entry: tuple[int, Node]) -> None:
        items = self.items
        key = entry[0]
        parent = (hole - 1) // 2
        while hole > top and items[parent][0] < key:
            items[hole] = items[parent]
            hole = parent
            parent = (hole - 1) // 2
        items[hole] = entry

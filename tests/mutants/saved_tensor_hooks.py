"""Mutants of saved-tensor hooks: what freeing a graph does to the values the pack hooks returned."""

from __future__ import annotations

from myautograd._autograd.node import SavedTensor

from ._registry import mutant, replace


@mutant("graph freeing", "freeing a saved tensor (a backward without retain_graph) keeps what its pack hook returned: "
        "packed values live as long as the graph's nodes")
def packed_values_not_freed():
    def make(original):
        def planted(self):
            packed = self.packed
            original(self)
            self.packed = packed
        return planted

    replace(SavedTensor, "free", make)

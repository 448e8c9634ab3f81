"""Pytrees: nested dicts, lists and tuples of values, flattened into their leaves and a spec to rebuild them.

A spec is ``None`` for a leaf, or ``(kind, keys, children)``: the container's type, a dict's keys (else
None) and the children's specs. ``spec_text`` draws a structure as torch.func's messages do (``(*, *)``),
``spec_repr`` as torch's ``TreeSpec`` prints itself (vmap's messages).
"""

from __future__ import annotations


def flatten(tree) -> tuple[list, object]:
    """The leaves of nested dicts, lists and tuples, and a spec to rebuild the structure."""
    if isinstance(tree, dict):
        parts = [flatten(value) for value in tree.values()]
        return [leaf for leaves, _ in parts for leaf in leaves], (dict, list(tree), [spec for _, spec in parts])
    if isinstance(tree, (list, tuple)):
        parts = [flatten(value) for value in tree]
        return [leaf for leaves, _ in parts for leaf in leaves], (type(tree), None, [spec for _, spec in parts])
    return [tree], None


def unflatten(leaves: list, spec):
    position = 0

    def build(spec):
        nonlocal position
        if spec is None:
            position += 1
            return leaves[position - 1]
        kind, keys, children = spec
        values = [build(child) for child in children]
        if kind is dict:
            return dict(zip(keys, values, strict=True))
        return kind(values) if kind in (list, tuple) else kind(*values)

    return build(spec)


def spec_text(spec) -> str:
    """A structure as torch's messages draw it: ``*`` for a leaf, ``(*, *)`` for a pair."""
    if spec is None:
        return "*"
    kind, keys, children = spec
    inner = [spec_text(child) for child in children]
    if kind is dict:
        return "{" + ", ".join(f"{key!r}: {text}" for key, text in zip(keys, inner, strict=True)) + "}"
    if kind is list:
        return "[" + ", ".join(inner) + "]"
    return "(" + ", ".join(inner) + (",)" if len(inner) == 1 else ")")


def spec_repr(tree, indent: int = 0) -> str:
    """``tree``'s structure as ``repr`` of torch's ``TreeSpec`` writes it: ``TreeSpec(tuple, None, [*,\\n  *])``."""
    _, spec = flatten(tree)
    return _treespec(spec, indent)


def _treespec(spec, indent: int) -> str:
    if spec is None:
        return "*"
    kind, keys, children = spec
    indent += 2
    texts = [_treespec(child, indent) for child in children]
    inner = texts[0] + ("," if len(texts) > 1 else "") if texts else ""
    inner += ",".join("\n" + " " * indent + text for text in texts[1:])
    return f"TreeSpec({kind.__name__}, {keys}, [{inner}])"

"""Choosing cases with ``-k EXPR``, as pytest's ``-k`` does.

An expression combines words with ``and``, ``or``, ``not`` and parentheses. A word selects a case
when it occurs (case-insensitively) in the case id, which begins with its topic, in one of its
tags or in one of the features it declares (``features.FEATURES``). ``-k "hooks and not
post_accumulate"``, ``-k "retain_graph or create_graph"``, ``-k "op and not float64"``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .case import Case

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


class SelectionError(ValueError):
    """The -k expression cannot be parsed."""


def compile_expression(expression: str) -> Callable[[Case], bool]:
    tokens = _TOKEN.findall(expression)
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        token = peek()
        if token is None:
            raise SelectionError(f"-k {expression!r}: the expression ends too early")
        position += 1
        return token

    def parse_or() -> Callable[[Case], bool]:
        parts = [parse_and()]
        while peek() == "or":
            take()
            parts.append(parse_and())
        return lambda case: any(p(case) for p in parts)

    def parse_and() -> Callable[[Case], bool]:
        parts = [parse_not()]
        while peek() == "and":
            take()
            parts.append(parse_not())
        return lambda case: all(p(case) for p in parts)

    def parse_not() -> Callable[[Case], bool]:
        token = take()
        if token == "not":
            inner = parse_not()
            return lambda case: not inner(case)
        if token == "(":
            inner = parse_or()
            if take() != ")":
                raise SelectionError(f"-k {expression!r}: a parenthesis is not closed")
            return inner
        if token in ("and", "or", ")"):
            raise SelectionError(f"-k {expression!r}: unexpected {token!r}")
        word = token.lower()
        return lambda case: any(word in name.lower() for name in (case.id, *case.tags, *case.features))

    if not tokens:
        raise SelectionError("-k: the expression is empty")
    predicate = parse_or()
    if peek() is not None:
        raise SelectionError(f"-k {expression!r}: unexpected {peek()!r}")
    return predicate

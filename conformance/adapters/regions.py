"""Region compilation: a scenario rewritten so that its computations run as functions a compiler can take.

A compiler that captures Python frames (``torch.compile``'s Dynamo) cannot take a whole scenario:
every error step of a case and every step of a fuzzed program sits in a ``with rec.attempt(...)``
block, and Dynamo cannot resume after a graph break inside a ``with`` block of a context manager
it does not know (nor inside ``try``). So the scenario's source is rewritten with ``ast``:

* each maximal run of statements that holds no attempt block becomes a **region**, a function
  ``def __region_3(): nonlocal a, b; <the statements>`` followed by ``__run_region(__region_3)``;
  ``__run_region`` is the caller's (``torch.compile(region)()``, say);
* an attempt block stays as it is, its body rewritten the same way; so do the statements around
  attempt blocks (``for``, ``while``, ``if``, ``try``, another ``with``): their bodies are
  rewritten, their own expressions (a loop's iterable, a condition) run as written;
* the scenario's variables live in closure cells: each region declares ``nonlocal`` every name it
  binds, and ``if False: a = b = None`` at the top of the scenario binds each of them in the
  scenario's scope at compile time only (it never runs);
* statements that cannot move into a function stay where they are, unchanged: ``return``,
  ``break`` and ``continue`` of a loop outside the statement, ``yield``, ``global``, ``nonlocal``,
  ``del``, imports, and function and class definitions (moved into a region, their
  ``__qualname__`` would name the region).

A name a region reads before it is bound (or after ``del``) is an empty closure cell there, which
Python reports as ``NameError: cannot access free variable ...``; the scenario would have raised
``UnboundLocalError: cannot access local variable ...`` for its local, so the caller's
``run_region`` is wrapped to raise that instead, where the region's own code read the name (a
nested function or lambda reads a free variable in the scenario too). One thing a region changes,
which no catalog scenario meets: a lambda written in a region has the region in its
``__qualname__``.

The rewritten scenario is compiled under the scenario's own file name with its own line numbers
(every generated node takes the line of the statements it holds), in the scenario's globals, so
that the recorder still maps each step to its scenario line and tracebacks show the scenario's
source. Generated scenarios (operator cases, fuzzed programs) work alike: their source is in
``linecache`` under their ``<...>`` file name. A scenario with free variables (a nested function)
gets their values at rewrite time.

:func:`rewrite` is all there is; it knows nothing of torch (``torch_compile`` uses it).
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
import traceback
import types
from collections.abc import Callable

RUN_REGION = "__run_region"
REGION_PREFIX = "__region_"
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_KEPT = (ast.Return, ast.Global, ast.Nonlocal, ast.Delete, ast.Import, ast.ImportFrom, ast.FunctionDef,
         ast.AsyncFunctionDef, ast.ClassDef, ast.Break, ast.Continue)


class RewriteError(Exception):
    """The scenario's source cannot be found or read as one function."""


def rewrite(scenario: Callable) -> Callable[[Callable], Callable]:
    """A maker: ``rewrite(scenario)(run_region)`` is the scenario rewritten, each region called as
    ``run_region(region)`` (``RewriteError`` where its source cannot be read)."""
    code = scenario.__code__
    try:
        source = textwrap.dedent(inspect.getsource(scenario))
    except (OSError, TypeError) as exc:
        raise RewriteError(f"the source of {code.co_name} cannot be read: {exc}") from None
    tree = ast.parse(source)
    function = tree.body[0] if tree.body else None
    if not isinstance(function, ast.FunctionDef) or len(function.args.args) < 2:
        raise RewriteError(f"{code.co_name} is not a function of (torch, rec)")
    ast.increment_lineno(tree, code.co_firstlineno - 1)
    function.decorator_list = []
    recorder = function.args.args[1].arg
    regions = _Regions(recorder)
    body = regions.rewrite(function.body)
    if regions.bound:
        body.insert(0, _at(ast.If(test=ast.Constant(False), orelse=[], body=[ast.Assign(
            targets=[ast.Name(name, ast.Store()) for name in sorted(regions.bound)],
            value=ast.Constant(None))]), function.body[0]))
    function.body = body
    module = ast.Module(body=[function], type_ignores=[])
    ast.fix_missing_locations(module)
    compiled = compile(module, code.co_filename, "exec")
    rewritten_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    free = dict(zip(code.co_freevars, (cell.cell_contents for cell in scenario.__closure__ or ())))

    def made(run_region: Callable) -> Callable:
        scope = {**scenario.__globals__, **free, RUN_REGION: _reading_unbound_as_the_scenario(run_region)}
        rewritten = types.FunctionType(rewritten_code, scope, scenario.__name__, scenario.__defaults__)
        rewritten.__kwdefaults__ = scenario.__kwdefaults__
        return rewritten

    return made


_EMPTY_CELL = re.compile(r"cannot access free variable '(?P<name>\w+)' where it is not associated with a value "
                         r"in enclosing scope")


def _reading_unbound_as_the_scenario(run_region: Callable) -> Callable:
    """``run_region``, raising what the scenario raises for a name read before it is bound: a
    region's own read of an empty cell becomes the scenario's ``UnboundLocalError``."""

    def run(region: Callable):
        try:
            return run_region(region)
        except NameError as exc:
            found = _EMPTY_CELL.fullmatch(str(exc))
            frames = traceback.extract_tb(exc.__traceback__)
            if found is None or not frames or REGION_PREFIX not in frames[-1].name:
                raise
            raise UnboundLocalError(f"cannot access local variable '{found['name']}' where it is not associated "
                                    f"with a value") from None

    return run


class _Regions:
    """Rewrites statement lists; collects the names the regions bind (``bound``)."""

    def __init__(self, recorder: str) -> None:
        self.recorder = recorder
        self.bound: set[str] = set()
        self.count = 0

    def rewrite(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        result: list[ast.stmt] = []
        run: list[ast.stmt] = []
        for statement in statements:
            if self.stays(statement):
                result += self.region(run)
                run = []
                result.append(self.inside(statement))
            else:
                run.append(statement)
        result += self.region(run)
        return result or [ast.Pass()]

    def stays(self, statement: ast.stmt) -> bool:
        """Whether the statement stays in the scenario (its bodies may still be rewritten): it is one
        that cannot move into a function, or it holds an attempt block or such a statement."""
        return isinstance(statement, _KEPT) or _reaches(statement, self.cannot_move, in_loop=False)

    def cannot_move(self, node: ast.AST, in_loop: bool) -> bool:
        """Whether ``node`` (``in_loop``: inside a loop of the statement looked at) ties the statement
        that holds it to the scenario's own frame."""
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)):
            return True
        if isinstance(node, (ast.Break, ast.Continue)):
            return not in_loop
        return isinstance(node, (ast.With, ast.AsyncWith)) and any(self.attempt_item(item) for item in node.items)

    def attempt_item(self, item: ast.withitem) -> bool:
        call = item.context_expr
        return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "attempt"
                and isinstance(call.func.value, ast.Name) and call.func.value.id == self.recorder)

    def inside(self, statement: ast.stmt) -> ast.stmt:
        """A statement that stays, with the bodies it holds rewritten (definitions stay whole)."""
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return statement
        for name in ("body", "orelse", "finalbody"):
            block = getattr(statement, name, None)
            if block:
                setattr(statement, name, self.rewrite(block))
        for handler in getattr(statement, "handlers", ()):
            handler.body = self.rewrite(handler.body)
        for case in getattr(statement, "cases", ()):
            case.body = self.rewrite(case.body)
        return statement

    def region(self, run: list[ast.stmt]) -> list[ast.stmt]:
        """``def __region_k(): nonlocal ...; <run>`` and its call, or nothing for an empty run."""
        if not run:
            return []
        self.count += 1
        name = f"{REGION_PREFIX}{self.count}"
        names = sorted(set().union(*(_bindings(statement) for statement in run)))
        self.bound.update(names)
        define = _function(name, ())
        define.body = ([_at(ast.Nonlocal(names=names), run[0])] if names else []) + run
        call = ast.Expr(ast.Call(ast.Name(RUN_REGION, ast.Load()), [ast.Name(name, ast.Load())], []))
        return [_at(define, run[0], run[-1]), _at(call, run[0], run[-1])]


def _reaches(node: ast.AST, found: Callable[[ast.AST, bool], bool], in_loop: bool) -> bool:
    """Whether ``found(n, in_loop)`` holds for ``node`` or a node below it outside nested scopes;
    ``in_loop``: ``n`` is in the body of a loop below the statement looked at (a ``break`` there
    stays inside)."""
    if found(node, in_loop):
        return True
    loop_body = node.body if isinstance(node, _LOOPS) else ()
    return any(_reaches(child, found, in_loop or any(child is s for s in loop_body))
               for child in ast.iter_child_nodes(node) if not isinstance(child, _SCOPES))


def _bindings(statement: ast.stmt) -> set[str]:
    """The names a statement binds in its function's scope (not those of nested scopes)."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            return
        elif isinstance(node, ast.Lambda):
            return
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for walrus in ast.walk(node):  # only an assignment expression binds outside a comprehension
                if isinstance(walrus, ast.NamedExpr) and isinstance(walrus.target, ast.Name):
                    names.add(walrus.target.id)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(statement)
    return names


def _function(name: str, parameters: tuple[str, ...]) -> ast.FunctionDef:
    """An empty ``def name(parameters): pass``, parsed (so that it has every field of this Python's ast)."""
    return ast.parse(f"def {name}({', '.join(parameters)}):\n    pass\n").body[0]


def _at(node: ast.AST, first: ast.AST, last: ast.AST | None = None) -> ast.AST:
    """``node`` placed at the lines of ``first`` .. ``last`` (its children without lines too)."""
    last = last or first
    node.lineno, node.col_offset = first.lineno, first.col_offset
    node.end_lineno = getattr(last, "end_lineno", None) or last.lineno
    node.end_col_offset = getattr(last, "end_col_offset", None) or 0
    for child in ast.walk(node):
        if "lineno" in child._attributes and not hasattr(child, "lineno"):
            child.lineno, child.col_offset = node.lineno, node.col_offset
            child.end_lineno, child.end_col_offset = node.lineno, node.col_offset
    return node

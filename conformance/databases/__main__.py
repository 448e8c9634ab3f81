"""``python -m conformance.databases``: render torch's module_db, optim_db and op_db into this folder's JSON
files (reference side: it imports torch and its test databases); ``--counts`` prints what the
files hold without importing torch."""

from __future__ import annotations

import argparse
import json
import sys

from . import FILES, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.databases", description=__doc__)
    parser.add_argument("--counts", action="store_true", help="print what the rendered files hold and exit")
    parser.add_argument("names", nargs="*", choices=[[], *FILES], default=[], help="the databases to render (default all)")
    args = parser.parse_args(argv)
    names = args.names or list(FILES)
    if args.counts:
        print(json.dumps({name: counts(name) for name in names}, indent=1))
        return 0
    from . import render_modules, render_operators, render_optimizers

    renderers = {"module_db": lambda: render_modules.render(), "optim_db": render_optimizers.render,
                 "op_db": lambda: render_operators.render()}
    for name in names:
        data = renderers[name]()
        FILES[name].write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"{name}: {len(data['entries'])} entries rendered, {len(data['skipped'])} skipped "
              f"(torch {data['torch']})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

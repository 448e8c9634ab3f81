"""Write ``dtype_refusals.py``: where torch refuses an operator case in a dtype of the table, and how.

Run once while building the table, never at run time (``python -m conformance.operators.probe_dtypes``):
every operator case runs on the installed torch, on the CPU, in each of its dtypes (``spec.DTYPES``);
where the scenario ends in an exception, the dtype is written down with the step it
ended at and the exception (type and the first line of the message). The result is data of the table
(``dtype_refusals.TORCH_REFUSES``): the coverage table shows it, and the tests check it against torch.
Such items still run (torch's exception is what the implementation must raise).
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import operators
from .cases import build

TARGET = Path(__file__).with_name("dtype_refusals.py")
HEADER = '''"""Where torch {version} refuses an operator case in a dtype (CPU): case id -> dtype -> the step it
raised at and torch's exception. Written by ``probe_dtypes`` (do not edit by hand; run it again after
changing the table). The items run all the same: their verdict compares torch's exception with the
implementation's.
"""

'''


def refusal(case, dtype: str) -> str | None:
    """``"<step label>: <Type>: <first line of the message>"`` where torch's run of the case ends in an
    exception, None where it completes."""
    import torch

    from ..recorder import observe

    result = observe(case, torch, "cpu", dtype)
    if result["status"] != "raised":
        return None
    steps = result["steps"]
    error = steps[-1]["error"]
    before = steps[-2]["label"] if len(steps) > 1 else "the first step"
    message = str(error["message"]).splitlines()[0][:160] if error["message"] else ""
    return f"after {before!r}: {error['type']}: {message}"


def probe() -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for operator in operators():
        for variant in operator.variants:
            case = build(operator, variant)
            for dtype in case.dtypes:
                why = refusal(case, dtype)
                if why is not None:
                    found.setdefault(case.id, {})[dtype] = why
    return found


def written(found: dict[str, dict[str, str]]) -> list[str]:
    """The lines of ``TORCH_REFUSES``, each text cut into pieces that fit a line."""
    lines = ["TORCH_REFUSES: dict[str, dict[str, str]] = {"]
    for case_id, by_dtype in sorted(found.items()):
        lines.append(f"    {case_id!r}: {{")
        for dtype, why in sorted(by_dtype.items()):
            pieces = [why[start:start + 80] for start in range(0, len(why), 80)]
            lines.append(f"        {dtype!r}: (")
            lines.extend(f"            {piece!r}" for piece in pieces)
            lines.append("        ),")
        lines.append("    },")
    lines.append("}")
    return lines


def main() -> int:
    import torch

    found = probe()
    TARGET.write_text(HEADER.format(version=torch.__version__) + "\n".join(written(found)) + "\n")
    print(f"{TARGET}: {len(found)} cases refused in some dtype", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

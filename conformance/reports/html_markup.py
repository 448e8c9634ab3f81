"""The small markup of ``report.html``: escaping any text from a run, links, anchors and outcome chips.

Everything from the run reaches the page through :func:`e` (``common.clean``, then ``html.escape``).
Only http(s) URLs become links.
"""

from __future__ import annotations

import html
import re

from .common import OUTCOMES, clean

SEPARATOR = " \u00b7 "


def e(value: object) -> str:
    """Any text from the run, escaped for HTML text and attribute values."""
    return html.escape(clean(value), quote=True)


def link(url: object, text: object) -> str:
    target = clean(url)
    if re.match(r"https?://", target, re.IGNORECASE):
        return f'<a href="{e(target)}" rel="noopener noreferrer">{e(text)}</a>'
    return e(text)


def anchor(case_id: str, device: str | None = None) -> str:
    base = "case-" + re.sub(r"[^A-Za-z0-9_.:-]", "-", clean(case_id))
    return base if device is None else f"{base}-{re.sub(r'[^A-Za-z0-9_.:-]', '-', clean(device))}"


def css_class(outcome: str) -> str:
    """``o-<outcome>`` (``o-na`` for n/a); an outcome the page does not know shows as an error."""
    return "o-" + (outcome if outcome in OUTCOMES else "error").replace("/", "")


def chip(outcome: str, text: object | None = None) -> str:
    return f'<span class="chip {css_class(outcome)}">{e(outcome if text is None else text)}</span>'


def filter_attributes(case_id: str, items: dict[str, dict]) -> str:
    first = next(iter(items.values()))
    search = f"{clean(case_id)} {clean(first.get('title', ''))}".lower()
    outcomes = " ".join(sorted({clean(r.get("outcome", "error")) for r in items.values()}))
    return f'data-search="{e(search)}" data-topic="{e(first.get("topic", "?"))}" data-outcomes="{e(outcomes)}"'

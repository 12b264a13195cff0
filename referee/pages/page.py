"""One self-contained HTML page: a Jinja template (autoescaped: no value from a log or a
bot is ever read as HTML), its style and script inlined, and its data as JSON for the
script. No network, no build step; it opens from disk."""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import msgspec
from markupsafe import Markup

from referee.files import replace_private
from referee.stats import signed_elo

#: What JSON may hold that would end a <script> element or confuse an HTML parser; inside
#: JSON strings, the escaped forms mean the same characters.
_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def embedded_json(data: object) -> Markup:
    """``data`` as JSON that is safe inside ``<script type="application/json">``."""
    text = msgspec.json.encode(data).decode()
    for character, escaped in _UNSAFE.items():
        text = text.replace(character, escaped)
    return Markup(text)


def _asset(name: str) -> Markup:
    """A style sheet or script of ours, inlined as it is."""
    text = resources.files("referee.pages").joinpath(name).read_text(encoding="utf-8")
    return Markup(text)


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("referee.pages", "."),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    environment.filters["elo"] = signed_elo  # +35.2, or ±∞
    return environment


def page(name: str, css: str | None = None, **values: Any) -> str:
    """The page ``name``: ``name.html`` rendered with ``values``, ``name.css`` and
    ``name.js`` (when there is one) inlined as ``style`` and ``script``; ``script_hash`` is
    the script's for the page's content security policy, so no other script could run.
    ``css`` names another page's style sheet to share (the league's page is in the report's
    style)."""
    folder = resources.files("referee.pages")
    script = _asset(f"{name}.js") if folder.joinpath(f"{name}.js").is_file() else Markup("")
    digest = base64.b64encode(hashlib.sha256(str(script).encode()).digest()).decode()
    template = _environment().get_template(f"{name}.html")
    return template.render(
        style=_asset(f"{css or name}.css"), script=script, script_hash=f"sha256-{digest}", **values
    )


class PageError(ValueError):
    """A page cannot be written there; the message says why and what to do."""


def write_page(path: Path, text: str, source: Path | None = None) -> None:
    """Write a page, readable by its owner alone (it may hold every hand of a match), whole,
    and never over ``source`` (what it was drawn from)."""
    if source is not None and path.resolve() == source.resolve():
        raise PageError(f"{path} is {source.name}, which the page is drawn from; choose another")
    replace_private(path, text)

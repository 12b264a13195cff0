"""Typer's help, made to read well: value names a user types, and paragraphs reflowed.

These are the only patches of typer's private API, all here, each named in ``PATCHED``;
``tests/cli/test_help_patches.py`` fails when a typer release no longer has (or no longer
calls) one of them, rather than the help quietly going back to ``<int range>`` and lines
cut at the source's width.
"""

from __future__ import annotations

import inspect
from typing import Any, Final

import typer

#: What is patched: (module, class or None for a module function, attribute). Typer calls
#: each by that name while it writes help.
PATCHED: Final = (
    ("typer.core", "TyperOption", "display_type"),  # read, not replaced
    ("typer.core", "TyperOption", "display_type_rich"),
    ("typer.core", "TyperArgument", "display_type_rich"),
    ("typer.rich_utils", None, "_fix_linebreaks"),
    ("typer.rich_utils", None, "_make_command_help"),
)


def _plain_value_names() -> None:
    """Typer prints each value's Python type in help (``<bool>``, ``<list[str]>``, ``<int
    range>``): show what a user types instead — the option's own name for its value (``MIB``,
    ``PATH``), ``N``, ``NUMBER``, ``TEXT``, the choices — and nothing for a flag, which takes
    none, or an argument, whose name already says it."""
    import typer.core

    display_type = typer.core.TyperOption.display_type

    def value_name(self: typer.core.TyperOption, ctx: Any) -> str | None:
        if self.metavar is not None:
            return str(self.metavar)
        if self.is_flag:
            return None
        label = str(display_type(self, ctx)).strip("<>")
        names = {"int": "N", "int range": "N", "float": "NUMBER", "float range": "NUMBER"}
        names |= {"str": "TEXT", "list[str]": "TEXT"}
        return names.get(label, label if "|" in label else label.upper())

    typer.core.TyperOption.display_type_rich = value_name  # type: ignore[method-assign]
    typer.core.TyperArgument.display_type_rich = lambda self, ctx: None  # type: ignore[method-assign]


_plain_value_names()


def _reflowed_paragraphs() -> None:
    """Typer keeps a docstring's line breaks inside each paragraph after the first, so help
    shows our source's wrapping cut again at the terminal's width: join each paragraph's
    lines (a paragraph starting with ``\\b`` keeps them, as in click)."""
    import typer.rich_utils

    def fix(paragraphs: list[str], markup_mode: Any) -> str:
        return "\n\n".join(
            p if p.startswith("\b") else " ".join(line.strip() for line in p.splitlines())
            for p in paragraphs
        )

    typer.rich_utils._fix_linebreaks = fix


_reflowed_paragraphs()


def _one_line_summaries() -> None:
    """In the list of commands typer keeps the line breaks of a docstring's first paragraph
    (in its rich mode), so a summary wider than one line breaks mid-sentence where our source
    did: join them there too."""
    import typer.rich_utils

    make = typer.rich_utils._make_command_help

    def joined(*, help_text: str, markup_mode: Any) -> Any:
        first, _, rest = inspect.cleandoc(help_text).partition("\n\n")
        if not first.startswith("\b"):
            first = " ".join(line.strip() for line in first.splitlines())
        return make(help_text=f"{first}\n\n{rest}" if rest else first, markup_mode=markup_mode)

    typer.rich_utils._make_command_help = joined


_one_line_summaries()

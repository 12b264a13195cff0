"""Text from bots, made safe to print: ``shown`` writes every character a terminal would act on,
or that hides or reorders text, as a visible escape.

What a bot says reaches people's terminals: its name, the excerpt of a line it sent that was
refused, the end of its stderr, the detail of its fault (which can quote a refused line), the
reason it forfeited. Printed raw, one such string can clear the screen (``ESC[2J``), retitle the
window (OSC 0), write the clipboard (OSC 52), hide what follows (``ESC[8m``), start a line of its
own that looks like the referee's (a carriage return, a vertical tab, NEL, U+2028), or reverse
the text after it (a bidi override, U+202E). ``shown`` is applied where such text is printed —
never where it is stored: logs and ``--json`` keep the bot's exact characters (the JSON encoder
escapes controls itself), and the HTML pages escape for HTML.

The characters escaped are the Unicode categories a terminal or a text layout acts on instead of
drawing: controls (Cc: C0, DEL, C1), format characters (Cf: bidi embeddings, overrides, isolates
and marks, zero-width characters, the byte-order mark, tags), line and paragraph separators (Zl,
Zp) and lone surrogates (Cs, which cannot even be encoded). Everything else is drawn as it is:
accents, CJK, emoji, spaces of every width, and characters this Python's Unicode does not know
yet (newer emoji among them).

``ready`` refuses a name holding any of these (``name_problem``): a name must look as it is.
"""

from __future__ import annotations

import unicodedata
from typing import Final

#: The categories written as escapes: controls, format characters, line and paragraph
#: separators, surrogates.
HIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})

#: The bidi formatting characters (all of category Cf): embeddings and overrides, isolates,
#: and the marks. Named apart because they reorder text rather than only hide.
BIDI: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

#: ``name_problem`` as a regular expression, for JSON Schema validators (``pattern`` of
#: ``ready.name``): the same rule over the Basic Multilingual Plane. The few format characters
#: above it (U+110BD, U+110CD, U+13430-U+1343F, U+1BCA0-U+1BCA3, U+1D173-U+1D17A, the tags
#: U+E0001 and U+E0020-U+E007F) are left out: no one way of writing them works in both Python
#: and ECMAScript patterns. A test checks this against ``unicodedata``.
NAME_PATTERN: Final = (
    r"^[^\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    r"\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]+$"
)

#: Escapes that read better than their code: a backslash is doubled, so that in ``shown``'s
#: result every backslash starts an escape and none is the bot's own.
_SHORT: Final = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def hidden(character: str) -> bool:
    """Whether ``character`` is one a terminal or text layout acts on instead of drawing."""
    return unicodedata.category(character) in HIDDEN_CATEGORIES


def shown(text: str) -> str:
    """``text`` safe to print on one line: every hidden character as an escape (``\\x1b``,
    ``\\x9b``, ``\\u202e``, ``\\U000e0001``; ``\\n``, ``\\r``, ``\\t``), every backslash
    doubled (``\\\\``), everything else as it is.

    Unambiguous: every backslash in the result begins one of these escapes, so the text can be
    read back exactly and a bot cannot write an escape that passes for another character.
    """
    if text.isprintable() and "\\" not in text:  # the usual case: nothing to escape
        return text
    return "".join(map(_escaped, text))


def json_text(value: object) -> str:
    """``value`` as JSON for a terminal: the encoder escapes C0 controls only, so every other
    hidden character (DEL, C1, bidi, format, separators) is written ``\\uXXXX`` too — the
    same JSON value, nothing left for a terminal to act on. Outside strings JSON is ASCII, so
    each such character is inside one."""
    import msgspec

    text = msgspec.json.encode(value).decode()
    return "".join(_json_escaped(c) if c > "~" and hidden(c) else c for c in text)


def _json_escaped(character: str) -> str:
    code = ord(character)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def markup(text: str) -> str:
    """``shown(text)`` for a string rich reads as markup: its ``[`` escaped as well, so a bot's
    ``[bold]`` or ``[link=...]`` is printed, not obeyed. (A console printing bot text is made
    with ``emoji=False``, or ``:smile:`` in a name would turn into a picture.)"""
    from rich.markup import escape

    return escape(shown(text))


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a bot's name in ``ready`` (None when it can): the first hidden
    character in it, by code point, Unicode name and kind, and where it is."""
    for index, character in enumerate(name):
        if hidden(character):
            return (
                f"name holds {describe(character)}, at index {index} (names are shown in"
                " terminals: no control, format or line separator character) - at `$.name`"
            )
    return None


def describe(character: str) -> str:
    """A hidden character for people: ``U+202E RIGHT-TO-LEFT OVERRIDE, a bidi formatting
    character``; ``U+009B, a C1 control character``."""
    name = unicodedata.name(character, "")
    return f"U+{ord(character):04X}{' ' + name if name else ''}, {_kind(character)}"


def _kind(character: str) -> str:
    category = unicodedata.category(character)
    if character in BIDI:
        return "a bidi formatting character"
    if category != "Cc":
        return _KINDS.get(category, "a character that is drawn")
    code = ord(character)
    if code < 0x20:
        return "a C0 control character"
    return "the control character DEL" if code == 0x7F else "a C1 control character"


_KINDS: Final = {
    "Cf": "an invisible format character",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Cs": "a lone surrogate",
}


def _escaped(character: str) -> str:
    short = _SHORT.get(character)
    if short is not None:
        return short
    if not hidden(character):
        return character
    code = ord(character)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"

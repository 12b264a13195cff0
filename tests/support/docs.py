"""The documents, read where each fact now lives: the short README, the site's pages in
``docs/`` (``mkdocs.yml``), ARCHITECTURE.md, and the protocol's and the kit's own files.

``docs/protocol`` and ``docs/example_bots`` are links to the top-level folders: their files are
read once, under their own names, not again as pages of ``docs/``."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: The folders of docs/ that are links to the repository's own (their files are not pages here).
LINKED = ("protocol", "example_bots")


def _site_pages() -> dict[str, str]:
    pages = sorted(
        path for path in DOCS.rglob("*.md") if path.relative_to(DOCS).parts[0] not in LINKED
    )
    return {str(path.relative_to(ROOT)): path.read_text() for path in pages}


def page(name: str) -> str:
    """A page of the site, by its path under ``docs/``."""
    return (DOCS / name).read_text()


README = (ROOT / "README.md").read_text()
#: Every page of ours a reader may read, by its path from the repository's root.
PAGES = {
    "README.md": README,
    "ARCHITECTURE.md": (ROOT / "ARCHITECTURE.md").read_text(),
    **_site_pages(),
}
PROTOCOL = (ROOT / "protocol" / "PROTOCOL.md").read_text()
KIT = (ROOT / "example_bots" / "README.md").read_text()
#: The worked example from training to the table (a page of the site, in the kit's folder).
LEARNED = (ROOT / "example_bots" / "learned" / "README.md").read_text()

#: Where the facts the tests check are said (the old README's sections, moved).
MATCH = page("playing/match.md")  # the match's options, and what the referee guarantees
CHECK_BOT = page("playing/check-bot.md")  # the checks, the exit check's time among them
TOURNAMENTS = page("competitions/tournaments.md")  # every key of a tournament's TOML file

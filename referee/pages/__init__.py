"""The HTML pages: a matchs viewer and a tournaments report, each one self-contained file."""

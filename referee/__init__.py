"""A referee for Texas 42 bot competitions."""

__version__ = "0.1.0"

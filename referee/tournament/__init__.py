"""Tournaments, one competition format: round robin or gauntlet in duplicate, with standings
and the SPRT; its matches are played by ``referee.running``."""

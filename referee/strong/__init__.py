"""The strong bundled bot's parts: an exact solver of a hand's play with every tile known
(``solver``), on which sampled worlds are to be played (issue 11, in progress)."""

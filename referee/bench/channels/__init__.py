"""Covert channels between partners, measured: ``measure`` (``referee bench channels``: one
hostile pair per channel, ``bot`` and its ``media``, the C ``helper`` for Flush+Reload),
``cache`` (``referee bench cache``: the page and lookup caches, ``cache_bot``), their
scoring (``score``) and their tables (``report``)."""

"""Tournaments: many matches in duplicate, in parallel or on a Dask cluster, with standings."""

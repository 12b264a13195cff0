"""The numbers a bot author tunes by, counted over replay logs and tournament results.

Per entrant: contracts bid and made by bid and by trump, sets as defenders, all-tricks
attempts, marks per hand, decision times per phase, faults and refused answers; per duplicate
pair: won both, split, lost both. ``counting`` walks one log (once, through ``record.walk``),
``tally`` adds logs and results up, ``sources`` finds them from the paths given, ``summary``
is the one computation of the numbers, and ``tables`` lays them out for the terminal
(``terminal``) and the report's HTML alike.
"""

"""Where a match's bots come from and where they go after it: started fresh for the match
and closed at its end (``source.FreshBots``), or lent by a warm pool that keeps the processes
of bots that can play many matches (``pool``), under the fairness rule of ``fairness``."""

"""A league: entrants and their versions in one SQLite database (``store``), duplicate pairs
scheduled where the ratings are least sure (``schedule``, played by ``runner``), past
tournaments imported (``importing``), and the standings, history, report and verification
read from it (``standings``, ``report``)."""

"""What people see on a terminal, apart from what it shows: text from bots made safe to print
(``escapes``), the one console and tables printed whole (``tables``), and the one progress of
long work (``progress``). Nothing here knows a match, a seat or a sandbox: the match's own
output is ``referee.match.display``, each command's beside what it shows."""

"""A Python bot that goes over one of its seat's bounds when greeted, before it says ready:
``memory`` keeps a mebibyte more at a time, ``processes`` starts threads for a pool far
larger than the seat allows. Python's own words (``MemoryError``, ``can't start new thread``)
end its stderr. With ``--caught`` it catches the error, writes it on stdout (as a bot that
logs there does) and waits, never ready."""

import sys
import threading
import time

sys.stdin.readline()  # hello
try:
    if sys.argv[1] == "memory":
        kept = []
        while True:
            kept.append(bytearray(1 << 20))
    for _ in range(256):
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
except (MemoryError, RuntimeError) as error:
    if "--caught" not in sys.argv:
        raise
    kept = []
    print(f"{type(error).__name__}: {error}", flush=True)
    sys.stdin.read()
print('{"type":"ready","name":"hog"}', flush=True)

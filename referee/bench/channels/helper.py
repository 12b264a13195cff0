"""The Flush+Reload helper of ``bot.py --medium cache``: a small static C program,
built with gcc at the bench's start (its source is here, so that it travels in the wheel).

Its read-only data is 216 pages, one cache line used in each: two groups of three per bit of
the preamble and the hand. Both seats run the same file, so the kernel maps the same physical
pages into both (the page cache). ``t <36 bits>`` flushes every line (``clflush``) and loads
the lines of each bit's value; ``r`` times a load of every line (``rdtsc``, fenced), then
flushes them all: a line the other seat loaded since answers from the caches (about 150
cycles here), any other from memory (400 and more).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Final

SOURCE: Final = r"""
#include <stdint.h>
#include <stdio.h>
#include <x86intrin.h>
#define BITS 36
#define COPIES 3
#define SLOTS (BITS * 2 * COPIES)
static const char pages[SLOTS][4096] __attribute__((aligned(4096))) = {[0 ... SLOTS - 1] = {1}};
#define LINE(i) ((const volatile char *)&pages[i][128])

static uint64_t probe(const volatile char *line) {
    _mm_mfence();
    _mm_lfence();
    uint64_t start = __rdtsc();
    _mm_lfence();
    (void)*line;
    _mm_lfence();
    return __rdtsc() - start;
}

static void flush(void) {
    for (int i = 0; i < SLOTS; i++) _mm_clflush((const void *)LINE(i));
    _mm_mfence();
}

int main(void) {
    char text[256];
    uint64_t times[SLOTS];
    while (fgets(text, sizeof text, stdin)) {
        if (text[0] == 't') {
            flush();
            for (int bit = 0; bit < BITS; bit++)
                for (int copy = 0; copy < COPIES; copy++)
                    (void)*LINE((bit * 2 + (text[2 + bit] == '1')) * COPIES + copy);
            puts("ok");
        } else if (text[0] == 'r') {
            for (int k = 0; k < SLOTS; k++) {
                int i = k * 97 % SLOTS;
                times[i] = probe(LINE(i));
            }
            flush();
            for (int i = 0; i < SLOTS; i++) printf("%llu ", (unsigned long long)times[i]);
            puts("");
        }
        fflush(stdout);
    }
    return 0;
}
"""


def build(directory: Path) -> Path | str:
    """The helper built in ``directory`` (which every seat's uid may read), or why not."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return f"Flush+Reload here needs x86_64 (clflush, rdtsc), not {platform.machine()}"
    compiler = shutil.which("gcc")
    if compiler is None:
        return "no gcc to build the Flush+Reload helper"
    source, program = directory / "channel_helper.c", directory / "channel_helper"
    source.write_text(SOURCE)
    done = subprocess.run(
        [compiler, "-O2", "-static", "-o", str(program), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return f"gcc could not build the static helper: {done.stderr.strip()[-300:]}"
    os.chmod(directory, 0o755)
    os.chmod(program, 0o755)
    return program

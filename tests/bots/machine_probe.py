"""Says, as one JSON object on stdout, what a program sees of the machine it runs on: the
memory and CPUs the files and calls that runtimes size themselves from report, whether it
could change them, and what the machine's files hold that moves."""

from __future__ import annotations

import ctypes
import json
import os

libc = ctypes.CDLL(None, use_errno=True)


def text(path: str) -> str | None:
    try:
        with open(path) as stream:
            return stream.read()
    except OSError as exc:
        return f"{type(exc).__name__}"


def listing(path: str) -> list[str] | str:
    try:
        return sorted(os.listdir(path))
    except OSError as exc:
        return type(exc).__name__


def writable(path: str) -> str:
    try:
        with open(path, "a") as stream:
            stream.write("x")
    except OSError as exc:
        return type(exc).__name__
    return "written"


info = ctypes.create_string_buffer(112)
ctypes.memset(info, 0xA5, 112)  # what a stack might hold: not zero
returned = libc.sysinfo(info)
error = ctypes.get_errno()
raw = info.raw
print(
    json.dumps(
        {
            "meminfo": text("/proc/meminfo"),
            "cpuinfo": text("/proc/cpuinfo"),
            "online": text("/sys/devices/system/cpu/online"),
            "cpus": listing("/sys/devices/system/cpu"),
            "pci": listing("/sys/bus/pci/devices"),
            "cpu_count": os.cpu_count(),
            "affinity": sorted(os.sched_getaffinity(0)),
            "phys_bytes": os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"),
            "sysinfo": {
                "returned": returned,
                "errno": error,
                "totalram": int.from_bytes(raw[32:40], "little"),
                "freeram": int.from_bytes(raw[40:48], "little"),
                "loads": [int.from_bytes(raw[8 + 8 * i : 16 + 8 * i], "little") for i in range(3)],
                "procs": int.from_bytes(raw[80:82], "little"),
                "mem_unit": int.from_bytes(raw[104:108], "little"),
            },
            "write_meminfo": writable("/proc/meminfo"),
            "write_online": writable("/sys/devices/system/cpu/online"),
        }
    )
)

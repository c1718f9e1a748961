"""Readings of the host's load that the engine takes when a group of cases starts and ends: the load
average and the CPU time stolen by a hypervisor (/proc/stat). stats/contention.py judges them."""
from __future__ import annotations

import os


def read_host() -> dict:
    """{"cpus", "loadavg" (1 minute), "ticks_total", "ticks_steal"}: the fields it can read here."""
    out: dict = {"cpus": os.cpu_count() or 1}
    try:
        out["loadavg"] = os.getloadavg()[0]
    except (OSError, AttributeError):
        pass
    try:
        # "cpu  user nice system idle iowait irq softirq steal guest guest_nice" (guest is in user)
        with open("/proc/stat", encoding="ascii") as f:  # its first line: the rest is per CPU and IRQ
            fields = f.readline().split()
        ticks = [int(x) for x in fields[1:9]]
        out["ticks_total"], out["ticks_steal"] = sum(ticks), ticks[7] if len(ticks) > 7 else 0
    except (OSError, ValueError, IndexError):
        pass
    return out

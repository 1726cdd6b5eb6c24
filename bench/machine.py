"""The machine line every benchmark table starts with: cores, CPU model and date."""

import datetime
import os


def machine():
    """'2 cores, AMD EPYC ...; 2026-12-01'."""
    with open("/proc/cpuinfo") as cpuinfo:
        model = next((line.split(":", 1)[1].strip() for line in cpuinfo
                      if line.startswith("model name")), "unknown CPU")
    return f"{os.cpu_count()} cores, {model}; {datetime.date.today().isoformat()}"

"""The machine line every benchmark table starts with: cores, CPU model, its widest
vector instructions (PyTorch's CPU kernels, and the scratch they allocate, differ
between AVX2 and AVX-512 machines) and date."""

import datetime
import os


def machine():
    """'2 cores, AMD EPYC (AVX2); 2026-12-01'."""
    with open("/proc/cpuinfo") as cpuinfo:
        lines = cpuinfo.read().splitlines()
    model = next((line.split(":", 1)[1].strip() for line in lines
                  if line.startswith("model name")), "unknown CPU")
    flags = set(next((line.split(":", 1)[1].split() for line in lines
                      if line.startswith("flags")), []))
    vector = next((name for flag, name in (("avx512f", "AVX-512"), ("avx2", "AVX2"))
                   if flag in flags), "no AVX2")
    return f"{os.cpu_count()} cores, {model} ({vector}); {datetime.date.today().isoformat()}"

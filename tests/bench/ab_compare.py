#!/usr/bin/env python3
"""Compares specview-bench CSVs of two builds (an A/B: the code before and after a change, tests/device/ab.sh).

    ab_compare.py A1.csv [A2.csv ...] -- B1.csv [B2.csv ...] [--match REGEX] [--all]

For every measurement both sides have (size, path, configuration, stage), the median over each side's runs, B's
change against A in percent, and how far apart each side's own runs were (the spread, max/min - 1, which a change
must clear to mean anything), and that change net of the peers' drift: the peers (cuFFT's and VkFFT's C2C and R2C
totals) run the same code on both sides, so the geometric mean of their B/A at a size is how much faster or slower
the machine ran B's runs there; custom-fast's change divided by it is what the code changed (the twentieth
session's m63 A/B: cuFFT C2C moved -2.4% at 1024^2 between sides whose cuFFT was the same). By default the lines that decide the issue's ratios: custom-fast's whole runs, its
passes at FastFft's block sizes (what the engine runs), and the peers; --match narrows them further, --all shows
every line. The bench's CSV quotes only the configuration, so a path or stage holding commas is split around it.
"""
import argparse
import math
import re
import statistics
import sys
from collections import OrderedDict

# size, path (may hold commas), "config", stage (may hold commas), median_ms, gbps, pct_of_copy
LINE = re.compile(r'^([^,]+),(.*?),"(.*?)",(.*),([-+\d.eE]+),([-+\d.eE]+),([-+\d.eE]+)$')
DEFAULT = re.compile(r", whole|FastFft's block sizes|^cufft_|^vkfft_")
PEERS = re.compile(r"^(cufft|vkfft)_(c2c|r2c)$")


def read(paths):
    """{(size, path, config, stage): [median_ms of each file]} in the files' order."""
    rows = OrderedDict()
    for p in paths:
        with open(p) as f:
            for n, line in enumerate(f):
                line = line.rstrip("\n")
                if n == 0 and line.startswith("size,"):
                    continue
                m = LINE.match(line)
                if not m:
                    print(f"ab_compare: {p}:{n + 1}: not a bench CSV line: {line[:80]}", file=sys.stderr)
                    continue
                config = m.group(3)
                # Until the FastFft::Variant switches were resolved (2026-12-06) the whole runs were timed with the
                # dependent launches on (the engine's way, now the only one: config "") and off.
                if config == "dependent launches off":
                    continue
                if config == "dependent launches on":
                    config = ""
                key = (m.group(1), m.group(2), config, m.group(4))
                rows.setdefault(key, []).append(float(m.group(5)))
    return rows


def spread(v):
    return max(v) / min(v) - 1 if len(v) > 1 and min(v) > 0 else 0.0


def compare(a, b, wanted, show_all):
    out = []
    for key, av in a.items():
        bv = b.get(key)
        if not bv:
            continue
        size, path, config, stage = key
        label = path + (f" [{config}]" if config else "") + ("" if stage == "total" else f": {stage}")
        if not show_all and not DEFAULT.search(label):
            continue
        if wanted and not wanted.search(f"{size} {label}"):
            continue
        am, bm = statistics.median(av), statistics.median(bv)
        change = (bm / am - 1) * 100 if am > 0 else float("nan")
        out.append((size, label, am, bm, change, spread(av) * 100, spread(bv) * 100))
    return out


def peer_drift(a, b):
    """{size: geometric mean over the peers' totals both sides have of B's median / A's} (the machine's drift)."""
    logs = {}
    for key, av in a.items():
        size, path, _config, stage = key
        bv = b.get(key)
        if not bv or stage != "total" or not PEERS.match(path):
            continue
        am, bm = statistics.median(av), statistics.median(bv)
        if am > 0 and bm > 0:
            logs.setdefault(size, []).append(math.log(bm / am))
    return {size: math.exp(sum(v) / len(v)) for size, v in logs.items()}


def main(argv):
    if "--" not in argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cut = argv.index("--")
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--match")
    ap.add_argument("--all", action="store_true")
    opts, rest = ap.parse_known_args(argv[cut + 1:])
    a_files, b_files = argv[:cut], rest
    if not a_files or not b_files:
        print("ab_compare: give A's CSVs, then --, then B's", file=sys.stderr)
        return 2
    a, b = read(a_files), read(b_files)  # once: read() warns about every line it cannot parse
    rows = compare(a, b, re.compile(opts.match) if opts.match else None, opts.all)
    if not rows:
        print("ab_compare: no measurement both sides have (or none matched)", file=sys.stderr)
        return 1
    drift = peer_drift(a, b)
    print(f"A: {' '.join(a_files)}\nB: {' '.join(b_files)}\nmedians of each side's runs, ms; spread = max/min - 1 "
          "of that side's runs; net = B vs A divided by the peers' drift at that size (the geometric mean of cuFFT's "
          "and VkFFT's C2C and R2C B/A: the same code on both sides)\n")
    if drift:
        print("peers' drift, B vs A: " + ", ".join(f"{size} {(d - 1) * 100:+.1f}%" for size, d in drift.items()) + "\n")
    print("| size | measurement | A | B | B vs A | net of peers | spread A | spread B |\n|---|---|---|---|---|---|---|---|")
    for size, label, am, bm, change, sa, sb in rows:
        d = drift.get(size)
        net = f"{((bm / am) / d - 1) * 100:+.1f}%" if d and am > 0 and not PEERS.match(label) else ""
        print(f"| {size} | {label} | {am:.4f} | {bm:.4f} | {change:+.1f}% | {net} | {sa:.1f}% | {sb:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

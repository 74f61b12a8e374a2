#!/usr/bin/env python3
"""The README's issue-13 whole-run table from one or more `specview-bench` text outputs.

Reads each file's "Issue 13 on ..." table (the peers: cuFFT and VkFFT C2C and R2C) and its "Issue 13, whole runs"
table (custom-fast timed whole, dependent launches on, and the picture's peer, cuFFT R2C + post, timed whole).
With several files every cell is the smallest of the runs' medians, custom-fast's and the peers' alike (one slow
stretch of a run, which a median of one block of repetitions does not reject, then costs neither side). Ratios
are against the faster peer, to three decimals, bold where issue 13's target is met.

With --log FILE.csv (and --commit SHA, --date YYYY-MM-DD), each run's whole-run figures are also appended to the
results log, one line per run and size (tests/bench/results.csv: the project's one append-only record of speed,
keyed by date, commit and GPU; its header is written when the file is new).

usage: readme_table.py [--log results.csv --commit SHA [--date YYYY-MM-DD]] RESULTS.txt [RESULTS.txt ...]
"""
import csv
import datetime
import os
import re
import sys

LOG_COLUMNS = ["date", "commit", "gpu", "size", "fast_c2c_ms", "c2c_peer_ms", "fast_r2c_ms", "fast_r2c_transposed_ms",
               "r2c_peer_ms", "picture_ms", "picture_peer_ms", "run"]



def largest_prime_factor(n):
    best, p = 1, 2
    while p * p <= n:
        while n % p == 0:
            best, n = p, n // p
        p += 1
    return max(best, n) if n > 1 else best


# The whole-run table's columns by their header's names. Before the FastFft::Variant switches were resolved (2026-12-06)
# each of custom-fast's columns had an "off" beside it (dependent launches off): these positions, where the header
# (as in the tests' short ones) does not name them.
WHOLE_NAMES = {"c2c": "fast C2C", "r2c": "fast R2C", "r2ct": "R2C transposed", "pic": "picture",
               "pic_peer": "cuFFT R2C + post"}
WHOLE_OLD = {"c2c": 0, "r2c": 3, "r2ct": 6, "pic": 9, "pic_peer": 11}


def whole_columns(header):
    """The whole-run table's column of each of WHOLE_NAMES (0-based after the size) from its header's cells."""
    names = header[1:]
    if all(n in names for n in WHOLE_NAMES.values()):
        return {k: names.index(n) for k, n in WHOLE_NAMES.items()}
    return dict(WHOLE_OLD)


def tables(path):
    """{'peers': {size: [cells]}, 'whole': {size: [cells]}, 'cols': whole_columns, 'gpu': name} of one run."""
    out = {"peers": {}, "whole": {}, "cols": dict(WHOLE_OLD), "gpu": ""}
    cur = None
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for line in lines:
        m = re.match(r"GPU: ([^,]+),", line)
        if m and not out["gpu"]:
            out["gpu"] = m.group(1).strip()
        if line.startswith("Issue 13 on "):
            cur = "peers"
            continue
        if line.startswith("Issue 13, whole runs"):
            cur = "whole"
            continue
        if cur == "whole" and line.startswith("| size"):
            out["cols"] = whole_columns([c.strip() for c in line.strip().strip("|").split("|")])
        if cur and line.startswith("| ") and not line.startswith("| size"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            out[cur][cells[0]] = cells[1:]
        elif cur and not line.startswith("|"):
            cur = None
    return out


def num(cell):
    try:
        return float(cell)
    except ValueError:
        return None


def smallest(runs, table, size, col):
    """The smallest cell over the runs; col: a peers' column (0-based after the size) or a WHOLE_NAMES key."""
    vals = [num(r[table][size][r["cols"][col] if isinstance(col, str) else col]) for r in runs if size in r[table]]
    vals = [v for v in vals if v is not None]
    if not vals:
        raise SystemExit(f"readme_table.py: no {table} value for {size}, column {col}")
    return min(vals)


def log_rows(runs, commit, date):
    """The results log's lines of these runs: each run its own (the README's table takes the smallest)."""
    rows = []
    for i, run in enumerate(runs, 1):
        for size in run["whole"]:
            one = [run]
            rows.append([date, commit, run["gpu"] or "unknown", size,
                         smallest(one, "whole", size, "c2c"),
                         min(smallest(one, "peers", size, 1), smallest(one, "peers", size, 2)),
                         smallest(one, "whole", size, "r2c"), smallest(one, "whole", size, "r2ct"),
                         min(smallest(one, "peers", size, 5), smallest(one, "peers", size, 6)),
                         smallest(one, "whole", size, "pic"), smallest(one, "whole", size, "pic_peer"), i])
    return rows


def append_log(path, rows):
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        if new:
            w.writerow(LOG_COLUMNS)
        w.writerows(rows)


def main(paths, log=None, commit=None, date=None):
    if log and (not commit or not re.fullmatch(r"[0-9a-f]{7,40}", commit)):
        raise SystemExit("readme_table.py: --log needs --commit SHA (7 to 40 hex digits)")
    runs = [tables(p) for p in paths]
    for path, run in zip(paths, runs):
        if not run["peers"] or not run["whole"]:
            raise SystemExit(f"readme_table.py: {path} has no 'Issue 13 on' or no 'Issue 13, whole runs' table")
    sizes = list(runs[0]["whole"])
    print("| size | custom-fast C2C | C2C / faster peer | custom-fast R2C | R2C ratio | R2C transposed | its ratio "
          "| picture | cuFFT R2C + post | picture ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for size in sizes:
        # peers: cuFFT C2C 1, VkFFT C2C 2, cuFFT R2C 5, VkFFT R2C 6 (0-based after the size)
        c2c_peer = min(smallest(runs, "peers", size, 1), smallest(runs, "peers", size, 2))
        r2c_peer = min(smallest(runs, "peers", size, 5), smallest(runs, "peers", size, 6))
        c2c, r2c, r2ct = (smallest(runs, "whole", size, c) for c in ("c2c", "r2c", "r2ct"))
        pic, pic_peer = smallest(runs, "whole", size, "pic"), smallest(runs, "whole", size, "pic_peer")
        w, h = (int(v) for v in size.split("x"))
        pow2 = w == h and w & (w - 1) == 0
        bluestein = any(largest_prime_factor(n) > 7 for n in (w, h))  # custom-fast's lines over a prime factor > 7
        if bluestein:
            t_c2c = t_r2c = t_pic = None
        elif pow2:
            t_c2c = 1.1 if w <= 512 else 0.95
            t_r2c = None if w <= 512 else 0.95
            t_pic = 0.6 if w >= 2048 else None
        else:
            t_c2c, t_r2c, t_pic = 1.0, 1.0, 1.0

        def cell(v, ratio, target):
            ok = target is not None and round(ratio, 3) <= target
            a, r = f"{v:.4f}", f"{ratio:.3f}×"
            return (f"**{a}** | **{r}**" if ok else f"{a} | {r}"), ok

        label = f"{w}×{h}"
        if bluestein:
            label += " (Bluestein)"
        c2c_c, _ = cell(c2c, c2c / c2c_peer, t_c2c)
        r2c_c, _ = cell(r2c, r2c / r2c_peer, t_r2c)
        r2ct_c, _ = cell(r2ct, r2ct / r2c_peer, t_r2c)
        pr = pic / pic_peer
        pic_ok = t_pic is not None and round(pr, 3) <= t_pic
        pic_c = f"**{pic:.4f}** | {pic_peer:.4f} | **{pr:.3f}×**" if pic_ok else f"{pic:.4f} | {pic_peer:.4f} | {pr:.3f}×"
        print(f"| {label} | {c2c_c} | {r2c_c} | {r2ct_c} | {pic_c} |")
    if log:
        append_log(log, log_rows(runs, commit, date or datetime.date.today().isoformat()))


def parse_args(argv):
    opts, paths = {"log": None, "commit": None, "date": None}, []
    it = iter(argv)
    for a in it:
        if a in ("--log", "--commit", "--date"):
            value = next(it, None)
            if value is None:
                raise SystemExit(f"readme_table.py: {a} needs a value")
            opts[a[2:]] = value
        else:
            paths.append(a)
    if not paths:
        raise SystemExit(__doc__)
    return paths, opts


if __name__ == "__main__":
    paths, opts = parse_args(sys.argv[1:])
    main(paths, **opts)

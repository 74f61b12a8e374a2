#!/usr/bin/env python3
"""Static SASS instruction counts of a cubin's kernels, from `cuobjdump -sass` output.

    cuobjdump -sass x.cubin > x.sass          (on the GPU machine: this machine's toolkit has no cuobjdump)
    tests/bench/sass_counts.py x.sass [--match REGEX] [--ops FADD,FFMA,...]
    tests/bench/sass_counts.py a.sass --against b.sass [--match REGEX]     (two builds, kernel by kernel: ab.sh sass)

For each kernel whose demangled-enough name matches REGEX: its instruction count (NOPs and the trailing BRA-to-self
excluded), the local-memory loads and stores (LDL/STL: spills), and the counts of the opcode groups below. The
mixed-radix kernels are unrolled by their templates, so a kernel's static count follows the work a thread does; it
is how two register caps of one kernel compare (PERF_NOTES.md m44: the 40-register caps that lost).
"""
import argparse
import re
import sys
from collections import Counter

GROUPS = {
    "fp32": ("FADD", "FMUL", "FFMA", "FMNMX", "FSEL"),
    "int": ("IADD3", "IMAD", "LEA", "LOP3", "SHF", "ISETP", "IABS", "SEL", "IMNMX", "PRMT"),
    "mov": ("MOV", "S2R", "CS2R", "LDC", "ULDC", "S2UR", "UMOV"),
    "shared": ("LDS", "STS", "LDSM"),
    "global": ("LDG", "STG", "LDGSTS"),
    "local": ("LDL", "STL"),
    "sync": ("BAR", "DEPBAR", "WARPSYNC"),
}

FUNC = re.compile(r"^\s*Function\s*:\s*(\S+)")
INSN = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(.*?);")


def short_name(mangled: str) -> str:
    # _ZN...mixed_cols_interleaved_capped_kernelILb0ELi3000ELi4ELi2EEEv... -> mixed_cols_interleaved_capped_kernel<0,3000,4,2>
    m = re.search(r"\d+(mixed_[a-z0-9_]+|fast_[a-z0-9_]+)I(.*?)EEv", mangled)
    if not m:
        return mangled
    args = re.findall(r"L[bi](\d+)E", m.group(2) + "E")
    return f"{m.group(1)}<{','.join(args)}>"


def parse(lines):
    kernels = {}
    name = None
    for line in lines:
        f = FUNC.match(line)
        if f:
            name = short_name(f.group(1))
            kernels[name] = Counter()
            continue
        if name is None:
            continue
        i = INSN.match(line)
        if not i:
            continue
        text = i.group(1).strip()
        if text.startswith("@"):
            text = text.split(None, 1)[1] if " " in text else ""
        op = text.split()[0] if text else ""
        base = op.split(".")[0]
        if base in ("NOP", ""):
            continue
        kernels[name][base] += 1
    return kernels


def group_count(c, group):
    return sum(c[o] for o in GROUPS[group])


def matching(names, match):
    """The names that match, sorted; none: says so on stderr."""
    names = sorted(n for n in names if re.search(match, n))
    if not names:
        print(f"sass_counts: no kernel matches {match!r}", file=sys.stderr)
    return names


def compare(a, b, match):
    """Kernels of A and B side by side: totals, the change, integer + move instructions, local memory ops."""
    names = matching(set(a) | set(b), match)
    print("| kernel | A | B | B vs A | A int+mov | B int+mov | A local | B local |")
    print("|---|---|---|---|---|---|---|---|")
    def cell(c, f):  # a kernel one side lacks: a dash
        return str(f(c)) if c is not None else "—"

    total = lambda c: sum(c.values())  # noqa: E731
    int_mov = lambda c: group_count(c, "int") + group_count(c, "mov")  # noqa: E731
    local = lambda c: group_count(c, "local")  # noqa: E731
    for name in names:
        ca, cb = a.get(name), b.get(name)
        change = f"{(total(cb) / total(ca) - 1) * 100:+.1f}%" if ca and cb is not None else "—"
        print(f"| {name} | {cell(ca, total)} | {cell(cb, total)} | {change} | "
              f"{cell(ca, int_mov)} | {cell(cb, int_mov)} | {cell(ca, local)} | {cell(cb, local)} |")
    return 0 if names else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sass")
    ap.add_argument("--match", default=".")
    ap.add_argument("--ops", default="", help="extra opcodes to list, comma-separated")
    ap.add_argument("--against", help="a second cuobjdump -sass output (B) to compare kernel by kernel")
    a = ap.parse_args(argv)
    with open(a.sass) as fh:
        kernels = parse(fh)
    if not kernels:
        print("sass_counts: no functions found (is this cuobjdump -sass output?)", file=sys.stderr)
        return 1
    if a.against:
        with open(a.against) as fh:
            other = parse(fh)
        if not other:
            print("sass_counts: no functions found in the --against file", file=sys.stderr)
            return 1
        return compare(kernels, other, a.match)
    extra = [o for o in a.ops.split(",") if o]
    cols = ["total"] + list(GROUPS) + extra
    print("| kernel | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    names = matching(kernels, a.match)
    for name in names:
        c = kernels[name]
        row = [sum(c.values())] + [group_count(c, g) for g in GROUPS] + [c[o] for o in extra]
        print(f"| {name} | " + " | ".join(str(x) for x in row) + " |")
    return 0 if names else 1


if __name__ == "__main__":
    sys.exit(main())

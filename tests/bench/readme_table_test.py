#!/usr/bin/env python3
"""Tests of readme_table.py (run by CTest, label cpu): the two tables' parsing, the smallest cell over runs, the
ratios against the faster peer and where they are bold."""
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import readme_table  # noqa: E402

HEAD_PEERS = "Issue 13 on NVIDIA H100 80GB HBM3, ms, medians; ...:\n| size | fast C2C | cuFFT C2C | VkFFT C2C | ... |\n|---|\n"
HEAD_WHOLE = "Issue 13, whole runs on NVIDIA H100 80GB HBM3 ...:\n| size | fast C2C | off | ... |\n|---|\n"


def run_text(peer_vk_c2c, fast_c2c):
    # peers: size, fast C2C, cuFFT C2C, VkFFT C2C, ratio, fast R2C, cuFFT R2C, VkFFT R2C, ...
    peers = (f"| 2048x2048 | 0.0570 | 0.0560 | {peer_vk_c2c} | 1.1x | 0.04 | 0.0400 | 0.0380 | 1.0x |\n"
             f"| 3000x2000 | 0.0920 | 0.1136 | 0.0850 | 1.1x | 0.07 | 0.0770 | 0.0599 | 1.2x |\n"
             f"| 1009x1013 | 0.0875 | 0.0590 | 0.0469 | 1.9x | 0.06 | 0.0558 | 0.0312 | 2.0x |\n")
    # whole: size, C2C, off, ratio, R2C, off, ratio, R2C transposed, off, ratio, picture, off, cuFFT R2C + post, ratio
    whole = (f"| 2048x2048 | {fast_c2c} | 0.0563 | 1.0x | 0.0400 | 0.04 | 1.0x | 0.0350 | 0.035 | 0.9x | 0.0500 | 0.05 | 0.0900 | 0.5x |\n"
             f"| 3000x2000 | 0.0911 | 0.0913 | 1.0x | 0.0695 | 0.07 | 1.1x | 0.0570 | 0.058 | 0.9x | 0.0915 | 0.09 | 0.1439 | 0.6x |\n"
             f"| 1009x1013 | 0.0847 | 0.0863 | 1.8x | 0.0594 | 0.06 | 1.9x | 0.0578 | 0.058 | 1.8x | 0.0670 | 0.07 | 0.0755 | 0.9x |\n")
    return "other output\n" + HEAD_PEERS + peers + "\nCSV\n" + HEAD_WHOLE + whole + "CSV: x\n"


# The whole-run table as the bench writes it since the variant switches went (2026-12-06): no "off" columns, found by
# the header's names.
HEAD_WHOLE_NOW = ("Issue 13, whole runs on NVIDIA H100 80GB HBM3 ...:\n| size | fast C2C | C2C ratio | fast R2C | R2C ratio | "
                  "R2C transposed | its ratio | picture | cuFFT R2C + post | picture ratio |\n|---|\n")


def run_text_now(peer_vk_c2c, fast_c2c):
    old = run_text(peer_vk_c2c, fast_c2c)
    head, whole_part = old.split(HEAD_WHOLE)
    rows = []
    for line in whole_part.splitlines():
        if not line.startswith("| "):
            continue
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        keep = [c[0], c[1], c[3], c[4], c[6], c[7], c[9], c[10], c[12], c[13]]
        rows.append("| " + " | ".join(keep) + " |\n")
    return head + HEAD_WHOLE_NOW + "".join(rows) + "CSV: x\n"


class ReadmeTable(unittest.TestCase):
    def table(self, *texts):
        paths = []
        for t in texts:
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
                f.write(t)
                paths.append(f.name)
        out = io.StringIO()
        try:
            with redirect_stdout(out):
                readme_table.main(paths)
        finally:
            for p in paths:
                os.unlink(p)
        return {line.split("|")[1].strip(): [c.strip() for c in line.strip().strip("|").split("|")[1:]]
                for line in out.getvalue().splitlines()[2:]}

    def test_ratios_against_the_faster_peer_and_bold_where_met(self):
        rows = self.table(run_text("0.0500", "0.0546"))
        self.assertEqual(rows["2048×2048"][0:2], ["0.0546", "1.092×"])  # against VkFFT's 0.0500, target 0.95: not bold
        self.assertEqual(rows["2048×2048"][4:6], ["**0.0350**", "**0.921×**"])  # transposed R2C against 0.0380
        self.assertEqual(rows["2048×2048"][6:9], ["**0.0500**", "0.0900", "**0.556×**"])
        self.assertEqual(rows["3000×2000"][0:2], ["0.0911", "1.072×"])  # exact size: target 1.0
        self.assertEqual(rows["3000×2000"][4:6], ["**0.0570**", "**0.952×**"])
        self.assertIn("1009×1013 (Bluestein)", rows)  # no target: never bold
        self.assertEqual(readme_table.largest_prime_factor(2022), 337)  # 2 * 3 * 337: Bluestein, though not prime
        self.assertEqual(readme_table.largest_prime_factor(4032), 7)
        self.assertNotIn("**", "".join(rows["1009×1013 (Bluestein)"]))

    def test_the_table_without_off_columns_gives_the_same_rows(self):
        self.assertEqual(self.table(run_text_now("0.0500", "0.0546")), self.table(run_text("0.0500", "0.0546")))
        rows = self.table(run_text_now("0.0500", "0.0546"))
        self.assertEqual(rows["2048×2048"][6:9], ["**0.0500**", "0.0900", "**0.556×**"])

    def test_each_cell_the_smallest_over_the_runs_for_both_sides(self):
        rows = self.table(run_text("0.0500", "0.0893"), run_text("0.0650", "0.0546"))
        self.assertEqual(rows["2048×2048"][0:2], ["0.0546", "1.092×"])  # ours from run 2, VkFFT's from run 1

    def test_the_log_gets_one_line_per_run_and_size_with_its_own_figures(self):
        paths = []
        for t in (run_text("0.0500", "0.0893"), run_text("0.0650", "0.0546")):
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
                f.write("GPU: NVIDIA H100 80GB HBM3, 132 SMs, 79 GiB; copy\n" + t)
                paths.append(f.name)
        log = tempfile.mktemp(suffix=".csv")
        try:
            with redirect_stdout(io.StringIO()):
                readme_table.main(paths, log=log, commit="abc1234", date="2026-12-06")
                readme_table.main(paths[:1], log=log, commit="def5678", date="2026-12-07")
            with open(log, encoding="utf-8") as f:
                lines = f.read().splitlines()
        finally:
            for p in paths + [log]:
                if os.path.exists(p):
                    os.unlink(p)
        self.assertEqual(lines[0].split(","), readme_table.LOG_COLUMNS)  # the header once, appended after
        self.assertEqual(len(lines), 1 + 3 * 2 + 3)
        first = lines[1].split(",")
        self.assertEqual(first[:4], ["2026-12-06", "abc1234", "NVIDIA H100 80GB HBM3", "2048x2048"])
        self.assertEqual(float(first[4]), 0.0893)  # run 1's own C2C, not the smaller of the two runs
        self.assertEqual(float(first[5]), 0.0500)  # the faster peer of run 1 (VkFFT)
        self.assertEqual(lines[4].split(",")[4], "0.0546")  # run 2's 2048x2048
        self.assertTrue(lines[-1].startswith("2026-12-07,def5678,"))

    def test_the_log_needs_a_commit(self):
        with self.assertRaises(SystemExit):
            readme_table.main([], log="x.csv", commit=None)

    def test_a_missing_table_is_an_error(self):
        with self.assertRaises(SystemExit):
            self.table(run_text("0.0500", "0.0546"), "no tables here\n")


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""Tests of ab_compare.py (run by CTest, label cpu): the bench CSV's commas, the medians, the change, the exits."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ab_compare  # noqa: E402

HEADER = "size,path,config,stage,median_ms,gbps,pct_of_copy\n"
ROWS_PATH = "custom-fast C2C, unpadded, FastFft's block sizes"
STAGE = "fast pass 2: column FFTs (half spectrum, mixed radix, from the scratch)"


def csv_text(c2c, pass2, vk):
    return (HEADER +
            f'3000x2000 (padded 4096x2048),{ROWS_PATH},"R128/C544 (what the engine runs)",total,{c2c},0,0\n'
            f'3000x2000 (padded 4096x2048),{ROWS_PATH},"R128/C544 (what the engine runs)",{STAGE},{pass2},1975.2,67.3\n'
            f'3000x2000 (padded 4096x2048),vkfft_c2c,"unpadded",total,{vk},1129.5,38.2\n'
            f'3000x2000 (padded 4096x2048),custom (default),"T256 H1/2",row FFT 1,0.29,453.5,15.3\n')


class AbCompare(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_reads_paths_and_stages_that_hold_commas(self):
        a = self.write("a.csv", csv_text(0.1, 0.05, 0.085))
        rows = ab_compare.read([a])
        key = ("3000x2000 (padded 4096x2048)", ROWS_PATH, "R128/C544 (what the engine runs)", STAGE)
        self.assertEqual(rows[key], [0.05])
        self.assertEqual(len(rows), 4)

    def test_medians_change_and_spread(self):
        a = [self.write("a1.csv", csv_text(0.100, 0.050, 0.085)), self.write("a2.csv", csv_text(0.104, 0.052, 0.086)),
             self.write("a3.csv", csv_text(0.102, 0.051, 0.084))]
        b = [self.write("b1.csv", csv_text(0.090, 0.040, 0.085)), self.write("b2.csv", csv_text(0.092, 0.041, 0.085))]
        out = ab_compare.compare(ab_compare.read(a), ab_compare.read(b), None, False)
        by = {label: (am, bm, ch, sa, sb) for _, label, am, bm, ch, sa, sb in out}
        total = by[ROWS_PATH + " [R128/C544 (what the engine runs)]"]
        self.assertAlmostEqual(total[0], 0.102)  # the median of three
        self.assertAlmostEqual(total[1], 0.091)  # of two: their mean
        self.assertAlmostEqual(total[2], (0.091 / 0.102 - 1) * 100)
        self.assertAlmostEqual(total[3], (0.104 / 0.100 - 1) * 100)
        self.assertIn(ROWS_PATH + " [R128/C544 (what the engine runs)]: " + STAGE, by)
        # the seed pipeline is not among the default lines, but is with --all
        self.assertFalse(any(label.startswith("custom (default)") for label in by))
        every = ab_compare.compare(ab_compare.read(a), ab_compare.read(b), None, True)
        self.assertTrue(any(label.startswith("custom (default)") for _, label, *_ in every))

    def test_net_of_the_peers_drift(self):
        # B's machine ran 2% faster (the peers, the same code: cuFFT and VkFFT both -2%); custom-fast -2% too: net 0
        def text(fast, cu, vk):
            return (HEADER + f'1024x1024,custom-fast C2C, whole,"dependent launches on",total,{fast},0,0\n'
                    f'1024x1024,cufft_c2c,"",total,{cu},0,0\n1024x1024,vkfft_c2c,"",total,{vk},0,0\n'
                    f'2048x2048,custom-fast C2C, whole,"dependent launches on",total,{fast},0,0\n')
        a = self.write("a.csv", text(0.0200, 0.0150, 0.0160))
        b = self.write("b.csv", text(0.0196, 0.0147, 0.01568))
        drift = ab_compare.peer_drift(ab_compare.read([a]), ab_compare.read([b]))
        self.assertAlmostEqual(drift["1024x1024"], 0.98)
        self.assertNotIn("2048x2048", drift)  # no peers there: no drift, no net
        out = subprocess.run([sys.executable, os.path.join(HERE, "ab_compare.py"), a, "--", b],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("peers' drift, B vs A: 1024x1024 -2.0%", out.stdout)
        self.assertIn("| 1024x1024 | custom-fast C2C, whole | 0.0200 | 0.0196 | -2.0% | +0.0% |", out.stdout)
        self.assertIn("| 2048x2048 | custom-fast C2C, whole | 0.0200 | 0.0196 | -2.0% |  |", out.stdout)
        # a peer's own line carries no net figure
        self.assertIn("| 1024x1024 | cufft_c2c | 0.0150 | 0.0147 | -2.0% |  |", out.stdout)

    def test_a_bench_from_before_the_variants_went_compares_with_one_after(self):
        # A's whole runs carry "dependent launches on" (and "off"); B's, no configuration: the same lines
        a = self.write("a.csv", HEADER + '1024x1024,custom-fast C2C, whole,"dependent launches on",total,0.0200,0,0\n'
                       '1024x1024,custom-fast C2C, whole,"dependent launches off",total,0.0300,0,0\n')
        b = self.write("b.csv", HEADER + '1024x1024,custom-fast C2C, whole,"",total,0.0190,0,0\n')
        rows = ab_compare.compare(ab_compare.read([a]), ab_compare.read([b]), None, False)
        self.assertEqual([(size, label) for size, label, *_ in rows], [("1024x1024", "custom-fast C2C, whole")])
        self.assertAlmostEqual(rows[0][4], (0.019 / 0.020 - 1) * 100)

    def test_exits(self):
        a = self.write("a.csv", csv_text(0.1, 0.05, 0.085))
        b = self.write("b.csv", csv_text(0.09, 0.04, 0.085))
        tool = [sys.executable, os.path.join(HERE, "ab_compare.py")]
        ok = subprocess.run(tool + [a, "--", b], capture_output=True, text=True)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertIn("| -10.0% |", ok.stdout)
        none = subprocess.run(tool + [a, "--", b, "--match", "no such size"], capture_output=True, text=True)
        self.assertEqual(none.returncode, 1)
        self.assertEqual(subprocess.run(tool + [a, b], capture_output=True).returncode, 2)
        bad = self.write("bad.csv", HEADER + "not,a,bench,line\n")
        mixed = subprocess.run(tool + [a, bad, "--", b], capture_output=True, text=True)
        self.assertEqual(mixed.returncode, 0)
        self.assertIn("not a bench CSV line", mixed.stderr)
        self.assertEqual(mixed.stderr.count("not a bench CSV line"), 1, "each file is read once")


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""Tests of sass_counts.py (run by CTest, label cpu): cuobjdump -sass's layout, predicates, NOPs, names, exits."""
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout, redirect_stderr

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sass_counts  # noqa: E402

CAPPED = ("_ZN8specview3gpu5mixed45_GLOBAL__N__dcdc1b0c_12_fft_mixed_cu_002f578f36"
          "mixed_cols_interleaved_capped_kernelILb0ELi3000ELi4ELi2EEEvPK6float2PS4_NS2_4LineEii")
ROWS = ("_ZN8specview3gpu5mixed45_GLOBAL__N__dcdc1b0c_12_fft_mixed_cu_002f578f28"
        "mixed_rows_c2c_capped_kernelILb1ELi3000ELi5EEEvPK6float2PS4_NS2_4LineEiii")

SASS = f"""
	code for sm_90
		Function : {CAPPED}
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                     /* 0x00000a00ff017b82 */
                                                                               /* 0x000fe20000000800 */
        /*0010*/                   S2R R0, SR_TID.X ;                         /* 0x0000000000007919 */
        /*0020*/               @P0 FFMA R2, R3, R4, R5 ;                      /* 0x0000000000007919 */
        /*0030*/              @!P1 LDG.E.64 R2, desc[UR4][R2.64] ;            /* 0x0000000000007919 */
        /*0040*/                   STL.64 [R1], R2 ;                          /* 0x0000000000007919 */
        /*0050*/                   FADD R2, R3, R4 ;                          /* 0x0000000000007919 */
        /*0060*/                   NOP ;                                      /* 0x0000000000007919 */
		..........
		Function : {ROWS}
        /*0000*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;              /* 0x0000000000007919 */
        /*0010*/                   LDS.64 R4, [R2] ;                          /* 0x0000000000007919 */
"""


class SassCounts(unittest.TestCase):
    def run_main(self, args, text=SASS):
        with tempfile.NamedTemporaryFile("w", suffix=".sass", delete=False) as f:
            f.write(text)
        out, err = io.StringIO(), io.StringIO()
        try:
            with redirect_stdout(out), redirect_stderr(err):
                rc = sass_counts.main([f.name] + args)
        finally:
            os.unlink(f.name)
        return rc, out.getvalue(), err.getvalue()

    def test_counts_instructions_by_group_without_nops(self):
        with io.StringIO(SASS) as fh:
            k = sass_counts.parse(fh)
        c = k["mixed_cols_interleaved_capped_kernel<0,3000,4,2>"]
        self.assertEqual(sum(c.values()), 6)  # the NOP and the encoding-only line are not instructions
        self.assertEqual(c["FFMA"], 1)        # predicated: @P0
        self.assertEqual(c["LDG"], 1)         # @!P1, with its modifiers
        self.assertEqual(c["STL"], 1)
        r = k["mixed_rows_c2c_capped_kernel<1,3000,5>"]
        self.assertEqual((r["BAR"], r["LDS"]), (1, 1))

    def test_table_rows_and_match(self):
        rc, out, _ = self.run_main(["--match", "cols", "--ops", "FADD"])
        self.assertEqual(rc, 0)
        rows = [l for l in out.splitlines() if l.startswith("| mixed")]
        self.assertEqual(len(rows), 1)
        cells = [x.strip() for x in rows[0].strip("|").split("|")]
        # total, fp32, int, mov, shared, global, local, sync, FADD
        self.assertEqual(cells[1:], ["6", "2", "0", "2", "0", "1", "1", "0", "1"])

    def test_against_compares_kernel_by_kernel(self):
        b = SASS.replace("        /*0050*/                   FADD R2, R3, R4 ;",
                         "        /*0050*/                   IMAD R2, R3, R4, R5 ;\n"
                         "        /*0058*/                   IADD3 R2, R3, R4, RZ ;")
        with tempfile.NamedTemporaryFile("w", suffix=".sass", delete=False) as f:
            f.write(b)
        try:
            rc, out, _ = self.run_main(["--against", f.name, "--match", "cols"])
        finally:
            os.unlink(f.name)
        self.assertEqual(rc, 0)
        rows = [l for l in out.splitlines() if l.startswith("| mixed")]
        self.assertEqual(len(rows), 1)
        cells = [x.strip() for x in rows[0].strip("|").split("|")]
        # A 6, B 7 (+16.7%), int+mov 2 -> 4, one STL each
        self.assertEqual(cells[1:], ["6", "7", "+16.7%", "2", "4", "1", "1"])

    def test_exits_non_zero_on_no_match_or_no_functions(self):
        self.assertEqual(self.run_main(["--match", "nothing_like_this"])[0], 1)
        self.assertEqual(self.run_main([], text="not sass at all\n")[0], 1)


if __name__ == "__main__":
    unittest.main()

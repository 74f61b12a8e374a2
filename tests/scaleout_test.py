#!/usr/bin/env python3
"""The scale-out examples (assets/scaleout/) say what the program does: the Kubernetes Indexed Job parses, is
Indexed, and its --shard auto/N matches its completions; the Slurm array script is valid bash and shards by the
array; both keep a manifest a task of their own and resume from it. (CTest scaleout.examples, label cpu.)"""
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(HERE, "..", "assets", "scaleout")


class Examples(unittest.TestCase):
    def test_the_indexed_job(self):
        try:
            import yaml
        except ImportError:
            self.skipTest("no PyYAML for this Python (Debian's python3-yaml)")
        with open(os.path.join(DIR, "specview-indexed-job.yaml"), encoding="utf-8") as f:
            job = yaml.safe_load(f)
        self.assertEqual(job["kind"], "Job")
        self.assertEqual(job["apiVersion"], "batch/v1")
        spec = job["spec"]
        self.assertEqual(spec["completionMode"], "Indexed")
        container = spec["template"]["spec"]["containers"][0]
        args = container["args"]
        shard = args[args.index("--shard") + 1]
        self.assertEqual(shard, "auto/%d" % spec["completions"])
        self.assertIn("--resume", args)
        self.assertIn("$(JOB_COMPLETION_INDEX)", args[args.index("--manifest") + 1])
        names = [e["name"] for e in container.get("env", [])]
        self.assertIn("JOB_COMPLETION_INDEX", names)

    def test_the_slurm_array(self):
        path = os.path.join(DIR, "specview-array.sbatch")
        subprocess.run(["bash", "-n", path], check=True)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertRegex(text, r"(?m)^#SBATCH --array=\d+-\d+")
        self.assertIn("--shard auto", text)
        self.assertRegex(text, r"--manifest \S*SLURM_ARRAY_TASK_ID\S*")
        self.assertIn("--resume", text)


if __name__ == "__main__":
    unittest.main()

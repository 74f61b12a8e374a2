#!/usr/bin/env python3
"""The house's rules, checked on every run (CTest, label cpu): each floor includes only the floors below it (the
table in app/README.md, gpu/README.md and ui/README.md), no source folder holds more than 25 source files, every
source folder has a README.md, no .md file in app/, gpu/ or ui/ passes 300 lines, the top README 400.

usage: floors_test.py [REPO_ROOT]
"""
import os
import re
import sys
import unittest

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
SOURCES = (".h", ".cpp", ".cu", ".cuh", ".c")

# What each folder may include (itself always). Folders under app/io/load etc. are named by their path.
COMMON = {"gpu/common"}
GPU_RUNTIME = COMMON | {"gpu/runtime"}
ALLOWED = {
    "gpu/common": set(),
    "gpu/runtime": COMMON,
    "gpu/plane": GPU_RUNTIME,
    "gpu/picture": GPU_RUNTIME,
    "gpu/custom": GPU_RUNTIME,
    "gpu/fast": GPU_RUNTIME | {"gpu/picture"},
    "gpu/cufft": GPU_RUNTIME | {"gpu/picture"},
    "gpu/lab": GPU_RUNTIME | {"gpu/picture"},
    "gpu/engine": GPU_RUNTIME | {"gpu/plane", "gpu/picture", "gpu/custom", "gpu/fast", "gpu/cufft", "gpu/lab"},
    "gpu/interop": GPU_RUNTIME,
    "gpu/opencl": COMMON,
    "gpu/glsl": COMMON,
    "app/core": COMMON,
    "app/io/load": COMMON | {"app/core"},
    "app/io": COMMON | {"app/core", "app/io/load", "gpu/plane", "gpu/runtime"},
    "app/lab": COMMON | {"app/core", "app/io", "app/io/load"},
    "app/engine": COMMON | {"app/core", "app/io", "app/io/load", "app/lab", "gpu/engine", "gpu/plane", "gpu/runtime",
                            "gpu/opencl", "gpu/glsl"},
    "app/volume": COMMON | {"app/core", "app/io", "app/io/load", "app/lab", "app/engine"},
    "app/cli": COMMON | {"app/core", "app/io", "app/io/load", "app/lab", "app/engine", "app/volume", "gpu/runtime"},
    "ui/worker": COMMON | {"app/core", "app/io", "app/io/load", "app/lab", "app/engine", "app/volume", "gpu/runtime"},
}
UI_FOLDERS = {"ui", "ui/panels", "ui/views", "ui/platform", "ui/script"}
for f in UI_FOLDERS:
    ALLOWED[f] = COMMON | UI_FOLDERS | {"ui/worker", "app/core", "app/io", "app/io/load", "app/lab", "app/engine", "app/volume",
                                        "app/cli", "gpu/runtime", "gpu/interop"}


def source_files():
    for floor in ("app", "gpu", "ui"):
        for d, _, files in os.walk(os.path.join(ROOT, floor)):
            for f in files:
                if f.endswith(SOURCES):
                    yield os.path.relpath(os.path.join(d, f), ROOT)


def folder_of_include(path):
    return os.path.dirname(path)


class Floors(unittest.TestCase):
    def test_each_floor_includes_only_the_floors_below_it(self):
        wrong = []
        for src in source_files():
            folder = os.path.dirname(src)
            allowed = ALLOWED.get(folder)
            self.assertIsNotNone(allowed, f"{folder} is not in the floors' table of {__file__}")
            with open(os.path.join(ROOT, src), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    m = re.match(r'\s*#\s*include\s+"((?:app|gpu|ui)/[^"]+)"', line)
                    if not m:
                        continue
                    target = folder_of_include(m.group(1))
                    if target != folder and target not in allowed:
                        wrong.append(f"{src}:{n} includes {m.group(1)} ({folder} may not include {target})")
        self.assertEqual(wrong, [], "\n".join(wrong))

    def test_no_folder_holds_more_than_25_sources_and_each_has_a_readme(self):
        counts = {}
        for src in source_files():
            counts[os.path.dirname(src)] = counts.get(os.path.dirname(src), 0) + 1
        for folder, n in counts.items():
            self.assertLessEqual(n, 25, folder)
            self.assertTrue(os.path.exists(os.path.join(ROOT, folder, "README.md")), f"{folder} has no README.md")

    def test_documents_stay_short(self):
        for floor in ("app", "gpu", "ui"):
            for d, _, files in os.walk(os.path.join(ROOT, floor)):
                for f in files:
                    if f.endswith(".md"):
                        with open(os.path.join(d, f), encoding="utf-8") as fh:
                            self.assertLessEqual(sum(1 for _ in fh), 300, os.path.join(d, f))
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
            self.assertLessEqual(sum(1 for _ in fh), 400, "README.md")

    def test_the_rule_catches_an_upward_include(self):
        # The check itself can fail: core including the engine is refused.
        self.assertNotIn("app/engine", ALLOWED["app/core"])
        self.assertNotIn("gpu/engine", ALLOWED["gpu/fast"])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]])

# SPDX-License-Identifier: MIT
"""Tests of uabench: --json of every subcommand against the schema kept in
the repo, the exact ua_stats counts it reports, report's directory, and the
usage errors.  Small fixed counts; no timing is asserted.

usage: test_uabench.py UABENCH SCHEMA
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jsonschema_lite  # noqa: E402

UABENCH = SCHEMA_PATH = None
SVG_NS = "{http://www.w3.org/2000/svg}"


def run(*args, env=None, cwd=None):
    return subprocess.run([UABENCH, *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=240)


def schema():
    with open(SCHEMA_PATH) as f:
        return json.load(f)


def schema_errors(doc):
    errs = jsonschema_lite.validate(doc, schema())
    # Where the real validator is installed, it must agree.
    try:
        import jsonschema
    except ImportError:
        return errs
    v = jsonschema.Draft202012Validator(schema())
    real = [f"{list(e.path)}: {e.message}" for e in v.iter_errors(doc)]
    if bool(real) != bool(errs):
        return errs + ["jsonschema disagrees: " + "; ".join(real[:3])]
    return errs


def methods(doc, group, backend=None):
    """{label: {method: entry}} of one group (and backend)."""
    out = {}
    for c in doc["cases"]:
        if c["group"] == group and c["backend"] == backend:
            out[c["label"]] = {m["method"]: m for m in c["methods"]}
    return out


class Json(unittest.TestCase):
    """Each measuring subcommand, --json, small fixed counts."""

    def json_of(self, *args):
        r = run(*args, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        # Not a terminal: no progress line, nothing on stderr.
        self.assertEqual(r.stderr, "")
        doc = json.loads(r.stdout)
        self.assertEqual(schema_errors(doc), [])
        return doc

    def backends(self, doc):
        return doc["machine"]["backends_available"]

    def test_usercopy(self):
        doc = self.json_of("usercopy", "-n", "48", "-r", "2",
                           "--max-size", "64", "--batch", "16")
        self.assertEqual(doc["subcommand"], "usercopy")
        self.assertEqual(doc["params"]["count"], 48)
        bes = self.backends(doc)
        self.assertIn("none", bes)
        self.assertIn("mprotect", bes)
        self.assertEqual(doc["params"]["backends"], bes)
        for be in bes:
            for group in ("copy_from", "copy_to"):
                rows = methods(doc, group, be)
                self.assertEqual(sorted(rows, key=int),
                                 ["1", "2", "4", "8", "16", "32", "64"])
                for m in rows.values():
                    self.check_copy_counts(m)
            for group in ("get", "put"):
                rows = methods(doc, group, be)
                self.assertEqual(sorted(rows), ["1", "2", "4", "8"])
                for m in rows.values():
                    self.check_copy_counts(m, ref="plain")
            const = methods(doc, "copy_const", be)
            self.assertEqual(len(const), 7)
            for m in const.values():
                for k in ("runtime", "constant"):
                    self.assertEqual(m[k]["counts"]["windows"], 3)
            # One window around each whole load loop, for both methods.
            for group in ("load", "load_chain"):
                load = methods(doc, group, be)["8"]
                for k in ("unsafe_get_user", "plain"):
                    self.assertEqual(load[k]["counts"]["windows"], 1)
                    self.assertEqual(load[k]["counts"]["switches"], 2)
        names = [r["target"] for r in doc["ratios"]]
        self.assertEqual(names.count("unsafe_load"), 2 * len(bes))

    def check_copy_counts(self, m, ref="memcpy"):
        # 48 operations: checked opens 48 windows, window 48/16 = 3.
        c = m["checked"]["counts"]
        self.assertEqual((c["ops"], c["windows"], c["switches"]),
                         (48, 48, 96))
        c = m["window"]["counts"]
        self.assertEqual((c["windows"], c["switches"]), (3, 6))
        self.assertEqual(m["window"]["per_op"]["switches"], 0.125)
        self.assertEqual(m[ref]["counts"]["switches"], 0)
        self.assertEqual(m[ref]["speed_vs_reference"], 1)
        for k in m.values():
            self.assertEqual(k["reps"], 2)
            self.assertEqual(len(k["samples_ns"]), 2)
            self.assertEqual(k["counts"]["fixups"], 0)

    def test_zero(self):
        doc = self.json_of("zero", "-n", "40", "-r", "2")
        for be in self.backends(doc):
            m = methods(doc, "zero", be)["512"]
            self.assertEqual(m["memset"]["counts"]["switches"], 0)
            # clear_user: one window; iov_iter: the iovec import and the zeroing.
            self.assertEqual(m["clear_user"]["counts"]["windows"], 40)
            self.assertEqual(m["clear_user"]["counts"]["switches"], 80)
            self.assertEqual(m["iov_iter_zero"]["counts"]["windows"], 80)
            self.assertEqual(m["iov_iter_zero"]["counts"]["switches"], 160)
        keys = [r["target"] for r in doc["ratios"]]
        self.assertEqual(keys.count("zero_vs_memset"),
                         2 * len(self.backends(doc)))
        st = {r["backend"]: r["status"] for r in doc["ratios"]}
        self.assertEqual(st["mprotect"], "reported")

    def test_nofault(self):
        doc = self.json_of("nofault", "-n", "20", "-r", "2")
        mapped = methods(doc, "nofault")["mapped"]
        unmapped = methods(doc, "nofault")["unmapped"]
        self.assertEqual(sorted(mapped), sorted([
            "get_kernel_nofault", "copy_from_kernel_nofault",
            "process_vm_readv", "pipe_write", "sigsetjmp_probe",
            "plain_load"]))
        self.assertNotIn("plain_load", unmapped)
        for m in mapped.values():
            self.assertEqual(m["counts"]["fixups"], 0)
            self.assertEqual(m["counts"]["switches"], 0)
        # Every fault of the library's accessors went through a fixup, and
        # the probe's own faults did not.
        for k in ("get_kernel_nofault", "copy_from_kernel_nofault"):
            self.assertEqual(unmapped[k]["counts"]["fixups"], 20)
        for k in ("process_vm_readv", "pipe_write", "sigsetjmp_probe"):
            self.assertEqual(unmapped[k]["counts"]["fixups"], 0)
        keys = {r["target"] for r in doc["ratios"]}
        self.assertTrue({"nofault_vs_pvr", "nofault_vs_sigsetjmp"} <= keys)
        self.assertEqual({t["key"] for t in doc["targets"]},
                         {"nofault_vs_pvr", "nofault_vs_sigsetjmp"})

    def test_pkey_request(self):
        r = run("usercopy", "-n", "16", "-r", "1", "--max-size", "1",
                "--protect", "none", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["params"]["backends"], ["none"])
        r = run("usercopy", "-n", "16", "-r", "1", "--max-size", "1",
                "--protect", "pkey", "--json")
        if "pkey" in doc["machine"]["backends_available"]:
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(schema_errors(json.loads(r.stdout)), [])
        else:
            self.assertEqual(r.returncode, 2)
            self.assertIn("not available", r.stderr)
            self.assertIn("usage: uabench usercopy", r.stderr)
            self.assertEqual(r.stdout, "")


class Report(unittest.TestCase):
    def test_report_dir(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "rep")
            r = run("report", "--quick", "-o", out, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stderr, "")
            printed = json.loads(r.stdout)
            self.assertEqual(schema_errors(printed), [])
            with open(os.path.join(out, "results.json")) as f:
                saved = json.load(f)
            self.assertEqual(schema_errors(saved), [])
            self.assertEqual([x["subcommand"] for x in saved["runs"]],
                             ["usercopy", "zero", "nofault"])
            st = {t["key"]: t["status"] for t in saved["targets"]}
            self.assertEqual(st["null_syscall_vs_getppid"], "pending")
            self.assertIn(st["nofault_vs_pvr"], ("met", "not met"))
            with open(os.path.join(out, "summary.md")) as f:
                md = f.read()
            self.assertIn("| measure | backend | speed ratio | quartiles | "
                          "target | status |", md)
            self.assertIn("pending the task/signal layers", md)
            self.assertIn("### copy_from — none backend", md)
            svgs = sorted(n for n in os.listdir(out) if n.endswith(".svg"))
            self.assertEqual(svgs, ["nofault.svg", "targets.svg",
                                    "usercopy-copy_from.svg",
                                    "usercopy-copy_to.svg"])
            for n in svgs:
                root = ET.parse(os.path.join(out, n)).getroot()
                self.assertEqual(root.tag, SVG_NS + "svg", n)

    def test_headline_on_stdout(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = run("report", "--quick", "-n", "16", "-r", "1", cwd=tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("measure (DESIGN.md §5)", r.stdout)
            self.assertIn("pending the task/signal layers", r.stdout)
            self.assertIn("wrote bench-report/", r.stdout)
            self.assertTrue(os.path.isfile(
                os.path.join(tmp, "bench-report", "results.json")))

    def test_without_gnuplot(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, PATH=os.path.join(tmp, "nothing"))
            r = run("report", "--quick", "-o", os.path.join(tmp, "r"),
                    env=env)
            self.assertEqual(r.returncode, 1)
            self.assertIn("gnuplot not found", r.stderr)
            self.assertIn("gnuplot-nox", r.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "r")))


BAD = [
    [],
    ["bogus"],
    ["usercopy", "-n", "-5"],
    ["usercopy", "-n", "0"],
    ["usercopy", "-n", "abc"],
    ["usercopy", "-n", "5x"],
    ["usercopy", "--count", ""],
    ["zero", "-r", "0"],
    ["zero", "-r", "-1"],
    ["nofault", "-T", "1.5"],
    ["usercopy", "--bogus"],
    ["usercopy", "-x"],
    ["usercopy", "--max-size", "3"],
    ["usercopy", "--max-size", "131072"],
    ["usercopy", "--batch", "0"],
    ["usercopy", "--protect", "bogus"],
    ["usercopy", "--protect", ""],
    ["zero", "--max-size", "64"],
    ["nofault", "--protect", "none"],
    ["nofault", "extra"],
    ["report", "-o"],
]


class Usage(unittest.TestCase):
    def test_bad_arguments(self):
        for args in BAD:
            with self.subTest(args=args):
                r = run(*args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("usage: uabench", r.stderr)
                self.assertTrue(r.stderr.startswith("uabench: "))
                self.assertEqual(r.stdout, "")

    def test_help(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        for name in ("usercopy", "zero", "nofault", "report"):
            self.assertIn(name, r.stdout)
        r = run("usercopy", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--protect LIST", r.stdout)


if __name__ == "__main__":
    UABENCH, SCHEMA_PATH = map(os.path.abspath, sys.argv[1:3])
    unittest.main(argv=[sys.argv[0], "-v"])

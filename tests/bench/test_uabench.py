# SPDX-License-Identifier: MIT
"""Tests of uabench: --json of every subcommand against the schema kept in
the repo, the exact ua_stats counts it reports, report's directory, and the
usage errors.  Small fixed counts; no timing is asserted.

usage: test_uabench.py UABENCH SCHEMA
"""

import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jsonschema_lite  # noqa: E402

UABENCH = SCHEMA_PATH = None
# meson test sets MALLOC_PERTURB_, and glibc then fills each malloc'd
# byte of every program the real_* rows run, natively and under uarun:
# the rows measure those programs, not a debugging mode of their libc.
os.environ.pop("MALLOC_PERTURB_", None)
SVG_NS = "{http://www.w3.org/2000/svg}"
# uabench compilers' cases per backend and build: load, load_chain, zero
# and load_reg (the independent loads against a register-form plain load).
ACC_GROUPS = 4


def run(*args, env=None, cwd=None):
    # report --quick runs every row, real_spawn's new images among them.
    return subprocess.run([UABENCH, *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=600)


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


def cpu_flags():
    """The flags line of /proc/cpuinfo, as the kernel shows them."""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def hwcap2():
    """AT_HWCAP2 (26) of this process's auxiliary vector."""
    with open("/proc/self/auxv", "rb") as f:
        data = f.read()
    for i in range(0, len(data) - 15, 16):
        key, val = struct.unpack_from("<QQ", data, i)
        if key == 26:
            return val
    return 0


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
        # The load loops are judged in `compilers`, beside clang-19's.
        loads = [r for r in doc["ratios"] if r["group"].startswith("load")]
        self.assertEqual(len(loads), 2 * len(bes))
        for r in loads:
            self.assertEqual((r["target"], r["status"]),
                             (None, "informative"))

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
            # clear_user and the single-buffer iterator: one window per
            # block; the readv form adds the iovec import's window.
            for k in ("clear_user", "iov_iter_zero"):
                self.assertEqual(m[k]["counts"]["windows"], 40)
                self.assertEqual(m[k]["counts"]["switches"], 80)
            self.assertEqual(m["iovec_iter_zero"]["counts"]["windows"], 80)
            self.assertEqual(m["iovec_iter_zero"]["counts"]["switches"], 160)
        keys = [r["target"] for r in doc["ratios"]]
        self.assertEqual(keys.count("zero_vs_memset"),
                         2 * len(self.backends(doc)))
        self.assertEqual(keys.count(None), len(self.backends(doc)))
        st = {r["backend"]: r["status"] for r in doc["ratios"]
              if r["target"]}
        self.assertEqual(st["mprotect"], "reported")
        self.check_wrpkru(doc, "zero", "clear_user")

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

    def test_signal1(self):
        doc = self.json_of("signal1", "-s", "0.1", "-w", "2")
        bes = self.backends(doc)
        self.check_signal1(doc, 1, bes)
        ex = doc["extra"]
        for c in ex["configs"]:
            self.assertEqual(len(c["warmup"]), 2)
            self.assertEqual(len(c["measurement"]), 1)
            s = c["measurement"][0]
            self.assertEqual(s["min"], s["max"])
            self.assertEqual(s["total"], s["max"])
        self.assertEqual(ex["sample_seconds"], 0.1)

    def test_signal1_threads(self):
        doc = self.json_of("signal1", "-t", "2", "-s", "0.2", "-w", "0",
                           "--protect", "none")
        self.check_signal1(doc, 2, ["none"])
        for c in doc["extra"]["configs"]:
            self.assertEqual(c["warmup"], [])
            s = c["measurement"][0]
            # Two tasks: the total is the sum of the smaller and larger.
            self.assertLessEqual(s["min"], s["max"])
            self.assertEqual(s["min"] + s["max"], s["total"])

    def check_signal1(self, doc, threads, bes):
        ex = doc["extra"]
        self.assertEqual(ex["threads"], threads)
        names = [c["name"] for c in ex["configs"]]
        want = (["host"] + ["per_access_" + b for b in bes] +
                ["block_" + b for b in bes])
        self.assertEqual(names, want)
        case, sc, _ = doc["cases"]
        self.assertEqual([m["method"] for m in case["methods"]], want)
        self.check_scaling(doc, sc, threads)
        per_access = set()
        for c, m in zip(ex["configs"], case["methods"]):
            ms = c["measurement"]
            self.assertEqual(c["average"],
                             sum(s["total"] for s in ms) // len(ms))
            self.assertEqual(m["counts"]["switches"], c["switches"])
            self.assertEqual(m["counts"]["ops"], 64)
            sw = c["switches"]
            if c["kind"] == "host":
                self.assertEqual(sw, 0)
            elif c["frame_mode"] == "block":
                # Lock on entry folded into the frame window, one
                # window each way, unlock folded into the exit: 5.
                self.assertEqual(sw, 5 * 64)
            else:
                self.assertEqual(sw % 64, 0)
                self.assertGreater(sw, 5 * 64)
                per_access.add(sw)
            self.assertGreater(c["round_trips"], 0)
        # Per-access frames make the same switches under every backend.
        self.assertEqual(len(per_access), 1)
        self.assertEqual([t["key"] for t in doc["targets"]],
                         ["signal1_scaling", "signal1_scaling_control"])
        for t in doc["targets"]:
            self.assertIn(t["status"], ("met", "not met"))

    def check_scaling(self, doc, sc, threads):
        """One task, then -t tasks (2 for -t 1), per task-thread CPU-s,
        in alternating rounds; the ratio is the median of the rounds'."""
        many = threads if threads > 1 else 2
        names = ["1_task", f"{many}_tasks"]
        self.assertEqual(sc["group"], "signal1_scaling")
        self.assertEqual(sc["backend"], "none")
        self.assertEqual([m["method"] for m in sc["methods"]], names)
        s = doc["extra"]["scaling"]
        self.assertEqual(s["clock"],
                         "CLOCK_THREAD_CPUTIME_ID of each task thread")
        rounds = len(s["runs"]) // 2
        self.assertGreaterEqual(rounds, 3)
        self.assertEqual(len(s["runs"]), 2 * rounds)
        self.assertEqual([(x["round"], x["tasks"]) for x in s["runs"]],
                         [(k // 2, [1, many][k % 2])
                          for k in range(2 * rounds)])
        rate = []
        for x in s["runs"]:
            self.assertGreater(x["round_trips"], 0)
            self.assertGreater(x["cpu_seconds"], 0)
            self.assertAlmostEqual(x["per_task_per_cpu_second"] /
                                   (x["round_trips"] / x["cpu_seconds"]),
                                   1, places=4)
            rate.append(x["per_task_per_cpu_second"])
        ratios = sorted(rate[2 * k + 1] / rate[2 * k] for k in range(rounds))
        mid = (ratios[(rounds - 1) // 2] + ratios[rounds // 2]) / 2
        self.assertAlmostEqual(s["ratio"] / mid, 1, places=4)
        for m in sc["methods"]:
            self.assertEqual(m["reps"], rounds)
        (r,) = [r for r in doc["ratios"] if r["target"] == "signal1_scaling"]
        self.assertEqual((r["method"], r["reference"]), tuple(reversed(names)))
        self.assertEqual(r["kind"], "speed")
        self.assertAlmostEqual(r["value"] / s["ratio"], 1, places=4)
        self.assertIn("thread-CPU-s", r["what"])
        self.assertIn(r["status"], ("met", "not met"))
        # The control: the same rounds, its ratio, and the engine's over it.
        self.assertEqual([(x["round"], x["tasks"]) for x in s["control_runs"]],
                         [(k // 2, [1, many][k % 2])
                          for k in range(2 * rounds)])
        crate = []
        for x in s["control_runs"]:
            self.assertGreater(x["round_trips"], 0)
            self.assertGreater(x["cpu_seconds"], 0)
            crate.append(x["per_task_per_cpu_second"])

        def median(v):
            v = sorted(v)
            return (v[(rounds - 1) // 2] + v[rounds // 2]) / 2

        eng = [rate[2 * k + 1] / rate[2 * k] for k in range(rounds)]
        ctl = [crate[2 * k + 1] / crate[2 * k] for k in range(rounds)]
        self.assertAlmostEqual(s["control_ratio"] / median(ctl), 1, places=4)
        self.assertAlmostEqual(
            s["ratio_over_control"] /
            median([e / c for e, c in zip(eng, ctl)]), 1, places=4)
        cc = [c for c in doc["cases"]
              if c["group"] == "signal1_scaling_control"]
        self.assertEqual(len(cc), 1)
        self.assertEqual([m["method"] for m in cc[0]["methods"]], names)
        (r,) = [r for r in doc["ratios"]
                if r["target"] == "signal1_scaling_control"]
        self.assertEqual((r["method"], r["reference"]), tuple(reversed(names)))
        self.assertAlmostEqual(r["value"] / s["ratio_over_control"], 1,
                               places=4)
        self.assertIn(r["status"], ("met", "not met"))

    def test_raise(self):
        doc = self.json_of("raise", "-n", "50", "-r", "2", "--no-insns")
        bes = self.backends(doc)
        (case,) = doc["cases"]
        ms = {m["method"]: m for m in case["methods"]}
        want = (["host", "host_tgkill", "frame_floor"] +
                ["per_access_" + b for b in bes] +
                ["block_" + b for b in bes])
        self.assertEqual([m["method"] for m in case["methods"]], want)
        per_access = set()
        for name, m in ms.items():
            c = m["counts"]
            self.assertEqual(c["ops"], 50, name)
            self.assertEqual(m["ops_per_rep"], 50, name)
            self.assertEqual(len(m["samples_ns"]), 2)
            self.assertIsNone(m["instructions_per_op"])
            self.assertEqual(c["fixups"], 0)
            if name.startswith("host") or name == "frame_floor":
                self.assertEqual(c["switches"], 0)
            elif name.startswith("block_"):
                self.assertEqual(c["switches"], 250, name)
                self.assertEqual(m["per_op"]["switches"], 5)
            else:
                self.assertEqual(c["switches"] % 50, 0)
                per_access.add(c["switches"])
        self.assertEqual(len(per_access), 1)
        (pa,) = per_access
        self.assertEqual(doc["extra"]["instructions_source"], "none")
        rs = {r["name"]: r for r in doc["ratios"]}
        for b in bes:
            r = rs[f"raise/raise/round trip/block_{b}_switches_per_op"]
            self.assertEqual((r["kind"], r["value"], r["status"]),
                             ("count", 5, "met"))
            r = rs[f"raise/raise/round trip/per_access_{b}_switches_per_op"]
            self.assertEqual((r["kind"], r["status"]), ("count", "reported"))
            self.assertEqual(r["value"] * 50, pa)
        st = {t["key"]: t for t in doc["targets"]}
        self.assertEqual(st["sig_switches_block"]["status"], "met")
        self.assertTrue(st["sig_switches_block"]["at_most"])
        self.assertIn(st["sig_vs_host"]["status"], ("met", "not met"))
        if "mprotect" in bes:
            r = rs["raise/raise/round trip/block_mprotect_vs_block_none"]
            self.assertEqual(r["status"], "reported")
            self.assertEqual(r["target"], "sig_backend_vs_none")

    def test_null_syscall(self):
        doc = self.json_of("null_syscall", "-n", "100", "-r", "2",
                           "--no-insns")
        bes = self.backends(doc)
        for be in bes:
            m = methods(doc, "null_syscall", be)["round trip"]
            self.assertEqual(m["getppid"]["counts"]["switches"], 0)
            # Lock on entry, unlock on exit.
            self.assertEqual(m["ua_sys_nop"]["counts"]["switches"], 200)
            self.assertEqual(m["ua_sys_nop"]["counts"]["windows"], 0)
        st = {r["backend"]: r["status"] for r in doc["ratios"]}
        self.assertIn(st["none"], ("met", "not met"))
        self.assertEqual(st["mprotect"], "reported")
        self.check_wrpkru(doc, "null_syscall", "ua_sys_nop")
        r = run("null_syscall", "-n", "100", "-r", "1", "--no-insns")
        self.assertEqual(r.returncode, 0, r.stderr)
        if "pkey" not in bes:
            self.assertIn("skipped: CPUID.(EAX=7,ECX=0):ECX.", r.stdout)

    def test_floors(self):
        doc = self.json_of("floors", "-n", "100", "-r", "2")
        flags = cpu_flags()
        want = ["entry_exit_stub", "frame_write_read", "memset_512",
                "host_signal_round_trip"]
        if "ospke" in flags:
            want.append("wrpkru")
        if hwcap2() & 2:
            want.append("wrfsbase")
        (case,) = doc["cases"]
        self.assertEqual([m["method"] for m in case["methods"]], want)
        mach = doc["machine"]
        self.assertEqual(mach["pku"], "ospke" in flags)
        self.assertEqual(mach["fsgsbase"], bool(hwcap2() & 2))
        self.assertEqual(mach["avx512"], "avx512f" in flags)
        pku = ("yes" if "ospke" in flags else
               "in the CPU, off in the OS" if "pku" in flags else "no")
        self.assertTrue(mach["host_kind"].startswith(f"PKU {pku}, "),
                        mach["host_kind"])
        r = run("floors", "-n", "100", "-r", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        for m in want:
            self.assertIn(m, r.stdout)
        for m, why in (("wrpkru", "OSPKE"), ("wrfsbase", "AT_HWCAP2")):
            if m not in want:
                self.assertIn(f"{m}: not measured", r.stdout)
                self.assertIn(why, r.stdout)

    def check_wrpkru(self, doc, group, method):
        """The pkey WRPKRU row: measured with protection keys, else
        skipped with the CPUID bit that says why."""
        (r,) = [r for r in doc["ratios"] if r["target"] == "pkey_wrpkru"]
        self.assertEqual(r["backend"], "pkey")
        self.assertEqual(r["method"], method)
        self.assertIn("WRPKRU per op", r["what"])
        if "pkey" in self.backends(doc):
            self.assertEqual(r["status"], "reported")
            self.assertEqual(r["kind"], "count")
            m = methods(doc, group, "pkey")
            (lab,) = m
            c = m[lab][method]["counts"]
            self.assertEqual(r["value"], c["switches"] / c["ops"])
            self.assertIn("ns each", r["what"])
            self.assertNotIn("skipped_reason", r)
            return
        self.assertEqual(r["status"], "skipped")
        self.assertIsNone(r["value"])
        with open("/proc/cpuinfo") as f:
            flags = f.read().split()
        bit = "OSPKE[bit 4]" if "pku" in flags else "PKU[bit 3]"
        self.assertIn("CPUID.(EAX=7,ECX=0):ECX." + bit + " = 0",
                      r["skipped_reason"])
        (t,) = [t for t in doc["targets"] if t["key"] == "pkey_wrpkru"]
        self.assertEqual(t["status"], "skipped")

    def test_trap(self):
        doc = self.json_of("trap", "--protect", "none", "-n", "50", "-r",
                           "2")
        m = methods(doc, "trap", "none")["getppid"]
        self.assertEqual(m["getppid"]["counts"]["switches"], 0)
        # Lock and unlock per trapped call, plus the task's first return
        # to guest code and its exit.
        for mode in ("sud block", "sud per-access"):
            sw = m[mode]["counts"]["switches"]
            if os.environ.get("UA_SANITIZED"):
                # The sanitizer's runtime, run from the guest's
                # instrumented code, makes system calls of its own (its
                # fake stacks' mmap): they trap too.
                # Those calls may read or write guest memory: windows.
                self.assertGreaterEqual(sw, 102)
            else:
                self.assertEqual(sw, 102)
                self.assertEqual(m[mode]["counts"]["windows"], 0)
        st = {r["target"]: r["status"] for r in doc["ratios"]}
        self.assertEqual(st["trap_sud_vs_native"], "reported")

    def engine_rows(self, doc):
        """Every frame mode x backend, available here or not."""
        bes = ["none", "mprotect", "pkey"]
        return (["per_access_" + b for b in bes] +
                ["block_" + b for b in bes])

    def check_skipped(self, doc, ms):
        """A backend not available here is a row skipped with the
        reason, and nothing else; the others are measured."""
        avail = self.backends(doc)
        for name, m in ms.items():
            be = None if name == "host" else name.rsplit("_", 1)[1]
            self.assertEqual(m["available"], be is None or be in avail,
                             name)
            if m["available"]:
                self.assertIsNone(m["unavailable_reason"])
            else:
                self.assertEqual(be, "pkey")
                self.assertEqual(m["unavailable_reason"],
                                 doc["machine"]["pkey_unavailable_reason"])
                self.assertEqual(m["counts"]["ops"], 0)
        return [n for n, m in ms.items() if m["available"]]

    def test_fault(self):
        doc = self.json_of("fault", "-n", "40", "-r", "2")
        (case,) = doc["cases"]
        self.assertEqual((case["group"], case["label"], case["reference"]),
                         ("fault", "SIGFPE round trip", "host"))
        ms = {m["method"]: m for m in case["methods"]}
        self.assertEqual([m["method"] for m in case["methods"]],
                         ["host"] + self.engine_rows(doc))
        run = self.check_skipped(doc, ms)
        per_access = set()
        for name in run:
            m = ms[name]
            c = m["counts"]
            self.assertEqual((c["ops"], m["ops_per_rep"], m["reps"]),
                             (40, 40, 2), name)
            self.assertEqual(len(m["samples_ns"]), 2)
            self.assertEqual(c["fixups"], 0)
            if name == "host":
                self.assertEqual((c["switches"], c["windows"]), (0, 0))
            elif name.startswith("block_"):
                # The same 5 as raise's frame: entry (the host fault)
                # folded into the frame's write window, its close into
                # the exit; rt_sigreturn's read window and its exit.
                self.assertEqual((c["switches"], c["windows"]),
                                 (5 * 40, 2 * 40), name)
            else:
                self.assertEqual(c["switches"] % 40, 0)
                self.assertGreater(c["switches"], 5 * 40)
                per_access.add((c["switches"], c["windows"]))
        # Per-access frames: the same accesses under every backend.
        self.assertEqual(len(per_access), 1)
        rs = {r["name"]: r for r in doc["ratios"]}
        want = {f"fault/fault/SIGFPE round trip/{n}_vs_host"
                for n in run if n != "host"}
        self.assertEqual(set(rs), want)
        for r in rs.values():
            self.assertEqual((r["kind"], r["target"], r["reference"]),
                             ("speed", "fault_vs_host", "host"))
            if r["backend"] == "none":
                self.assertIn(r["status"], ("met", "not met"))
            else:
                self.assertEqual(r["status"], "reported")
        (t,) = doc["targets"]
        self.assertEqual((t["key"], t["threshold"], t["at_most"]),
                         ("fault_vs_host", 1, False))
        self.assertEqual(set(t["values"]), want)

    def test_async(self):
        # -T 10 s per round: every sample is taken, on any machine.
        doc = self.json_of("async", "-n", "40", "-r", "2", "-T", "10000000")
        (case,) = doc["cases"]
        ms = {m["method"]: m for m in case["methods"]}
        names = ["host"] + self.engine_rows(doc)
        self.assertEqual([m["method"] for m in case["methods"]], names)
        run = self.check_skipped(doc, ms)
        ex = doc["extra"]
        # The TSC only where it is invariant (and the kernel's clock).
        if not doc["machine"]["tsc_invariant"]:
            self.assertEqual(ex["latency_clock"], "monotonic")
        self.assertEqual((ex["signal"], ex["samples"], ex["rounds"]),
                         (10, 40, 2))
        self.assertGreater(ex["interrupt_signal"], 0)
        self.assertEqual([c["name"] for c in ex["configs"]], names)
        per_access = set()
        for c in ex["configs"]:
            m = ms[c["name"]]
            if not m["available"]:
                self.assertEqual(c["unavailable_reason"],
                                 m["unavailable_reason"])
                self.assertEqual(c["samples"], 0)
                self.assertIsNone(c["p99_ns"])
                continue
            self.assertEqual(c["kind"],
                             "host" if c["name"] == "host" else "engine")
            self.assertEqual(c["samples"], 40)
            q = [c[k] for k in ("min_ns", "median_ns", "p90_ns", "p99_ns",
                                "max_ns")]
            self.assertEqual(q, sorted(q))
            self.assertEqual(m["ns_per_op"]["median"], c["median_ns"])
            self.assertEqual(len(m["samples_ns"]), 2)
            n = m["counts"]
            self.assertEqual((n["ops"], n["fixups"]), (40, 0))
            if c["kind"] == "host":
                self.assertEqual(n["switches"], 0)
                continue
            # Every signal interrupts guest code: a frame written in one
            # window (its close folded into the exit), rt_sigreturn's
            # entry folded into its read window, and that into the exit.
            if c["frame_mode"] == "block":
                self.assertEqual((n["switches"], n["windows"]),
                                 (5 * 40, 2 * 40), c["name"])
            else:
                self.assertGreater(n["switches"], 5 * 40)
                self.assertEqual(n["switches"] % 40, 0)
                per_access.add(n["switches"])
        self.assertEqual(len(per_access), 1)
        rs = {r["name"]: r for r in doc["ratios"]}
        want = {"async/async/send to handler entry/host_p99_us"}
        for n in run[1:]:
            want.add(f"async/async/send to handler entry/{n}_p99_us")
            want.add(f"async/async/send to handler entry/{n}_vs_host")
        self.assertEqual(set(rs), want)
        for name, r in rs.items():
            cfg = next(c for c in ex["configs"] if c["name"] == r["method"])
            if r["kind"] == "latency":
                self.assertEqual(r["reference"], r["method"])
                self.assertAlmostEqual(r["value"], cfg["p99_ns"] / 1e3,
                                       delta=cfg["p99_ns"] * 1e-5)
                if r["method"] == "host":
                    self.assertEqual(r["status"], "informative")
                elif r["backend"] == "none":
                    self.assertEqual(r["target"], "async_p99")
                    self.assertIn(r["status"], ("met", "not met"))
                else:
                    self.assertEqual(r["status"], "reported")
            else:
                self.assertEqual((r["kind"], r["reference"], r["status"]),
                                 ("speed", "host", "informative"))
        (t,) = doc["targets"]
        self.assertEqual((t["key"], t["threshold"], t["at_most"]),
                         ("async_p99", 1000, True))

    def test_async_monotonic(self):
        doc = self.json_of("async", "--protect", "none", "-n", "6", "-r",
                           "3", "-T", "10000000", "--clock", "monotonic")
        ex = doc["extra"]
        self.assertEqual(ex["latency_clock"], "monotonic")
        self.assertEqual([c["name"] for c in ex["configs"]],
                         ["host", "per_access_none", "block_none"])
        for c in ex["configs"]:
            self.assertEqual(c["samples"], 6)
        for m in doc["cases"][0]["methods"]:
            self.assertEqual(len(m["samples_ns"]), 3)
        if doc["machine"]["tsc_invariant"]:
            doc = self.json_of("async", "--protect", "none", "-n", "2",
                               "-r", "1", "-T", "10000000", "--clock",
                               "tsc")
            self.assertEqual(doc["extra"]["latency_clock"], "tsc")

    def test_instructions(self):
        doc = self.json_of("null_syscall", "--protect", "none", "-n", "20",
                           "-r", "1")
        ex = doc["extra"]
        m = methods(doc, "null_syscall", "none")["round trip"]
        nop = m["ua_sys_nop"]["instructions_per_op"]
        ppid = m["getppid"]["instructions_per_op"]
        src = ex["instructions_source"]
        if src == "none":
            self.assertIsNotNone(ex["instructions_unavailable_reason"])
            self.assertIsNone(nop)
        elif src.startswith("callgrind") and not valgrind_runs():
            # A sanitized build, or debug information valgrind cannot
            # read: not counted, and the reason says which run failed.
            self.assertIsNone(nop)
            self.assertIsNone(ppid)
            self.assertRegex(ex["instructions_unavailable_reason"],
                             r"^callgrind run of \S+ failed \(")
        else:
            self.assertIsNone(ex["instructions_unavailable_reason"])
            self.assertGreater(nop, 0)
            self.assertGreater(ppid, 0)
            if src.startswith("callgrind"):
                # User space only: getppid() is a few instructions of
                # libc, the null syscall the monitor's entry and exit.
                self.assertGreater(nop, ppid)
                self.assertEqual(nop, int(nop))

    def test_compilers(self):
        env = dict(os.environ)
        env.pop("UABENCH_CLANG19", None)
        doc = self.json_of_env(env, "compilers", "-n", "64", "-r", "2")
        bes = self.backends(doc)
        own = [c for c in doc["cases"] if c["methods"][0]["available"]]
        peer = [c for c in doc["cases"] if not c["methods"][0]["available"]]
        self.check_accessor_cases(own, bes)
        # No clang-19 build named: its rows are there, each saying why.
        self.assertEqual(len(peer), ACC_GROUPS * len(bes))
        for c in peer:
            self.assertEqual(c["label"], "clang-19")
            for m in c["methods"]:
                self.assertRegex(m["unavailable_reason"],
                                 r"clang-19 not installed|no clang-19 "
                                 r"build of uabench")
        rs = [r for r in doc["ratios"] if r["label"] == "clang-19"]
        self.assertEqual(len(rs), ACC_GROUPS * len(bes))
        for r in rs:
            self.assertIsNone(r["value"])
            self.assertEqual(r["status"],
                             "not run" if r["target"] else "informative")
        # The one-instruction form is judged; the others (the fixup form,
        # the portable build's generic accessors) are reported.
        for r in doc["ratios"]:
            if r["target"] == "unsafe_load" and r["value"] is not None:
                self.assertEqual(r["status"] == "reported",
                                 "asm goto" not in r["label"], r)
        st = {t["key"]: t["status"] for t in doc["targets"]}
        self.assertIn(st["zero_vs_memset"], ("met", "not met"))

    def test_compilers_peer(self):
        # This very uabench stands in for the clang-19 build: its samples
        # come back through the child protocol and merge as rows.
        env = dict(os.environ, UABENCH_CLANG19=UABENCH)
        doc = self.json_of_env(env, "compilers", "-n", "64", "-r", "2",
                               "--protect", "none")
        self.assertEqual(len(doc["cases"]), 2 * ACC_GROUPS)
        self.check_accessor_cases(doc["cases"], ["none"], builds=2)
        for c in doc["cases"]:
            for m in c["methods"]:
                self.assertEqual(len(m["samples_ns"]), 2)
        # A build that fails is a row that says so.
        env = dict(os.environ, UABENCH_CLANG19="/bin/false")
        doc = self.json_of_env(env, "compilers", "-n", "64", "-r", "1",
                               "--protect", "none")
        bad = [c for c in doc["cases"] if c["label"] == "clang-19"]
        self.assertEqual(len(bad), ACC_GROUPS)
        for c in bad:
            self.assertIn("failed", c["methods"][1]["unavailable_reason"])

    def check_accessor_cases(self, cases, bes, builds=1):
        self.assertEqual(len(cases), ACC_GROUPS * len(bes) * builds)
        for c in cases:
            self.assertIn(c["backend"], bes)
            self.assertRegex(c["label"], r"^(gcc|clang)-\d+ "
                             r"(asm goto|fixup|generic)$")
            ms = {m["method"]: m for m in c["methods"]}
            if c["group"] == "zero":
                self.assertEqual(sorted(ms), ["iov_iter_zero", "memset"])
                # One window per 512-byte block.
                self.assertEqual(ms["iov_iter_zero"]["counts"]["windows"],
                                 64)
                self.assertEqual(ms["memset"]["counts"]["switches"], 0)
            else:
                self.assertIn(c["group"], ("load", "load_chain", "load_reg"))
                # The register-form plain load is load_reg's reference.
                self.assertEqual(sorted(ms), [
                    "plain_reg" if c["group"] == "load_reg" else "plain",
                    "unsafe_get_user"])
                # One window around each whole loop.
                for m in ms.values():
                    self.assertEqual(m["counts"]["windows"], 1)
                    self.assertEqual(m["counts"]["switches"], 2)
                    self.assertEqual(m["counts"]["ops"], 64)

    def json_of_env(self, env, *args):
        r = subprocess.run([UABENCH, *args, "--json"], capture_output=True,
                           text=True, env=env, timeout=240)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        doc = json.loads(r.stdout)
        self.assertEqual(schema_errors(doc), [])
        return doc

    def real(self, sub, group=None, doc=None):
        doc = doc or self.json_of(sub, "-n", "64", "-r", "2")
        bes = self.backends(doc)
        group = group or doc["cases"][0]["group"]
        cases = {c["label"]: c for c in doc["cases"] if c["group"] == group}
        self.assertEqual(sorted(cases), ["patch", "rewrite", "sud"])
        want = ["native"] + [f + "_" + b
                             for f in ("block", "per_access")
                             for b in ("none", "mprotect", "pkey")]
        for c in cases.values():
            self.assertEqual(c["reference"], "native")
            self.assertEqual([m["method"] for m in c["methods"]], want)
        sud = {m["method"]: m for m in cases["sud"]["methods"]}
        if not sud["native"]["available"]:
            # No program: every row says why.
            for c in cases.values():
                for m in c["methods"]:
                    self.assertRegex(m["unavailable_reason"],
                                     "busybox|musl-gcc")
            return None, None
        for c in cases.values():
            for m in c["methods"]:
                if m["method"].endswith("pkey") and "pkey" not in bes:
                    self.assertFalse(m["available"])
                    self.assertIn("pkey", m["unavailable_reason"])
        self.assertEqual(sud["native"]["counts"]["switches"], 0)
        rew = {m["method"]: m for m in cases["rewrite"]["methods"]}
        if not rew["block_none"]["available"]:
            # uarun refuses the path: every row of it says so, in
            # uarun's own words, and the judged row is "not run".
            self.assertIn("uarun refuses --trap=rewrite",
                          rew["block_none"]["unavailable_reason"])
            r = [r for r in doc["ratios"] if r["label"] == "rewrite"
                 and r["method"] == "block_none"]
            self.assertEqual(r[0]["status"], "not run")
        per_op = {}
        for label, c in cases.items():
            for m in c["methods"]:
                if m["method"] == "native" or not m["available"]:
                    continue
                self.assertEqual(m["counts"]["ops"], 64)
                self.assertEqual(len(m["samples_ns"]), 2)
                self.assertGreater(m["counts"]["switches"], 0)
                per_op[(label, m["method"])] = m["counts"]["switches"]
        st = {(r["label"], r["method"], r["backend"]): r["status"]
              for r in doc["ratios"] if r["group"] == group}
        for b in bes:
            self.assertEqual(st[("sud", "block_" + b, b)],
                             "reported" if group != "signal1_musl"
                             else "informative")
        # The default trap (patch) is the judged row; rewrite is opt-in.
        if group != "signal1_musl" and \
                cases["patch"]["methods"][1]["available"]:
            self.assertIn(st[("patch", "block_none", "none")],
                          ("met", "not met"))
            self.assertIn(st[("rewrite", "block_none", "none")],
                          ("reported", "not run"))
        return per_op, bes

    def same_under_every_backend(self, per_op, bes):
        # Protection switches are counted alike under every backend.
        for f in ("block", "per_access"):
            self.assertEqual(len({per_op[("sud", f + "_" + b)]
                                  for b in bes}), 1, per_op)

    def test_real_getppid(self):
        per_op, bes = self.real("real_getppid")
        if os.environ.get("UA_SANITIZED"):
            return
        # Each getppid: the lock on entry and the unlock on exit.
        for b in bes:
            for f in ("block", "per_access"):
                self.assertEqual(per_op[("sud", f + "_" + b)], 2 * 64)

    def test_real_signal1(self):
        doc = self.json_of("real_signal1", "-n", "64", "-r", "2")
        # The glibc program, then the same source built with musl-gcc
        # (informative rows; "not run" with the reason without musl).
        self.assertEqual([c["group"] for c in doc["cases"]],
                         ["signal1"] * 3 + ["signal1_musl"] * 3)
        for group in ("signal1", "signal1_musl"):
            per_op, bes = self.real("real_signal1", group, doc)
            if per_op is None or os.environ.get("UA_SANITIZED"):
                continue
            self.same_under_every_backend(per_op, bes)
            for b in bes:
                blk = per_op[("sud", "block_" + b)]
                pa = per_op[("sud", "per_access_" + b)]
                self.assertEqual(blk % 64, 0)
                self.assertGreater(pa, blk)

    def test_real_dd(self):
        per_op, bes = self.real("real_dd")
        if per_op is None or os.environ.get("UA_SANITIZED"):
            return
        self.same_under_every_backend(per_op, bes)
        for b in bes:
            # Frames do not matter to a program that takes no signal.
            self.assertEqual(per_op[("sud", "block_" + b)],
                             per_op[("sud", "per_access_" + b)])

    def test_real_futex(self):
        # Two threads: how often a wait sleeps depends on the schedule,
        # so the counts are not compared, only the rows.
        doc = self.json_of("real_futex", "-n", "64", "-r", "2")
        cases = {c["label"]: c for c in doc["cases"]}
        self.assertEqual(sorted(cases), ["patch", "rewrite", "sud"])
        for label in ("sud", "patch"):
            ms = {m["method"]: m for m in cases[label]["methods"]}
            self.assertTrue(ms["native"]["available"])
            self.assertTrue(ms["block_none"]["available"])
            self.assertEqual(ms["block_none"]["counts"]["ops"], 64)
        # Threads run under rewrite too; the whole path is refused where
        # page 0 cannot be mapped, in uarun's words.
        for m in cases["rewrite"]["methods"]:
            if m["method"] == "native":
                continue
            if m["available"]:
                self.assertEqual(m["counts"]["ops"], 64)
            else:
                self.assertRegex(m["unavailable_reason"], "page 0|pkey")
        st = {(r["label"], r["method"]): r["status"]
              for r in doc["ratios"]}
        self.assertEqual(st[("patch", "block_none")], "reported")

    def test_real_work(self):
        """The whole-program workloads, small (--quick), two pairs each:
        the rows, the check of their output, the counts of one run, the
        targets, and the temporary input gone afterwards."""
        want = {"real_find": ("find", "real_find", True),
                "real_tar": ("tar", "real_tar", True),
                "real_sha256": ("sha256", "real_sha256", True),
                "real_gzip": ("gzip", "real_gzip", True),
                "real_spawn": ("spawn", "real_spawn", False),
                "real_python": ("python", "real_python", True)}
        for sub, (group, target, judged) in want.items():
            with self.subTest(sub=sub), tempfile.TemporaryDirectory() as tmp:
                env = dict(os.environ, TMPDIR=tmp)
                doc = self.json_of_env(env, sub, "--quick", "-r", "2")
                self.assertEqual(os.listdir(tmp), [])
                self.check_real_work(doc, group, target, judged)

    def check_real_work(self, doc, group, target, judged):
        self.assertTrue(doc["params"]["quick"])
        (case,) = doc["cases"]
        self.assertEqual(case["group"], group)
        self.assertEqual(case["reference"], "native")
        ms = {m["method"]: m for m in case["methods"]}
        self.assertEqual([m["method"] for m in case["methods"]],
                         ["native", "uarun", "uarun_sud"])
        ex = doc["extra"]
        whole = group == "python"
        # python3's start-up is what real_python measures: no baseline.
        self.assertEqual(ex["baseline"], None if whole else "busybox true")
        self.assertIn("python3 -c" if whole else "busybox", ex["command"])
        cfg = {c["name"]: c for c in ex["configs"]}
        self.assertEqual([cfg[n]["trap"] for n in ms],
                         [None, "default", "sud"])
        nat = cfg["native"]
        if "not installed" in (nat["unavailable_reason"] or ""):
            for m in ms.values():
                self.assertFalse(m["available"])
            return
        self.assertTrue(nat["output_same"])
        ran = [n for n in ("uarun", "uarun_sud") if ms[n]["available"]]
        for n in ("uarun", "uarun_sud"):
            if n in ran:
                # It printed what the native run printed.
                self.assertTrue(cfg[n]["output_same"])
                self.assertEqual(cfg[n]["output_bytes"],
                                 nat["output_bytes"])
                m = ms[n]
                self.assertEqual(m["counts"]["ops"], 1)
                self.assertEqual(m["reps"], 2)
                self.assertEqual(len(m["samples_ns"]), 2)
                self.assertGreater(m["counts"]["switches"], 0)
                # Less the baseline's wall time: on a busy machine a
                # quick run's difference may fall below zero, so only
                # its presence is checked (timing is the report's).
                self.assertTrue(math.isfinite(cfg[n]["wall_ns_median"]))
                self.assertGreater(cfg[n]["peak_rss_kib_median"], 0)
            else:
                # Why not, in uarun's words where it ran and failed.
                self.assertRegex(ms[n]["unavailable_reason"],
                                 "fails under uarun|differs|uarun not "
                                 "found|cannot start")
        if ran:
            self.assertTrue(ms["native"]["available"])
            self.assertEqual(ms["native"]["counts"]["switches"], 0)
        else:
            self.assertIn("not timed", ms["native"]["unavailable_reason"])
        st = {r["method"]: r for r in doc["ratios"]}
        self.assertEqual(sorted(st), ["uarun", "uarun_sud"])
        self.assertEqual(st["uarun"]["target"], target)
        self.assertEqual((st["uarun_sud"]["target"],
                          st["uarun_sud"]["status"]),
                         (None, "informative"))
        if "uarun" not in ran:
            self.assertEqual(st["uarun"]["status"], "not run")
        elif judged:
            self.assertIn(st["uarun"]["status"], ("met", "not met"))
        else:
            self.assertEqual(st["uarun"]["status"], "reported")
        self.assertEqual([t["key"] for t in doc["targets"]], [target])
        rss = [x for x in doc["notes"] if x.startswith("peak RSS")]
        if whole and "uarun" in ran:
            self.assertEqual(len(rss), 1)
            self.assertRegex(rss[0], r"^peak RSS: native \d+ KiB, uarun "
                             r"\d+ KiB: [0-9.]+x \(target <= 1\.2x: "
                             r"(met|not met)\)$")
        else:
            self.assertEqual(rss, [])

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
            r = run("report", "--quick", "-n", "16", "-r", "1", "-o", out,
                    "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stderr, "")
            printed = json.loads(r.stdout)
            self.assertEqual(schema_errors(printed), [])
            with open(os.path.join(out, "results.json")) as f:
                saved = json.load(f)
            self.assertEqual(schema_errors(saved), [])
            self.assertEqual([x["subcommand"] for x in saved["runs"]],
                             ["usercopy", "zero", "nofault", "signal1",
                              "raise", "null_syscall", "fault", "async",
                              "compilers", "real_getppid", "real_signal1",
                              "real_dd", "real_futex", "real_find",
                              "real_tar", "real_sha256", "real_gzip",
                              "real_spawn", "real_python",
                              "floors"])
            st = {t["key"]: t["status"] for t in saved["targets"]}
            self.assertNotIn("pending", st.values())
            self.assertEqual(st["sig_switches_block"], "met")
            self.assertEqual(st["sig_switches_per_access"], "reported")
            for k in ("sig_vs_host", "null_syscall_vs_getppid",
                      "nofault_vs_pvr", "fault_vs_host", "async_p99",
                      "signal1_scaling", "signal1_scaling_control"):
                self.assertIn(st[k], ("met", "not met"), k)
            self.assertIn(st["pkey_wrpkru"], ("reported", "skipped"))
            with open(os.path.join(out, "summary.md")) as f:
                md = f.read()
            self.assertIn("| measure | backend | ratio or count | quartiles "
                          "| target | status |", md)
            self.assertNotIn("pending", md)
            self.assertIn("### copy_from — none backend", md)
            self.assertIn("| engine block none |", md)
            self.assertIn("| host kernel (raise) |", md)
            self.assertIn("| host kernel (SIGFPE) |", md)
            self.assertIn("| host (pthread_kill) |", md)
            self.assertIn("| signal1 per task per thread-CPU-s, 2 tasks / "
                          "1 (block none) | none |", md)
            self.assertIn("CLOCK_THREAD_CPUTIME_ID of each task thread", md)
            self.assertIn("| pkey null syscall: WRPKRU per op", md)
            self.assertIn("| pkey clear_user: WRPKRU per op", md)
            svgs = sorted(n for n in os.listdir(out) if n.endswith(".svg"))
            self.assertEqual(svgs, ["async.svg", "compilers.svg",
                                    "fault.svg", "nofault.svg",
                                    "raise.svg", "real.svg",
                                    "targets.svg",
                                    "usercopy-copy_from.svg",
                                    "usercopy-copy_to.svg"])
            for n in svgs:
                root = ET.parse(os.path.join(out, n)).getroot()
                self.assertEqual(root.tag, SVG_NS + "svg", n)

    def test_headline_on_stdout(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = run("report", "--quick", "-n", "16", "-r", "1", cwd=tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("measure (doc/design.md §5)", r.stdout)
            self.assertIn("switches per round trip, block frames",
                          r.stdout)
            self.assertIn("ua_sys_nop round trip vs host getppid()",
                          r.stdout)
            self.assertIn("guest SIGFPE round trip, host/engine, block "
                          "frames", r.stdout)
            self.assertIn("async p99, send -> guest handler, block",
                          r.stdout)
            # The real-binary rows beside the engine's, and the clang-19
            # rows beside gcc's, measured or saying why not.
            self.assertIn("getppid loop, uarun sud (block) vs native",
                          r.stdout)
            self.assertIn("signal1 raise loop, uarun rewrite (block) vs "
                          "native", r.stdout)
            self.assertIn("[clang-19", r.stdout)
            # The whole-program rows, -n 16 notwithstanding: each a run.
            for what in ("find /usr/include -name '*.h', uarun vs native",
                         "gzip -c of 2 MiB of text, uarun vs native",
                         "sh loop of 20 external commands, uarun vs "
                         "native"):
                self.assertIn(what, r.stdout)
            self.assertNotIn("pending", r.stdout)
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
    ["signal1", "-t", "-1"],
    ["signal1", "-t", "0"],
    ["signal1", "-t", "1025"],
    ["signal1", "-t", "two"],
    ["signal1", "-s", "0"],
    ["signal1", "-s", "0.0"],
    ["signal1", "-s", "-1"],
    ["signal1", "-s", "abc"],
    ["signal1", "-s", "1e1"],
    ["signal1", "-s", "32"],
    ["signal1", "-s", ""],
    ["signal1", "-w", "31"],
    ["signal1", "-w", "-1"],
    ["signal1", "--no-insns"],
    ["signal1", "--protect", "bogus"],
    ["raise", "-n", "-5"],
    ["raise", "-n", "garbage"],
    ["raise", "-t", "2"],
    ["raise", "-s", "1"],
    ["null_syscall", "-n", "0"],
    ["null_syscall", "-w", "1"],
    ["usercopy", "--no-insns"],
    ["fault", "-t", "2"],
    ["fault", "--no-insns"],
    ["fault", "-n", "0"],
    ["async", "-s", "1"],
    ["async", "-n", "0"],
    ["async", "-n", "10000001"],
    ["async", "--protect", "bogus"],
    ["async", "extra"],
    ["_count"],
    ["_count", "raise", "host", "x", "plain"],
    ["compilers", "-t", "2"],
    ["compilers", "--no-insns"],
    ["real_getppid", "-s", "1"],
    ["real_dd", "--protect", "bogus"],
    ["real_signal1", "extra"],
    ["real_find", "--protect", "none"],
    ["real_tar", "-n", "0"],
    ["real_sha256", "-t", "2"],
    ["real_gzip", "extra"],
    ["real_spawn", "--no-insns"],
    ["real_python", "-s", "1"],
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
        for name in ("usercopy", "zero", "nofault", "signal1", "raise",
                     "null_syscall", "trap", "fault", "async", "report",
                     "compilers", "real_getppid", "real_signal1",
                     "real_dd", "real_futex", "real_find", "real_tar",
                     "real_sha256", "real_gzip", "real_spawn",
                     "real_python"):
            self.assertIn(name, r.stdout)
        self.assertNotIn("_count", r.stdout)
        r = run("usercopy", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--protect LIST", r.stdout)
        r = run("signal1", "--help")
        self.assertEqual(r.returncode, 0)
        for opt in ("-t, --threads N", "-s, --seconds S", "-w, --warmup N"):
            self.assertIn(opt, r.stdout)


def valgrind_runs():
    """Whether callgrind can run this uabench at all (it cannot run a
    sanitized build, nor read every compiler's debug information)."""
    r = subprocess.run(["valgrind", "--tool=callgrind",
                        "--callgrind-out-file=/dev/null", UABENCH,
                        "_count", "null_syscall", "getppid", "1", "plain"],
                       capture_output=True, text=True, timeout=240)
    return r.returncode == 0


if __name__ == "__main__":
    UABENCH, SCHEMA_PATH = map(os.path.abspath, sys.argv[1:3])
    unittest.main(argv=[sys.argv[0], "-v"])

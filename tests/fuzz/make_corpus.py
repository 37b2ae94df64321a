#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the fixed corpus of the rt_sigreturn fuzz target (corpus/).

Each file is one control byte (see fuzz_sigreturn.c) and a frame from its
ucontext on: 304 bytes of ucontext, 128 of siginfo, 16 of padding, then
the FP area.  Names starting with "ok-" must resume, "segv-" must die of
SIGSEGV, "trap-" of SIGTRAP (TF in the frame single-steps the landing
pad, as under the kernel); the replay test checks all three (others only must not upset the
monitor).  Files that the fuzzer found
interesting are added as they are (names without those prefixes)."""
import os
import struct
import sys

RIP_LANDING, RIP_HOLE, RIP_NONCANON = 0, 2, 3
RSP_RAW, RSP_GOOD, RSP_HOLE, RSP_MONITOR = 0 << 2, 1 << 2, 2 << 2, 3 << 2
FP_RAW, FP_NULL, FP_INPUT, FP_AREA = 0 << 4, 1 << 4, 2 << 4, 3 << 4
PER_ACCESS, STACK_ZERO = 0x40, 0x80

UC_LINK = 8                  # uc_link in the ucontext
MC = 40                      # uc_mcontext in the ucontext
EFLAGS, FPSTATE = MC + 8 * 17, MC + 8 * 23
RSP = MC + 8 * 15
SIGMASK = 296
FP = 448                     # the FP area after the frame


def fx_image(mxcsr=0x1f80, fcw=0x37f):
    img = bytearray(512)
    struct.pack_into('<H', img, 0, fcw)
    struct.pack_into('<II', img, 24, mxcsr, 0xffff)
    return img


def xsave_image(mxcsr=0x1f80, xstate_bv=3, xcomp_bv=0, size=832, feat=7):
    img = fx_image(mxcsr) + bytearray(size + 4 - 512)
    struct.pack_into('<IIQI', img, 464, 0x46505853, size + 4, feat, size)
    struct.pack_into('<QQ', img, 512, xstate_bv, xcomp_bv)
    struct.pack_into('<I', img, size, 0x46505845)
    return img


def frame(ctl, fp=b'', **words):
    f = bytearray(FP) + bytearray(fp)
    for off, val in words.items():
        struct.pack_into('<Q', f, int(off[1:]), val)
    return bytes([ctl]) + bytes(f)


def w(off):
    return 'o%d' % off


SEEDS = {
    'ok-empty': b'',
    'ok-null-fp': frame(RSP_GOOD | FP_NULL | STACK_ZERO),
    'ok-fx-image': frame(RSP_GOOD | FP_INPUT | STACK_ZERO, fx_image()),
    'ok-xsave-image': frame(RSP_GOOD | FP_INPUT, xsave_image()),
    'ok-xsave-avx': frame(RSP_GOOD | FP_INPUT, xsave_image(xstate_bv=7)),
    'ok-xsave-compacted': frame(RSP_GOOD | FP_INPUT,
                                xsave_image(xcomp_bv=(1 << 63) | 3)),
    'ok-xsave-small-size': frame(FP_INPUT, xsave_image(size=576, feat=3)),
    'ok-mxcsr-daz-ftz': frame(RSP_GOOD | FP_INPUT, fx_image(0xffc0)),
    'ok-raw-rsp': frame(FP_NULL, **{w(RSP): 0x1234}),
    'ok-rsp-hole': frame(RSP_HOLE | FP_NULL),
    'ok-rsp-monitor': frame(RSP_MONITOR | FP_NULL),
    'ok-eflags': frame(RSP_GOOD | FP_NULL, **{w(EFLAGS): 0xfffffeff}),
    'trap-eflags-tf': frame(RSP_GOOD | FP_NULL, **{w(EFLAGS): 0x302}),
    'trap-eflags-all': frame(RSP_GOOD | FP_NULL, **{w(EFLAGS): 0xffffffff}),
    'ok-mask-all': frame(RSP_GOOD | FP_NULL, **{w(SIGMASK): (1 << 64) - 1}),
    'ok-altstack-raw': frame(RSP_GOOD | FP_NULL,
                             **{w(16): 0x10000, w(24): 0x7fffffff,
                                w(32): 1 << 40}),
    'segv-mxcsr': frame(RSP_GOOD | FP_INPUT, fx_image(0x80001f80)),
    'segv-xsave-mxcsr': frame(RSP_GOOD | FP_INPUT,
                              xsave_image(mxcsr=0x10000)),
    'segv-xcomp-standard': frame(RSP_GOOD | FP_INPUT, xsave_image(xcomp_bv=1)),
    'segv-xstate-bv': frame(RSP_GOOD | FP_INPUT,
                            xsave_image(xstate_bv=3 | 1 << 62)),
    'segv-fp-raw': frame(RSP_GOOD, **{w(FPSTATE): 0x4141414141414141}),
    'segv-fp-hole': frame(RSP_GOOD | FP_AREA, **{w(FPSTATE): 0xfffc}),
    # An XSAVE image 16 bytes off its 64-byte alignment: XRSTOR refuses it.
    'segv-xsave-misaligned': frame(RSP_GOOD | FP_AREA,
                                   bytes(16) + xsave_image(),
                                   **{w(FPSTATE): 0x2000 + FP + 16}),
    # An FX-only image 8 bytes off: the host kernel takes it on some CPUs
    # and not on others (the engine asks it), so either outcome is right.
    'fp-fx-misaligned': frame(RSP_GOOD | FP_AREA, **{w(FPSTATE): 0x2008}),
    'segv-rip-hole': frame(RIP_HOLE | RSP_GOOD | FP_NULL),
    'segv-rip-noncanonical': frame(RIP_NONCANON | RSP_GOOD | FP_NULL),
    # Resumes with AC set at an unmapped RIP: the host fault handler runs
    # with AC still set (found by the fuzzer under ASan).
    'segv-ac-rip-hole': frame(RIP_HOLE | RSP_GOOD | FP_NULL,
                              **{w(EFLAGS): 0x40202}),
    # uc_link bit 0: the engine's full-context frame of a guest fault,
    # overwritten from its handler (rt_sigreturn's full-image path).
    'ok-full-own-image': frame(RSP_GOOD | FP_INPUT | STACK_ZERO,
                               **{w(UC_LINK): 1}),
    'ok-full-fx-image': frame(RSP_GOOD | FP_INPUT | STACK_ZERO, fx_image(),
                              **{w(UC_LINK): 1}),
    'segv-full-bad-mxcsr': frame(RSP_GOOD | FP_INPUT | STACK_ZERO,
                                 fx_image(mxcsr=0xffffffff),
                                 **{w(UC_LINK): 1}),
}


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        for mode, suffix in ((0, ''), (PER_ACCESS, '-pa')):
            if data:
                data = bytes([data[0] | mode]) + data[1:]
            elif mode:
                continue
            with open(os.path.join(out, name + suffix), 'wb') as f:
                f.write(data)
    return 0


if __name__ == '__main__':
    sys.exit(main())

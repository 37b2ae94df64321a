# SPDX-License-Identifier: MIT
"""What the check-* scripts read from a built ELF object.

check-fast-path and check-unsafe-asm both need the object's exception
table (section ua_extable: 12-byte entries of two offsets relative to
the field itself and a data word, as include/uaccess/arch/x86_64.h
emits them) and its functions' extents.
"""
import re
import struct
import subprocess


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def extable(so):
    """Absolute (insn, fixup) pairs of the object's ua_extable."""
    for line in run(["readelf", "-SW", so]).splitlines():
        m = re.search(r"\]\s+ua_extable\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)"
                      r"\s+([0-9a-f]+)", line)
        if m:
            addr, off, size = (int(g, 16) for g in m.groups())
            break
    else:
        return []
    with open(so, "rb") as f:
        f.seek(off)
        data = f.read(size)
    ents = []
    for i in range(0, size - size % 12, 12):
        insn, fix, _ = struct.unpack_from("<iii", data, i)
        ents.append((addr + i + insn, addr + i + 4 + fix))
    return ents


def symbol_sizes(so):
    """Each defined code symbol's size (st_size; 0 where it has none)."""
    size = {}
    for line in run(["nm", "-S", "--defined-only", so]).splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            size[f[3]] = int(f[1], 16)
    return size

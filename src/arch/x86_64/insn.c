// SPDX-License-Identifier: MIT
/*
 * x86-64 instruction lengths, from the opcode maps of the Intel SDM,
 * vol. 2, appendix A (one-, two- and three-byte maps, VEX and EVEX),
 * 64-bit mode only: the opcodes invalid there (push/pop of segment
 * registers, BCD arithmetic, far call and jump with an immediate, ...)
 * are not instructions here.  tests/unit/test_insn.c checks every
 * instruction of the C library and of busybox against objdump.
 */
#include <string.h>

#include "insn.h"

/* Per-opcode properties, for the one-byte and the 0f map. */
enum {
	M = 1 << 0,    /* a ModRM byte follows */
	I8 = 1 << 1,   /* an 8-bit immediate */
	IZ = 1 << 2,   /* a 16- or 32-bit immediate, by operand size */
	I16 = 1 << 3,  /* a 16-bit immediate */
	R32 = 1 << 4,  /* a 32-bit relative offset */
	IV = 1 << 5,   /* mov $imm, %reg: 16, 32 or (REX.W) 64 bits */
	MO = 1 << 6,   /* a memory offset: 64 or (67) 32 bits */
	BR = 1 << 7,   /* a branch, call or return */
	SY = 1 << 8,   /* a syscall, an interrupt or a trap */
	BAD = 1 << 9,  /* not an instruction in 64-bit mode */
	PFX = 1 << 10, /* a prefix (legacy or REX) */
	ESC = 1 << 11, /* 0f, VEX, EVEX, XOP: handled apart */
	GRP = 1 << 12, /* f6, f7, fe, ff, c7: depends on ModRM.reg */
	END = 1 << 13, /* code after it need not be reached by falling */
};

#define ALU(b) [b + 0 ... b + 3] = M, [b + 4] = I8, [b + 5] = IZ

static const uint16_t map1[256] = {
	ALU(0x00),
	[0x06 ... 0x07] = BAD,
	ALU(0x08),
	[0x0e] = BAD,
	[0x0f] = ESC,
	ALU(0x10),
	[0x16 ... 0x17] = BAD,
	ALU(0x18),
	[0x1e ... 0x1f] = BAD,
	ALU(0x20),
	[0x26] = PFX,
	[0x27] = BAD,
	ALU(0x28),
	[0x2e] = PFX,
	[0x2f] = BAD,
	ALU(0x30),
	[0x36] = PFX,
	[0x37] = BAD,
	ALU(0x38),
	[0x3e] = PFX,
	[0x3f] = BAD,
	[0x40 ... 0x4f] = PFX,
	[0x60 ... 0x61] = BAD,
	[0x62] = ESC,
	[0x63] = M,
	[0x64 ... 0x67] = PFX,
	[0x68] = IZ,
	[0x69] = M | IZ,
	[0x6a] = I8,
	[0x6b] = M | I8,
	[0x70 ... 0x7f] = I8 | BR,
	[0x80] = M | I8,
	[0x81] = M | IZ,
	[0x82] = BAD,
	[0x83] = M | I8,
	[0x84 ... 0x8e] = M,
	[0x8f] = ESC,
	[0x90] = END,
	[0x9a] = BAD,
	[0xa0 ... 0xa3] = MO,
	[0xa8] = I8,
	[0xa9] = IZ,
	[0xb0 ... 0xb7] = I8,
	[0xb8 ... 0xbf] = IV,
	[0xc0 ... 0xc1] = M | I8,
	[0xc2] = I16 | BR | END,
	[0xc3] = BR | END,
	[0xc4 ... 0xc5] = ESC,
	[0xc6] = M | I8,
	[0xc7] = M | IZ | GRP,
	[0xc8] = I16 | I8,
	[0xca] = I16 | BR | END,
	[0xcb] = BR | END,
	[0xcc] = SY | END,
	[0xcd] = I8 | SY,
	[0xce] = BAD,
	[0xcf] = BR | END,
	[0xd0 ... 0xd3] = M,
	[0xd4 ... 0xd6] = BAD,
	[0xd8 ... 0xdf] = M,
	[0xe0 ... 0xe3] = I8 | BR,
	[0xe4 ... 0xe7] = I8,
	[0xe8] = R32 | BR,
	[0xe9] = R32 | BR | END,
	[0xea] = BAD,
	[0xeb] = I8 | BR | END,
	[0xf0] = PFX,
	[0xf1] = SY,
	[0xf2 ... 0xf3] = PFX,
	[0xf6 ... 0xf7] = M | GRP,
	[0xfe ... 0xff] = M | GRP,
};

static const uint16_t map0f[256] = {
	[0x00 ... 0x03] = M,
	[0x04] = BAD,
	[0x05] = SY,
	[0x07] = SY,
	[0x0a] = BAD,
	[0x0b] = SY | END,
	[0x0c] = BAD,
	[0x0d] = M,
	[0x0f] = BAD,
	[0x10 ... 0x1e] = M,
	[0x1f] = M | END,
	[0x20 ... 0x23] = M,
	[0x24 ... 0x27] = BAD,
	[0x28 ... 0x2f] = M,
	[0x34 ... 0x35] = SY,
	[0x36] = BAD,
	[0x38] = ESC,
	[0x39] = BAD,
	[0x3a] = ESC,
	[0x3b ... 0x3f] = BAD,
	[0x40 ... 0x6f] = M,
	[0x70 ... 0x73] = M | I8,
	[0x74 ... 0x76] = M,
	[0x78 ... 0x79] = M,
	[0x7a ... 0x7b] = BAD,
	[0x7c ... 0x7f] = M,
	[0x80 ... 0x8f] = R32 | BR,
	[0x90 ... 0x9f] = M,
	[0xa3] = M,
	[0xa4] = M | I8,
	[0xa5] = M,
	[0xa6 ... 0xa7] = BAD,
	[0xaa] = SY,
	[0xab] = M,
	[0xac] = M | I8,
	[0xad ... 0xaf] = M,
	[0xb0 ... 0xb9] = M,
	[0xba] = M | I8,
	[0xbb ... 0xbf] = M,
	[0xc0 ... 0xc1] = M,
	[0xc2] = M | I8,
	[0xc3] = M,
	[0xc4 ... 0xc6] = M | I8,
	[0xc7] = M,
	[0xd0 ... 0xfe] = M,
	[0xff] = M | SY,
};

/*
 * end: how far the instruction may reach (the bytes there are, and no
 * more than UA_INSN_MAX), so that each byte costs one comparison.
 */
struct decoder {
	const uint8_t *p;
	size_t end, at;
	bool opsz16, addr32, rexw;
	struct ua__insn *out;
};

#define hot static inline __attribute__((always_inline))

hot int next(struct decoder *d)
{
	if (d->at >= d->end)
		return -1;
	return d->p[d->at++];
}

hot bool skip(struct decoder *d, size_t n)
{
	if (d->at + n > d->end)
		return false;
	d->at += n;
	return true;
}

/* The ModRM byte, and the SIB and displacement it asks for. */
hot int modrm(struct decoder *d)
{
	int m = next(d), mod, rm, sib;

	if (m < 0)
		return -1;
	mod = m >> 6;
	rm = m & 7;
	if (mod == 3)
		return m;
	if (rm == 4) {
		sib = next(d);
		if (sib < 0)
			return -1;
		if (mod == 0 && (sib & 7) == 5 && !skip(d, 4))
			return -1;
	} else if (mod == 0 && rm == 5) {
		d->out->rip_rel = true;
		if (!skip(d, 4))
			return -1;
	}
	if ((mod == 1 && !skip(d, 1)) || (mod == 2 && !skip(d, 4)))
		return -1;
	return m;
}

/*
 * Bytes of immediate, offset or displacement that flags f ask for after
 * the ModRM byte and its own.
 */
hot size_t imm_bytes(const struct decoder *d, unsigned int f)
{
	size_t z = d->opsz16 ? 2 : 4, n = 0;

	if (f & I16)
		n += 2;
	if (f & I8)
		n += 1;
	if (f & IZ)
		n += z;
	if (f & R32)
		n += 4;
	if (f & IV)
		n += d->rexw ? 8 : z;
	if (f & MO)
		n += d->addr32 ? 4 : 8;
	return n;
}

/* Operands after the opcode, as flags f ask; m is ModRM's value. */
hot bool operands(struct decoder *d, unsigned int f, int *m)
{
	*m = -1;
	if ((f & M) && (*m = modrm(d)) < 0)
		return false;
	if (f & BR)
		d->out->branch = true;
	if (f & SY)
		d->out->sys = true;
	return skip(d, imm_bytes(d, f));
}

/* f6, f7, fe, ff and c7: what ModRM.reg makes of the opcode. */
static bool group(struct decoder *d, int op, int m)
{
	int reg = (m >> 3) & 7;

	switch (op) {
	case 0xf6:
		return reg > 1 || skip(d, 1);
	case 0xf7:
		return reg > 1 || skip(d, d->opsz16 ? 2 : 4);
	case 0xfe:
		return reg <= 1;
	case 0xff:
		if (reg == 7)
			return false;
		if (reg >= 2 && reg <= 5)
			d->out->branch = true;
		return true;
	case 0xc7:
		/* xbegin: its immediate is a branch offset */
		if (m == 0xf8)
			d->out->branch = true;
		return reg == 0 || m == 0xf8;
	}
	return true;
}

/*
 * A VEX (c4, c5), EVEX (62) or XOP (8f) instruction, or pop r/m (8f):
 * the opcode map comes from the prefix's payload, every instruction
 * there has a ModRM byte (but vzeroupper and vzeroall), and map 3 (0f 3a)
 * an 8-bit immediate, as do those of map 1 that have one without VEX.
 */
static bool vex(struct decoder *d, int op)
{
	int b1, map, opc, m;
	unsigned int f = M;

	b1 = next(d);
	if (b1 < 0)
		return false;
	if (op == 0x8f) {
		if ((b1 & 0x1f) < 8) {
			d->at--;
			return operands(d, M, &m) && ((m >> 3) & 7) == 0;
		}
		return false; /* XOP: AMD's, not in compilers' output */
	}
	if (op == 0xc5) {
		map = 1;
	} else if (op == 0xc4) {
		map = b1 & 0x1f;
		if (!skip(d, 1))
			return false;
	} else {
		map = b1 & 7;
		if ((b1 & 8) || !skip(d, 2))
			return false;
	}
	opc = next(d);
	if (opc < 0)
		return false;
	switch (map) {
	case 1:
		if (opc == 0x77 && op != 0x62)
			return true;
		f = map0f[opc] & (M | I8);
		if (!(f & M))
			return false;
		break;
	case 2:
		break;
	case 3:
		f |= I8;
		break;
	case 5:
	case 6:
		if (op != 0x62)
			return false;
		break;
	default:
		return false;
	}
	return operands(d, f, &m);
}

static bool escape(struct decoder *d, int op)
{
	unsigned int f;
	int m, op2;

	if (op != 0x0f)
		return vex(d, op);
	op2 = next(d);
	if (op2 < 0)
		return false;
	if (op2 == 0x38 || op2 == 0x3a) {
		if (next(d) < 0)
			return false;
		return operands(d, op2 == 0x38 ? M : M | I8, &m);
	}
	f = map0f[op2];
	if (f & BAD)
		return false;
	if (op2 == 0x05)
		d->out->syscall = true;
	return operands(d, f, &m);
}

/* As ua__insn_decode(); *opi: where the opcode starts, after prefixes. */
hot int decode(const uint8_t *p, size_t avail, struct ua__insn *out,
	       unsigned int *opi)
{
	struct decoder d = { .p = p, .out = out };
	unsigned int f;
	int op, m;

	d.end = avail < UA_INSN_MAX ? avail : UA_INSN_MAX;
	*out = (struct ua__insn){ 0 };
	for (;;) {
		op = next(&d);
		if (op < 0)
			return -1;
		f = map1[op];
		if (!(f & PFX))
			break;
		/* A REX prefix counts only right before the opcode. */
		d.rexw = (op & 0xf0) == 0x40 && (op & 8);
		if (op == 0x66)
			d.opsz16 = true;
		else if (op == 0x67)
			d.addr32 = true;
	}
	*opi = (unsigned int)d.at - 1;
	if (d.rexw)
		d.opsz16 = false;
	if (f & BAD)
		return -1;
	if (f & ESC) {
		if (!escape(&d, op))
			return -1;
	} else if (!operands(&d, f, &m) || ((f & GRP) && !group(&d, op, m))) {
		return -1;
	}
	out->len = (int)d.at;
	out->relocatable = !out->rip_rel && !out->branch && !out->sys;
	return out->len;
}

int ua__insn_decode(const uint8_t *p, size_t avail, struct ua__insn *out)
{
	unsigned int opi;

	return decode(p, avail, out, &opi);
}

/* Falling into what follows is not how it is reached: a function may. */
hot bool ends_flow(const uint8_t *p, const struct ua__insn *in,
		   unsigned int i)
{
	unsigned int f = map1[p[i]];

	if (p[i] == 0x0f && i + 1 < (unsigned int)in->len)
		f = map0f[p[i + 1]];
	else if (p[i] == 0xff && i + 1 < (unsigned int)in->len)
		return ((p[i + 1] >> 3) & 7) == 4 || ((p[i + 1] >> 3) & 7) == 5;
	return f & END;
}

static uint8_t why_not(const struct ua__insn *prev)
{
	if (prev->sys)
		return UA_INSN_WHY_SYSCALL;
	if (prev->branch)
		return UA_INSN_WHY_BRANCH;
	if (prev->rip_rel)
		return UA_INSN_WHY_RIP_REL;
	if (prev->len < 5)
		return UA_INSN_WHY_SHORT;
	return UA_INSN_OK;
}

/*
 * Padding as compilers and assemblers emit it: `nop` (90, not with a
 * REX prefix: 41 90 is xchg), the `0f 1f` long nops, with the operand
 * size and segment prefixes they carry, and int3.  opi: the opcode's
 * offset, which any of them has at 90, 0f or cc.
 */
hot bool is_pad(const uint8_t *p, const struct ua__insn *in, unsigned int opi)
{
	int i = 0;

	if (p[opi] != 0x90 && p[opi] != 0x0f && p[opi] != 0xcc)
		return false;
	if (in->len == 1 && p[0] == 0xcc)
		return true;
	while (i < in->len && (p[i] == 0x66 || p[i] == 0x2e || p[i] == 0x3e))
		i++;
	if (i == in->len - 1)
		return p[i] == 0x90;
	return i < in->len - 1 && p[i] == 0x0f && p[i + 1] == 0x1f;
}

bool ua__insn_all_pad(const uint8_t *p, size_t len)
{
	struct ua__insn in;
	unsigned int opi;

	for (size_t i = 0; i < len; i += (size_t)in.len)
		if (decode(p + i, len - i, &in, &opi) < 0 ||
		    !is_pad(p + i, &in, opi))
			return false;
	return true;
}

/* The syscall at, whose instruction before is prev (len 0: none). */
static void site_put(struct ua__insn_scan *s, uint64_t at, bool synced,
		     const struct ua__insn *prev)
{
	struct ua__insn_site site = { .sys = at };

	if (!synced)
		site.why = UA_INSN_WHY_UNSYNCED;
	else if (!prev->len)
		site.why = UA_INSN_WHY_FIRST;
	else
		site.why = why_not(prev);
	if (!site.why)
		site.len = (uint8_t)prev->len;
	if (site.why == UA_INSN_WHY_SHORT && prev->relocatable &&
	    prev->len >= 2)
		site.hop_len = (uint8_t)prev->len;
	if (s->nsites < s->max_sites)
		s->sites[s->nsites] = site;
	s->nsites++;
}

static void hole_put(struct ua__insn_scan *s, uint64_t start, uint64_t end)
{
	if (end - start < 5 || start / s->pagesz != (end - 1) / s->pagesz)
		return;
	if (s->nholes < s->max_holes)
		s->holes[s->nholes] = (struct ua__insn_hole){
			.addr = start,
			.len = (uint8_t)(end - start > 255 ? 255 : end - start),
		};
	s->nholes++;
}

/*
 * Two readings of the same instructions, in one pass: where the sweep is
 * in step (flow_ended, synced), and the runs of padding after a transfer
 * (after_jump, run).  A byte the decoder does not know breaks both.
 */
void ua__insn_scan(const uint8_t *code, size_t size, uint64_t vaddr,
		   struct ua__insn_scan *s)
{
	struct ua__insn prev = { 0 }, in;
	bool synced = true, flow_ended = false, after_jump = false;
	bool in_run = false;
	uint64_t run = 0;
	unsigned int opi;
	size_t i = 0;

	s->nsites = s->nholes = 0;
	s->st = (struct ua__sweep_stats){ 0 };
	while (i < size) {
		if (decode(code + i, size - i, &in, &opi) < 0) {
			s->st.failures++;
			synced = in_run = after_jump = false;
			prev.len = 0;
			i++;
			continue;
		}
		s->st.insns++;
		if (!synced && flow_ended && !((vaddr + i) & 15))
			synced = true;
		if (in.syscall && in.len == 2)
			site_put(s, vaddr + i, synced, &prev);
		flow_ended = ends_flow(code + i, &in, opi);
		if (!s->pagesz) {
		} else if (is_pad(code + i, &in, opi)) {
			if (!in_run && after_jump) {
				in_run = true;
				run = vaddr + i;
			}
		} else {
			if (in_run)
				hole_put(s, run, vaddr + i);
			in_run = false;
			/*
			 * A branch that does not fall through: not ud2 (a
			 * handler may step over it), not the xchg forms of
			 * 90 that END also marks.
			 */
			after_jump = in.branch && flow_ended;
		}
		prev = in;
		i += (size_t)in.len;
	}
	if (in_run)
		hole_put(s, run, vaddr + size);
}

size_t ua__insn_sweep(const uint8_t *code, size_t size, uint64_t vaddr,
		      struct ua__insn_site *out, size_t max,
		      struct ua__sweep_stats *st)
{
	struct ua__insn_scan s = { .sites = out, .max_sites = max };

	ua__insn_scan(code, size, vaddr, &s);
	if (st)
		*st = s.st;
	return s.nsites;
}

size_t ua__insn_holes(const uint8_t *code, size_t size, uint64_t vaddr,
		      uint64_t pagesz, struct ua__insn_hole *out, size_t max)
{
	struct ua__insn_scan s = {
		.holes = out,
		.max_holes = max,
		.pagesz = pagesz,
	};

	ua__insn_scan(code, size, vaddr, &s);
	return s.nholes;
}

static const char *const why_str[UA_INSN_WHY_NR] = {
	[UA_INSN_OK] = "patchable",
	[UA_INSN_WHY_FIRST] = "first instruction of its section",
	[UA_INSN_WHY_SHORT] = "the instruction before it is under 5 bytes",
	[UA_INSN_WHY_RIP_REL] = "the instruction before it is RIP-relative",
	[UA_INSN_WHY_BRANCH] = "the instruction before it is a branch",
	[UA_INSN_WHY_SYSCALL] = "the instruction before it traps",
	[UA_INSN_WHY_UNSYNCED] = "after bytes the decoder does not know",
};

const char *ua__insn_why(int why)
{
	if (why < 0 || why >= UA_INSN_WHY_NR)
		return "?";
	return why_str[why];
}

// SPDX-License-Identifier: MIT
/*
 * Function starts from a program's .eh_frame: where the patch trap may
 * begin decoding instructions (trap_patch.c).  Every function a compiler
 * emits, and every assembly function with CFI, has a Frame Description
 * Entry whose initial location is its first instruction; stripped
 * programs keep the section, since unwinding needs it.
 *
 * The format is DWARF's call frame information as the LSB's "Exception
 * Frames" chapter (refspecs.linuxfoundation.org, LSB-Core generic 10.6)
 * describes it: a run of records, each a 4-byte length (0 ends the run,
 * 0xffffffff announces an 8-byte one), a 4-byte id (0 for a Common
 * Information Entry, else the distance back to the FDE's CIE) and the
 * body.  The CIE's augmentation "zR..." gives the encoding of the FDE's
 * initial location (DW_EH_PE_*, in practice pcrel|sdata4).
 *
 * Only what is certain is kept: a record this parser cannot read, or
 * whose encoding it does not know, gives no start; a start nobody found
 * only means the trap keeps its site on sud until a full sweep.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "task_internal.h"

/* DW_EH_PE_* (the LSB's table 10-5 and 10-6) */
#define PE_OMIT 0xff
#define PE_FORMAT 0x0f
#define PE_APPL 0x70
#define PE_ABSPTR 0x00
#define PE_ULEB128 0x01
#define PE_UDATA2 0x02
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SLEB128 0x09
#define PE_SDATA2 0x0a
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL 0x10

/* A bounded reader over the section; any overrun sets bad. */
struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_fixed(struct rd *r, size_t n)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, n); /* x86-64: little-endian, as the file */
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r, bool is_signed)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b;

	do {
		if (r->bad || r->p == r->end || shift > 63) {
			r->bad = true;
			return 0;
		}
		b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

/*
 * A pointer in encoding enc at r->p, whose address is at; false for an
 * encoding not known here (datarel, textrel, funcrel, indirect).
 */
static bool rd_ptr(struct rd *r, uint8_t enc, uint64_t at, uint64_t *v)
{
	switch (enc & PE_FORMAT) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		*v = rd_fixed(r, 8);
		break;
	case PE_UDATA4:
		*v = rd_fixed(r, 4);
		break;
	case PE_SDATA4:
		*v = (uint64_t)(int64_t)(int32_t)rd_fixed(r, 4);
		break;
	case PE_UDATA2:
		*v = rd_fixed(r, 2);
		break;
	case PE_SDATA2:
		*v = (uint64_t)(int64_t)(int16_t)rd_fixed(r, 2);
		break;
	case PE_ULEB128:
		*v = rd_uleb(r, false);
		break;
	case PE_SLEB128:
		*v = rd_uleb(r, true);
		break;
	default:
		return false;
	}
	if ((enc & PE_APPL) == PE_PCREL)
		*v += at;
	else if (enc & PE_APPL || enc & 0x80)
		return false;
	return !r->bad;
}

/*
 * The encoding of its FDEs' initial locations, from the CIE whose body
 * (after the id) is [p, end); PE_OMIT when it cannot be read.
 */
static uint8_t cie_encoding(const uint8_t *p, const uint8_t *end,
			    uint64_t vaddr_p)
{
	struct rd r = { p, end, false };
	const char *aug;
	uint8_t version, enc = PE_ABSPTR;
	uint64_t auglen, skip;
	const uint8_t *augend;

	version = (uint8_t)rd_fixed(&r, 1);
	if (r.bad || (version != 1 && version != 3 && version != 4))
		return PE_OMIT;
	aug = (const char *)r.p;
	if (!memchr(aug, 0, (size_t)(end - r.p)))
		return PE_OMIT;
	r.p += strlen(aug) + 1;
	if (version == 4) /* address size and segment size */
		rd_fixed(&r, 2);
	if (strstr(aug, "eh")) /* GCC 2's pointer: not seen since */
		return PE_OMIT;
	rd_uleb(&r, false); /* code alignment */
	rd_uleb(&r, true);  /* data alignment */
	if (version == 1)
		rd_fixed(&r, 1);
	else
		rd_uleb(&r, false); /* the return address column */
	if (aug[0] != 'z')
		return aug[0] ? PE_OMIT : PE_ABSPTR;
	auglen = rd_uleb(&r, false);
	if (r.bad || auglen > (uint64_t)(end - r.p))
		return PE_OMIT;
	augend = r.p + auglen;
	for (const char *c = aug + 1; *c; c++) {
		switch (*c) {
		case 'R':
			enc = (uint8_t)rd_fixed(&r, 1);
			break;
		case 'L':
			rd_fixed(&r, 1);
			break;
		case 'P': {
			uint8_t penc = (uint8_t)rd_fixed(&r, 1);

			if (!rd_ptr(&r, penc & 0x7f,
				    vaddr_p + (uint64_t)(r.p - p), &skip))
				return PE_OMIT;
			break;
		}
		case 'S':
		case 'B':
		case 'G':
			break;
		default:
			/* Unknown: R may still come, at an unknown offset. */
			return PE_OMIT;
		}
		if (r.bad || r.p > augend)
			return PE_OMIT;
	}
	return enc;
}

/* Sift v[i] down the max-heap v[0..n). */
static void sift_down(uint64_t *v, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		uint64_t x;

		if (c >= n)
			return;
		if (c + 1 < n && v[c + 1] > v[c])
			c++;
		if (v[i] >= v[c])
			return;
		x = v[i];
		v[i] = v[c];
		v[c] = x;
		i = c;
	}
}

/*
 * Sorted, each once; the new count.  Linkers lay the entries out in
 * address order, mostly; otherwise a heapsort, in place: qsort()'s merge
 * sort takes a buffer as large as the array, which a long-lived monitor
 * keeps resident in its heap, and the table is the program's to make as
 * long and as disordered as it likes.
 */
static size_t sort_unique(uint64_t *v, size_t n)
{
	size_t k = 0, i = 1;

	while (i < n && v[i - 1] <= v[i])
		i++;
	if (i < n) {
		for (i = n / 2; i-- > 0;)
			sift_down(v, i, n);
		for (i = n; i-- > 1;) {
			uint64_t x = v[0];

			v[0] = v[i];
			v[i] = x;
			sift_down(v, 0, i);
		}
	}
	for (i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/**
 * ua__eh_frame_starts() - the functions an .eh_frame image describes
 * @eh: the section's bytes
 * @len: their number
 * @vaddr: the address of @eh[0] where the program runs (pc-relative
 *	   locations are resolved against it)
 * @out: a malloc()ed array of the start addresses, sorted, each once
 *
 * Return: how many (0 with *@out NULL when none), or -ENOMEM.
 */
long ua__eh_frame_starts(const uint8_t *eh, size_t len, uint64_t vaddr,
			 uint64_t **out)
{
	const uint8_t *p = eh, *end = eh + len;
	const uint8_t *last_cie = NULL;
	uint8_t last_enc = PE_OMIT;
	size_t n = 0, room = len / 16 + 1;
	uint64_t *v;

	*out = NULL;
	/* A record is at least 16 bytes (length, id, two locations). */
	v = malloc(room * sizeof(*v));
	if (!v)
		return -ENOMEM;
	while ((size_t)(end - p) >= 8) {
		uint32_t rlen, id;
		const uint8_t *body, *rend, *cie;
		struct rd r;
		uint64_t start, range;

		memcpy(&rlen, p, 4);
		if (!rlen)
			break;
		if (rlen == 0xffffffffu) /* 64-bit DWARF: not in .eh_frame */
			break;
		if (rlen > (size_t)(end - p) - 4)
			break;
		rend = p + 4 + rlen;
		memcpy(&id, p + 4, 4);
		body = p + 8;
		if (!id || rlen < 4 || (size_t)(p + 4 - eh) < id)
			goto next;
		cie = p + 4 - id;
		if (cie != last_cie) {
			uint32_t clen, cid;

			last_cie = cie;
			last_enc = PE_OMIT;
			if ((size_t)(end - cie) < 8)
				goto next;
			memcpy(&clen, cie, 4);
			memcpy(&cid, cie + 4, 4);
			if (cid || clen < 4 || clen == 0xffffffffu ||
			    clen > (size_t)(end - cie) - 4)
				goto next;
			last_enc =
				cie_encoding(cie + 8, cie + 4 + clen,
					     vaddr + (uint64_t)(cie + 8 - eh));
		}
		if (last_enc == PE_OMIT)
			goto next;
		r = (struct rd){ body, rend, false };
		if (!rd_ptr(&r, last_enc, vaddr + (uint64_t)(body - eh),
			    &start) ||
		    !rd_ptr(&r, last_enc & PE_FORMAT, 0, &range))
			goto next;
		/* A linker's leftover for a discarded function has no size. */
		if (range && n < room)
			v[n++] = start;
next:
		p = rend;
	}
	n = sort_unique(v, n);
	if (!n) {
		free(v);
		return 0;
	}
	/* Room was for the most records len could hold: give back the rest. */
	*out = realloc(v, n * sizeof(*v)) ?: v;
	return (long)n;
}

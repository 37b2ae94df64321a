// SPDX-License-Identifier: MIT
/*
 * /proc/<pid>/smaps of a guest (procfs.c opens it): each line of the
 * guest's maps (proc_maps.c) followed by the kernel's account of that
 * range (fs/proc/task_mmu.c show_smap()).  The guest's memory is the
 * host's, at the same addresses, so the counts are the host's own: the
 * host's smaps is read and each guest vma gets the sums of the host
 * vmas inside it.  What is the monitor's (its own mappings, the ranges
 * proc_maps.c hides) is never part of a guest vma, so it is not counted.
 *
 * Where the host keeps one vma across two of the guest's (a stack that
 * the host merged with the anonymous mapping above it), the host vma is
 * split for a second reading (split()); should that fail, its counts
 * are shared between the two in proportion to their sizes, the kernel
 * giving no finer account without privileges.  Size is the guest
 * vma's; VmFlags' rd, wr, ex and sh are the guest's protection, the
 * rest the host's flags of the range; ProtectionKey, where the CPU has
 * protection keys, is 0, the key of every page the guest can map (it
 * has no pkey_mprotect), whatever key the pkey backend tags the space
 * with.  The field names, their order and their widths are the host's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux_internal.h"

#define MAX_FIELDS 40

/* One "Name:   value kB" line of the host's smaps. */
struct field {
	char name[24]; /* with its colon */
	int width;     /* of the value, padding included */
	bool kb;
};

/* One vma of the host's smaps. */
struct hvma {
	uintptr_t start, end;
	uint64_t val[MAX_FIELDS];
	char flags[160];
};

/* One reading of the host's smaps. */
struct hread {
	struct hvma *h;
	size_t nh, cap;
};

/* A range whose dump flag was turned over to split a host vma. */
struct turn {
	uintptr_t start, end;
	int back; /* the madvise() that undoes it */
};

struct smaps {
	struct field f[MAX_FIELDS]; /* as the host names them, in order */
	int nf;
	struct hread r[2]; /* as found; after the splits (if any) */
	struct lx_vma *g;  /* the guest's vmas */
	size_t ng, gcap;
	struct turn *turn;
	size_t nturn;
	FILE *out;
};

static int field_index(struct smaps *s, const char *name, size_t len)
{
	int i;

	if (len >= sizeof(s->f[0].name))
		return -1;
	for (i = 0; i < s->nf; i++)
		if (!strncmp(s->f[i].name, name, len) && !s->f[i].name[len])
			return i;
	if (s->nf == MAX_FIELDS)
		return -1;
	memcpy(s->f[i].name, name, len);
	s->f[i].name[len] = 0;
	s->nf++;
	return i;
}

static void parse_field(struct smaps *s, struct hvma *h, const char *line,
			size_t name_len)
{
	const char *v = line + name_len;
	char *end;
	uint64_t val;
	int i;

	if (!strncmp(line, "VmFlags:", name_len)) {
		snprintf(h->flags, sizeof(h->flags), "%s", v + strspn(v, " "));
		h->flags[strcspn(h->flags, "\n")] = 0;
		return;
	}
	val = strtoull(v, &end, 10);
	if (end == v || (i = field_index(s, line, name_len)) < 0)
		return;
	s->f[i].width = (int)(end - v);
	s->f[i].kb = !strncmp(end, " kB", 3);
	h->val[i] = val;
}

/* Room for one more of n elements of size sz in *v: false on ENOMEM. */
static bool grow(void **v, size_t n, size_t *cap, size_t sz)
{
	size_t c = *cap ? 2 * *cap : 64;
	void *p;

	if (n < *cap)
		return true;
	p = realloc(*v, c * sz);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

static struct hvma *new_hvma(struct hread *r, uintptr_t start, uintptr_t end)
{
	struct hvma *h;

	if (!grow((void **)&r->h, r->nh, &r->cap, sizeof(*r->h)))
		return NULL;
	h = &r->h[r->nh++];
	memset(h, 0, sizeof(*h));
	h->start = start;
	h->end = end;
	return h;
}

/* The host's smaps (or smaps_rollup) into r: 0 or -errno. */
static long read_host(struct smaps *s, struct hread *r, const char *path)
{
	FILE *in = fopen(path, "re");
	struct hvma *h = NULL;
	char *line = NULL;
	size_t cap = 0;
	long err = 0;

	if (!in)
		return -errno;
	while (getline(&line, &cap, in) > 0) {
		size_t n = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"abcdefghijklmnopqrstuvwxyz_");
		uintptr_t a, b;
		char *end;

		if (n && line[n] == ':') {
			if (h)
				parse_field(s, h, line, n + 1);
			continue;
		}
		a = strtoul(line, &end, 16);
		if (*end != '-')
			continue;
		b = strtoul(end + 1, &end, 16);
		h = new_hvma(r, a, b);
		if (!h) {
			err = -ENOMEM;
			break;
		}
	}
	free(line);
	fclose(in);
	return err;
}

static bool is(const struct field *f, const char *name)
{
	return !strcmp(f->name, name);
}

/* rd, wr, ex and sh as the guest made the range, the rest the host's. */
static void put_flags(FILE *out, const struct lx_vma *v, const struct hvma *h)
{
	static const char *const guest[] = { "rd", "wr", "ex", "sh" };
	char flags[sizeof(h->flags)], *save, *tok;
	bool set[] = { v->prot & PROT_READ, v->prot & PROT_WRITE,
		       v->prot & PROT_EXEC, v->name && v->name->shared };

	fputs("VmFlags: ", out);
	for (int i = 0; i < 4; i++)
		if (set[i])
			fprintf(out, "%s ", guest[i]);
	snprintf(flags, sizeof(flags), "%s", h ? h->flags : "mr mw me");
	for (tok = strtok_r(flags, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		bool ours = false;

		for (int i = 0; i < 4; i++)
			ours |= !strcmp(tok, guest[i]);
		if (!ours)
			fprintf(out, "%s ", tok);
	}
	fputc('\n', out);
}

/* v's part of host vma h's count val. */
static uint64_t share(const struct hvma *h, const struct lx_vma *v,
		      uint64_t val)
{
	uintptr_t lo = h->start > v->start ? h->start : v->start;
	uintptr_t hi = h->end < v->end ? h->end : v->end;

	if (lo == h->start && hi == h->end)
		return val;
	return val * (hi - lo) / (h->end - h->start);
}

/* The first host vma of r that ends above addr, from *at on. */
static size_t seek(const struct hread *r, size_t at, uintptr_t addr)
{
	while (at < r->nh && r->h[at].end <= addr)
		at++;
	return at;
}

/*
 * Guest vma v's counts into sum[] (by s->f), from the host vmas of the
 * last reading from *at on; the first of them, or NULL.
 */
static const struct hvma *count_vma(struct smaps *s, const struct lx_vma *v,
				    size_t *at, uint64_t *sum)
{
	const struct hread *r = &s->r[s->nturn ? 1 : 0];
	const struct hvma *first = NULL;

	*at = seek(r, *at, v->start);
	for (size_t i = *at; i < r->nh && r->h[i].start < v->end; i++) {
		if (!first)
			first = &r->h[i];
		for (int k = 0; k < s->nf; k++)
			sum[k] += share(&r->h[i], v, r->h[i].val[k]);
	}
	return first;
}

/*
 * Guest vma v's block, its flags those of the host vma at v's start as
 * first found (before any split).
 */
static void put_vma(struct smaps *s, const struct lx_vma *v, size_t *at)
{
	size_t f0 = seek(&s->r[0], 0, v->start);
	uint64_t sum[MAX_FIELDS] = { 0 };
	const struct hvma *first = count_vma(s, v, at, sum);

	ua__lx_print_vma(s->out, v);
	for (int k = 0; k < s->nf; k++) {
		const struct field *f = &s->f[k];
		uint64_t val = sum[k];

		if (is(f, "Size:"))
			val = (v->end - v->start) >> 10;
		else if (is(f, "ProtectionKey:"))
			val = 0;
		else if (is(f, "KernelPageSize:") || is(f, "MMUPageSize:") ||
			 is(f, "THPeligible:"))
			val = first ? first->val[k] : 0;
		fprintf(s->out, "%s%*llu%s\n", f->name, f->width,
			(unsigned long long)val, f->kb ? " kB" : "");
	}
	put_flags(s->out, v,
		  f0 < s->r[0].nh && s->r[0].h[f0].start <= v->start ?
			  &s->r[0].h[f0] :
			  first);
}

static void collect(const struct lx_vma *v, void *arg)
{
	struct smaps *s = arg;

	if (grow((void **)&s->g, s->ng, &s->gcap, sizeof(*s->g)))
		s->g[s->ng++] = *v;
}

/* Turn over the dump flag of [a, b) inside h, noting how to undo it. */
static void turn(struct smaps *s, const struct hvma *h, uintptr_t a,
		 uintptr_t b, size_t *cap)
{
	bool dd = strstr(h->flags, "dd") != NULL;
	int adv = dd ? MADV_DODUMP : MADV_DONTDUMP;

	if (!grow((void **)&s->turn, s->nturn, cap, sizeof(*s->turn)) ||
	    madvise((void *)a, b - a, adv))
		return;
	s->turn[s->nturn++] =
		(struct turn){ a, b, dd ? MADV_DONTDUMP : MADV_DODUMP };
}

/*
 * Where one host vma spans several of the guest's (the host merged
 * what the guest's maps tells apart: a stack and the mapping above
 * it), split it for a second reading by turning over the dump flag of
 * every other piece: VM_DONTDUMP is a vma flag that nothing but a core
 * dump reads, and the pieces merge again when it is turned back.
 */
static void split(struct smaps *s)
{
	const struct hread *r = &s->r[0];
	size_t gi = 0, cap = 0;

	for (size_t i = 0; i < r->nh; i++) {
		const struct hvma *h = &r->h[i];
		uintptr_t cut = h->start;
		bool odd = false;

		while (gi < s->ng && s->g[gi].end <= h->start)
			gi++;
		for (size_t j = gi; j < s->ng && s->g[j].start < h->end; j++) {
			uintptr_t b[2] = { s->g[j].start, s->g[j].end };

			for (int e = 0; e < 2; e++) {
				if (b[e] <= cut || b[e] >= h->end)
					continue;
				if (odd)
					turn(s, h, cut, b[e], &cap);
				odd = !odd;
				cut = b[e];
			}
		}
		if (odd && cut < h->end)
			turn(s, h, cut, h->end, &cap);
	}
}

static void unsplit(struct smaps *s)
{
	for (size_t i = 0; i < s->nturn; i++)
		madvise((void *)s->turn[i].start,
			s->turn[i].end - s->turn[i].start, s->turn[i].back);
}

/*
 * The host's account, read with the space at the guest's protections
 * (the mprotect backend's locked space would be one vma), split where
 * it must be and read again.
 */
static long read_all(struct ua_task *t, struct smaps *s)
{
	long err;

	ua__protect_show_guest(t->sp, true);
	err = read_host(s, &s->r[0], "/proc/self/smaps");
	if (!err) {
		split(s);
		if (s->nturn)
			err = read_host(s, &s->r[1], "/proc/self/smaps");
		unsplit(s);
	}
	ua__protect_show_guest(t->sp, false);
	return err;
}

static int field_of(const struct smaps *s, const char *name)
{
	for (int k = 0; k < s->nf; k++)
		if (is(&s->f[k], name))
			return k;
	return -1;
}

/* What kind of pages a vma's are: 0 anonymous, 1 file, 2 shmem. */
static int page_kind(const struct lx_vma *v)
{
	const char *path = v->name ? v->name->path : NULL;

	if (v->name && !path)
		return 2; /* shared anonymous: /dev/zero (deleted) */
	if (!path)
		return 0;
	if (!strncmp(path, "/memfd:", 7) || !strncmp(path, "/dev/shm/", 9))
		return 2;
	return 1;
}

/*
 * smaps_rollup (show_smaps_rollup()): the sums over the guest's vmas,
 * under the field names, order and widths of the host's rollup.  Its
 * Pss_Anon, Pss_File and Pss_Shmem part each vma's Pss by the kind of
 * its pages: a private file map's anonymous pages (its written copies)
 * count their Rss as Pss_Anon, exclusive as they are unless a fork
 * shares them, the rest Pss_File.
 */
static void put_rollup(struct smaps *s, const struct smaps *roll)
{
	uint64_t total[MAX_FIELDS] = { 0 };
	int pss = field_of(s, "Pss:"), anon = field_of(s, "Anonymous:");
	int kind_field[3] = { field_of(roll, "Pss_Anon:"),
			      field_of(roll, "Pss_File:"),
			      field_of(roll, "Pss_Shmem:") };
	int in_smaps[MAX_FIELDS]; /* each rollup field's in smaps, or -1 */
	size_t at = 0;
	int len;

	for (int k = 0; k < roll->nf; k++)
		in_smaps[k] = field_of(s, roll->f[k].name);
	for (size_t i = 0; i < s->ng; i++) {
		uint64_t sum[MAX_FIELDS] = { 0 }, a;
		int kind = page_kind(&s->g[i]);

		count_vma(s, &s->g[i], &at, sum);
		for (int k = 0; k < roll->nf; k++)
			if (in_smaps[k] >= 0)
				total[k] += sum[in_smaps[k]];
		if (pss < 0)
			continue;
		a = kind == 1 && anon >= 0 ?
			    (sum[anon] < sum[pss] ? sum[anon] : sum[pss]) :
			    0;
		if (kind_field[kind] >= 0)
			total[kind_field[kind]] += sum[pss] - a;
		if (a && kind_field[0] >= 0)
			total[kind_field[0]] += a;
	}
	len = fprintf(s->out, "%08lx-%08lx ---p 00000000 00:00 0 ",
		      (unsigned long)(s->ng ? s->g[0].start : 0),
		      (unsigned long)(s->ng ? s->g[s->ng - 1].end : 0));
	fprintf(s->out, "%*s[rollup]\n", len < 73 ? 73 - len : 0, "");
	for (int k = 0; k < roll->nf; k++)
		fprintf(s->out, "%s%*llu%s\n", roll->f[k].name,
			roll->f[k].width, (unsigned long long)total[k],
			roll->f[k].kb ? " kB" : "");
}

/*
 * ua__lx_put_smaps(): the guest's smaps, or with @rollup its
 * smaps_rollup, written to fd.  0 or -errno.
 */
long ua__lx_put_smaps(struct ua_task *t, int fd, bool rollup)
{
	struct smaps s = { 0 }, roll = { 0 };
	char *text = NULL;
	size_t len = 0, at = 0;
	long err;

	ua__lx_vmas(t, collect, &s);
	err = rollup ? read_host(&roll, &roll.r[0], "/proc/self/smaps_rollup") :
		       0;
	if (!err)
		err = read_all(t, &s);
	if (err)
		goto out;
	s.out = open_memstream(&text, &len);
	if (!s.out) {
		err = -ENOMEM;
		goto out;
	}
	if (rollup)
		put_rollup(&s, &roll);
	for (size_t i = 0; !rollup && i < s.ng; i++)
		put_vma(&s, &s.g[i], &at);
	if (fclose(s.out)) {
		err = -ENOMEM;
		goto out;
	}
	if (len && write(fd, text, len) != (ssize_t)len)
		err = -errno;
out:
	free(text);
	free(s.r[0].h);
	free(s.r[1].h);
	free(roll.r[0].h);
	free(s.g);
	free(s.turn);
	return err;
}

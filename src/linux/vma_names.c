// SPDX-License-Identifier: MIT
/*
 * What each guest mapping was made from, for /proc/<pid>/maps
 * (procfs.c).  The space knows only ranges and protections; the kernel's
 * maps line also names the file, its device, inode and the offset of the
 * range's first page (fs/proc/task_mmu.c show_map_vma()).  The linux
 * layer records that here for the ranges it fills from a file (the
 * program, its interpreter, mmap of a file) and for anonymous shared
 * memory, and punches the record out wherever a new mapping, munmap or
 * mremap takes the range over, so a stale name never shows on memory
 * that no longer comes from the file.
 *
 * The table is sorted by start and its entries do not overlap; programs
 * map a few dozen files at most, so a flat array is searched linearly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "linux_internal.h"

static void entry_free(struct lx_vname *v)
{
	free(v->path);
	v->path = NULL;
}

/* Room for n more entries.  0 or -ENOMEM. */
static int reserve(struct lx_proc *p, size_t n)
{
	struct lx_vname *v;
	size_t cap;

	if (p->nnames + n <= p->names_cap)
		return 0;
	cap = p->names_cap ? p->names_cap * 2 : 16;
	while (cap < p->nnames + n)
		cap *= 2;
	v = realloc(p->names, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->names = v;
	p->names_cap = cap;
	return 0;
}

static void insert_at(struct lx_proc *p, size_t i, const struct lx_vname *v)
{
	memmove(&p->names[i + 1], &p->names[i], (p->nnames - i) * sizeof(*v));
	p->names[i] = *v;
	p->nnames++;
}

static void remove_at(struct lx_proc *p, size_t i)
{
	entry_free(&p->names[i]);
	memmove(&p->names[i], &p->names[i + 1],
		(p->nnames - i - 1) * sizeof(p->names[0]));
	p->nnames--;
}

/*
 * Forget what [start, end) was made from.  An entry cut in two keeps its
 * path in both halves, the upper one's offset moved on as a split vma's
 * vm_pgoff is.  0 or -ENOMEM (the split needs a copy of the path).
 */
int ua__lx_names_punch(struct lx_proc *p, uintptr_t start, uintptr_t end)
{
	for (size_t i = 0; i < p->nnames;) {
		struct lx_vname *v = &p->names[i];

		if (v->end <= start || v->start >= end) {
			i++;
			continue;
		}
		if (v->start < start && v->end > end) {
			struct lx_vname hi = *v;

			if (reserve(p, 1))
				return -ENOMEM;
			v = &p->names[i];
			hi.path = v->path ? strdup(v->path) : NULL;
			if (v->path && !hi.path)
				return -ENOMEM;
			hi.off += end - v->start;
			hi.start = end;
			v->end = start;
			insert_at(p, i + 1, &hi);
			return 0;
		}
		if (v->start < start) {
			v->end = start;
			i++;
		} else if (v->end > end) {
			v->off += end - v->start;
			v->start = end;
			i++;
		} else {
			remove_at(p, i);
		}
	}
	return 0;
}

/*
 * Record that [v->start, v->end) now comes from v (its path copied),
 * replacing whatever was recorded there.  0 or -ENOMEM.
 */
int ua__lx_names_set(struct lx_proc *p, const struct lx_vname *v)
{
	struct lx_vname n = *v;
	size_t i;

	if (ua__lx_names_punch(p, v->start, v->end) || reserve(p, 1))
		return -ENOMEM;
	n.path = v->path ? strdup(v->path) : NULL;
	if (v->path && !n.path)
		return -ENOMEM;
	for (i = 0; i < p->nnames && p->names[i].start < n.start; i++)
		;
	insert_at(p, i, &n);
	return 0;
}

/* The entry holding addr, or NULL. */
const struct lx_vname *ua__lx_name_at(const struct lx_proc *p, uintptr_t addr)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (p->names[i].start <= addr && addr < p->names[i].end)
			return &p->names[i];
	return NULL;
}

/*
 * mremap moved [from, from + len) to to: what the range was made from
 * goes with it (move_vma() keeps vm_file and vm_pgoff).  Best effort: a
 * failed copy leaves the new range unnamed.
 */
void ua__lx_names_move(struct lx_proc *p, uintptr_t from, size_t len,
		       uintptr_t to, size_t new_len)
{
	const struct lx_vname *old = ua__lx_name_at(p, from);
	struct lx_vname n;

	ua__lx_names_punch(p, to, to + new_len);
	if (!old) {
		ua__lx_names_punch(p, from, from + len);
		return;
	}
	n = *old;
	n.off += from - old->start;
	n.start = to;
	n.end = to + new_len;
	/* set copies the path before the punch below frees the old one. */
	ua__lx_names_set(p, &n);
	ua__lx_names_punch(p, from, from + len);
}

void ua__lx_names_free(struct lx_proc *p)
{
	for (size_t i = 0; i < p->nnames; i++)
		entry_free(&p->names[i]);
	free(p->names);
	p->names = NULL;
	p->nnames = p->names_cap = 0;
}

// SPDX-License-Identifier: MIT
/*
 * /proc/<pid>/maps of a guest (procfs.c opens it): the space's mappings
 * in the kernel's format (fs/proc/task_mmu.c show_map_vma()), one line
 * per vma.  The space keeps ranges and protections; vma_names.c says
 * which ranges come from which file.  Where the kernel would have one
 * vma the space may hold several mappings (each mmap call is one), so
 * neighbours are merged as vma_merge() would merge them: same
 * protection, same file at contiguous offsets, or both anonymous.
 *
 * Left out, being the monitor's and not the program's: the patch
 * trap's trampoline area after the program, the heap's unused reserve
 * (PROT_NONE address space the break grows into) and the guard page
 * below the initial stack.  There is no [vdso], [vvar] or [vsyscall]:
 * the engine maps none (doc/uarun.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "linux_internal.h"

/* The monitor's own ranges: not part of the program's map. */
static bool hidden(const struct ua_task *t, const struct lx_proc *p,
		   const struct ua_mapping *m)
{
	uintptr_t guard = (uintptr_t)t->stack - ua__pagesz;

	if (m->start >= p->patch_start && m->end <= p->patch_end)
		return true;
	if (m->prot == PROT_NONE && p->brk_start && m->start >= p->brk_mapped &&
	    m->end <= p->brk_start + LX_BRK_MAX)
		return true;
	return m->prot == PROT_NONE && m->start == guard &&
	       m->end == guard + ua__pagesz;
}

/*
 * The program's mappings, sorted, in *out (the caller frees it): the
 * space's, less the monitor's own ranges.  Their number.
 */
static size_t program_maps(struct ua_task *t, struct ua_mapping **out)
{
	size_t n = ua__space_maps_copy(t->sp, out), k = 0;

	for (size_t i = 0; i < n; i++)
		if (!hidden(t, lx_proc(t), &(*out)[i]))
			(*out)[k++] = (*out)[i];
	return k;
}

static bool same_name(const struct lx_vma *a, const struct lx_vma *b)
{
	if (a->label != b->label)
		return false;
	if (!a->name || !b->name)
		return a->name == b->name;
	if (a->name->shared != b->name->shared ||
	    a->name->dev != b->name->dev || a->name->ino != b->name->ino)
		return false;
	if (!a->name->path || !b->name->path)
		return a->name->path == b->name->path;
	return !strcmp(a->name->path, b->name->path) &&
	       a->off + (a->end - a->start) == b->off;
}

static void print_name(FILE *f, const char *s)
{
	/* seq_file_path(..., "\n"): a newline in the name is escaped. */
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\\012", f);
		else
			fputc(*s, f);
	}
}

/*
 * ua__lx_print_vma(): v's line of maps, which is also its header in
 * smaps (show_map_vma()).
 */
void ua__lx_print_vma(FILE *f, const struct lx_vma *v)
{
	const struct lx_vname *n = v->name;
	bool shared = n && n->shared;
	uint64_t dev = n && n->path ? n->dev : 0;
	uint64_t ino = n && n->path ? n->ino : 0;
	const char *name = v->label;
	int len;

	len = fprintf(f, "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %llu ",
		      (unsigned long)v->start, (unsigned long)v->end,
		      v->prot & PROT_READ ? 'r' : '-',
		      v->prot & PROT_WRITE ? 'w' : '-',
		      v->prot & PROT_EXEC ? 'x' : '-', shared ? 's' : 'p',
		      (unsigned long long)(n && n->path ? v->off : 0),
		      major(dev), minor(dev), (unsigned long long)ino);
	if (n && n->path)
		name = n->path;
	else if (shared)
		name = "/dev/zero (deleted)";
	if (name) {
		/* seq_pad(): the name starts at column 73 at the earliest. */
		fprintf(f, "%*s", len < 73 ? 73 - len : 0, "");
		print_name(f, name);
	}
	fputc('\n', f);
}

/* What [a, end) of mapping m is, up to the next change of name. */
static uintptr_t piece(const struct lx_proc *p, const struct ua_mapping *m,
		       uintptr_t a, struct lx_vma *v)
{
	uintptr_t end = m->end;

	v->start = a;
	v->prot = m->prot;
	v->label = NULL;
	v->name = ua__lx_name_at(p, a);
	if (v->name) {
		if (v->name->end < end)
			end = v->name->end;
		v->off = v->name->off + (a - v->name->start);
	} else {
		for (size_t i = 0; i < p->nnames; i++)
			if (p->names[i].start > a && p->names[i].start < end)
				end = p->names[i].start;
		v->off = 0;
		/* The heap's own vma: [start_brk, brk) rounded to pages. */
		if (p->brk_start && a < p->brk_start && end > p->brk_start)
			end = p->brk_start;
		if (p->brk_start && a >= p->brk_start && a < p->brk_mapped) {
			if (end > p->brk_mapped)
				end = p->brk_mapped;
			v->label = "[heap]";
		}
	}
	v->end = end;
	return end;
}

/*
 * ua__lx_vmas(): calls fn for each line of the guest's maps, in order,
 * the space's mappings merged as the kernel's vmas would be.
 */
void ua__lx_vmas(struct ua_task *t, void (*fn)(const struct lx_vma *, void *),
		 void *arg)
{
	struct lx_proc *p = lx_proc(t);
	struct ua_mapping *maps;
	size_t n = program_maps(t, &maps);
	struct lx_vma cur = { 0 }, v;
	bool have = false;

	for (size_t i = 0; i < n; i++) {
		for (uintptr_t a = maps[i].start; a < maps[i].end;) {
			a = piece(p, &maps[i], a, &v);
			if (!v.name && !v.label && v.start <= p->arg_start &&
			    p->arg_start < maps[i].end)
				v.label = "[stack]";
			if (have && cur.end == v.start && cur.prot == v.prot &&
			    same_name(&cur, &v)) {
				cur.end = v.end;
				continue;
			}
			if (have)
				fn(&cur, arg);
			cur = v;
			have = true;
		}
	}
	if (have)
		fn(&cur, arg);
	free(maps);
}

static void put_line(const struct lx_vma *v, void *f)
{
	ua__lx_print_vma(f, v);
}

/*
 * ua__lx_put_maps(): the guest's maps, written to fd.  0 or -errno.
 */
long ua__lx_put_maps(struct ua_task *t, int fd)
{
	char *text = NULL;
	size_t len = 0;
	long err = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	ua__lx_vmas(t, put_line, f);
	if (fclose(f))
		return -ENOMEM;
	if (len && write(fd, text, len) != (ssize_t)len)
		err = -errno;
	free(text);
	return err;
}

/*
 * ua__lx_vm_size(): the bytes of the program's mappings, those its maps
 * shows (task_vsize(): the mm's total_vm).
 */
size_t ua__lx_vm_size(struct ua_task *t)
{
	struct ua_mapping *maps;
	size_t n = program_maps(t, &maps), sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += maps[i].end - maps[i].start;
	free(maps);
	return sum;
}

/*
 * ua__lx_mem_span(): how many of the len bytes from addr lie in the
 * program's mappings, those its maps show, without a hole: as far as
 * the kernel's access_remote_vm() gets for /proc/<pid>/mem before it
 * finds no vma.  The monitor's memory around and above the space is
 * never part of it.
 */
size_t ua__lx_mem_span(struct ua_task *t, uintptr_t addr, size_t len)
{
	struct ua_mapping *maps;
	size_t n = program_maps(t, &maps);
	uintptr_t at = addr;
	uintptr_t end = len > UINTPTR_MAX - addr ? UINTPTR_MAX : addr + len;

	for (size_t i = 0; i < n && at < end; i++) {
		if (maps[i].end <= at)
			continue;
		if (maps[i].start > at)
			break;
		at = maps[i].end;
	}
	free(maps);
	return (at < end ? at : end) - addr;
}

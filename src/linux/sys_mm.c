// SPDX-License-Identifier: MIT
/*
 * Memory calls, all inside the task's space (mm/mmap.c, mm/mprotect.c,
 * mm/mremap.c, mm/madvise.c).  File-backed maps are private copies of
 * regular files: read through the monitor into fresh pages, which is what
 * MAP_PRIVATE shows a process that does not race writers of the file.
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux_internal.h"

#define LX_BRK_MAX ((uintptr_t)256 << 20)

static bool page_aligned(uintptr_t a)
{
	return !(a & (ua__pagesz - 1));
}

static bool in_space(const struct ua_space *sp, uintptr_t a, size_t len)
{
	return a >= sp->base && a <= sp->limit && len <= sp->limit - a;
}

/*
 * Fill [addr, addr + filesz) of fresh writable pages from host_fd at off;
 * the pages get prot afterwards.  0 or -errno.
 */
long ua__lx_map_file(struct ua_task *t, uintptr_t addr, size_t len, int prot,
		     int host_fd, off_t off, size_t filesz)
{
	char *buf = lx_proc(t)->iobuf;
	size_t done = 0;

	while (done < filesz) {
		size_t want = filesz - done < LX_CHUNK ? filesz - done :
							    LX_CHUNK;
		ssize_t n = pread(host_fd, buf, want, off + (off_t)done);

		if (n < 0)
			return -errno;
		if (n == 0)
			break; /* past the end of the file: zeroes */
		if (ua_copy_to_user((void *)(addr + done), buf, (size_t)n))
			return -EFAULT;
		done += (size_t)n;
	}
	return len ? ua_mprotect(t->sp, (void *)addr, len, prot) : 0;
}

static long do_map(struct ua_task *t, uintptr_t addr, size_t len, int prot,
		   int flags)
{
	struct ua_space *sp = t->sp;
	void *p;

	if (flags & MAP_FIXED) {
		if (!page_aligned(addr) || !in_space(sp, addr, len))
			return -ENOMEM;
		ua_unmap(sp, (void *)addr, len);
		p = ua_map(sp, (void *)addr, len, prot);
	} else if (addr && page_aligned(addr) && in_space(sp, addr, len)) {
		p = ua_map(sp, (void *)addr, len, prot);
		if (!p && !(flags & MAP_FIXED_NOREPLACE))
			p = ua_map(sp, NULL, len, prot);
	} else if (flags & MAP_FIXED_NOREPLACE) {
		return -ENOMEM;
	} else {
		p = ua_map(sp, NULL, len, prot);
	}
	if (!p)
		return errno == EEXIST ? -EEXIST : -ENOMEM;
	return (long)(uintptr_t)p;
}

static long sys_mmap(struct ua_task *t, struct ua_pt_regs *r)
{
	uintptr_t addr = ARG1(r);
	size_t len = ARG2(r);
	int prot = (int)ARG3(r), flags = (int)ARG4(r);
	long fd = (long)(int)ARG5(r);
	off_t off = (off_t)ARG6(r);
	int type = flags & MAP_TYPE;
	struct lx_file *f = NULL;
	struct stat st;
	long ret;

	if (!len)
		return -EINVAL;
	if (off & (off_t)(ua__pagesz - 1))
		return -EINVAL;
	if (len > t->sp->size)
		return -ENOMEM;
	len = ua__page_up(len);
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	if (type != MAP_PRIVATE && type != MAP_SHARED &&
	    type != MAP_SHARED_VALIDATE)
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS)) {
		f = ua__lx_file(t, fd);
		if (!f)
			return -EBADF;
		if (f->kind == LX_FD_ZERO) {
			f = NULL; /* an anonymous map, as the driver does */
		} else if (f->kind != LX_FD_HOST) {
			return -ENODEV;
		} else {
			if (fstat(f->host, &st))
				return -errno;
			if (!S_ISREG(st.st_mode))
				return -ENODEV;
			/* A shared writable map would need the page cache. */
			if (type != MAP_PRIVATE && (prot & PROT_WRITE))
				return -ENODEV;
		}
	}
	if (!f)
		return do_map(t, addr, len, prot, flags);
	ret = do_map(t, addr, len, PROT_READ | PROT_WRITE, flags);
	if (ret < 0)
		return ret;
	size_t filesz = st.st_size > off ? (size_t)(st.st_size - off) : 0;
	long err = ua__lx_map_file(t, (uintptr_t)ret, len, prot, f->host, off,
				   filesz < len ? filesz : len);

	if (err) {
		ua_unmap(t->sp, (void *)ret, len);
		return err;
	}
	return ret;
}

static long sys_munmap(struct ua_task *t, struct ua_pt_regs *r)
{
	uintptr_t addr = ARG1(r);
	size_t len = ARG2(r);

	if (!page_aligned(addr) || !len)
		return -EINVAL;
	len = ua__page_up(len);
	if (!in_space(t->sp, addr, len))
		return -EINVAL;
	return ua_unmap(t->sp, (void *)addr, len);
}

static long sys_mprotect(struct ua_task *t, struct ua_pt_regs *r)
{
	uintptr_t addr = ARG1(r);
	size_t len = ARG2(r);
	int prot = (int)ARG3(r);
	int ret;

	if (!page_aligned(addr))
		return -EINVAL;
	if (!len)
		return 0;
	prot &= ~(PROT_GROWSDOWN | PROT_GROWSUP);
	len = ua__page_up(len);
	if (!in_space(t->sp, addr, len))
		return -ENOMEM;
	ret = ua_mprotect(t->sp, (void *)addr, len, prot);
	return ret == -ERANGE ? -ENOMEM : ret;
}

/*
 * Shrink in place, grow in place when the pages after are free, else move
 * (MREMAP_MAYMOVE) by copying through the monitor.
 */
static long sys_mremap(struct ua_task *t, struct ua_pt_regs *r)
{
	uintptr_t old = ARG1(r), dst;
	size_t olen = ua__page_up(ARG2(r)), nlen = ua__page_up(ARG3(r));
	int flags = (int)ARG4(r), prot;
	char *buf = lx_proc(t)->iobuf;

	if (!page_aligned(old) || !nlen ||
	    (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED)) ||
	    (flags & MREMAP_FIXED))
		return flags & MREMAP_FIXED ? -ENOSYS : -EINVAL;
	if (!in_space(t->sp, old, olen) || !olen)
		return -EFAULT;
	prot = ua__space_prot_at(t->sp, old);
	if (prot < 0)
		return -EFAULT;
	if (nlen <= olen) {
		if (nlen < olen)
			ua_unmap(t->sp, (void *)(old + nlen), olen - nlen);
		return (long)old;
	}
	if (in_space(t->sp, old + olen, nlen - olen) &&
	    ua_map(t->sp, (void *)(old + olen), nlen - olen, prot))
		return (long)old;
	if (!(flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	dst = (uintptr_t)ua_map(t->sp, NULL, nlen, PROT_READ | PROT_WRITE);
	if (!dst)
		return -ENOMEM;
	/* Through the accessors: the monitor sees guest pages only so. */
	ua_mprotect(t->sp, (void *)old, olen, prot | PROT_READ);
	for (size_t done = 0; done < olen; done += LX_CHUNK) {
		if (ua_copy_from_user(buf, (void *)(old + done), LX_CHUNK) ||
		    ua_copy_to_user((void *)(dst + done), buf, LX_CHUNK)) {
			ua_unmap(t->sp, (void *)dst, nlen);
			return -EFAULT;
		}
	}
	ua_mprotect(t->sp, (void *)dst, nlen, prot);
	ua_unmap(t->sp, (void *)old, olen);
	return (long)dst;
}

static long sys_madvise(struct ua_task *t, struct ua_pt_regs *r)
{
	uintptr_t addr = ARG1(r);
	size_t len = ua__page_up(ARG2(r));
	int advice = (int)ARG3(r);

	if (!page_aligned(addr))
		return -EINVAL;
	if (!in_space(t->sp, addr, len))
		return -ENOMEM;
	/* Private anonymous pages read back as zeroes: the host does it. */
	if (advice == MADV_DONTNEED || advice == MADV_FREE)
		return madvise((void *)addr, len, MADV_DONTNEED) ? -errno : 0;
	return 0;
}

/*
 * The heap grows into a range reserved right after the program (mapped
 * PROT_NONE, so that mmap() without an address never lands there).
 */
static long sys_brk(struct ua_task *t, struct ua_pt_regs *r)
{
	struct lx_proc *p = lx_proc(t);
	uintptr_t want = ARG1(r), top;

	if (!p->brk_start || want < p->brk_start ||
	    want > p->brk_start + LX_BRK_MAX)
		return (long)p->brk_cur;
	top = ua__page_up(want);
	if (top > p->brk_mapped) {
		ua_unmap(t->sp, (void *)p->brk_mapped, top - p->brk_mapped);
		if (!ua_map(t->sp, (void *)p->brk_mapped, top - p->brk_mapped,
			    PROT_READ | PROT_WRITE)) {
			ua_map(t->sp, (void *)p->brk_mapped,
			       top - p->brk_mapped, PROT_NONE);
			return (long)p->brk_cur;
		}
	} else if (top < p->brk_mapped) {
		ua_unmap(t->sp, (void *)top, p->brk_mapped - top);
		ua_map(t->sp, (void *)top, p->brk_mapped - top, PROT_NONE);
	}
	p->brk_mapped = top;
	p->brk_cur = want;
	return (long)want;
}

/* Set the break up at load time: start, and the reserved range after it. */
UA_HIDDEN int ua__lx_brk_init(struct ua_task *t, uintptr_t start);
int ua__lx_brk_init(struct ua_task *t, uintptr_t start)
{
	struct lx_proc *p = lx_proc(t);

	start = ua__page_up(start);
	if (!in_space(t->sp, start, LX_BRK_MAX) ||
	    !ua_map(t->sp, (void *)start, LX_BRK_MAX, PROT_NONE))
		return -ENOMEM;
	p->brk_start = p->brk_cur = p->brk_mapped = start;
	return 0;
}

static const struct lx_call calls[] = {
	{ SYS_brk, "brk", sys_brk, "p" },
	{ SYS_mmap, "mmap", sys_mmap, "puxxfx" },
	{ SYS_munmap, "munmap", sys_munmap, "pu" },
	{ SYS_mprotect, "mprotect", sys_mprotect, "pux" },
	{ SYS_mremap, "mremap", sys_mremap, "puuxp" },
	{ SYS_madvise, "madvise", sys_madvise, "pud" },
};

void ua__lx_mm_init(void)
{
	LX_REGISTER(calls);
}

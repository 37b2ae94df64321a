// SPDX-License-Identifier: MIT
/*
 * Memory calls, all inside the task's space (mm/mmap.c, mm/mprotect.c,
 * mm/mremap.c, mm/madvise.c).  File-backed maps are private copies of
 * regular files: read through the monitor into fresh pages, which is what
 * MAP_PRIVATE shows a process that does not race writers of the file.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux_internal.h"


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
	char *buf = lx_iobuf(t);
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

/* The heap's reserve above the break: no address space yet. */
static size_t brk_reserve(const struct lx_proc *p)
{
	return p->brk_start ? p->brk_start + LX_BRK_MAX - p->brk_mapped : 0;
}

/*
 * may_expand_vm() for RLIMIT_AS (mm/mmap.c): may len more bytes be
 * mapped?  The space's mappings are the process's address space.
 */
static bool may_expand(struct ua_task *t, size_t len)
{
	struct lx_proc *p = lx_proc(t);
	uint64_t lim = p->rlim[RLIMIT_AS].cur;
	size_t vm;

	if (lim == LX_RLIM_INFINITY)
		return true;
	vm = ua__space_mapped(t->sp) - brk_reserve(p);
	return (vm + len) / ua__pagesz <= lim / ua__pagesz;
}

static long do_map(struct ua_task *t, uintptr_t addr, size_t len, int prot,
		   int flags)
{
	struct ua_space *sp = t->sp;
	void *p;

	if (!may_expand(t, len))
		return -ENOMEM;
	if (flags & MAP_FIXED) {
		if (!page_aligned(addr) || !in_space(sp, addr, len))
			return -ENOMEM;
		ua__patch_forget(t, addr, len);
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

/*
 * For /proc/<pid>/maps (vma_names.c): a new anonymous range drops what
 * was recorded there; shared anonymous memory the kernel names
 * "/dev/zero (deleted)" (shmem_zero_setup()), and shows it shared.
 */
static void name_anon(struct ua_task *t, uintptr_t addr, size_t len,
		      bool shared)
{
	struct lx_vname v = { .start = addr, .end = addr + len,
			      .shared = shared };

	if (shared)
		ua__lx_names_set(lx_proc(t), &v);
	else
		ua__lx_names_punch(lx_proc(t), addr, addr + len);
}

/* A range filled from host_fd: its file, as the host names it. */
static void name_file(struct ua_task *t, uintptr_t addr, size_t len,
		      int host_fd, const struct stat *st, off_t off,
		      bool shared)
{
	struct lx_vname v = { .start = addr, .end = addr + len,
			      .off = (uint64_t)off, .dev = st->st_dev,
			      .ino = st->st_ino, .shared = shared };
	char self[32], path[PATH_MAX];
	ssize_t n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", host_fd);
	n = readlink(self, path, sizeof(path) - 1);
	if (n <= 0) {
		ua__lx_names_punch(lx_proc(t), addr, addr + len);
		return;
	}
	path[n] = 0;
	v.path = path;
	ua__lx_names_set(lx_proc(t), &v);
}

/*
 * Shared anonymous memory (and a shared map of /dev/zero): the host's own
 * shared mapping at the place do_map() finds, so that a forked child
 * shares it as the kernel's shmem_zero_setup() pages are shared.
 */
static long map_shared_anon(struct ua_task *t, uintptr_t addr, size_t len,
			    int prot, int flags)
{
	long ret = do_map(t, addr, len, PROT_NONE, flags), err;

	if (ret < 0)
		return ret;
	ua_unmap(t->sp, (void *)ret, len);
	err = ua__map_file(t->sp, (uintptr_t)ret, len, prot,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (err) {
		ua__lx_names_punch(lx_proc(t), (uintptr_t)ret,
				   (uintptr_t)ret + len);
		return err;
	}
	name_anon(t, (uintptr_t)ret, len, true);
	return ret;
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
		}
	}
	if (!f && type == MAP_PRIVATE) {
		ret = do_map(t, addr, len, prot, flags);
		if (ret >= 0)
			name_anon(t, (uintptr_t)ret, len, false);
		return ret;
	}
	if (!f)
		return map_shared_anon(t, addr, len, prot, flags);
	/*
	 * The place as for anonymous memory, then the host's own map of
	 * the file there: copy-on-write pages of the page cache (private)
	 * or the page cache itself (shared), read as the program touches
	 * them, as the kernel maps files; the host checks the descriptor's
	 * access mode against prot and type as the kernel would.
	 */
	ret = do_map(t, addr, len, PROT_NONE, flags);
	if (ret < 0)
		return ret;
	ua_unmap(t->sp, (void *)ret, len);
	long err = ua__map_file(t->sp, (uintptr_t)ret, len, prot,
				type == MAP_PRIVATE ? MAP_PRIVATE : MAP_SHARED,
				f->host, off);

	if (err) {
		ua__lx_names_punch(lx_proc(t), (uintptr_t)ret,
				   (uintptr_t)ret + len);
		return err;
	}
	name_file(t, (uintptr_t)ret, len, f->host, &st, off,
		  type != MAP_PRIVATE);
	/* A library, mapped by the dynamic loader: its sites may be patched. */
	if (prot & PROT_EXEC)
		ua__lx_code_map(t, f->host, (uint64_t)st.st_size, (uint64_t)off,
				len, (uint64_t)ret);
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
	ua__patch_forget(t, addr, len);
	ua__lx_names_punch(lx_proc(t), addr, addr + len);
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
	/* Code made writable may change: the patch trap sweeps it again. */
	if (prot & PROT_WRITE)
		ua__patch_forget(t, addr, len);
	ret = ua_mprotect(t->sp, (void *)addr, len, prot);
	return ret == -ERANGE ? -ENOMEM : ret;
}

/* One mremap() as mm/mremap.c's struct vma_remap_struct describes it. */
struct remap {
	uintptr_t addr, new_addr;
	size_t old_len, new_len;
	int flags;
	int prot; /* of the vma at addr */
	uintptr_t vm_start, vm_end;
};

/*
 * vma_lookup(): the vma at rm->addr.  The heap's reserve above the break
 * is a placeholder, not a mapping the kernel would have.
 */
static bool find_vma(struct ua_task *t, struct remap *rm)
{
	struct lx_proc *p = lx_proc(t);
	uintptr_t a = rm->addr;

	if (!in_space(t->sp, a, 1))
		return false;
	if (p->brk_start && a >= p->brk_mapped && a < p->brk_start + LX_BRK_MAX)
		return false;
	rm->prot = ua__space_vma(t->sp, a, &rm->vm_start, &rm->vm_end);
	if (rm->prot < 0)
		return false;
	if (p->brk_start && rm->vm_start < p->brk_mapped &&
	    rm->vm_end > p->brk_mapped)
		rm->vm_end = p->brk_mapped;
	return true;
}

/* check_mremap_params(), before the lengths are page-aligned. */
static long check_params(const struct remap *rm)
{
	if (rm->flags & ~(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
		return -EINVAL;
	if (!page_aligned(rm->addr) || !ua__page_up(rm->new_len))
		return -EINVAL;
	if (!(rm->flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)))
		return 0;
	if (!page_aligned(rm->new_addr) || !(rm->flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if ((rm->flags & MREMAP_DONTUNMAP) && rm->old_len != rm->new_len)
		return -EINVAL;
	return 0;
}

/* remap_is_valid(): every mapping here is private and anonymous. */
static long remap_is_valid(struct ua_task *t, const struct remap *rm)
{
	if (!rm->old_len)
		return -EINVAL; /* "duplicating" a private mapping */
	if (rm->old_len > rm->vm_end - rm->addr)
		return -EFAULT; /* across vma boundaries */
	if (rm->new_len > rm->old_len &&
	    !may_expand(t, rm->new_len - rm->old_len))
		return -ENOMEM;
	return 0;
}

/*
 * Fresh writable pages for the move: at new_addr for MREMAP_FIXED, near
 * it when it is only a hint (MREMAP_DONTUNMAP), anywhere otherwise.
 */
static uintptr_t new_area(struct ua_task *t, const struct remap *rm)
{
	void *hint = (void *)rm->new_addr, *p = NULL;

	if (rm->flags & MREMAP_FIXED)
		return (uintptr_t)ua_map(t->sp, hint, rm->new_len,
					 PROT_READ | PROT_WRITE);
	if ((rm->flags & MREMAP_DONTUNMAP) && rm->new_addr &&
	    in_space(t->sp, rm->new_addr, rm->new_len))
		p = ua_map(t->sp, hint, rm->new_len, PROT_READ | PROT_WRITE);
	if (!p)
		p = ua_map(t->sp, NULL, rm->new_len, PROT_READ | PROT_WRITE);
	return (uintptr_t)p;
}

/*
 * Copy len bytes from src to dst through the accessors, the only way the
 * monitor sees guest pages.  A range the guest cannot read is made
 * readable for the copy: the kernel moves page tables whatever their
 * protection.
 */
static long copy_range(struct ua_task *t, uintptr_t dst, uintptr_t src,
		       size_t len, int prot)
{
	char *buf = lx_iobuf(t);
	bool unreadable = !(prot & PROT_READ);
	long err = 0;

	if (unreadable &&
	    ua_mprotect(t->sp, (void *)src, len, prot | PROT_READ))
		return -ENOMEM;
	for (size_t done = 0, n; done < len; done += n) {
		n = len - done < LX_CHUNK ? len - done : LX_CHUNK;
		if (ua_copy_from_user(buf, (void *)(src + done), n) ||
		    ua_copy_to_user((void *)(dst + done), buf, n)) {
			err = -EFAULT;
			break;
		}
	}
	if (unreadable)
		ua_mprotect(t->sp, (void *)src, len, prot);
	return err;
}

/*
 * move_vma(): the contents to the new area, which takes the old one's
 * protection.  The old range goes, or with MREMAP_DONTUNMAP stays mapped
 * with nothing in it: its pages moved, a read faults in fresh zeroes
 * (dontunmap_complete()), which MADV_DONTNEED gives a private anonymous
 * host mapping.
 */
static long move_vma(struct ua_task *t, struct remap *rm)
{
	uintptr_t dst = new_area(t, rm);
	long err;

	if (!dst)
		return -ENOMEM;
	err = copy_range(t, dst, rm->addr, rm->old_len, rm->prot);
	if (!err)
		err = ua_mprotect(t->sp, (void *)dst, rm->new_len, rm->prot);
	if (err) {
		ua_unmap(t->sp, (void *)dst, rm->new_len);
		return err;
	}
	ua__lx_names_move(lx_proc(t), rm->addr, rm->old_len, dst,
			  rm->new_len);
	if (rm->flags & MREMAP_DONTUNMAP)
		madvise((void *)rm->addr, rm->old_len, MADV_DONTNEED);
	else
		ua_unmap(t->sp, (void *)rm->addr, rm->old_len);
	return (long)dst;
}

/* mremap_to(): MREMAP_FIXED or MREMAP_DONTUNMAP, always a move. */
static long remap_to(struct ua_task *t, struct remap *rm)
{
	long err;

	if (rm->new_len > LX_TASK_SIZE_MAX ||
	    rm->new_addr > LX_TASK_SIZE_MAX - rm->new_len)
		return -EINVAL;
	if (rm->addr + rm->old_len > rm->new_addr &&
	    rm->new_addr + rm->new_len > rm->addr)
		return -EINVAL;
	if (rm->flags & MREMAP_FIXED) {
		/* The space is the whole address space the guest has. */
		if (!in_space(t->sp, rm->new_addr, rm->new_len))
			return -EINVAL;
		ua_unmap(t->sp, (void *)rm->new_addr, rm->new_len);
		if (!find_vma(t, rm))
			return -EFAULT;
	}
	if (rm->old_len > rm->new_len) {
		ua_unmap(t->sp, (void *)(rm->addr + rm->new_len),
			 rm->old_len - rm->new_len);
		rm->old_len = rm->new_len;
		if (!find_vma(t, rm))
			return -EFAULT;
	}
	err = remap_is_valid(t, rm);
	if (err)
		return err;
	/* The old range stays: the new one is all extra address space. */
	if ((rm->flags & MREMAP_DONTUNMAP) && !may_expand(t, rm->old_len))
		return -ENOMEM;
	return move_vma(t, rm);
}

/* mremap_at(): resize in place, else move with MREMAP_MAYMOVE. */
static long remap_at(struct ua_task *t, struct remap *rm)
{
	size_t delta = rm->new_len - rm->old_len;
	uintptr_t end = rm->addr + rm->old_len;
	long err;

	if (rm->new_len == rm->old_len)
		return (long)rm->addr;
	if (rm->new_len < rm->old_len) {
		ua_unmap(t->sp, (void *)(rm->addr + rm->new_len),
			 rm->old_len - rm->new_len);
		return (long)rm->addr;
	}
	err = remap_is_valid(t, rm);
	if (err)
		return err;
	/* vrm_can_expand_in_place(): the range ends where its vma does. */
	if (end == rm->vm_end && in_space(t->sp, end, delta) &&
	    ua_map(t->sp, (void *)end, delta, rm->prot))
		return (long)rm->addr;
	if (!(rm->flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	return move_vma(t, rm);
}

static long sys_mremap(struct ua_task *t, struct ua_pt_regs *r)
{
	struct remap rm = {
		.addr = ARG1(r),
		.old_len = ARG2(r),
		.new_len = ARG3(r),
		.flags = (int)ARG4(r),
		.new_addr = ARG5(r),
	};
	long err = check_params(&rm);

	if (err)
		return err;
	rm.old_len = ua__page_up(rm.old_len);
	rm.new_len = ua__page_up(rm.new_len);
	if (!find_vma(t, &rm))
		return -EFAULT;
	ua__patch_forget(t, rm.addr, rm.old_len);
	if (rm.flags & MREMAP_FIXED)
		ua__patch_forget(t, rm.new_addr, rm.new_len);
	if (rm.flags & (MREMAP_FIXED | MREMAP_DONTUNMAP))
		return remap_to(t, &rm);
	return remap_at(t, &rm);
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
	/* check_data_rlimit(): the heap is the data the loader did not map. */
	if (p->rlim[RLIMIT_DATA].cur != LX_RLIM_INFINITY &&
	    want - p->brk_start > p->rlim[RLIMIT_DATA].cur)
		return (long)p->brk_cur;
	top = ua__page_up(want);
	if (top > p->brk_mapped && !may_expand(t, top - p->brk_mapped))
		return (long)p->brk_cur;
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

/*
 * get_mempolicy(): the host's answer about the monitor process, which
 * the guest is, into the monitor's buffers first.  The mask is as many
 * bytes as maxnode bits round up to in longs (copy_nodes_to_user()),
 * refused by the host past a page before it writes any.
 */
static long sys_get_mempolicy(struct ua_task *t, struct ua_pt_regs *r)
{
	uint64_t maxnode = ARG3(r);
	size_t bytes = maxnode ? (maxnode - 1 + 63) / 64 * 8 : 0;
	unsigned long *mask = NULL;
	int mode = 0;
	long ret;

	(void)t;
	if (ARG2(r) && bytes > ua__pagesz)
		bytes = ua__pagesz + 8; /* EINVAL from the host, unwritten */
	if (ARG2(r) && bytes && !(mask = calloc(1, bytes)))
		return -ENOMEM;
	ret = syscall(SYS_get_mempolicy, ARG1(r) ? &mode : NULL,
		      ARG2(r) ? mask : NULL, maxnode, ARG4(r), ARG5(r));
	ret = ret ? -errno : 0;
	if (!ret && ARG1(r) && ua_put_user(mode, (int *)ARG1(r)))
		ret = -EFAULT;
	if (!ret && mask && ua_copy_to_user((void *)ARG2(r), mask, bytes))
		ret = -EFAULT;
	free(mask);
	return ret;
}

/*
 * set_mempolicy(): the host's, for the thread that runs the task, with
 * the guest's mask copied in as get_nodes() reads it (maxnode - 1 bits
 * in longs; past a page of them the host refuses before reading).
 */
static long sys_set_mempolicy(struct ua_task *t, struct ua_pt_regs *r)
{
	uint64_t maxnode = ARG3(r);
	size_t bytes = maxnode > 1 ? (maxnode - 1 + 63) / 64 * 8 : 0;
	unsigned long *mask = NULL;
	long ret;

	(void)t;
	if (bytes > ua__pagesz)
		bytes = 0;
	if (ARG2(r) && bytes) {
		mask = malloc(bytes);
		if (!mask)
			return -ENOMEM;
		if (ua_copy_from_user(mask, (const void *)ARG2(r), bytes)) {
			free(mask);
			return -EFAULT;
		}
	}
	ret = syscall(SYS_set_mempolicy, (int)ARG1(r),
		      mask ? mask : (void *)ARG2(r), maxnode);
	free(mask);
	return ret ? -errno : 0;
}

static const struct lx_call calls[] = {
	{ SYS_set_mempolicy, "set_mempolicy", sys_set_mempolicy, "dpu" },
	{ SYS_get_mempolicy, "get_mempolicy", sys_get_mempolicy, "ppupx" },
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

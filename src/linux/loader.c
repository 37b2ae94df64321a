// SPDX-License-Identifier: MIT
/*
 * The ELF loader for static and static-pie x86-64 programs, after the
 * kernel's fs/binfmt_elf.c: check the headers, map each PT_LOAD segment
 * with its protection (its file bytes copied in, the rest zero), then the
 * initial stack: argc, argv, envp and the auxiliary vector.  Everything
 * written into the space goes through the accessors.  A file that is not
 * such a program is refused with a reason, never loaded half-way.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux_internal.h"

#define LX_STACK_SIZE ((size_t)8 << 20)
#define LX_MAX_PHNUM 64
/* Where a static-pie program goes: this far into its space. */
#define LX_PIE_OFFSET ((uintptr_t)1 << 20)
#define LX_MAX_ALIGN ((uintptr_t)2 << 20)

UA_HIDDEN int ua__lx_brk_init(struct ua_task *t, uintptr_t start);

struct elf_image {
	int fd;
	off_t size;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[LX_MAX_PHNUM];
	uintptr_t lo, hi;   /* page range of the segments (link addresses) */
	uintptr_t align;
	uintptr_t bias;
	uintptr_t phdr;     /* link address of the program headers */
	const Elf64_Phdr *interp; /* PT_INTERP, or NULL */
	bool quiet;         /* refusals without the message */
};

static int refuse(const struct elf_image *im, const char *path,
		  const char *why, int err)
{
	char buf[2 * PATH_MAX + 128];

	if (im->quiet)
		return -err;
	snprintf(buf, sizeof(buf), "uaccess: cannot run %s: %s\n", path, why);
	ua__write_str(2, buf);
	return -err;
}

static int check_phdrs(struct elf_image *im, const char *path)
{
	const Elf64_Ehdr *eh = &im->eh;
	bool have_load = false;

	im->lo = UINTPTR_MAX;
	im->hi = 0;
	im->align = ua__pagesz;
	im->phdr = 0;
	im->interp = NULL;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];

		/* load_elf_binary(): a NUL-terminated path of 2..PATH_MAX. */
		if (p->p_type == PT_INTERP) {
			if (p->p_filesz < 2 || p->p_filesz > PATH_MAX ||
			    p->p_offset > (uint64_t)im->size ||
			    p->p_filesz > (uint64_t)im->size - p->p_offset)
				return refuse(im, path, "a bad interpreter "
						    "path (PT_INTERP)",
					      ENOEXEC);
			im->interp = p;
		}
		if (p->p_type == PT_PHDR)
			im->phdr = p->p_vaddr;
		if (p->p_type != PT_LOAD)
			continue;
		have_load = true;
		if (p->p_filesz > p->p_memsz ||
		    p->p_offset > (uint64_t)im->size ||
		    p->p_filesz > (uint64_t)im->size - p->p_offset)
			return refuse(im, path, "a segment lies outside the file "
					    "(truncated or inconsistent "
					    "headers)", ENOEXEC);
		if ((p->p_vaddr - p->p_offset) & (ua__pagesz - 1))
			return refuse(im, path, "a segment is not page-aligned "
					    "with its file offset", ENOEXEC);
		if (p->p_vaddr + p->p_memsz < p->p_vaddr ||
		    p->p_vaddr + p->p_memsz > ((uint64_t)1 << 47))
			return refuse(im, path, "a segment does not fit in the "
					    "address space", ENOEXEC);
		if (p->p_vaddr < im->lo)
			im->lo = p->p_vaddr & ~(uint64_t)(ua__pagesz - 1);
		if (p->p_vaddr + p->p_memsz > im->hi)
			im->hi = ua__page_up(p->p_vaddr + p->p_memsz);
		if (p->p_align > im->align && p->p_align <= LX_MAX_ALIGN &&
		    !(p->p_align & (p->p_align - 1)))
			im->align = p->p_align;
		if (!im->phdr && eh->e_phoff >= p->p_offset &&
		    eh->e_phoff - p->p_offset < p->p_filesz)
			im->phdr = p->p_vaddr + (eh->e_phoff - p->p_offset);
	}
	if (!have_load)
		return refuse(im, path, "no loadable segment", ENOEXEC);
	return 0;
}

static int read_image(struct elf_image *im, const char *path)
{
	const Elf64_Ehdr *eh = &im->eh;
	struct stat st;

	if (fstat(im->fd, &st))
		return refuse(im, path, strerror(errno), errno);
	if (S_ISDIR(st.st_mode))
		return refuse(im, path, "is a directory", EISDIR);
	if (!S_ISREG(st.st_mode))
		return refuse(im, path, "not a regular file", EACCES);
	im->size = st.st_size;
	if (!ua__lx_pread_full(im->fd, &im->eh, 4, 0) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return refuse(im, path, "not an ELF file", ENOEXEC);
	if (!ua__lx_pread_full(im->fd, &im->eh, sizeof(im->eh), 0))
		return refuse(im, path, "truncated ELF header", ENOEXEC);
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64)
		return refuse(im, path, "built for another architecture (only "
				    "x86-64 ELF64 programs run)", ENOEXEC);
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return refuse(im, path, "not an executable (ELF type)", ENOEXEC);
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || !eh->e_phnum ||
	    eh->e_phnum > LX_MAX_PHNUM)
		return refuse(im, path, "inconsistent program header table",
			      ENOEXEC);
	if (eh->e_phoff > (uint64_t)im->size ||
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) >
		    (uint64_t)im->size - eh->e_phoff ||
	    !ua__lx_pread_full(im->fd, im->ph, eh->e_phnum * sizeof(Elf64_Phdr),
			       eh->e_phoff))
		return refuse(im, path, "truncated program header table",
			      ENOEXEC);
	return check_phdrs(im, path);
}

static int open_image(struct elf_image *im, const char *path)
{
	int err;

	im->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (im->fd < 0) {
		err = errno;
		return refuse(im, path, strerror(err), err);
	}
	err = read_image(im, path);
	if (err) {
		close(im->fd);
		im->fd = -1;
	}
	return err;
}

unsigned long ua_exec_space_addr(const char *path)
{
	struct elf_image im;
	int fd = ua__lx_script_target(path);
	unsigned long addr = 0;

	/* A script's program is its interpreter's. */
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	im.fd = fd;
	/* Quietly: the refusal with its reason comes from ua_task_exec(). */
	im.quiet = true;
	if (!read_image(&im, path) && im.eh.e_type == ET_EXEC)
		addr = im.lo;
	close(fd);
	return addr;
}

static int prot_of(uint32_t flags)
{
	return (flags & PF_R ? PROT_READ : 0) |
	       (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

/*
 * /proc/<pid>/maps names each segment's pages that come from the file
 * after the file (binfmt_elf maps [page start, page_up(p_filesz end))
 * of it; the rest of p_memsz is anonymous).  Best effort: a name that
 * cannot be recorded leaves the range anonymous there.
 */
static void name_segments(struct ua_task *t, const struct elf_image *im,
			  const char *path)
{
	struct lx_vname v = { 0 };
	struct stat st;
	char self[32], file[PATH_MAX];
	ssize_t n;

	if (!fstat(im->fd, &st)) {
		v.dev = st.st_dev;
		v.ino = st.st_ino;
	}
	/* The file opened, as the kernel's d_path() names it. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", im->fd);
	n = readlink(self, file, sizeof(file) - 1);
	file[n > 0 ? n : 0] = 0;
	v.path = n > 0 ? file : (char *)path;
	for (int i = 0; i < im->eh.e_phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];
		uintptr_t at = p->p_vaddr + im->bias;

		if (p->p_type != PT_LOAD || !p->p_filesz)
			continue;
		v.start = at & ~(uintptr_t)(ua__pagesz - 1);
		v.end = ua__page_up(at + p->p_filesz);
		v.off = p->p_offset - (at - v.start);
		ua__lx_names_set(lx_proc(t), &v);
	}
}

/*
 * Can each PT_LOAD be a map of the file, as binfmt_elf maps it?  Its
 * offset and address must agree within a page, and no two segments may
 * share a page (the copying loader below handles that layout).
 */
static bool file_mappable(const struct elf_image *im)
{
	uintptr_t prev_end = 0;

	for (int i = 0; i < im->eh.e_phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];
		uintptr_t start = p->p_vaddr & ~(uintptr_t)(ua__pagesz - 1);

		if (p->p_type != PT_LOAD || !p->p_memsz)
			continue;
		if ((p->p_vaddr ^ p->p_offset) & (ua__pagesz - 1) ||
		    start < prev_end)
			return false;
		prev_end = ua__page_up(p->p_vaddr + p->p_memsz);
	}
	return true;
}

/*
 * One PT_LOAD as elf_map() and the bss set-up make it: the file's pages
 * (copy-on-write, read as touched), the rest of the last file page
 * zeroed (padzero()), anonymous zero pages for the rest of p_memsz.
 * Writable until the caller gives it its protection.
 */
static int map_segment_file(struct ua_task *t, const struct elf_image *im,
			    const Elf64_Phdr *p)
{
	uintptr_t at = p->p_vaddr + im->bias;
	uintptr_t start = at & ~(uintptr_t)(ua__pagesz - 1);
	uintptr_t fend = ua__page_up(at + p->p_filesz);
	uintptr_t end = ua__page_up(at + p->p_memsz);
	int rw = PROT_READ | PROT_WRITE;

	if (fend > start &&
	    ua__map_file(t->sp, start, fend - start, rw, MAP_PRIVATE, im->fd,
			 (off_t)(p->p_offset - (at - start))))
		return -1;
	if (p->p_memsz > p->p_filesz && fend > at + p->p_filesz &&
	    ua_clear_user((void *)(at + p->p_filesz),
			  fend - (at + p->p_filesz)))
		return -1;
	if (end > fend && !ua_map(t->sp, (void *)fend, end - fend, rw))
		return -1;
	return 0;
}

/* Map every PT_LOAD writable, fill it, then give each its protection. */
static int map_segments(struct ua_task *t, struct elf_image *im,
			const char *path, uintptr_t at)
{
	struct ua_space *sp = t->sp;
	uintptr_t mapped_to = 0;
	bool by_file = file_mappable(im);

	if (im->eh.e_type == ET_DYN) {
		if (!at)
			at = sp->base + LX_PIE_OFFSET;
		at = (at + im->align - 1) & ~(im->align - 1);
		im->bias = at - im->lo;
	}
	if (im->lo + im->bias < sp->base || im->hi + im->bias > sp->limit ||
	    im->hi - im->lo > sp->size)
		return refuse(im, path, "a segment lies outside the space",
			      ERANGE);
	for (int i = 0; i < im->eh.e_phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];
		uintptr_t start, end;

		if (p->p_type != PT_LOAD || !p->p_memsz)
			continue;
		if (by_file) {
			if (map_segment_file(t, im, p))
				return refuse(im, path, "cannot map a segment",
					      EIO);
			continue;
		}
		start = (p->p_vaddr + im->bias) & ~(uintptr_t)(ua__pagesz - 1);
		end = ua__page_up(p->p_vaddr + im->bias + p->p_memsz);
		/* Segments may share a page with the previous one. */
		if (start < mapped_to)
			start = mapped_to;
		if (start < end && !ua_map(sp, (void *)start, end - start,
					   PROT_READ | PROT_WRITE))
			return refuse(im, path, "segments overlap or do not fit "
					    "in the space", ERANGE);
		if (end > mapped_to)
			mapped_to = end;
		if (ua__lx_map_file(t, p->p_vaddr + im->bias, 0,
				    PROT_READ | PROT_WRITE, im->fd,
				    (off_t)p->p_offset, p->p_filesz))
			return refuse(im, path, "cannot read a segment", EIO);
	}
	for (int i = 0; i < im->eh.e_phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];
		uintptr_t start;

		if (p->p_type != PT_LOAD || !p->p_memsz)
			continue;
		start = (p->p_vaddr + im->bias) & ~(uintptr_t)(ua__pagesz - 1);
		ua_mprotect(sp, (void *)start,
			    ua__page_up(p->p_vaddr + im->bias + p->p_memsz) -
				    start,
			    prot_of(p->p_flags));
	}
	name_segments(t, im, path);
	return 0;
}

/* The initial stack, written top-down the way create_elf_tables() does. */
struct stack_builder {
	uintptr_t sp;
	bool fault;
};

static uintptr_t push_bytes(struct stack_builder *b, const void *data,
			    size_t n)
{
	b->sp -= n;
	if (ua_copy_to_user((void *)b->sp, data, n))
		b->fault = true;
	return b->sp;
}

static size_t count_strings(char *const v[])
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/*
 * The kernel's AT_HWCAP for this machine (on x86, CPUID 1's EDX as the
 * kernel kept it).  The C library's getauxval() does not give it: glibc
 * on x86-64 answers AT_HWCAP with its own HWCAP_X86_64 bits
 * (init_cpu_features(), sysdeps/x86/cpu-features.c), so the host's
 * vector is read as the kernel wrote it.  getauxval()'s answer only if
 * that cannot be read.
 */
static uint64_t host_hwcap(void)
{
	static uint64_t hwcap;
	uint64_t v[2];
	int fd;

	if (hwcap)
		return hwcap;
	fd = open("/proc/self/auxv", O_RDONLY | O_CLOEXEC);
	while (fd >= 0 && read(fd, v, sizeof(v)) == sizeof(v) && v[0]) {
		if (v[0] == AT_HWCAP) {
			hwcap = v[1];
			break;
		}
	}
	if (fd >= 0)
		close(fd);
	if (!hwcap)
		hwcap = getauxval(AT_HWCAP);
	return hwcap;
}

/*
 * What the kernel keeps in the mm for /proc/<pid>/cmdline, environ and
 * auxv (create_elf_tables(), fs/binfmt_elf.c): the argument strings
 * first, the environment's right after them, the file name above both.
 */
static void record_strings(struct lx_proc *p, uintptr_t args, uintptr_t envs,
			   uintptr_t execfn, const uint64_t *auxv, size_t words)
{
	p->env_start = envs ? envs : execfn;
	p->env_end = execfn;
	p->arg_start = args ? args : p->env_start;
	p->arg_end = p->env_start;
	if (words > LX_AUXV_WORDS)
		words = 0;
	memcpy(p->auxv, auxv, words * 8);
	p->auxv_words = words;
}

static int build_stack(struct ua_task *t, struct elf_image *im,
		       const struct elf_image *in, const char *execfn_str,
		       char *const argv[], char *const envp[])
{
	struct stack_builder b = { .sp = (uintptr_t)t->stack + t->stack_size };
	size_t argc = count_strings(argv), envc = count_strings(envp);
	uintptr_t *ptrs, execfn, platform, random;
	unsigned char rnd[16];
	size_t n = 0, words;
	int err = 0;

	/* Strings first, at the top: the file name, then argv and envp. */
	execfn = push_bytes(&b, execfn_str, strlen(execfn_str) + 1);
	ptrs = calloc(argc + envc + 2, sizeof(*ptrs));
	if (!ptrs)
		return -ENOMEM;
	for (size_t i = envc; i-- > 0;)
		ptrs[argc + 1 + i] = push_bytes(&b, envp[i],
						strlen(envp[i]) + 1);
	for (size_t i = argc; i-- > 0;)
		ptrs[i] = push_bytes(&b, argv[i], strlen(argv[i]) + 1);
	platform = push_bytes(&b, "x86_64", 7);
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		memset(rnd, 0x5a, sizeof(rnd));
	b.sp &= ~(uintptr_t)15;
	random = push_bytes(&b, rnd, sizeof(rnd));

	uint64_t auxv[] = {
		AT_PHDR, im->phdr + im->bias,
		AT_PHENT, sizeof(Elf64_Phdr),
		AT_PHNUM, im->eh.e_phnum,
		AT_PAGESZ, ua__pagesz,
		AT_BASE, in ? in->lo + in->bias : 0,
		AT_FLAGS, 0,
		AT_ENTRY, im->eh.e_entry + im->bias,
		AT_UID, getuid(),
		AT_EUID, geteuid(),
		AT_GID, getgid(),
		AT_EGID, getegid(),
		AT_SECURE, 0,
		AT_HWCAP, host_hwcap(),
		AT_HWCAP2, getauxval(AT_HWCAP2),
		AT_CLKTCK, (uint64_t)sysconf(_SC_CLK_TCK),
		AT_PLATFORM, platform,
		AT_RANDOM, random,
		AT_EXECFN, execfn,
		AT_MINSIGSTKSZ, getauxval(AT_MINSIGSTKSZ),
		AT_NULL, 0,
	};
	/* argc, argv + NULL, envp + NULL, auxv: rsp 16-aligned at argc. */
	words = 1 + argc + 1 + envc + 1 + sizeof(auxv) / 8;
	b.sp -= (words * 8) & 15 ? 8 : 0;
	push_bytes(&b, auxv, sizeof(auxv));
	record_strings(lx_proc(t), argc ? ptrs[0] : 0, envc ? ptrs[argc + 1] : 0,
		       execfn, auxv, sizeof(auxv) / 8);
	uint64_t *vec = calloc(words - sizeof(auxv) / 8, 8);

	if (!vec) {
		free(ptrs);
		return -ENOMEM;
	}
	vec[n++] = argc;
	for (size_t i = 0; i < argc; i++)
		vec[n++] = ptrs[i];
	vec[n++] = 0;
	for (size_t i = 0; i < envc; i++)
		vec[n++] = ptrs[argc + 1 + i];
	vec[n++] = 0;
	push_bytes(&b, vec, n * 8);
	free(vec);
	free(ptrs);
	if (b.fault || b.sp < (uintptr_t)t->stack + ua__pagesz)
		err = refuse(im, execfn_str, "arguments and environment do not fit on "
				   "the stack", E2BIG);
	memset(&t->regs, 0, sizeof(t->regs));
	t->regs.rip = in ? in->eh.e_entry + in->bias :
			   im->eh.e_entry + im->bias;
	t->regs.rsp = b.sp;
	lx_proc(t)->start_stack = b.sp; /* where argc is: bprm->p */
	t->regs.eflags = 0x202;
	t->regs.orig_rax = (uint64_t)-1;
	return err;
}

struct lx_proc *ua__lx_proc_new(const char *execfn)
{
	struct lx_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->trace_fd = -1;
	p->first.iobuf = malloc(LX_CHUNK);
	if (!p->first.iobuf) {
		free(p);
		return NULL;
	}
	ua__lx_proc_threads_init(p);
	ua__lx_procfs_dev_init();
	ua__lx_files_init(p);
	ua__lx_rlimits_init(p);
	snprintf(p->execfn, sizeof(p->execfn), "%s", execfn);
	return p;
}

void ua__lx_free(struct ua_task *t)
{
	struct lx_proc *p = lx_proc(t);

	if (!p)
		return;
	t->lx = NULL;
	ua__lx_timer_stop(p);
	ua__lx_ptimers_stop(p);
	/* Threads that outlived the group's exit still use it: it stays. */
	if (ua__lx_proc_orphan(p, t))
		return;
	ua__lx_files_close(p);
	ua__lx_sigfd_free(p);
	ua__lx_names_free(p);
	ua__lx_proc_threads_free(p);
	free(p->first.iobuf);
	free(p);
}

/*
 * The code sections of the program and of its interpreter, for the
 * patch trap (code_map.c).  The trampolines' pages are reserved right
 * after the program, where the heap would otherwise start.
 */
static void code_segments(struct ua_task *t, const struct elf_image *im)
{
	for (size_t i = 0; i < im->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &im->ph[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			ua__lx_code_map(t, im->fd, (uint64_t)im->size,
					ph->p_offset, ph->p_filesz,
					ph->p_vaddr + im->bias);
	}
}

/*
 * The program's code and data bounds as load_elf_binary() keeps them
 * for /proc/<pid>/stat: the lowest start and highest file end of the
 * executable segments, the highest start and file end of any.
 */
static void record_bounds(struct lx_proc *p, const struct elf_image *im)
{
	uintptr_t sc = UINTPTR_MAX, ec = 0, sd = 0, ed = 0;

	for (size_t i = 0; i < im->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &im->ph[i];
		uintptr_t k = ph->p_vaddr, e = ph->p_vaddr + ph->p_filesz;

		if (ph->p_type != PT_LOAD)
			continue;
		if ((ph->p_flags & PF_X) && k < sc)
			sc = k;
		if ((ph->p_flags & PF_X) && e > ec)
			ec = e;
		if (k > sd)
			sd = k;
		if (e > ed)
			ed = e;
	}
	p->start_code = sc == UINTPTR_MAX ? 0 : sc + im->bias;
	p->end_code = ec + im->bias;
	p->start_data = sd + im->bias;
	p->end_data = ed + im->bias;
}

/* Never runs: the registers are set to the program's entry instead. */
static void no_entry(void *arg)
{
	(void)arg;
}

/*
 * The program's interpreter (PT_INTERP: glibc's or musl's dynamic
 * loader, itself a static-pie object), opened and checked as
 * load_elf_binary() does: a missing one is the open's error, anything
 * but an ELF shared object of this architecture ELIBBAD.
 */
static int open_interp(struct elf_image *im, struct elf_image *in,
		       const char *path)
{
	char name[PATH_MAX + 1];
	char why[PATH_MAX + 64];
	size_t n = im->interp->p_filesz;
	int err;

	memset(name, 0, sizeof(name));
	if (!ua__lx_pread_full(im->fd, name, n, im->interp->p_offset) ||
	    name[n - 1])
		return refuse(im, path, "a bad interpreter path (PT_INTERP)",
			      ENOEXEC);
	in->quiet = true;
	err = open_image(in, name);
	if (err == -ENOENT || err == -EACCES || err == -ENOTDIR ||
	    err == -ELOOP) {
		snprintf(why, sizeof(why), "its interpreter %s: %s", name,
			 strerror(-err));
		return refuse(im, path, why, -err);
	}
	if (!err && (in->eh.e_type != ET_DYN || in->interp)) {
		close(in->fd);
		in->fd = -1;
		err = -ELIBBAD;
	}
	if (err) {
		snprintf(why, sizeof(why), "its interpreter %s is not an "
			 "x86-64 ELF shared object", name);
		return refuse(im, path, why, ELIBBAD);
	}
	return 0;
}

/* The interpreter where mmap would put it: the first gap that holds it. */
static int map_interp(struct ua_task *t, struct elf_image *in,
		      const char *path)
{
	size_t span = in->hi - in->lo + in->align;
	void *at = ua_map(t->sp, NULL, span, PROT_NONE);

	if (!at)
		return refuse(in, path, "no room for the interpreter in the "
				    "space", ENOMEM);
	ua_unmap(t->sp, at, span);
	return map_segments(t, in, path, (uintptr_t)at);
}

/*
 * execve's look at the ELF file it would load (fd) and its interpreter:
 * 0 when ua_task_exec() would take them, else the kernel's own error,
 * quietly for the program's headers (ENOEXEC), with the reason on stderr
 * for its interpreter (ENOENT, ELIBBAD).
 */
int ua__lx_exec_check(int fd, const char *name)
{
	struct elf_image im = { .fd = fd, .quiet = true },
			 in = { .fd = -1 };
	int err = read_image(&im, name);

	if (!err && im.interp)
		err = open_interp(&im, &in, name);
	if (in.fd >= 0)
		close(in.fd);
	return err;
}

/*
 * Load path; the new image calls itself execfn (AT_EXECFN: the name it
 * was run by) and exe (/proc/self/exe: the file, an absolute path).
 */
struct ua_task *ua__lx_exec(struct ua_space *sp, const char *path,
			    const char *execfn, const char *exe,
			    char *const argv[], char *const envp[],
			    const struct ua_task_opts *opts)
{
	struct ua_task_opts o = opts ? *opts : (struct ua_task_opts){ 0 };
	struct elf_image im = { .fd = -1 }, in = { .fd = -1 };
	bool dyn;
	struct ua_space *prev;
	struct ua_task *t = NULL;
	struct lx_proc *p;
	int err;

	if (!sp || !path || !argv) {
		errno = EINVAL;
		return NULL;
	}
	err = open_image(&im, path);
	if (!err && im.interp)
		err = open_interp(&im, &in, path);
	if (err)
		goto fail;
	dyn = im.interp;
	o.trap_syscalls = true;
	if (!o.stack_size)
		o.stack_size = LX_STACK_SIZE;
	err = -ENOMEM;
	p = ua__lx_proc_new(exe);
	if (!p)
		goto fail;
	/*
	 * The program first, its heap after it, then the stack: a stack
	 * taken first would sit where an ET_EXEC program must go.
	 */
	prev = ua_space_use(sp);
	struct ua_task tmp = { .sp = sp, .lx = p };
	uintptr_t area = 0;

	/* A PIE's bias is known once its segments are placed. */
	err = map_segments(&tmp, &im, path, 0);
	if (!err)
		area = ua__page_up(im.hi + im.bias);
	if (!err && !ua_map(sp, (void *)area, UA_PATCH_AREA_SIZE, PROT_NONE))
		err = refuse(&im, path, "no room after the program in the "
				       "space", ENOMEM);
	p->patch_start = area;
	p->patch_end = area + UA_PATCH_AREA_SIZE;
	if (!err)
		err = ua__lx_brk_init(&tmp, area + UA_PATCH_AREA_SIZE);
	if (!err && dyn)
		err = map_interp(&tmp, &in, path);
	if (err) {
		ua_space_use(prev);
		ua__lx_names_free(p);
		ua__lx_proc_threads_free(p);
		free(p->first.iobuf);
		free(p);
		goto fail;
	}
	t = ua_task_create(sp, no_entry, NULL, &o);
	if (!t) {
		err = -errno;
		ua_space_use(prev);
		ua__lx_names_free(p);
		ua__lx_proc_threads_free(p);
		free(p->first.iobuf);
		free(p);
		goto fail;
	}
	t->lx = p;
	t->lx_free = ua__lx_free;
	t->own_fs = true;
	t->tb.guest_fs = 0;
	ua__patch_set_area(t, area, UA_PATCH_AREA_SIZE);
	code_segments(t, &im);
	record_bounds(lx_proc(t), &im);
	if (dyn)
		code_segments(t, &in);
	err = build_stack(t, &im, dyn ? &in : NULL, execfn, argv, envp);
	ua_space_use(prev);
	if (err) {
		ua_task_destroy(t);
		goto fail;
	}
	close(im.fd);
	if (in.fd >= 0)
		close(in.fd);
	return t;
fail:
	if (im.fd >= 0)
		close(im.fd);
	if (in.fd >= 0)
		close(in.fd);
	errno = -err;
	return NULL;
}


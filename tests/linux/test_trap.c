// SPDX-License-Identifier: MIT
/*
 * Trapped `syscall` instructions in a task made by ua_task_create() with
 * trap_syscalls: they reach the Linux syscall table with the Linux
 * register convention, rcx and r11 come back as the CPU leaves them after
 * a syscall, unknown numbers are -ENOSYS, and the monitor's thread
 * pointer is intact afterwards.  The trap mechanism is chosen by
 * ua_task_opts.trap or UA_TRAP.  Under rewrite, a site in guest memory
 * becomes a call into the page-0 trampoline after its first trap, and
 * the registers afterwards are the ones a real syscall leaves: the same
 * as under sud and natively.  Where page 0 cannot be mapped, rewrite is
 * refused with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include <criterion/criterion.h>

#include <uaccess.h>
#include <uaccess/linux.h>

#include "tsupport.h"

struct result {
	long pid, ppid, enosys, rcx_ok, r11_if;
};

static long raw_syscall0(long nr)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
	return ret;
}

static void guest(void *arg)
{
	struct result *r = arg;
	unsigned long rcx, r11, label;

	r->pid = raw_syscall0(SYS_getpid);
	r->ppid = raw_syscall0(SYS_getppid);
	r->enosys = raw_syscall0(400);
	asm volatile("leaq 1f(%%rip), %2\n\t"
		     "syscall\n"
		     "1:"
		     : "=c"(rcx), "=r"(r11), "=&r"(label)
		     : "a"((long)SYS_getpid)
		     : "r11", "memory");
	asm volatile("movq %%r11, %0" : "=r"(r11));
	r->rcx_ok = rcx == label;
	r->r11_if = (r11 & 0x200) != 0;
}

static struct ua_space *space(void)
{
	struct ua_space *sp = ua_space_create(4 << 20, NULL);

	if (!sp && t_backend_unavailable())
		cr_skip_test("%s", t_backend_unavailable());
	cr_assert_not_null(sp);
	return sp;
}

Test(trap, linux_convention_and_cpu_registers)
{
	struct ua_task_opts o = { .trap_syscalls = true, .trap = UA_TRAP_SUD };
	struct ua_space *sp = space();
	struct result r = { 0 };
	struct ua_task *t = ua_task_create(sp, guest, &r, &o);
	int saved_errno_marker = 12345;

	cr_assert_not_null(t, "%s", strerror(errno));
	errno = saved_errno_marker;
	cr_assert_eq(ua_task_run(t), 0);
	/* errno lives in the monitor's TLS: FS is the monitor's again. */
	cr_assert_eq(errno, saved_errno_marker);
	cr_assert_eq(r.pid, getpid());
	cr_assert_eq(r.ppid, getppid());
	cr_assert_eq(r.enosys, -ENOSYS);
	cr_assert(r.rcx_ok, "rcx is not the return address");
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

/* vm.mmap_min_addr: 0 lets anyone map page 0. */
static unsigned long mmap_min_addr(void)
{
	FILE *f = fopen("/proc/sys/vm/mmap_min_addr", "r");
	unsigned long v = 0;

	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%lu", &v), 1);
	fclose(f);
	return v;
}

/* Drop CAP_SYS_RAWIO from this process's effective set (this test's own). */
static void drop_sys_rawio(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	cr_assert_eq(syscall(SYS_capget, &h, d), 0);
	d[CAP_SYS_RAWIO / 32].effective &= ~(1u << (CAP_SYS_RAWIO % 32));
	cr_assert_eq(syscall(SYS_capset, &h, d), 0);
}

Test(trap, rewrite_refused_without_page_0)
{
	struct ua_task_opts o = { .trap_syscalls = true,
				  .trap = UA_TRAP_REWRITE };
	struct ua_space *sp = space();
	void *p;

	if (!mmap_min_addr())
		cr_skip_test("vm.mmap_min_addr is 0: page 0 always maps");
	drop_sys_rawio();
	/* The kernel itself refuses now: what the library must report. */
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED_NOREPLACE, -1, 0);
	cr_assert_eq(p, MAP_FAILED);
	cr_assert_eq(errno, EPERM);
	errno = 0;
	cr_assert_null(ua_task_create(sp, guest, NULL, &o));
	cr_assert_eq(errno, EPERM);
	/* Asked through the environment: refused the same way, not sud. */
	o.trap = UA_TRAP_DEFAULT;
	setenv("UA_TRAP", "rewrite", 1);
	errno = 0;
	cr_assert_null(ua_task_create(sp, guest, NULL, &o));
	cr_assert_eq(errno, EPERM);
	unsetenv("UA_TRAP");
	ua_space_destroy(sp);
}

Test(trap, environment_selects_the_mechanism)
{
	struct ua_task_opts o = { .trap_syscalls = true };
	struct ua_space *sp = space();
	struct ua_task *t;

	setenv("UA_TRAP", "bogus", 1);
	errno = 0;
	cr_assert_null(ua_task_create(sp, guest, NULL, &o));
	cr_assert_eq(errno, EINVAL);
	setenv("UA_TRAP", "sud", 1);
	t = ua_task_create(sp, guest, &(struct result){ 0 }, &o);
	cr_assert_not_null(t);
	ua_task_destroy(t);
	unsetenv("UA_TRAP");
	ua_space_destroy(sp);
}

/*
 * Position-independent code run three times natively, under sud and
 * under rewrite, from a copy: known values in every register and known
 * flags, getppid at blob_site, then all registers saved (17 words per
 * trip: rax rbp rbx rcx rdx rsi rdi r8 r9 r10 r11 r12 r13 r14 r15 rsp
 * rflags), three trips through the same site.  void blob(uint64_t *out).
 */
#define WORDS 17
#define TRIPS 3
enum { W_RAX, W_RBP, W_RBX, W_RCX, W_RDX, W_RSI, W_RDI, W_R8, W_R9, W_R10,
       W_R11, W_R12, W_R13, W_R14, W_R15, W_RSP, W_FLAGS };
extern const char blob_start[], blob_site[], blob_end[];
asm(".pushsection .text\n"
    "blob_start:\n"
    "	push %rbx\n push %rbp\n push %r12\n push %r13\n push %r14\n"
    "	push %r15\n"
    "	push %rdi\n"
    "	push $" "3" "\n"
    "1:	movl $-1, %ecx\n"
    "	addl $1, %ecx\n"		/* ZF CF PF AF set, SF OF clear */
    "	movabs $0x1111111111111101, %rbx\n"
    "	movabs $0x2222222222222202, %rbp\n"
    "	movabs $0x3333333333333303, %rdx\n"
    "	movabs $0x4444444444444404, %rsi\n"
    "	movabs $0x5555555555555505, %rdi\n"
    "	movabs $0x6666666666666606, %r8\n"
    "	movabs $0x7777777777777707, %r9\n"
    "	movabs $0x8888888888888808, %r10\n"
    "	movabs $0x9999999999999909, %r12\n"
    "	movabs $0xaaaaaaaaaaaaaa0a, %r13\n"
    "	movabs $0xbbbbbbbbbbbbbb0b, %r14\n"
    "	movabs $0xcccccccccccccc0c, %r15\n"
    "	movabs $0xdddddddddddddd0d, %rcx\n"
    "	movabs $0xeeeeeeeeeeeeee0e, %r11\n"
    "	movl $110, %eax\n"		/* getppid */
    "blob_site:\n"
    "	syscall\n"
    "	pushfq\n"
    "	push %rsp\n"
    "	push %r15\n push %r14\n push %r13\n push %r12\n push %r11\n"
    "	push %r10\n push %r9\n push %r8\n push %rdi\n push %rsi\n"
    "	push %rdx\n push %rcx\n push %rbx\n push %rbp\n push %rax\n"
    "	movq 17*8+8(%rsp), %rdi\n"
    "	movq %rsp, %rsi\n"
    "	movl $17, %ecx\n"
    "	rep movsq\n"
    "	movq %rdi, 17*8+8(%rsp)\n"
    "	addq $17*8, %rsp\n"
    "	decq (%rsp)\n"
    "	jnz 1b\n"
    "	addq $16, %rsp\n"
    "	pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n"
    "	pop %rbx\n"
    "	ret\n"
    "blob_end:\n"
    ".popsection");

/* The blob run natively from an executable copy: the kernel's results. */
static void blob_native(uint64_t out[TRIPS][WORDS], uint64_t *site_next)
{
	size_t len = (size_t)(blob_end - blob_start);
	char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(code, MAP_FAILED);
	memcpy(code, blob_start, len);
	((void (*)(uint64_t *))code)(&out[0][0]);
	*site_next = (uint64_t)(code + (blob_site - blob_start)) + 2;
	munmap(code, 4096);
}

struct blob_run {
	uint64_t out[TRIPS][WORDS];
	uint64_t site_next;  /* the address after the site */
	uint16_t site_after; /* the site's two bytes after the run */
	char stats[4096];
};

/*
 * What the loader tells the patch trap of a program (src/linux/
 * loader.c): its code, and room for trampolines.  Internal calls
 * (src/task/task_internal.h): this test links the static library.
 */
struct ua__eh_src {
	uint64_t addr, len;
	const char *path;
	uint64_t dev, ino;
	uint64_t off;
};
int ua__patch_add_code(struct ua_task *t, uint64_t start, uint64_t len,
		       const struct ua__eh_src *eh);
void ua__patch_set_area(struct ua_task *t, uint64_t start, uint64_t len);

/*
 * The blob from a copy in guest memory, in a task trapping with trap;
 * under patch, the copy is the program's code and area has room for
 * its trampolines.
 */
static void blob_guest_at(enum ua_trap trap, struct blob_run *br,
			  uint16_t *site_prev);

static void blob_guest(enum ua_trap trap, struct blob_run *br)
{
	blob_guest_at(trap, br, NULL);
}

static void blob_guest_at(enum ua_trap trap, struct blob_run *br,
			  uint16_t *site_prev)
{
	struct ua_task_opts o = { .trap_syscalls = true, .trap = trap };
	struct ua_space *sp = space(), *prev;
	size_t len = (size_t)(blob_end - blob_start);
	char *code, *out;
	struct ua_task *t;
	FILE *f;
	int fd;

	code = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	out = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	cr_assert(code && out);
	prev = ua_space_use(sp);
	t_poke(code, blob_start, len);
	cr_assert_eq(ua_mprotect(sp, code, 4096, PROT_READ | PROT_EXEC), 0);
	t = ua_task_create(sp, (void (*)(void *))code, out, &o);
	cr_assert_not_null(t, "%s", strerror(errno));
	if (trap == UA_TRAP_PATCH) {
		char *area = ua_map(sp, NULL, 65536, PROT_NONE);

		cr_assert_not_null(area);
		struct ua__eh_src none = { 0 };

		cr_assert_eq(ua__patch_add_code(t, (uint64_t)code, len, &none),
			     0);
		ua__patch_set_area(t, (uint64_t)area, 65536);
	}
	cr_assert_eq(ua_task_run(t), 0);
	t_peek(br->out, out, sizeof(br->out));
	if (site_prev)
		t_peek(site_prev, code + (blob_site - blob_start) - 5, 2);
	br->site_next = (uint64_t)(code + (blob_site - blob_start)) + 2;
	t_peek(&br->site_after, code + (blob_site - blob_start), 2);
	f = tmpfile();
	cr_assert_not_null(f);
	fd = fileno(f);
	ua_linux_print_stats(t, fd);
	memset(br->stats, 0, sizeof(br->stats));
	cr_assert_gt(pread(fd, br->stats, sizeof(br->stats) - 1, 0), 0);
	fclose(f);
	ua_task_destroy(t);
	ua_space_use(prev);
	ua_space_destroy(sp);
}

static void assert_like_native(const struct blob_run *g,
			       uint64_t nat[TRIPS][WORDS], const char *how)
{
	for (int i = 0; i < TRIPS; i++) {
		for (int w = 0; w < WORDS; w++) {
			if (w == W_RCX || w == W_RSP)
				continue;
			cr_assert_eq(g->out[i][w], nat[i][w],
				     "%s trip %d word %d: %#lx, native %#lx",
				     how, i, w, (unsigned long)g->out[i][w],
				     (unsigned long)nat[i][w]);
		}
		/* rcx: the next RIP, as the CPU leaves it. */
		cr_assert_eq(g->out[i][W_RCX], g->site_next, "%s trip %d rcx",
			     how, i);
		/* RSP back where it was: every trip the same. */
		cr_assert_eq(g->out[i][W_RSP], g->out[0][W_RSP], "%s rsp", how);
	}
}

Test(trap, rewritten_syscall_registers_match_sud_and_native)
{
	uint64_t nat[TRIPS][WORDS], nat_next;
	static struct blob_run sud, rw;
	char want[160];

	blob_native(nat, &nat_next);
	for (int i = 0; i < TRIPS; i++) {
		cr_assert_eq(nat[i][W_RCX], nat_next);
		cr_assert_eq(nat[i][W_RAX], (uint64_t)getppid());
		/* r11 is RFLAGS at the syscall: the flags set before it. */
		cr_assert_eq(nat[i][W_R11], nat[i][W_FLAGS]);
		cr_assert_eq(nat[i][W_FLAGS] & 0x8d5, 0x55);
	}
	blob_guest(UA_TRAP_SUD, &sud);
	assert_like_native(&sud, nat, "sud");
	cr_assert_eq(sud.site_after, 0x050f, "sud left the site alone");
	cr_assert_null(strstr(sud.stats, "rewritten sites"));
	blob_guest(UA_TRAP_REWRITE, &rw);
	/* Trip 0 trapped through sud, trips 1 and 2 came through the call. */
	assert_like_native(&rw, nat, "rewrite");
	cr_assert_eq(rw.site_after, 0xd0ff, "the site is call *%%rax now");
	for (int i = 0; i < TRIPS; i++)
		cr_assert_arr_eq(rw.out[i], sud.out[i], sizeof(rw.out[i]));
	snprintf(want, sizeof(want),
		 "rewritten sites                     1\n"
		 "  site %#-16llx %-16s %4d %12d trips\n",
		 (unsigned long long)rw.site_next - 2, "getppid", 110, 2);
	cr_assert_not_null(strstr(rw.stats, want), "%s", rw.stats);
}

/*
 * Under patch the `movl $110, %eax` before the site becomes a jmp to a
 * trampoline after the first trip; the syscall stays, and the registers
 * are the kernel's at every trip.
 */
Test(trap, patched_syscall_registers_match_sud_and_native)
{
	uint64_t nat[TRIPS][WORDS], nat_next;
	static struct blob_run sud, pt;
	uint16_t prev = 0;
	char want[160];

	blob_native(nat, &nat_next);
	blob_guest(UA_TRAP_SUD, &sud);
	blob_guest_at(UA_TRAP_PATCH, &pt, &prev);
	assert_like_native(&pt, nat, "patch");
	cr_assert_eq(pt.site_after, 0x050f, "the syscall stays");
	cr_assert_eq(prev & 0xff, 0xe9, "the mov is a jmp rel32 now");
	for (int i = 0; i < TRIPS; i++)
		cr_assert_arr_eq(pt.out[i], sud.out[i], sizeof(pt.out[i]));
	snprintf(want, sizeof(want),
		 "patched sites                       1\n"
		 "  site %#-16llx %-16s %4d %12d trips\n",
		 (unsigned long long)pt.site_next - 2, "getppid", 110, 2);
	cr_assert_not_null(strstr(pt.stats, want), "%s", pt.stats);
}

/* Without trap_syscalls a raw syscall is the host's, as before. */
static void untrapped(void *arg)
{
	*(long *)arg = raw_syscall0(SYS_getpid);
}

Test(trap, off_by_default)
{
	struct ua_space *sp = space();
	long pid = 0;
	struct ua_task *t = ua_task_create(sp, untrapped, &pid, NULL);

	cr_assert_not_null(t);
	cr_assert_eq(ua_task_run(t), 0);
	cr_assert_eq(pid, getpid());
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

/*
 * One site, many numbers: void sweep(long *v), v[0] the count, then the
 * numbers, each replaced by its result.  Under rewrite the first number
 * traps and rewrites the site; every later one lands at its own offset
 * of the page-0 trampoline.
 */
extern const char sweep_start[], sweep_site[], sweep_end[];
asm(".pushsection .text\n"
    "sweep_start:\n"
    "	push %rbx\n push %r12\n"
    "	movq %rdi, %rbx\n"
    "	movq (%rbx), %r12\n"
    "1:	addq $8, %rbx\n"
    "	movq (%rbx), %rax\n"
    "sweep_site:\n"
    "	syscall\n"
    "	movq %rax, (%rbx)\n"
    "	decq %r12\n"
    "	jnz 1b\n"
    "	pop %r12\n pop %rbx\n"
    "	ret\n"
    "sweep_end:\n"
    ".popsection");

/* Numbers no x86-64 kernel has (x32's end at 547), up to the sled's end. */
#define SWEEP_LO 548
#define SWEEP_HI 4087
#define SWEEP_N (1 + SWEEP_HI - SWEEP_LO + 1)

static void sweep_fill(long *v)
{
	v[0] = SWEEP_N;
	v[1] = SYS_getpid;
	for (long n = SWEEP_LO; n <= SWEEP_HI; n++)
		v[2 + n - SWEEP_LO] = n;
}

/*
 * Every offset of the trampoline a number can land on reaches the monitor
 * (the sled's short jumps and two-byte nops included): each unknown
 * number comes back -ENOSYS, as from the host, through the rewritten
 * site.
 */
Test(trap, every_trampoline_offset_reaches_the_monitor)
{
	struct ua_task_opts o = { .trap_syscalls = true,
				  .trap = UA_TRAP_REWRITE };
	static long nat[1 + SWEEP_N], got[1 + SWEEP_N];
	size_t len = (size_t)(sweep_end - sweep_start);
	struct ua_space *sp = space(), *prev;
	char *code, *out, stats[4096] = "", want[128];
	struct ua_task *t;
	int fd, err;
	FILE *f;

	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(code, MAP_FAILED);
	memcpy(code, sweep_start, len);
	sweep_fill(nat);
	((void (*)(long *))code)(nat);
	munmap(code, 4096);

	code = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	out = ua_map(sp, NULL, sizeof(got), PROT_READ | PROT_WRITE);
	cr_assert(code && out);
	prev = ua_space_use(sp);
	t_poke(code, sweep_start, len);
	cr_assert_eq(ua_mprotect(sp, code, 4096, PROT_READ | PROT_EXEC), 0);
	sweep_fill(got);
	t_poke(out, got, sizeof(got));
	t = ua_task_create(sp, (void (*)(void *))code, out, &o);
	cr_assert_not_null(t, "%s", strerror(errno));
	/* Each unknown number is named once on stderr: not here. */
	fd = dup(2);
	err = open("/dev/null", O_WRONLY);
	cr_assert(fd >= 0 && err >= 0);
	dup2(err, 2);
	cr_assert_eq(ua_task_run(t), 0);
	dup2(fd, 2);
	close(fd);
	close(err);
	t_peek(got, out, sizeof(got));
	cr_assert_eq(got[1], getpid());
	for (long i = 1; i <= SWEEP_N; i++)
		cr_assert_eq(got[i], nat[i], "number %ld: %ld, host %ld",
			     i == 1 ? SYS_getpid : SWEEP_LO + i - 2, got[i],
			     nat[i]);
	cr_assert_eq(nat[2], -ENOSYS);
	f = tmpfile();
	cr_assert_not_null(f);
	ua_linux_print_stats(t, fileno(f));
	cr_assert_gt(pread(fileno(f), stats, sizeof(stats) - 1, 0), 0);
	fclose(f);
	snprintf(want, sizeof(want), "  site %#-16llx %-16s %4d %12d trips\n",
		 (unsigned long long)(uintptr_t)(code +
						 (sweep_site - sweep_start)),
		 "getpid", SYS_getpid, SWEEP_N - 1);
	cr_assert_not_null(strstr(stats, want), "%s", stats);
	ua_task_destroy(t);
	ua_space_use(prev);
	ua_space_destroy(sp);
}

/*
 * The trampoline's bytes, decoded from every offset below the final jmp:
 * only nops (90, 66 90) and short jumps (eb), and every path ends on
 * that `jmp rel32` (e9) at 4091, whose displacement bytes each fault
 * where a number lands on them (#UD or #GP at CPL 3), to the tail: the
 * GS check and the jump through the trap block (trap_rewrite.c).  Where
 * the pages cannot be read here, the sweep above is the test.
 */
Test(trap, trampoline_slides_to_its_jump_from_every_offset)
{
	static const uint8_t tail[] = { 0x65, 0x4c, 0x8b, 0x1c, 0x25,
					0x40, 0x00, 0x00, 0x00, 0x49,
					0x8b, 0x4b, 0x40 };
	static const uint8_t faulting[] = {
		0x6f, 0x6e, 0x6d, 0x6c, 0x3f, 0x37,
		0x2f, 0x27, 0x1f, 0x17, 0x0e, 0x07
	};
	struct ua_task_opts o = { .trap_syscalls = true,
				  .trap = UA_TRAP_REWRITE };
	struct ua_space *sp = space();
	struct ua_task *t = ua_task_create(sp, guest, NULL, &o);
	uint8_t page[4096], code[sizeof(tail)];
	uint32_t rel;
	int fd;

	cr_assert_not_null(t, "%s", strerror(errno));
	/* Read through /proc/self/mem: C may not dereference address 0. */
	fd = open("/proc/self/mem", O_RDONLY);
	cr_assert_geq(fd, 0);
	if (pread(fd, page, sizeof(page), 0) != (ssize_t)sizeof(page))
		cr_skip_test("page 0 is not readable here (%s): execute-only",
			     strerror(errno));
	cr_assert_eq(page[4091], 0xe9);
	memcpy(&rel, page + 4092, sizeof(rel));
	for (int i = 4092; i < 4096; i++)
		cr_assert_not_null(memchr(faulting, page[i], sizeof(faulting)),
				   "displacement byte %#x at %d", page[i], i);
	cr_assert_eq(pread(fd, code, sizeof(code), 4096 + (off_t)rel),
		     (ssize_t)sizeof(code));
	cr_assert_arr_eq(code, tail, sizeof(tail));
	close(fd);
	for (int start = 0; start < 4091; start++) {
		int a = start, steps = 0;

		while (a != 4091) {
			cr_assert(a >= 0 && a < 4091 && steps++ < 4096,
				  "from %d: off the sled at %d", start, a);
			if (page[a] == 0x90)
				a += 1;
			else if (page[a] == 0x66 && page[a + 1] == 0x90)
				a += 2;
			else if (page[a] == 0xeb)
				a += 2 + (int8_t)page[a + 1];
			else
				cr_assert_fail("from %d: byte %#x at %d", start,
					       page[a], a);
		}
	}
	ua_task_destroy(t);
	ua_space_destroy(sp);
}

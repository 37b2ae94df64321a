// SPDX-License-Identifier: MIT
/*
 * The expensive instructions and host events of one operation, counted
 * exactly: WRPKRU, FS-base writes (WRFSBASE, or arch_prctl(ARCH_SET_FS)
 * where the kernel does not enable FSGSBASE) and host signals from the
 * library's own counters (ua_stats_get_insns()), host system calls and
 * delivered signals from outside, by a ptrace tracer (thost.c).
 *
 * Each operation runs as a fresh task in a traced child, twice, with N1
 * and N2 iterations after a warm-up; the difference of the two counts
 * over N2 - N1 is what one iteration costs, the task's creation, start,
 * first traps and end cancelling out.  The operations: a null syscall
 * (ua_sys_nop()), a block-mode raise -> handler -> rt_sigreturn round
 * trip through ua_syscall(), and, in a task trapping with rewrite, a
 * getppid loop and a kill -> handler -> rt_sigreturn loop of guest code
 * that owns its FS base (arch_prctl(ARCH_SET_FS)), so that any full-path
 * syscall has two FS-base writes to make.
 *
 * With backend none, PKRU left as the monitor's, every one of them costs
 * nothing of the kind: no WRPKRU, no FS-base write, no host syscall, no
 * host signal.  Under mprotect each switch is mprotect() calls and the
 * rewrite calls take the full path; under pkey each switch that changes
 * a key's rights is one WRPKRU.  What an expectation depends on (FSGSBASE,
 * PKRU in XSAVE) is read at run time.
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <uaccess.h>
#include <uaccess/linux.h>

#include "tsupport.h"

#define N1 16
#define N2 272

/* What the child measured, in memory shared with the test. */
struct sample {
	struct ua_insn_stats insn;
	struct ua_stats st;
};

struct shared {
	struct sample s[2];
	int (*op)(long n);
	int err;
};

/* Per iteration: (second run - first run) / (N2 - N1). */
struct per_op {
	double wrpkru, wrfsbase, fs_syscalls, sigsys, irq, fault;
	double switches, syscalls, mprotects, signals;
};

static enum ua_protect protect(void)
{
	const char *p = getenv("UA_PROTECT");

	if (p && !strcmp(p, "mprotect"))
		return UA_PROTECT_MPROTECT;
	if (p && !strcmp(p, "pkey"))
		return UA_PROTECT_PKEY;
	return UA_PROTECT_NONE;
}

static bool have_fsgsbase(void)
{
	return getauxval(AT_HWCAP2) & 2; /* HWCAP2_FSGSBASE */
}

static uint64_t xcr0(void)
{
	uint32_t lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/* PKRU is XSAVE state: OSPKE and XCR0 bit 9; its image offset, else 0. */
static uint32_t pkru_xsave_off(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid_max(0, NULL) < 7)
		return 0;
	__cpuid_count(7, 0, a, b, c, d);
	if (!(c & (1u << 4)))
		return 0;
	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 27)) || !(xcr0() & (1u << 9)))
		return 0;
	__cpuid_count(0xd, 9, a, b, c, d);
	return b;
}

static uint32_t rdpkru(void)
{
	uint32_t eax, edx;

	asm volatile(".byte 0x0f, 0x01, 0xee" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}

static struct shared *sh;

static void sample(struct sample *s)
{
	ua_stats_get(&s->st);
	ua_stats_get_insns(&s->insn, sizeof(s->insn));
}

static void sub(struct sample *d, const struct sample *a)
{
	d->insn.wrpkru -= a->insn.wrpkru;
	d->insn.wrfsbase -= a->insn.wrfsbase;
	d->insn.fs_syscalls -= a->insn.fs_syscalls;
	d->insn.sig_sysdispatch -= a->insn.sig_sysdispatch;
	d->insn.sig_irq -= a->insn.sig_irq;
	d->insn.sig_fault -= a->insn.sig_fault;
	d->st.switches -= a->st.switches;
}

/* In the traced child: warm-up, then the two measured runs. */
static void child(void *arg)
{
	struct sample a;
	int err;

	(void)arg;
	err = sh->op(2);
	for (int i = 0; i < 2 && !err; i++) {
		t_host_mark();
		sample(&a);
		err = sh->op(i ? N2 : N1);
		sample(&sh->s[i]);
		sub(&sh->s[i], &a);
	}
	t_host_mark();
	sh->err = err;
}

static struct per_op measure(int (*op)(long n))
{
	struct t_host_count h[2];
	struct per_op p;
	double n = N2 - N1;
	int status;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(sh, MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	sh->op = op;
	sh->err = -1;
	status = t_host_trace(child, NULL, h, 2);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "traced child: wait status %#x", status);
	cr_assert_eq(sh->err, 0, "the operation failed: %d", sh->err);
#define D(f) (((double)sh->s[1].f - (double)sh->s[0].f) / n)
	p.wrpkru = D(insn.wrpkru);
	p.wrfsbase = D(insn.wrfsbase);
	p.fs_syscalls = D(insn.fs_syscalls);
	p.sigsys = D(insn.sig_sysdispatch);
	p.irq = D(insn.sig_irq);
	p.fault = D(insn.sig_fault);
	p.switches = D(st.switches);
#undef D
	p.syscalls = (double)(h[1].syscalls - h[0].syscalls) / n;
	p.mprotects = (double)(h[1].mprotects - h[0].mprotects) / n;
	p.signals = (double)(h[1].signals - h[0].signals) / n;
	munmap(sh, sizeof(*sh));
	cr_log_info("backend %s: per operation %g WRPKRU, %g WRFSBASE, %g "
		    "arch_prctl(SET_FS), %g SIGSYS, %g irq, %g fault "
		    "signals; %g host syscalls (%g mprotect), %g host "
		    "signals; %g switches",
		    getenv("UA_PROTECT") ? getenv("UA_PROTECT") : "default",
		    p.wrpkru, p.wrfsbase, p.fs_syscalls, p.sigsys, p.irq,
		    p.fault, p.syscalls, p.mprotects, p.signals, p.switches);
	return p;
}

/*
 * The expectations: wrpkru and fs (FS-base writes, whichever way the CPU
 * makes them) per operation, switches per operation; no host signal ever.
 * Host syscalls: the arch_prctl of the FS-base writes where there is no
 * FSGSBASE, and under mprotect the mprotect() calls of the switches
 * (whatever their number: each switch makes at least one).
 */
static bool sanitized(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
	return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
	return true;
#else
	return false;
#endif
#else
	return false;
#endif
}

/* As expect(), with host calls the operation itself makes. */
static void expect_host(const struct per_op *p, double wrpkru, double fs,
			double switches, double host)
{
	double fs_sys = have_fsgsbase() ? 0 : fs;

	cr_expect_eq(p->switches, switches, "%g switches, expected %g",
		     p->switches, switches);
	cr_expect_eq(p->wrpkru, wrpkru, "%g WRPKRU, expected %g", p->wrpkru,
		     wrpkru);
	cr_expect_eq(p->wrfsbase, fs - fs_sys, "%g WRFSBASE, expected %g",
		     p->wrfsbase, fs - fs_sys);
	cr_expect_eq(p->fs_syscalls, fs_sys, "%g arch_prctl(SET_FS), "
		     "expected %g", p->fs_syscalls, fs_sys);
	cr_expect_eq(p->sigsys + p->irq + p->fault, 0,
		     "host signals in the library's handlers: %g %g %g",
		     p->sigsys, p->irq, p->fault);
	cr_expect_eq(p->signals, 0, "%g host signals delivered", p->signals);
	/*
	 * A sanitizer's runtime maps and unmaps memory of its own (shadow,
	 * fake stack frames) at times no build of the library controls:
	 * the host syscall counts are the release build's.
	 */
	if (sanitized()) {
		cr_log_info("sanitizer build: host syscalls (%g) not checked",
			    p->syscalls);
		return;
	}
	if (protect() == UA_PROTECT_MPROTECT) {
		cr_expect_eq(p->syscalls - p->mprotects, fs_sys + host,
			     "%g host syscalls besides %g mprotect()",
			     p->syscalls - p->mprotects, p->mprotects);
		/*
		 * A switch costs one mprotect() per run of mappings whose
		 * protection it changes, none where the level in force
		 * already gives it (a read window over read-only pages).
		 */
		cr_expect_eq(p->mprotects > 0, switches > 0,
			     "%g mprotect() for %g switches", p->mprotects,
			     switches);
	} else {
		cr_expect_eq(p->syscalls, fs_sys + host, "%g host syscalls",
			     p->syscalls);
	}
}

static void expect(const struct per_op *p, double wrpkru, double fs,
		   double switches)
{
	expect_host(p, wrpkru, fs, switches, 0);
}

static struct ua_space *space(void)
{
	struct ua_space *sp = ua_space_create(4 << 20, NULL);

	return sp;
}

static int run_task(void (*fn)(void *), void *arg,
		    const struct ua_task_opts *o)
{
	struct ua_space *sp = space();
	struct ua_task *t;
	int status;

	if (!sp)
		return -errno;
	t = ua_task_create(sp, fn, arg, o);
	if (!t) {
		ua_space_destroy(sp);
		return -errno;
	}
	status = ua_task_run(t);
	ua_task_destroy(t);
	ua_space_destroy(sp);
	return status;
}

/* ---- through ua_syscall() ---- */

static void g_nop(void *arg)
{
	long n = (long)arg;

	for (long i = 0; i < n; i++)
		if (ua_sys_nop())
			ua_sys_exit(1);
}

static int op_nop(long n)
{
	struct ua_task_opts o = { .frame_mode = UA_FRAME_BLOCK };

	return run_task(g_nop, (void *)n, &o);
}

static long handled;

static void h_usr1(int sig)
{
	(void)sig;
	handled++;
}

static void g_raise(void *arg)
{
	long n = (long)arg;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h_usr1;
	if (ua_sys_sigaction(SIGUSR1, &sa, NULL))
		ua_sys_exit(1);
	for (long i = 0; i < n; i++)
		if (ua_sys_raise(SIGUSR1))
			ua_sys_exit(2);
}

static int op_raise(long n)
{
	struct ua_task_opts o = { .frame_mode = UA_FRAME_BLOCK };
	int status;

	handled = 0;
	status = run_task(g_raise, (void *)n, &o);
	return status ? status : handled == n ? 0 : -1000;
}

/* ---- guest code trapped by rewrite ---- */

/*
 * struct job, in guest memory, for the blobs below (offsets in their
 * code): n, bad, the FS base found, the FS base to run with, the
 * kernel's struct sigaction (handler, flags, restorer, mask), handler
 * runs, the frame's XSTATE_BV and PKRU, a PKRU to put into the
 * second frame (pkru_new, when set_pkru), RDPKRU after the loop, and
 * PKRU's offset in the image (0: no PKRU).
 */
struct job {
	uint64_t n, bad, saved_fs, fs;
	uint64_t act_handler, act_flags, act_restorer, act_mask;
	uint64_t runs, xstate_bv, frame_pkru, pkru_new, set_pkru;
	uint64_t pkru_after, pkru_off;
	uint64_t tls[32]; /* what the FS base points at */
	char path[64];	  /* stat_start's and file_start's */
	uint64_t st[18];  /* struct stat, or what file_start reads */
};

_Static_assert(offsetof(struct job, act_handler) == 32, "blob");
_Static_assert(offsetof(struct job, runs) == 64, "blob");
_Static_assert(offsetof(struct job, pkru_off) == 112, "blob");
_Static_assert(offsetof(struct job, path) == 376, "blob");
_Static_assert(offsetof(struct job, st) == 440, "blob");

/*
 * FS base: ARCH_GET_FS into saved_fs, ARCH_SET_FS to fs, which stays
 * until the blob ends with exit(0) (the Linux layer's arch_prctl takes
 * only addresses in the space: the monitor's FS base cannot come back
 * that way, and the C code the blob would return to needs it).
 * Under each a loop of n calls: getppid, or kill(getpid(), SIGUSR1)
 * with a handler (SA_SIGINFO) that counts, notes its frame's XSTATE_BV
 * and PKRU, and on its second run puts pkru_new into the frame when
 * set_pkru; the restorer is rt_sigreturn from guest memory too.  RDPKRU
 * after the loop where there is PKRU.  void blob(struct job *j).
 */
#define FS_IN                                          \
	"	movl $158, %eax\n movl $0x1003, %edi\n" \
	"	leaq 16(%rbx), %rsi\n syscall\n"        \
	"	movl $158, %eax\n movl $0x1002, %edi\n" \
	"	movq 24(%rbx), %rsi\n syscall\n"
#define FS_OUT "	movl $60, %eax\n xorl %edi, %edi\n syscall\n ud2\n"
extern const char ppid_start[], ppid_end[];
asm(".pushsection .text\n"
    "ppid_start:\n"
    "	push %rbx\n"
    "	movq %rdi, %rbx\n"
    FS_IN
    "	movq (%rbx), %r8\n"
    "1:	testq %r8, %r8\n jz 2f\n"
    "	movl $110, %eax\n syscall\n"
    "	testq %rax, %rax\n js 3f\n"
    "	decq %r8\n jmp 1b\n"
    "3:	movq $1, 8(%rbx)\n"
    "2:\n"
    FS_OUT
    "ppid_end:\n"
    ".popsection");

/* n times newfstatat(AT_FDCWD, path, st, 0), each to return 0. */
extern const char stat_start[], stat_end[];
asm(".pushsection .text\n"
    "stat_start:\n"
    "	push %rbx\n push %r12\n"
    "	movq %rdi, %rbx\n"
    FS_IN
    "	movq (%rbx), %r12\n"
    "1:	testq %r12, %r12\n jz 2f\n"
    "	movl $262, %eax\n movl $-100, %edi\n leaq 376(%rbx), %rsi\n"
    "	leaq 440(%rbx), %rdx\n xorl %r10d, %r10d\n syscall\n"
    "	testq %rax, %rax\n jnz 3f\n"
    "	decq %r12\n jmp 1b\n"
    "3:	movq $1, 8(%rbx)\n"
    "2:\n"
    FS_OUT
    "stat_end:\n"
    ".popsection");

/*
 * n times: fd = openat(AT_FDCWD, path, O_RDONLY); read(fd, st, 100),
 * to return 5; close(fd).
 */
extern const char file_start[], file_end[];
asm(".pushsection .text\n"
    "file_start:\n"
    "	push %rbx\n push %r12\n push %r13\n"
    "	movq %rdi, %rbx\n"
    FS_IN
    "	movq (%rbx), %r12\n"
    "1:	testq %r12, %r12\n jz 2f\n"
    "	movl $257, %eax\n movl $-100, %edi\n leaq 376(%rbx), %rsi\n"
    "	xorl %edx, %edx\n xorl %r10d, %r10d\n syscall\n"
    "	testq %rax, %rax\n js 3f\n"
    "	movq %rax, %r13\n"
    "	xorl %eax, %eax\n movq %r13, %rdi\n leaq 440(%rbx), %rsi\n"
    "	movl $100, %edx\n syscall\n"
    "	cmpq $5, %rax\n jne 3f\n"
    "	movl $3, %eax\n movq %r13, %rdi\n syscall\n"
    "	testq %rax, %rax\n jnz 3f\n"
    "	decq %r12\n jmp 1b\n"
    "3:	movq $1, 8(%rbx)\n"
    "2:\n"
    FS_OUT
    "file_end:\n"
    ".popsection");

extern const char kill_start[], kill_end[];
asm(".pushsection .text\n"
    "kill_start:\n"
    "	push %rbx\n push %r12\n push %r13\n"
    "	movq %rdi, %rbx\n"
    FS_IN
    "	leaq 5f(%rip), %rax\n movq %rax, 32(%rbx)\n"
    "	movq $0x04000004, 40(%rbx)\n" /* SA_RESTORER | SA_SIGINFO */
    "	leaq 6f(%rip), %rax\n movq %rax, 48(%rbx)\n"
    "	movq $0, 56(%rbx)\n"
    "	movl $13, %eax\n movl $10, %edi\n leaq 32(%rbx), %rsi\n"
    "	xorl %edx, %edx\n movl $8, %r10d\n syscall\n"
    "	testq %rax, %rax\n jnz 3f\n"
    "	movl $39, %eax\n syscall\n"
    "	movq %rax, %r12\n"
    "	movq (%rbx), %r13\n"
    "1:	testq %r13, %r13\n jz 2f\n"
    "	movl $62, %eax\n movq %r12, %rdi\n movl $10, %esi\n syscall\n"
    "	testq %rax, %rax\n jnz 3f\n"
    "	decq %r13\n jmp 1b\n"
    "3:	movq $1, 8(%rbx)\n"
    "2:	cmpq $0, 112(%rbx)\n je 4f\n"
    "	xorl %ecx, %ecx\n .byte 0x0f, 0x01, 0xee\n movq %rax, 104(%rbx)\n"
    "4:\n"
    FS_OUT
    /* The handler: rbx is still the job (the kill's registers). */
    "5:	incq 64(%rbx)\n"
    "	movq 224(%rdx), %rax\n" /* uc_mcontext.fpstate */
    "	movq 512(%rax), %rcx\n movq %rcx, 72(%rbx)\n"
    "	movq 112(%rbx), %rcx\n testq %rcx, %rcx\n jz 7f\n"
    "	movl (%rax,%rcx), %esi\n movq %rsi, 80(%rbx)\n"
    "	cmpq $2, 64(%rbx)\n jne 7f\n"
    "	cmpq $0, 96(%rbx)\n je 7f\n"
    "	movl 88(%rbx), %esi\n movl %esi, (%rax,%rcx)\n"
    "7:	ret\n"
    "6:	movl $15, %eax\n syscall\n ud2\n"
    "kill_end:\n"
    ".popsection");

/*
 * blob at a fresh copy in a fresh space, trapped by rewrite, on a job
 * filled by the caller (n, pkru_new, set_pkru); the job after the run in
 * *out.
 */
static int run_blob(const char *start, const char *end, struct job *io)
{
	struct ua_task_opts o = { .trap_syscalls = true,
				  .trap = UA_TRAP_REWRITE,
				  .frame_mode = UA_FRAME_BLOCK };
	struct ua_space *sp = space(), *prev;
	struct job *j;
	struct ua_task *t;
	char *code;
	int status;

	if (!sp)
		return -errno;
	code = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	j = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	if (!code || !j)
		return -ENOMEM;
	prev = ua_space_use(sp);
	io->fs = (uint64_t)&j->tls[16];
	io->pkru_off = pkru_xsave_off();
	if (ua_copy_to_user(code, start, (size_t)(end - start)) ||
	    ua_copy_to_user(j, io, sizeof(*io)) ||
	    ua_mprotect(sp, code, 4096, PROT_READ | PROT_EXEC))
		return -EFAULT;
	t = ua_task_create(sp, (void (*)(void *))code, j, &o);
	if (!t)
		return -errno;
	status = ua_task_run(t);
	if (ua_copy_from_user(io, j, sizeof(*io)))
		status = -EFAULT;
	ua_task_destroy(t);
	ua_space_use(prev);
	ua_space_destroy(sp);
	if (!status && io->bad)
		status = -1001;
	return status;
}

static int op_ppid(long n)
{
	struct job j = { .n = (uint64_t)n };

	return run_blob(ppid_start, ppid_end, &j);
}

static int op_stat(long n)
{
	struct job j = { .n = (uint64_t)n, .path = "/" };

	return run_blob(stat_start, stat_end, &j);
}

/* A regular file of 5 bytes, made once by the test. */
static char file_path[64];

static int op_file(long n)
{
	struct job j = { .n = (uint64_t)n };

	memcpy(j.path, file_path, sizeof(j.path));
	return run_blob(file_start, file_end, &j);
}

static int op_kill(long n)
{
	struct job j = { .n = (uint64_t)n };
	int status = run_blob(kill_start, kill_end, &j);

	return status ? status : j.runs == (uint64_t)n ? 0 : -1002;
}

/* Page 0 for the trampoline: vm.mmap_min_addr 0, or CAP_SYS_RAWIO. */
static void need_rewrite(void)
{
	void *p = mmap(NULL, 4096, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1,
		       0);

	if (p == MAP_FAILED)
		cr_skip_test("page 0 cannot be mapped here (%s): no rewrite",
			     strerror(errno));
	munmap(p, 4096);
}

TestSuite(counts, .init = t_skip_if_unavailable, .timeout = 120);

/*
 * WRPKRU under pkey: one for each switch that changes the space key's
 * rights (guest mode and a write window are both open, so the unlock a
 * frame's write window folds into writes nothing), none for the
 * hand-over between the guest's PKRU and the monitor's, which are the
 * same value but for that key.  Elsewhere none at all.
 */
static double pkey_wrpkru(double n)
{
	return protect() == UA_PROTECT_PKEY ? n : 0;
}

Test(counts, null_syscall)
{
	struct per_op p = measure(op_nop);

	expect(&p, pkey_wrpkru(2), 0, 2);
}

Test(counts, raise_round_trip)
{
	struct per_op p = measure(op_raise);

	/* kill: lock, window; rt_sigreturn: the folded entry, the exit. */
	expect(&p, pkey_wrpkru(4), 0, 5);
}

/*
 * Under none the rewritten sites take the fast path: nothing to switch.
 * Otherwise each call is the full path: its two FS-base writes, and the
 * switches of its backend (lock and unlock: 2 per getppid).
 */
Test(counts, rewrite_getppid)
{
	bool fast = protect() == UA_PROTECT_NONE;
	struct per_op p;

	need_rewrite();
	p = measure(op_ppid);
	expect(&p, pkey_wrpkru(2), fast ? 0 : 2, 2);
}

#if UA_FORCE_GENERIC_ARCH
#define FAST_COPIES 0 /* the portable copy needs ua_self: no fast open, read */
#else
#define FAST_COPIES 1
#endif

/*
 * newfstatat: under none the fast path hands it to the host as it is,
 * with no FS-base switch, once a look at the path's first bytes has
 * found no name the full path rewrites (that look needs the fast copy);
 * the full path makes the same host call after its two.  Lock, path
 * window, result window, unlock: 6 switches either way.
 */
Test(counts, rewrite_newfstatat)
{
	bool fast = protect() == UA_PROTECT_NONE && FAST_COPIES;
	struct per_op p;

	need_rewrite();
	p = measure(op_stat);
	expect_host(&p, pkey_wrpkru(6), fast ? 0 : 2, 6, 1);
}

/*
 * open, read and close of a regular file: under none the fast path makes
 * the three host calls itself, and one fstat the first time a new file
 * is read (whether it is one that cannot block); the full path makes the
 * same three after two FS-base switches each, and the same fstat (what
 * the file is: a procfs file may be a mem file, proc_mem.c).  Switches:
 * each call's lock and unlock, the path's window, the read's window.
 */
Test(counts, rewrite_open_read_close)
{
	bool none = protect() == UA_PROTECT_NONE;
	bool fast = none && FAST_COPIES;
	struct per_op p;
	int fd;

	need_rewrite();
	snprintf(file_path, sizeof(file_path), "/tmp/ua-counts-%d", getpid());
	fd = open(file_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0, "%s: %s", file_path, strerror(errno));
	cr_assert_eq(write(fd, "hello", 5), 5);
	close(fd);
	p = measure(op_file);
	unlink(file_path);
	/* Without fast copies only close is the fast path's. */
	expect_host(&p, pkey_wrpkru(10), fast ? 0 : none ? 4 : 6, 10, 4);
}

/*
 * kill -> handler -> rt_sigreturn: two trapped calls of 3 switches each
 * (the lock; the frame's window, whose close folds into the unlock; a
 * trapped rt_sigreturn's entry locks, then its read window folds).
 */
/*
 * Builds whose signal fast path exists (src/signal/fast.c, FAST_SIGNALS):
 * elsewhere the full path runs and pays the FS-base switches.
 */
#if UA_FORCE_GENERIC_ARCH || UA_DEBUG_WINDOWS || !defined(__OPTIMIZE__)
#define FAST_SIGNALS 0
#else
#define FAST_SIGNALS 1
#endif

Test(counts, rewrite_signal_round_trip)
{
	bool fast = FAST_SIGNALS && protect() == UA_PROTECT_NONE;
	struct per_op p;

	need_rewrite();
	p = measure(op_kill);
	/* kill: lock, window; rt_sigreturn: lock, window, exit. */
	expect(&p, pkey_wrpkru(5), fast ? 0 : 4, 6);
}

/*
 * The frame of the fast path carries the guest's PKRU as the full path's
 * and the host kernel's do (XSTATE_BV bit 9, the value at its CPUID
 * offset), and its rt_sigreturn gives the guest the frame's PKRU with key
 * 0's bits kept: key 15's write-disable flipped reaches the guest, key
 * 0's access-disable set does not.  Under none the second round trip is
 * the fast path's (the first trips of each site trap).
 */
Test(counts, rewrite_frame_pkru)
{
	uint32_t off = pkru_xsave_off(), mon;
	struct job j = { .n = 2, .set_pkru = 1 };

	if (!off)
		cr_skip_test("PKRU is not XSAVE state here (CPUID OSPKE, "
			     "XCR0 bit 9): frames carry no PKRU");
	need_rewrite();
	mon = rdpkru();
	j.pkru_new = mon ^ (3u << 30) ^ 1u; /* key 15's bits, key 0's AD */
	cr_assert_eq(run_blob(kill_start, kill_end, &j), 0);
	cr_assert_eq(j.runs, 2);
	cr_expect(j.xstate_bv & (1u << 9), "XSTATE_BV %#lx has no PKRU",
		  (unsigned long)j.xstate_bv);
	/* Under pkey the guest's has the space's key open. */
	if (protect() != UA_PROTECT_PKEY)
		cr_expect_eq(j.frame_pkru, mon, "frame PKRU %#lx, monitor's %#x",
			     (unsigned long)j.frame_pkru, mon);
	cr_expect_eq(j.pkru_after, j.frame_pkru ^ (3u << 30),
		     "PKRU after rt_sigreturn %#lx, frame's %#lx",
		     (unsigned long)j.pkru_after,
		     (unsigned long)j.frame_pkru);
	/* pkey: the space's key was allocated and freed meanwhile. */
	if (protect() != UA_PROTECT_PKEY)
		cr_expect_eq(rdpkru(), mon, "the monitor's PKRU is back");
}

// SPDX-License-Identifier: MIT
/*
 * CPU state a program owns, run natively and under uarun (run_programs.py
 * compares the output and the end): RFLAGS.TF single-stepping (set with
 * popf, and in uc_mcontext at sigreturn) with the SIGTRAPs the kernel
 * gives, NT and AC across a syscall, the FS and GS bases written with
 * wrfsbase / wrgsbase (where AT_HWCAP2 says the kernel allows them) and
 * arch_prctl, and syscall numbers that are not syscalls.  Addresses are
 * printed relative to labels in the code, so both runs print the same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define TF 0x100ul
#define RF 0x10000ul
#define NT 0x4000ul
#define AC 0x40000ul
#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004
#define HWCAP2_FSGSBASE 2

/* Labels of the stepped code (step_block below). */
extern const char step_begin[], step_end_frame[];

#define MAX_TRAPS 32
static volatile int ntraps;
static struct {
	long off;
	int code, trapno, err;
	unsigned long flags;
} traps[MAX_TRAPS];
/* In the uc_mcontext test: where the handler clears TF again. */
static volatile uintptr_t stop_at;

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	int n = ntraps;

	(void)sig;
	if (n < MAX_TRAPS) {
		traps[n].off =
			(long)((uintptr_t)si->si_addr - (uintptr_t)step_begin);
		traps[n].code = si->si_code;
		traps[n].trapno = (int)g[REG_TRAPNO];
		traps[n].err = (int)g[REG_ERR];
		traps[n].flags = (unsigned long)g[REG_EFL] & (TF | RF);
	}
	ntraps = n + 1;
	/* An int3: step from here on (the frame's TF, at sigreturn). */
	if (si->si_code == SI_KERNEL)
		g[REG_EFL] |= TF;
	if (stop_at && (uintptr_t)g[REG_RIP] == stop_at)
		g[REG_EFL] &= ~TF;
}

/*
 * The stepped code: TF on, a few instructions and a syscall (getppid,
 * whose result is not printed), TF off.
 */
static __attribute__((noinline, noclone)) void step_block(void)
{
	asm volatile(".globl step_begin\n"
		     "step_begin:\n\t"
		     "pushfq\n\t"
		     "orq $0x100, (%%rsp)\n\t"
		     "popfq\n\t"
		     "nop\n\t"
		     "movl $110, %%eax\n\t"
		     "syscall\n\t"
		     "nop\n\t"
		     "movl $1, %%ecx\n\t"
		     "pushfq\n\t"
		     "andq $~0x100, (%%rsp)\n\t"
		     "popfq\n\t"
		     "nop"
		     :
		     :
		     : "rax", "rcx", "r11", "memory", "cc");
}

static void print_traps(const char *what)
{
	printf("%s: %d traps\n", what, ntraps);
	for (int i = 0; i < ntraps && i < MAX_TRAPS; i++)
		printf("  at +%ld code %d trapno %d err %d tf %d rf %d\n",
		       traps[i].off, traps[i].code, traps[i].trapno,
		       traps[i].err, !!(traps[i].flags & TF),
		       !!(traps[i].flags & RF));
	ntraps = 0;
}

static void test_popf_step(void)
{
	/* Twice: under --trap=rewrite the second run's syscall is patched. */
	for (int i = 0; i < 2; i++) {
		step_block();
		print_traps("popf step");
	}
}

/* An int3 whose handler sets TF in the frame: steps to step_end. */
static __attribute__((noinline, noclone)) void test_frame_tf(void)
{
	stop_at = (uintptr_t)step_end_frame;
	asm volatile("int3\n\t"
		     "nop\n\t"
		     "movl $110, %%eax\n\t"
		     "syscall\n\t"
		     "nop\n\t"
		     "jmp step_end_frame\n"
		     ".globl step_end_frame\n"
		     "step_end_frame:\n\t"
		     "nop"
		     :
		     :
		     : "rax", "rcx", "r11", "memory", "cc");
	/* Offsets from step_begin mean nothing here: only the count. */
	printf("frame tf: %d traps, first code %d\n", ntraps, traps[0].code);
	for (int i = 1; i < ntraps && i < MAX_TRAPS; i++)
		printf("  code %d trapno %d tf %d\n", traps[i].code,
		       traps[i].trapno, !!(traps[i].flags & TF));
	ntraps = 0;
	stop_at = 0;
}

/* Set flag, a getppid syscall, read the flags back, clear flag. */
static unsigned long flag_across_syscall(unsigned long flag)
{
	unsigned long after;

	asm volatile("pushfq\n\t"
		     "orq %[f], (%%rsp)\n\t"
		     "popfq\n\t"
		     "movl $110, %%eax\n\t"
		     "syscall\n\t"
		     "pushfq\n\t"
		     "popq %[a]\n\t"
		     "pushfq\n\t"
		     "notq %[f]\n\t"
		     "andq %[f], (%%rsp)\n\t"
		     "popfq"
		     : [a] "=&r"(after), [f] "+r"(flag)
		     :
		     : "rax", "rcx", "r11", "memory", "cc");
	return after;
}

static void test_flags(void)
{
	printf("nt after syscall: %d\n", !!(flag_across_syscall(NT) & NT));
	printf("ac after syscall: %d\n", !!(flag_across_syscall(AC) & AC));
	printf("nt now: %d\n", !!(flag_across_syscall(0) & NT));
}

static long raw3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "a"(nr), "D"(a), "S"(b), "d"(c)
		     : "rcx", "r11", "memory");
	return ret;
}

static volatile uint64_t seen_base;

static void on_usr1_gs(int sig)
{
	uint64_t v;

	(void)sig;
	asm volatile("rdgsbase %0" : "=r"(v));
	seen_base = v;
}

static void on_usr1_fs(int sig)
{
	uint64_t v;

	(void)sig;
	asm volatile("rdfsbase %0" : "=r"(v));
	seen_base = v;
}

static uint64_t gsblock[64] __attribute__((aligned(64)));
static uint64_t gsblock2[64] __attribute__((aligned(64)));
static uint64_t fsblock[64] __attribute__((aligned(64)));

/*
 * The GS base: wrgsbase, then a syscall and a signal; the base and a
 * %gs-relative load must be what was written, in the handler too.
 */
static void test_gs(long pid, long tid)
{
	uint64_t v = 0, got = 0, load;

	gsblock[0] = 0x1122334455667788ull;
	signal(SIGUSR1, on_usr1_gs);
	asm volatile("wrgsbase %0" : : "r"(gsblock) : "memory");
	raw3(SYS_getppid, 0, 0, 0);
	asm volatile("rdgsbase %0" : "=r"(v));
	asm volatile("movq %%gs:0, %0" : "=r"(load));
	raw3(SYS_tgkill, pid, tid, SIGUSR1);
	raw3(SYS_arch_prctl, ARCH_GET_GS, (long)&got, 0);
	printf("wrgsbase: after syscall %d, %%gs:0 %d, in handler %d, "
	       "ARCH_GET_GS %d\n",
	       v == (uint64_t)gsblock, load == gsblock[0],
	       seen_base == (uint64_t)gsblock, got == (uint64_t)gsblock);
	long r = raw3(SYS_arch_prctl, ARCH_SET_GS, (long)gsblock2, 0);
	asm volatile("rdgsbase %0" : "=r"(v));
	printf("ARCH_SET_GS: %ld, rdgsbase %d\n", r, v == (uint64_t)gsblock2);
	printf("ARCH_SET_GS kernel address: %ld\n",
	       raw3(SYS_arch_prctl, ARCH_SET_GS, -4096L, 0));
	asm volatile("wrgsbase %0" : : "r"(0ul) : "memory");
	raw3(SYS_arch_prctl, ARCH_GET_GS, (long)&got, 0);
	printf("GS back to 0: ARCH_GET_GS %lu\n", (unsigned long)got);
	signal(SIGUSR1, SIG_DFL);
}

/*
 * The FS base: the C library's thread pointer, so nothing of it runs
 * while FS points elsewhere (raw syscalls, a handler that reads no TLS).
 */
static void test_fs(long pid, long tid)
{
	uint64_t orig, v1, v2, got = 0, in_handler;

	signal(SIGUSR1, on_usr1_fs);
	fsblock[0] = (uint64_t)fsblock;
	asm volatile("rdfsbase %0" : "=r"(orig));
	asm volatile("wrfsbase %0" : : "r"(fsblock) : "memory");
	raw3(SYS_getppid, 0, 0, 0);
	asm volatile("rdfsbase %0" : "=r"(v1));
	raw3(SYS_tgkill, pid, tid, SIGUSR1);
	in_handler = seen_base;
	asm volatile("rdfsbase %0" : "=r"(v2));
	raw3(SYS_arch_prctl, ARCH_GET_FS, (long)&got, 0);
	asm volatile("wrfsbase %0" : : "r"(orig) : "memory");
	printf("wrfsbase: after syscall %d, in handler %d, after signal %d, "
	       "ARCH_GET_FS %d\n",
	       v1 == (uint64_t)fsblock, in_handler == (uint64_t)fsblock,
	       v2 == (uint64_t)fsblock, got == (uint64_t)fsblock);
	signal(SIGUSR1, SIG_DFL);
}

static void test_bases(void)
{
	long pid = getpid(), tid = syscall(SYS_gettid);

	if (!(getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE)) {
		printf("fsgsbase: skipped (AT_HWCAP2 has no FSGSBASE bit: "
		       "the kernel does not allow wrfsbase here)\n");
		return;
	}
	test_gs(pid, tid);
	test_fs(pid, tid);
}

/*
 * Numbers that are not syscalls, through the C library's syscall()
 * (one site that a first valid call may have patched).
 */
static void test_numbers(void)
{
	static const long nrs[] = { -1,
				    0x40000000L | 39,
				    0x40000000L | 600,
				    4080,
				    4094,
				    5000,
				    100000,
				    1L << 40,
				    (long)0x8000000000000000ul };

	for (int i = 0; i < 3; i++)
		syscall(SYS_getppid);
	for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		errno = 0;
		long r = syscall(nrs[i], 0, 0, 0);

		printf("syscall(%#lx): %ld %s\n", (unsigned long)nrs[i], r,
		       strerror(errno));
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	/* Each part alone, for debugging: prog_cpu step|frame|flags|... */
	const char *only = argc > 1 ? argv[1] : NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
#define PART(name, fn)                            \
	do {                                      \
		if (!only || !strcmp(only, name)) \
			fn();                     \
	} while (0)
	PART("step", test_popf_step);
	PART("frame", test_frame_tf);
	PART("flags", test_flags);
	PART("bases", test_bases);
	PART("numbers", test_numbers);
	printf("done\n");
	return 0;
}

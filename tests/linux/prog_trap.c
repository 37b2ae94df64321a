// SPDX-License-Identifier: MIT
/*
 * What a trap path must not change at a syscall site (doc/uarun.md): each
 * part runs its site three times, so that under --trap=patch the first
 * run traps and patches and the others come through the trampoline.
 *
 *   redzone  a leaf keeps a value in its red zone across an inline
 *            `mov $39, %eax; syscall`: kept natively, under sud and
 *            patch; lost under --trap=rewrite, whose `call *%rax` pushes
 *            its return address there (documented)
 *   step     single-stepping `mov $39, %eax; syscall` with TF: the same
 *            traps at the same instructions
 *   fault    the instruction before the syscall (`mov 0x1000(%rbx),
 *            %r9`) faults: SIGSEGV at that instruction, with its address
 *   short    `mov %edi, %eax; syscall`: a 2-byte instruction before the
 *            syscall, which the patch path reaches through padding after
 *            the function's `ret` (a `jmp rel8` to a `jmp rel32`)
 *   shortstep  single-stepping such a site: the same traps
 *   int3     an int3 over the first byte a trap path wrote at a site, as
 *            a thread meets it while another thread writes the site
 *            (the cross-modifying-code protocol): the site's syscall
 *            all the same.  Natively and under sud nothing was written
 *            and nothing is.
 *   flags    every combination of the six status flags and DF set before
 *            an inline `mov $39, %eax; syscall`: all come back as they
 *            were (the exits restore them without popfq where they can)
 *
 * The output is the same natively and under every trap path, but for
 * redzone under rewrite.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define RED_VALUE 0x1122334455667788ull

/* getpid with a live value 8 bytes below RSP; is it still there after? */
static __attribute__((noinline)) int redzone_call(void)
{
	uint64_t kept;
	long ret;

	asm volatile("movq %[v], %%rcx\n\t"
		     "movq %%rcx, -8(%%rsp)\n\t"
		     "mov $39, %%eax\n\t"
		     "syscall\n\t"
		     "movq -8(%%rsp), %[kept]"
		     : "=&a"(ret), [kept] "=r"(kept)
		     : [v] "i"(RED_VALUE)
		     : "rcx", "r11", "memory");
	return ret == getpid() && kept == RED_VALUE;
}

static void redzone(void)
{
	for (int i = 0; i < 3; i++)
		printf("redzone %d: %s\n", i, redzone_call() ? "kept" : "lost");
}

/*
 * The stepped block: TF comes on after the popfq, and each instruction
 * then traps until the popfq that clears it.
 */
extern const char step_a[], step_b[], step_c[], step_end[];
asm(".text\n"
    ".globl step_block\n"
    ".type step_block, @function\n"
    "step_block:\n\t"
    "pushfq\n\t"
    "orq $0x100, (%rsp)\n\t"
    "popfq\n"
    "step_a:\n\t"
    "mov $39, %eax\n"
    "step_b:\n\t"
    "syscall\n"
    "step_c:\n\t"
    "pushfq\n\t"
    "andq $~0x100, (%rsp)\n\t"
    "popfq\n"
    "step_end:\n\t"
    "ret\n"
    ".size step_block, . - step_block\n");
void step_block(long nr); /* nr unused */

/*
 * The same with `mov %edi, %eax` (89 f8) before the syscall, and an
 * 8-byte nop after the ret: padding no path runs, as compilers leave
 * between functions.
 */
extern const char step2_a[], step2_b[], step2_c[], step2_end[];
asm(".text\n"
    ".globl step2_block\n"
    ".type step2_block, @function\n"
    "step2_block:\n\t"
    "pushfq\n\t"
    "orq $0x100, (%rsp)\n\t"
    "popfq\n"
    "step2_a:\n\t"
    ".byte 0x89, 0xf8\n"
    "step2_b:\n\t"
    "syscall\n"
    "step2_c:\n\t"
    "pushfq\n\t"
    "andq $~0x100, (%rsp)\n\t"
    "popfq\n"
    "step2_end:\n\t"
    "ret\n\t"
    ".byte 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00\n"
    ".size step2_block, . - step2_block\n");
void step2_block(long nr);

/* mov %edi, %eax; syscall; ret; and the padding. */
asm(".text\n"
    ".globl short_call\n"
    ".type short_call, @function\n"
    "short_call:\n\t"
    ".byte 0x89, 0xf8, 0x0f, 0x05, 0xc3\n\t"
    ".byte 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00\n"
    ".size short_call, . - short_call\n");
long short_call(long nr);

/* mov $39, %eax; syscall; ret; and padding. */
asm(".text\n"
    ".globl int3_call\n"
    ".type int3_call, @function\n"
    "int3_call:\n\t"
    ".byte 0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3\n\t"
    ".byte 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00\n"
    ".size int3_call, . - int3_call\n");
long int3_call(void);

/*
 * The first call traps (and the site is rewritten or patched); an int3
 * then goes over the first byte that was written, `ff` of the rewrite's
 * `call *%rax` or the patch's `jmp`, which is what a thread finds while
 * another is still writing: the second call must still be getpid.  The
 * page is made writable for the store only.
 */
static void int3_site(void)
{
	unsigned char *f = (unsigned char *)(uintptr_t)int3_call, *at = NULL;
	uintptr_t page = (uintptr_t)f & ~(uintptr_t)4095;
	long pid = syscall(SYS_getpid), first, second;

	first = int3_call();
	if (f[5] == 0xff && f[6] == 0xd0)
		at = f + 5;
	else if (f[0] == 0xe9 || f[0] == 0xeb)
		at = f;
	if (at) {
		size_t len = (uintptr_t)at + 1 - page;

		if (mprotect((void *)page, len, PROT_READ | PROT_WRITE |
						    PROT_EXEC)) {
			perror("mprotect");
			return;
		}
		*at = 0xcc;
		mprotect((void *)page, len, PROT_READ | PROT_EXEC);
	}
	second = int3_call();
	printf("int3 over a site being written: first %s, second %s\n",
	       first == pid ? "getpid" : "wrong",
	       second == pid ? "getpid" : "wrong");
}

#define MAX_STEPS 16
static volatile uint64_t steps[MAX_STEPS];
static volatile int nsteps;
static const char *step_base;

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];

	(void)sig;
	if (nsteps < MAX_STEPS)
		steps[nsteps] = rip - (uint64_t)step_base;
	nsteps++;
	/* A single step: si_addr is where it stopped. */
	if ((uint64_t)si->si_addr != rip)
		steps[0] = 0xbad;
}

/* Run a stepped block three times: where each step stopped, from a. */
static void stepped(const char *name, void (*block)(long), const char *a,
		    const char *b, const char *c, const char *end)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	step_base = a;
	for (int i = 0; i < 3; i++) {
		nsteps = 0;
		block(SYS_getpid);
		printf("%s %d: %d traps at", name, i, nsteps);
		for (int k = 0; k < nsteps && k < MAX_STEPS; k++)
			printf(" %+lld", (long long)steps[k]);
		printf(" (b %+lld, c %+lld, end %+lld)\n", (long long)(b - a),
		       (long long)(c - a), (long long)(end - a));
	}
}

static void step(void)
{
	stepped("step", step_block, step_a, step_b, step_c, step_end);
}

static void short_step(void)
{
	stepped("shortstep", step2_block, step2_a, step2_b, step2_c, step2_end);
}

static void short_site(void)
{
	for (int i = 0; i < 3; i++)
		printf("short %d: %s\n", i,
		       short_call(SYS_getpid) == getpid() ? "getpid" : "wrong");
}

/* mov 0x1000(%rbx), %r9; syscall (getpid): rbx picks the memory. */
extern const char fault_insn[];
static __attribute__((noinline)) long fault_call(const void *base)
{
	long ret = SYS_getpid;

	asm volatile(".globl fault_insn\n"
		     "fault_insn:\n\t"
		     "movq 0x1000(%%rbx), %%r9\n\t"
		     "syscall"
		     : "+a"(ret)
		     : "b"(base)
		     : "rcx", "r11", "r9", "memory");
	return ret;
}

static sigjmp_buf fault_jmp;
static volatile uint64_t fault_rip, fault_addr;

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	fault_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	fault_addr = (uint64_t)si->si_addr;
	siglongjmp(fault_jmp, 1);
}

static void fault(void)
{
	static char mem[0x2000];
	struct sigaction sa;
	char *bad;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	bad = mmap(NULL, 0x2000, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bad == MAP_FAILED)
		return;
	for (int i = 0; i < 3; i++) {
		long r = fault_call(mem);

		printf("fault %d: good memory: %s\n", i,
		       r == getpid() ? "getpid" : "wrong");
		if (!sigsetjmp(fault_jmp, 1)) {
			fault_call(bad);
			printf("fault %d: no fault\n", i);
			continue;
		}
		printf("fault %d: SIGSEGV at the instruction: %s, address "
		       "+%#llx\n",
		       i, fault_rip == (uint64_t)fault_insn ? "yes" : "no",
		       (unsigned long long)(fault_addr - (uint64_t)bad));
	}
}

/* Status flags and DF as a syscall leaves them: the ones set before. */
#define FLAGS_KEPT 0xcd5ull /* OF DF SF ZF AF PF CF */

static __attribute__((noinline)) uint64_t flags_call(uint64_t in)
{
	uint64_t out;
	long ret;

	asm volatile("pushq %[in]\n\t"
		     "popfq\n\t"
		     "mov $39, %%eax\n\t"
		     "syscall\n\t"
		     "pushfq\n\t"
		     "popq %[out]\n\t"
		     "cld"
		     : "=&a"(ret), [out] "=r"(out)
		     : [in] "r"(in)
		     : "rcx", "r11", "memory", "cc");
	return ret == getpid() ? out & FLAGS_KEPT : ~0ull;
}

static void flags(void)
{
	static const uint64_t bit[7] = { 0x1, 0x4, 0x10, 0x40, 0x80, 0x800,
					 0x400 };
	int kept = 0, n = 0;

	for (unsigned m = 0; m < 128; m++) {
		uint64_t f = 0, got;

		for (int i = 0; i < 7; i++)
			if (m & (1u << i))
				f |= bit[i];
		/* Three trips: the first traps (and patches), two more. */
		for (int i = 0; i < 3; i++, n++) {
			got = flags_call(0x202 | f);
			if (got == f)
				kept++;
			else if (n - kept == 1)
				printf("flags %#llx: back as %#llx\n",
				       (unsigned long long)f,
				       (unsigned long long)got);
		}
	}
	printf("flags: %d of %d syscalls kept them\n", kept, n);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "redzone"))
		redzone();
	else if (argc > 1 && !strcmp(argv[1], "step"))
		step();
	else if (argc > 1 && !strcmp(argv[1], "fault"))
		fault();
	else if (argc > 1 && !strcmp(argv[1], "short"))
		short_site();
	else if (argc > 1 && !strcmp(argv[1], "shortstep"))
		short_step();
	else if (argc > 1 && !strcmp(argv[1], "int3"))
		int3_site();
	else if (argc > 1 && !strcmp(argv[1], "flags"))
		flags();
	else
		return 2;
	return 0;
}

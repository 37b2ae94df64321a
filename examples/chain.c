// SPDX-License-Identifier: MIT
/*
 * The library and the application's own SIGSEGV handlers.
 *
 * 1. A handler installed BEFORE the library initialises (a crash
 *    reporter) keeps receiving the faults that are not the library's;
 *    ua_init() saves it and chains to it with its own flags and mask.
 *    Installed with SA_NODEFER, it may itself use the nofault accessors
 *    while it handles the fault.
 * 2. A handler installed AFTER the library replaces it, so it asks the
 *    library first with ua_handle_fault().
 *
 * The reporter here jumps back to main() to keep the demonstration going;
 * a real one would print its report and re-raise the signal.
 *
 *   cc chain.c $(pkg-config --cflags --libs uaccess)
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <uaccess.h>

static sigjmp_buf back;
static volatile sig_atomic_t reports, asked, recovered;
static void *volatile fault_addr;
static volatile long peek_err;

/* Read a near-NULL address the compiler cannot see through. */
static int bad_read(void)
{
	static volatile uintptr_t bad = 0x40;

	return *(volatile int *)bad;
}

static void crash_reporter(int sig, siginfo_t *si, void *uc)
{
	uint64_t word;

	(void)sig;
	(void)uc;
	reports++;
	fault_addr = si->si_addr;
	/* Look at the faulting address without risking a second crash. */
	peek_err = ua_get_kernel_nofault(word, (uint64_t *)si->si_addr);
	(void)word;
	siglongjmp(back, 1);
}

static void late_handler(int sig, siginfo_t *si, void *uc)
{
	asked++;
	if (ua_handle_fault(sig, si, uc)) {
		recovered++;
		return; /* resumes at the accessor's fixup */
	}
	crash_reporter(sig, si, uc);
}

static void install(void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
}

int main(void)
{
	struct ua_space *sp;
	uint32_t v = 1;
	char *g;
	int err;

	install(crash_reporter, SA_NODEFER);
	if (ua_init())
		return 1;
	sp = ua_space_create(1 << 20, NULL);
	if (!sp) {
		perror("ua_space_create");
		return 1;
	}
	ua_space_use(sp);
	g = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	if (!g)
		return 1;

	printf("1. reporter installed before ua_init()\n");
	err = ua_get_user(v, (uint32_t *)(g + 4096));
	printf("  guest read of an unmapped page: %d (value %u), reports %d\n",
	       err, v, (int)reports);
	if (!sigsetjmp(back, 1))
		bad_read();
	printf("  monitor bug: reports %d, fault address %p, nofault peek "
	       "there: %ld\n",
	       (int)reports, fault_addr, peek_err);

	printf("2. handler installed after the library\n");
	/*
	 * SA_NODEFER again: late_handler ends in the reporter's nofault
	 * read, and a fault taken while SIGSEGV is blocked kills the process.
	 */
	install(late_handler, SA_NODEFER);
	err = ua_get_user(v, (uint32_t *)(g + 4096));
	printf("  guest read of an unmapped page: %d, asked %d, recovered %d\n",
	       err, (int)asked, (int)recovered);
	/*
	 * Asked twice more: once for the bug (passed to the reporter), once
	 * for the reporter's own nofault peek, which late_handler recovers.
	 */
	if (!sigsetjmp(back, 1))
		bad_read();
	printf("  monitor bug: asked %d, recovered %d, reports %d\n",
	       (int)asked, (int)recovered, (int)reports);

	ua_space_use(NULL);
	ua_space_destroy(sp);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Calls at their edges, where a call either does what the kernel does or
 * fails with the kernel's errno: mremap's moves (MREMAP_MAYMOVE, _FIXED,
 * _DONTUNMAP) and refusals, resource limits that take effect, RDTSC made
 * to fault by PR_SET_TSC, clock_adjtime, sysinfo, clock_getres of every
 * clock id, and numbers that are not syscalls.  Run natively and under
 * uarun, the output must be the same.  Raw syscall() where a libc would
 * check or convert arguments itself (musl and glibc differ there).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "prog_res.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef PR_GET_TSC
#define PR_GET_TSC 25
#define PR_SET_TSC 26
#define PR_TSC_ENABLE 1
#define PR_TSC_SIGSEGV 2
#endif

#define PG 4096L

/* The errno name of a failed raw call, or the value. */
static const char *res(long ret)
{
	static char buf[32];

	if (ret != -1) {
		snprintf(buf, sizeof(buf), "ok");
		return buf;
	}
	return errno_name(errno);
}

static long remap(void *old, long olen, long nlen, long flags, void *nad)
{
	return syscall(SYS_mremap, old, olen, nlen, flags, nad);
}

static char *map(long len, char fill)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, fill, len);
	return p;
}

/* Is the page at p mapped?  An mremap() to its own size says. */
static bool mapped(void *p)
{
	return remap(p, PG, PG, 0, NULL) == (long)p;
}

static bool all(const char *p, long len, char c)
{
	for (long i = 0; i < len; i++)
		if (p[i] != c)
			return false;
	return true;
}

static void mremap_moves(void)
{
	char *a = map(4 * PG, 'a'), *t = map(8 * PG, 'x'), *b, *c, *d;
	long r;

	a[4 * PG - 1] = 'z';
	r = remap(a, 4 * PG, 16 * PG, MREMAP_MAYMOVE, NULL);
	b = (char *)r;
	printf("maymove grow: %s kept=%d tail=%d\n", res(r),
	       r != -1 && all(b, 4 * PG - 1, 'a') && b[4 * PG - 1] == 'z',
	       r != -1 && all(b + 4 * PG, 12 * PG, 0));
	r = remap(b, 16 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_FIXED,
		  t + 2 * PG);
	printf("fixed: at target=%d moved=%d old gone=%d around kept=%d\n",
	       r == (long)(t + 2 * PG),
	       all(t + 2 * PG, 4 * PG - 1, 'a') && t[6 * PG - 1] == 'z',
	       !mapped(b), all(t, 2 * PG, 'x') && all(t + 6 * PG, 2 * PG, 'x'));
	b = t + 2 * PG;

	c = map(2 * PG, 'c');
	r = remap(c, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
	d = (char *)r;
	printf("dontunmap: %s elsewhere=%d moved=%d old mapped=%d old "
	       "zero=%d\n",
	       res(r), r != -1 && d != c, r != -1 && all(d, 2 * PG, 'c'),
	       mapped(c), all(c, 2 * PG, 0));
	c[5] = 'w';
	printf("dontunmap old writable: %d\n", c[5] == 'w');
	r = remap(d, 2 * PG, 2 * PG,
		  MREMAP_MAYMOVE | MREMAP_DONTUNMAP | MREMAP_FIXED, t);
	printf("dontunmap fixed: at target=%d moved=%d old zero=%d\n",
	       r == (long)t, all(t, 2 * PG, 'c'), all(d, 2 * PG, 0));

	r = remap(b, 4 * PG, PG, 0, NULL);
	printf("shrink: same=%d rest gone=%d\n", r == (long)b, !mapped(b + PG));
	munmap(b, PG);
	munmap(t, 2 * PG);
	munmap(c, 2 * PG);
	munmap(d, 2 * PG);
}

static void mremap_refusals(void)
{
	char *a = map(4 * PG, 'a'), *t = map(4 * PG, 'x');

	printf("bad flag: %s\n", res(remap(a, PG, PG, 8, NULL)));
	printf("unaligned: %s\n", res(remap(a + 1, PG, PG, 0, NULL)));
	printf("zero new: %s\n", res(remap(a, PG, 0, MREMAP_MAYMOVE, NULL)));
	printf("fixed no maymove: %s\n",
	       res(remap(a, PG, PG, MREMAP_FIXED, t)));
	printf("fixed unaligned: %s\n",
	       res(remap(a, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, t + 1)));
	printf("fixed overlap: %s\n",
	       res(remap(a, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED,
			 a + PG)));
	printf("dontunmap resize: %s\n",
	       res(remap(a, PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP,
			 NULL)));
	printf("dontunmap no maymove: %s\n",
	       res(remap(a, PG, PG, MREMAP_DONTUNMAP, NULL)));
	printf("duplicate private: %s\n",
	       res(remap(a, 0, PG, MREMAP_MAYMOVE, NULL)));
	munmap(t, 4 * PG);
	printf("unmapped: %s\n",
	       res(remap(t, PG, 2 * PG, MREMAP_MAYMOVE, NULL)));
	/* Two vmas: the second page's protection differs. */
	mprotect(a + PG, PG, PROT_READ);
	printf("across vmas: %s\n",
	       res(remap(a, 2 * PG, 3 * PG, MREMAP_MAYMOVE, NULL)));
	printf("grow into a neighbour: %s\n",
	       res(remap(a, PG, 2 * PG, 0, NULL)));
	printf("grow a middle vma: %s\n",
	       res(remap(a + PG, PG, 2 * PG, MREMAP_MAYMOVE, NULL)));
	munmap(a, 4 * PG);
}

static void show_rlimit(const char *what, int res_id, struct rlimit *keep)
{
	struct rlimit rl;

	getrlimit(res_id, &rl);
	if (keep)
		printf("%s: cur %s max %s\n", what,
		       rl.rlim_cur == keep->rlim_cur ? "=" : "changed",
		       rl.rlim_max == keep->rlim_max ? "=" : "changed");
	else
		printf("%s: cur %llu\n", what, (unsigned long long)rl.rlim_cur);
}

static void rlimits(void)
{
	struct rlimit stack, nofile, rl;
	struct {
		uint64_t cur, max;
	} r64;
	int fds[16], n = 0, fd;

	getrlimit(RLIMIT_STACK, &stack);
	rl = stack;
	rl.rlim_cur = rl.rlim_max < (1 << 20) ? rl.rlim_max : (1 << 20);
	printf("lower stack: %s\n",
	       res(syscall(SYS_setrlimit, RLIMIT_STACK, &rl)));
	show_rlimit("stack after", RLIMIT_STACK, NULL);
	rl.rlim_cur = stack.rlim_cur;
	setrlimit(RLIMIT_STACK, &rl);
	show_rlimit("stack back", RLIMIT_STACK, &stack);
	rl.rlim_cur = 2 << 20;
	rl.rlim_max = 1 << 20;
	printf("cur above max: %s\n",
	       res(syscall(SYS_setrlimit, RLIMIT_STACK, &rl)));
	r64.cur = 2 << 20;
	r64.max = 1 << 20;
	printf("prlimit64 cur above max: %s\n",
	       res(syscall(SYS_prlimit64, 0, RLIMIT_STACK, &r64, NULL)));
	printf("prlimit64 resource 16: %s\n",
	       res(syscall(SYS_prlimit64, 0, 16, NULL, &r64)));
	printf("prlimit64 bad new: %s\n",
	       res(syscall(SYS_prlimit64, 0, 99, (void *)8, NULL)));
	printf("prlimit64 pid -1: %s\n",
	       res(syscall(SYS_prlimit64, -1, RLIMIT_STACK, NULL, &r64)));
	printf("getrlimit bad pointer: %s\n",
	       res(syscall(SYS_getrlimit, RLIMIT_STACK, (void *)8)));
	r64.cur = r64.max = (uint64_t)1 << 40;
	printf("nofile above nr_open: %s\n",
	       res(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &r64, NULL)));

	getrlimit(RLIMIT_NOFILE, &nofile);
	rl = nofile;
	rl.rlim_cur = 8;
	printf("lower nofile: %s\n",
	       res(syscall(SYS_setrlimit, RLIMIT_NOFILE, &rl)));
	show_rlimit("nofile after", RLIMIT_NOFILE, NULL);
	while (n < 16) {
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0)
			break;
		fds[n++] = fd;
	}
	printf("opens: %d, last fd %d, then %s\n", n, n ? fds[n - 1] : -1,
	       res(fd));
	printf("dup2 past: %s\n", res(dup2(0, 8)));
	printf("F_DUPFD past: %s\n", res(fcntl(0, F_DUPFD, 8)));
	while (n)
		close(fds[--n]);
	setrlimit(RLIMIT_NOFILE, &nofile);
	show_rlimit("nofile back", RLIMIT_NOFILE, &nofile);
	fd = open("/dev/null", O_RDONLY);
	printf("open after: %d\n", fd >= 0);
	close(fd);
}

static sigjmp_buf jb;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	printf("SIGSEGV: sig %d code %#x addr %p\n", sig, si->si_code,
	       si->si_addr);
	siglongjmp(jb, 1);
}

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static void tsc(void)
{
	struct sigaction sa;
	int mode = -1;
	long r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	r = prctl(PR_GET_TSC, &mode);
	printf("get tsc: %s %d\n", res(r), mode);
	printf("set sigsegv: %s\n", res(prctl(PR_SET_TSC, PR_TSC_SIGSEGV)));
	r = prctl(PR_GET_TSC, &mode);
	printf("get tsc: %s %d\n", res(r), mode);
	if (!sigsetjmp(jb, 1)) {
		rdtsc();
		printf("rdtsc did not fault\n");
	}
	r = prctl(PR_GET_TSC, &mode);
	printf("after fault: %s %d\n", res(r), mode);
	printf("set 3: %s\n", res(prctl(PR_SET_TSC, 3)));
	printf("get bad pointer: %s\n", res(prctl(PR_GET_TSC, (void *)8)));
	printf("set enable: %s\n", res(prctl(PR_SET_TSC, PR_TSC_ENABLE)));
	printf("rdtsc runs: %d\n", rdtsc() != 0);
	signal(SIGSEGV, SIG_DFL);
}

static void adjtime_sysinfo(void)
{
	struct timex tx;
	struct sysinfo si;
	long r;

	memset(&tx, 0, sizeof(tx));
	r = syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx);
	printf("adjtime realtime: state>=0 %d\n", r >= 0);
	memset(&tx, 0, sizeof(tx));
	r = syscall(SYS_clock_adjtime, CLOCK_MONOTONIC, &tx);
	printf("adjtime monotonic: %s\n", r >= 0 ? "state" : res(r));
	r = syscall(SYS_clock_adjtime, 99, &tx);
	printf("adjtime 99: %s\n", res(r));
	r = syscall(SYS_clock_adjtime, CLOCK_REALTIME, (void *)8);
	printf("adjtime bad pointer: %s\n", res(r));
	memset(&tx, 0, sizeof(tx));
	r = syscall(SYS_adjtimex, &tx);
	printf("adjtimex: state>=0 %d\n", r >= 0);

	r = sysinfo(&si);
	printf("sysinfo: %s uptime>0 %d mem_unit>=1 %d totalram>0 %d "
	       "procs>=1 %d\n",
	       res(r), si.uptime > 0, si.mem_unit >= 1, si.totalram > 0,
	       si.procs >= 1);
	printf("sysinfo bad pointer: %s\n",
	       res(syscall(SYS_sysinfo, (void *)8)));
}

/*
 * A dynamic clock id: MAKE_PROCESS_CPUCLOCK(pid, which) with which 0-2,
 * MAKE_THREAD_CPUCLOCK with 4-6, the clock of descriptor pid with 3
 * (CLOCKFD), as include/linux/posix-timers.h builds them.
 */
#define CLK(pid, which) ((int)((~(unsigned)(pid) << 3) | (which)))

static void getres(void)
{
	unsigned me = (unsigned)getpid(), tid = (unsigned)syscall(SYS_gettid);
	int ids[] = { 0,	  1,
		      2,	  3,
		      4,	  5,
		      6,	  7,
		      8,	  9,
		      10,	  11,
		      12,	  16,
		      1000,	  CLK(me, 2),
		      CLK(me, 0), CLK(me, 1),
		      CLK(me, 3), CLK(tid, 6),
		      CLK(0, 2),  CLK(0, 6),
		      -1,	  CLK(0, 3),
		      CLK(1, 3),  CLK(1000000, 2) };

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct timespec ts = { -1, -1 };
		long r = syscall(SYS_clock_getres, (long)ids[i], &ts);

		if (ids[i] > 16 || ids[i] < 0)
			printf("getres [%zu]: ", i);
		else
			printf("getres %d: ", ids[i]);
		if (r)
			printf("%s\n", res(r));
		else
			printf("%ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
	}
	printf("getres null: %s\n",
	       res(syscall(SYS_clock_getres, CLOCK_MONOTONIC, NULL)));
	printf("getres bad pointer: %s\n",
	       res(syscall(SYS_clock_getres, CLOCK_MONOTONIC, (void *)8)));
}

static void not_syscalls(void)
{
	long nrs[] = { -1,
		       0xffffffffL,
		       0x40000000L | 39,
		       0x40000000L | 512,
		       100000,
		       400,
		       134,
		       236,
		       1L << 40 | 500 };

	for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		errno = 0;
		long r = syscall(nrs[i], 0, 0, 0, 0, 0, 0);

		printf("syscall %#lx: %ld %s\n", (unsigned long)nrs[i], r,
		       res(r));
	}
	/* The kernel takes the low 32 bits: this is getpid. */
	printf("syscall 1<<32|39 is getpid: %d\n",
	       syscall((1L << 32) | SYS_getpid) == getpid());
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	mremap_moves();
	mremap_refusals();
	rlimits();
	tsc();
	adjtime_sysinfo();
	getres();
	not_syscalls();
	printf("done\n");
	return 0;
}

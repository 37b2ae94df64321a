// SPDX-License-Identifier: MIT
/*
 * Memory (a 4 GiB allocation among it), time, getrandom and uname as a
 * libc uses them: run natively and under uarun, the output must be the
 * same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/*
 * A single 4 GiB allocation, as large programs make: more than uarun's
 * space once held.  One byte per MiB is touched (16 MiB of memory), each
 * a function of its place, so the checksum shows every page kept its own.
 */
/*
 * Anonymous maps and unmaps as malloc makes them, many (the monitor's
 * list grows), then holes and splits: each hole is free again (a map
 * there that must not replace anything takes it, zeroed) and what is
 * left still holds its bytes and its place (EEXIST there).
 */
static void anon_maps(void)
{
	enum { N = 300 };
	static char *m[N];
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int flags = MAP_PRIVATE | MAP_ANONYMOUS, rw = PROT_READ | PROT_WRITE;
	int bad = 0;
	char *h;

	for (int i = 0; i < N; i++) {
		m[i] = mmap(NULL, 3 * pg, rw, flags, -1, 0);
		if (m[i] == MAP_FAILED)
			return (void)printf("anon maps: mmap %d failed\n", i);
		m[i][0] = m[i][2 * pg] = (char)i;
	}
	for (int i = 1; i < N; i += 2)
		bad += munmap(m[i], 3 * pg) != 0;
	for (int i = 0; i < N; i += 2) {
		bad += munmap(m[i] + pg, pg) != 0;
		bad += m[i][0] != (char)i || m[i][2 * pg] != (char)i;
		h = mmap(m[i] + pg, pg, rw, flags | MAP_FIXED_NOREPLACE, -1, 0);
		bad += h != m[i] + pg || *h;
		h = mmap(m[i], pg, rw, flags | MAP_FIXED_NOREPLACE, -1, 0);
		bad += h != MAP_FAILED || errno != EEXIST;
	}
	for (int i = 1; i < N; i += 2) {
		h = mmap(m[i], 3 * pg, rw, flags | MAP_FIXED_NOREPLACE, -1, 0);
		bad += h != m[i] || h[2 * pg];
		munmap(h, 3 * pg);
	}
	for (int i = 0; i < N; i += 2)
		bad += munmap(m[i], 3 * pg) != 0;
	printf("anon maps: %d maps, failures %d\n", N, bad);
}

static void malloc_4g(void)
{
	size_t n = (size_t)4 << 30, step = (size_t)1 << 20;
	unsigned char *p = malloc(n);
	uint64_t s = 0;

	printf("malloc 4G: %d\n", p != NULL);
	if (!p)
		return;
	for (size_t i = 0; i < n; i += step)
		p[i] = (unsigned char)(i / step * 7 + 1);
	for (size_t i = n; i; i -= step)
		s = s * 31 + p[i - step];
	printf("sum 4G: %llx\n", (unsigned long long)s);
	free(p);
}

static uint64_t sum(const unsigned char *p, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i += 4096)
		s += p[i];
	return s;
}

/*
 * The memory policy calls numactl and procps make: the host's, for
 * this process (include/uapi/linux/mempolicy.h: MPOL_DEFAULT 0,
 * MPOL_F_MEMS_ALLOWED 4).
 */
static void mempolicy(void)
{
	unsigned long mask[2] = { 0, 0 }, allowed[2] = { 0, 0 };
	int mode = -1;
	long r;

	r = syscall(SYS_get_mempolicy, &mode, mask, 128, NULL, 0);
	printf("get_mempolicy: %ld mode %d mask %lx\n", r, mode, mask[0]);
	r = syscall(SYS_get_mempolicy, NULL, allowed, 128, NULL, 4);
	printf("mems allowed: %ld node 0 %d\n", r, (int)(allowed[0] & 1));
	printf("set_mempolicy: %ld\n",
	       syscall(SYS_set_mempolicy, 0, NULL, 0));
	r = syscall(SYS_get_mempolicy, (int *)8, NULL, 0, NULL, 0);
	printf("get_mempolicy bad pointer: %ld %d\n", r, errno == EFAULT);
	r = syscall(SYS_set_mempolicy, 99, NULL, 0);
	printf("set_mempolicy bad mode: %ld %d\n", r, errno == EINVAL);
}

/* The scheduling calls: this thread's policy, the ranges, the refusals. */
static void sched_calls(void)
{
	struct sched_param sp = { .sched_priority = 7 };
	struct timespec ts;
	long r;

	printf("sched_getscheduler: %d\n", sched_getscheduler(0));
	r = sched_getparam(0, &sp);
	printf("sched_getparam: %ld priority %d\n", r, sp.sched_priority);
	printf("sched_setscheduler: %d\n",
	       sched_setscheduler(0, SCHED_OTHER, &sp));
	printf("sched_setparam: %d\n", sched_setparam(getpid(), &sp));
	printf("priority range FIFO: %d..%d\n",
	       sched_get_priority_min(SCHED_FIFO),
	       sched_get_priority_max(SCHED_FIFO));
	printf("sched_rr_get_interval: %d\n", sched_rr_get_interval(0, &ts));
	r = syscall(SYS_sched_getscheduler, -1);
	printf("sched_getscheduler -1: %ld %d\n", r, errno == EINVAL);
	r = syscall(SYS_sched_getparam, 0, NULL);
	printf("sched_getparam NULL: %ld %d\n", r, errno == EINVAL);
	r = syscall(SYS_sched_getparam, 0, (void *)8);
	printf("sched_getparam bad pointer: %ld %d\n", r, errno == EFAULT);
	r = syscall(SYS_sched_setscheduler, 0, 77, &sp);
	printf("sched_setscheduler bad policy: %ld %d\n", r, errno == EINVAL);
}

int main(void)
{
	size_t big = (size_t)64 << 20;
	unsigned char *p, *q, rnd[32];
	struct timespec a, b, d = { 0, 2000000 };
	struct timeval tv;
	struct utsname u;
	char *small;

	setvbuf(stdout, NULL, _IONBF, 0);
	p = malloc(big);
	printf("malloc 64M: %d\n", p != NULL);
	memset(p, 3, big);
	printf("sum: %llu\n", (unsigned long long)sum(p, big));
	q = realloc(p, big * 2);
	printf("realloc 128M: %d keep=%llu\n", q != NULL,
	       (unsigned long long)sum(q, big));
	memset(q + big, 1, big);
	printf("sum2: %llu\n", (unsigned long long)sum(q, 2 * big));
	free(q);
	small = NULL;
	for (int i = 1; i <= 1000; i++) {
		small = realloc(small, (size_t)i * 37);
		small[(size_t)i * 37 - 1] = (char)i;
	}
	printf("realloc small: %d\n", small[36999] == (char)1000);
	mempolicy();
	sched_calls();
	free(small);
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p[12345] = 9;
	printf("mmap: %d\n", p[12345]);
	printf("munmap: %d\n", munmap(p, 1 << 20));
	anon_maps();
	malloc_4g();
	clock_gettime(CLOCK_MONOTONIC, &a);
	nanosleep(&d, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("monotonic advances: %d\n",
	       (b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec >=
		       2000000);
	gettimeofday(&tv, NULL);
	printf("time agrees: %d\n", labs((long)time(NULL) - tv.tv_sec) <= 1);
	printf("getrandom: %zd\n", getrandom(rnd, sizeof(rnd), 0));
	uname(&u);
	printf("uname: %s %s\n", u.sysname, u.machine);
	printf("pid: %d\n", getpid() > 0 && getpid() == getpid());
	printf("done\n");
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the protection suites.
 *
 * The probe: ua_protect_probe(p) reads a byte and stores it back, with
 * fault recovery, and says which of the two the hardware allowed the
 * calling thread right now.  "Locked" is checked with it: the real state
 * of the page for this thread, not the library's bookkeeping.  The nofault
 * accessors cannot do this job (they refuse guest addresses with -ERANGE,
 * or open a window of their own).
 *
 * t_expect() says what the probe must find for a mode of the thread on a
 * guest page of a given protection, under the backend of the space.
 *
 * t_child() runs a function in a child process with its stderr captured,
 * for the tests that end in a violation report and abort().
 */
#ifndef UA_TPROTECT_H
#define UA_TPROTECT_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tsupport.h"

#define T_PG 4096
#define T_R UA_WIN_READ
#define T_W UA_WIN_WRITE
#define T_RW UA_WIN_RW

/* Modes of a thread on a space, as the tests name them. */
enum t_mode {
	T_LOCKED = 0,
	T_READWIN = UA_WIN_READ,
	T_WRITEWIN = UA_WIN_WRITE,
	T_RWWIN = UA_WIN_RW,
	T_GUEST = 4,
};

/* What a mapping's own protection allows, as probe bits (x86: W implies R). */
static inline int t_guest_bits(int prot)
{
	if (prot & PROT_WRITE)
		return T_RW;
	return prot & PROT_READ ? T_R : 0;
}

/* What the probe must find in @mode on a page mapped with @prot in @sp. */
static inline int t_expect(struct ua_space *sp, enum t_mode mode, int prot)
{
	int g = t_guest_bits(prot);

	if (ua_space_protect(sp) == UA_PROTECT_NONE || mode == T_GUEST)
		return g;
	switch (mode) {
	case T_LOCKED:
		return 0;
	case T_READWIN:
		return g & T_R;
	default:
		return g;
	}
}

/* The caller's optional message: printf arguments, or nothing. */
#define t_msg(buf, ...) snprintf((buf), sizeof(buf), " " __VA_ARGS__)

#define t_assert_probe(p, want, ...)                                      \
	do {                                                              \
		int __got = ua_protect_probe(p), __want = (want);        \
		char __m[256];                                            \
		if (__got != __want) {                                    \
			t_msg(__m, __VA_ARGS__);                          \
			cr_assert_fail("probe %d, expected %d:%s", __got, \
				       __want, __m);                      \
		}                                                         \
	} while (0)

static inline bool t_is(struct ua_space *sp, enum ua_protect p)
{
	return ua_space_protect(sp) == p;
}

/* Assert the calling thread's counters since the last ua_stats_reset(). */
#define t_assert_stats(sw, win, fx, ...)                                  \
	do {                                                              \
		struct ua_stats __st;                                     \
		char __m[256];                                            \
		ua_stats_get(&__st);                                      \
		if (__st.switches != (uint64_t)(sw) ||                    \
		    __st.windows != (uint64_t)(win) ||                    \
		    __st.fixups != (uint64_t)(fx)) {                      \
			t_msg(__m, __VA_ARGS__);                          \
			cr_assert_fail(                                   \
				"switches/windows/fixups %llu/%llu/%llu," \
				" expected %llu/%llu/%llu:%s",            \
				(unsigned long long)__st.switches,        \
				(unsigned long long)__st.windows,         \
				(unsigned long long)__st.fixups,          \
				(unsigned long long)(sw),                 \
				(unsigned long long)(win),                \
				(unsigned long long)(fx), __m);           \
		}                                                         \
	} while (0)

/* The outcome of t_child(): wait status and everything written to stderr. */
struct t_child {
	int status;
	char err[16384];
};

/*
 * Run fn(arg) in a child whose stderr goes into c->err; the child exits 0
 * when fn returns.  No core files: some children are meant to abort.
 */
static inline void t_child(void (*fn)(void *), void *arg, struct t_child *c)
{
	int fds[2];
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		struct rlimit rl = { 0, 0 };

		setrlimit(RLIMIT_CORE, &rl);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		fn(arg);
		_exit(0);
	}
	close(fds[1]);
	while (len < sizeof(c->err) - 1 &&
	       (n = read(fds[0], c->err + len, sizeof(c->err) - 1 - len)) !=
		       0) {
		if (n < 0 && errno == EINTR)
			continue;
		cr_assert_gt(n, 0);
		len += (size_t)n;
	}
	c->err[len] = 0;
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &c->status, 0), pid);
}

static inline bool t_died_of(const struct t_child *c, int sig)
{
	return WIFSIGNALED(c->status) && WTERMSIG(c->status) == sig;
}

#if defined(__SANITIZE_ADDRESS__)
#define T_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_ASAN 1
#endif
#endif
#ifndef T_ASAN
#define T_ASAN 0
#endif

/*
 * Died of an ordinary fault, through the default action -- or through
 * ASan's SIGSEGV handler, which was there before the library's and so is
 * the one faults that are not the library's are passed to: it exits(1).
 */
static inline bool t_crashed(const struct t_child *c)
{
	if (T_ASAN && WIFEXITED(c->status))
		return WEXITSTATUS(c->status) != 0;
	return t_died_of(c, SIGSEGV);
}

static inline bool t_exited_ok(const struct t_child *c)
{
	return WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0;
}

/*
 * Capture what the calling process writes to stderr between begin and end
 * (the library's messages go straight to fd 2 with write()).
 */
struct t_capture {
	int saved;
	FILE *f;
	char text[4096];
};

static inline void t_capture_begin(struct t_capture *c)
{
	fflush(stderr);
	c->f = tmpfile();
	cr_assert_not_null(c->f);
	c->saved = dup(2);
	cr_assert_geq(c->saved, 0);
	dup2(fileno(c->f), 2);
}

static inline const char *t_capture_end(struct t_capture *c)
{
	size_t n;

	dup2(c->saved, 2);
	close(c->saved);
	rewind(c->f);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->f);
	c->text[n] = 0;
	fclose(c->f);
	return c->text;
}

#endif

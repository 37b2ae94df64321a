/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the task suites.  Guest code runs on the task's stack in
 * guest mode: it must not call Criterion's asserts (they would unwind the
 * monitor from guest code), so guest functions record what they saw in
 * monitor variables and the test asserts after ua_task_run() returns.
 */
#ifndef UA_TTASK_H
#define UA_TTASK_H

#include <errno.h>
#include <stdint.h>
#include <sys/wait.h>

#include <criterion/criterion.h>

#include "tsupport.h"

/* Space size of the task suites: room for a few default stacks. */
#define TT_SPACE_SIZE ((size_t)8 << 20)

/* RFLAGS bits the tests name. */
#define TT_CF 0x1ul
#define TT_PF 0x4ul
#define TT_AF 0x10ul
#define TT_ZF 0x40ul
#define TT_SF 0x80ul
#define TT_TF 0x100ul
#define TT_IF 0x200ul
#define TT_DF 0x400ul
#define TT_OF 0x800ul
#define TT_AC 0x40000ul

static inline struct ua_space *tt_space(void)
{
	struct ua_space *sp;

	t_skip_if_unavailable();
	sp = ua_space_create(TT_SPACE_SIZE, NULL);
	cr_assert_not_null(sp, "ua_space_create: errno %d", errno);
	return sp;
}

static inline struct ua_task *tt_task(struct ua_space *sp,
				      void (*fn)(void *), void *arg)
{
	struct ua_task *t = ua_task_create(sp, fn, arg, NULL);

	cr_assert_not_null(t, "ua_task_create: errno %d", errno);
	return t;
}

/* Create, run and destroy a task; its wait status. */
static inline int tt_run(struct ua_space *sp, void (*fn)(void *), void *arg)
{
	struct ua_task *t = tt_task(sp, fn, arg);
	int status = ua_task_run(t);

	ua_task_destroy(t);
	return status;
}

#define tt_assert_exited(status, code)                                       \
	do {                                                                 \
		int s_ = (status);                                           \
		cr_assert(s_ >= 0 && WIFEXITED(s_),                          \
			  "status %#x: not an exit", s_);                    \
		cr_assert_eq(WEXITSTATUS(s_), (code), "exit status %d",      \
			     WEXITSTATUS(s_));                               \
	} while (0)

#define tt_assert_killed(status, sig)                                        \
	do {                                                                 \
		int s_ = (status);                                           \
		cr_assert(s_ >= 0 && WIFSIGNALED(s_),                        \
			  "status %#x: not killed by a signal", s_);         \
		cr_assert_eq(WTERMSIG(s_), (sig), "signal %d", WTERMSIG(s_)); \
		/* No core file is written: no core-dump bit. */           \
		cr_assert(!WCOREDUMP(s_), "status %#x: core-dump bit", s_);  \
	} while (0)

/* An empty guest: returns at once. */
static inline void tt_guest_return(void *arg)
{
	(void)arg;
}

#endif

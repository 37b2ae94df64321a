// SPDX-License-Identifier: MIT
/*
 * Linked against the library built with its window checks on (as
 * -Ddebug_windows=true builds it): nothing guest code does may trip them.
 * A swapcontext that loads the very context it saved leaves RIP, RSP and
 * RFLAGS as they were at syscall entry, the case of the fast exit, while
 * block mode keeps the context's read window open to fold it into the
 * exit; the exit must take the path that closes it.
 */
#include <string.h>
#include <ucontext.h>

#include "ttask.h"

#if !UA_DEBUG_WINDOWS
#error "this suite must be built against the debug-windows library"
#endif

TestSuite(debug_exit, .init = t_skip_if_unavailable);

static volatile int results[4];

static void same_context(void *arg)
{
	ucontext_t uc;
	volatile int pass = 0;

	(void)arg;
	memset(&uc, 0, sizeof(uc));
	results[0] = ua_sys_swapcontext(&uc, &uc);
	results[1] = ++pass;
	/* A second time from a loop, as a guest spinning on it would. */
	for (int i = 0; i < 3; i++)
		results[2] += ua_sys_swapcontext(&uc, &uc) == 0;
	ua_sys_exit(7);
}

Test(debug_exit, swapcontext_to_the_same_context)
{
	static const enum ua_frame_mode modes[] = { UA_FRAME_BLOCK,
						    UA_FRAME_PER_ACCESS };

	for (size_t m = 0; m < 2; m++) {
		struct ua_space *sp = tt_space();
		struct ua_task_opts o = { .frame_mode = modes[m] };
		struct ua_task *t = ua_task_create(sp, same_context, NULL, &o);
		int status;

		memset((void *)results, 0, sizeof(results));
		cr_assert_not_null(t);
		status = ua_task_run(t);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 7,
			  "mode %zu: status %#x", m, status);
		cr_assert_eq(results[0], 0);
		cr_assert_eq(results[1], 1);
		cr_assert_eq(results[2], 3);
		/* No window left open: a nested begin would abort here. */
		ua_space_use(sp);
		cr_assert(ua_user_read_access_begin(ua_space_base(sp), 8));
		ua_user_read_access_end();
		ua_space_use(NULL);
		ua_task_destroy(t);
		ua_space_destroy(sp);
	}
}

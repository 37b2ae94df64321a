// SPDX-License-Identifier: MIT
/*
 * A space is not freed under a thread that uses it: ua_space_destroy()
 * refuses with -EBUSY while another thread has it as its current space
 * or while tasks created in it were not destroyed, and says precisely
 * which.  A thread that exits gives up its current space.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tsupport.h"

TestSuite(space_users, .init = t_skip_if_unavailable);

/* ---- stderr capture ---- */

static int saved_fd2 = -1;
static FILE *capture;

static void capture_begin(void)
{
	fflush(stderr);
	capture = tmpfile();
	cr_assert_not_null(capture);
	saved_fd2 = dup(2);
	dup2(fileno(capture), 2);
}

static char *capture_end(void)
{
	static char buf[4096];
	size_t n;

	fflush(stderr);
	dup2(saved_fd2, 2);
	close(saved_fd2);
	rewind(capture);
	n = fread(buf, 1, sizeof(buf) - 1, capture);
	buf[n] = 0;
	fclose(capture);
	return buf;
}

/* ---- a second thread that takes the space as its current one ---- */

struct user {
	struct ua_space *sp;
	uint64_t *guest;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int step;        /* 1: using it; 2: may read; 3: read done */
	bool leave;      /* switch away before returning */
	int get_ret;
	uint64_t got;
};

static void wait_step(struct user *u, int step)
{
	pthread_mutex_lock(&u->lock);
	while (u->step < step)
		pthread_cond_wait(&u->cond, &u->lock);
	pthread_mutex_unlock(&u->lock);
}

static void set_step(struct user *u, int step)
{
	pthread_mutex_lock(&u->lock);
	u->step = step;
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

static void *user_thread(void *arg)
{
	struct user *u = arg;

	ua_space_use(u->sp);
	set_step(u, 1);
	wait_step(u, 2);
	u->get_ret = ua_get_user(u->got, u->guest);
	if (u->leave)
		ua_space_use(NULL);
	set_step(u, 3);
	return NULL;
}

static struct ua_space *space_with_word(uint64_t **word)
{
	struct ua_space *sp = ua_space_create(1 << 20, NULL);
	uint64_t v = 0x1122334455667788ULL;

	cr_assert_not_null(sp);
	*word = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	cr_assert_not_null(*word);
	ua_space_use(sp);
	cr_assert_eq(ua_put_user(v, *word), 0);
	ua_space_use(NULL);
	return sp;
}

static void user_start(struct user *u, pthread_t *th, bool leave)
{
	memset(u, 0, sizeof(*u));
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->cond, NULL);
	u->sp = space_with_word(&u->guest);
	u->leave = leave;
	cr_assert_eq(pthread_create(th, NULL, user_thread, u), 0);
	wait_step(u, 1);
}

Test(space_users, refused_while_another_thread_uses_it)
{
	struct user u;
	pthread_t th;
	char *msg;
	int ret;

	user_start(&u, &th, true);
	capture_begin();
	ret = ua_space_destroy(u.sp);
	msg = capture_end();
	cr_assert_eq(ret, -EBUSY);
	cr_assert(strstr(msg, "the current space of 1 other thread;"),
		  "message: %s", msg);
	/* The space is intact: the user thread reads through it. */
	set_step(&u, 2);
	wait_step(&u, 3);
	cr_assert_eq(u.get_ret, 0);
	cr_assert_eq(u.got, 0x1122334455667788ULL);
	pthread_join(th, NULL);
	cr_assert_eq(ua_space_destroy(u.sp), 0);
}

Test(space_users, a_thread_that_exits_gives_its_space_up)
{
	struct user u;
	pthread_t th;

	user_start(&u, &th, false);
	set_step(&u, 2);
	pthread_join(th, NULL);
	cr_assert_eq(u.get_ret, 0);
	cr_assert_eq(ua_space_destroy(u.sp), 0);
}

Test(space_users, own_current_space_is_given_up)
{
	uint64_t *w;
	struct ua_space *sp = space_with_word(&w);
	struct ua_space *other = space_with_word(&w);

	ua_space_use(sp);
	cr_assert_eq(ua_space_destroy(sp), 0);
	cr_assert_null(ua_current_space());
	/* Switching between spaces moves the count: other is free to go. */
	ua_space_use(other);
	ua_space_use(NULL);
	cr_assert_eq(ua_space_destroy(other), 0);
	cr_assert_eq(ua_space_destroy(NULL), 0);
}

/* ---- tasks: exited but not destroyed, and running ---- */

static volatile int release_guest, guest_started;

static void quick(void *arg)
{
	(void)arg;
}

static void spin(void *arg)
{
	(void)arg;
	guest_started = 1;
	while (!release_guest)
		;
}

static void *run_task(void *t)
{
	return (void *)(intptr_t)ua_task_run(t);
}

Test(space_users, tasks_are_named_precisely)
{
	struct ua_space *sp = ua_space_create(8 << 20, NULL);
	struct ua_task *t1, *t2, *t3;
	pthread_t th;
	char *msg;
	int ret;

	cr_assert_not_null(sp);
	t1 = ua_task_create(sp, quick, NULL, NULL);
	if (!t1 && errno == EOPNOTSUPP)
		cr_skip_test("no tasks on this architecture");
	t2 = ua_task_create(sp, quick, NULL, NULL);
	t3 = ua_task_create(sp, spin, NULL, NULL);
	cr_assert(t1 && t2 && t3);
	cr_assert_eq(ua_task_run(t1), 0);
	cr_assert_eq(pthread_create(&th, NULL, run_task, t3), 0);
	while (!guest_started)
		usleep(1000);

	capture_begin();
	ret = ua_space_destroy(sp);
	msg = capture_end();
	cr_assert_eq(ret, -EBUSY);
	cr_assert(strstr(msg, "has 3 tasks not destroyed (1 still running)"),
		  "message: %s", msg);

	release_guest = 1;
	pthread_join(th, NULL);
	ua_task_destroy(t1);
	ua_task_destroy(t3);
	capture_begin();
	ret = ua_space_destroy(sp);
	msg = capture_end();
	cr_assert_eq(ret, -EBUSY);
	cr_assert(strstr(msg, "has 1 task not destroyed (0 still running)"),
		  "message: %s", msg);
	ua_task_destroy(t2);
	cr_assert_eq(ua_space_destroy(sp), 0);
}

// SPDX-License-Identifier: MIT
/*
 * Tasks on several threads: each on its own space or sharing one, several
 * alive at once, guest code of two threads in the same space at the same
 * time, one task claimed by two threads, per-thread switch counts.
 * Worker threads never assert (Criterion's asserts belong to the test's
 * thread): they return an error string, the test asserts on it.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ttask.h"

TestSuite(task_threads, .init = t_skip_if_unavailable);

#define TASKS_PER_THREAD 100
#define NOPS 50

struct guest_args {
	int code;        /* exit status */
	pid_t tid;       /* what ua_sys_gettid() said */
	pid_t pid;
	long bad;        /* nops that did not return 0 */
	atomic_int *meet; /* rendezvous counter, or NULL */
	int meet_n;
	int nops;
};

static void guest_work(void *arg)
{
	struct guest_args *g = arg;
	volatile char stack_use[1024];

	g->tid = ua_sys_gettid();
	g->pid = ua_sys_getpid();
	if (g->meet) {
		/* Both threads' guest code in the space at once. */
		atomic_fetch_add(g->meet, 1);
		for (long spin = 0; atomic_load(g->meet) < g->meet_n &&
				    spin < 20000000; spin++)
			sched_yield();
	}
	for (int i = 0; i < g->nops; i++) {
		stack_use[i % sizeof(stack_use)] = (char)i;
		if (ua_sys_nop() != 0)
			g->bad++;
	}
	ua_sys_exit(g->code);
}

/* Run one task on sp and check everything it reports. */
static const char *run_checked(struct ua_space *sp, struct guest_args *g)
{
	struct ua_task *t = ua_task_create(sp, guest_work, g, NULL);
	int status;

	if (!t)
		return "ua_task_create failed";
	status = ua_task_run(t);
	if (status < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != g->code) {
		ua_task_destroy(t);
		return "wrong exit status";
	}
	if (g->tid != ua_task_tid(t) || g->pid != getpid() || g->bad) {
		ua_task_destroy(t);
		return "wrong gettid/getpid/nop result";
	}
	ua_task_destroy(t);
	return NULL;
}

struct worker {
	struct ua_space *shared; /* NULL: a space per task */
	int id;
	const char *err;
	pid_t tids[TASKS_PER_THREAD];
	uint64_t switches;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct ua_stats a, b;

	ua_stats_reset();
	ua_stats_get(&a);
	for (int i = 0; i < TASKS_PER_THREAD && !w->err; i++) {
		struct ua_space *sp = w->shared;
		struct guest_args g = { .code = (w->id * 100 + i) & 0xff,
					.nops = NOPS };

		if (!sp)
			sp = ua_space_create(1 << 20, NULL);
		if (!sp) {
			w->err = "ua_space_create failed";
			break;
		}
		w->err = run_checked(sp, &g);
		w->tids[i] = g.tid;
		if (!w->shared)
			ua_space_destroy(sp);
	}
	ua_stats_get(&b);
	w->switches = b.switches - a.switches;
	return NULL;
}

static void run_two_workers(struct ua_space *shared)
{
	struct worker w[2] = { { .shared = shared, .id = 0 },
			       { .shared = shared, .id = 1 } };
	pthread_t th[2];

	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 2; i++) {
		cr_assert_null(w[i].err, "thread %d: %s", i, w[i].err);
		/* Per thread: 2 per task (start, exit), 2 per syscall (the
		 * nops, gettid, getpid), whatever the other thread does. */
		cr_assert_eq(w[i].switches,
			     (uint64_t)TASKS_PER_THREAD * (2 + 2 * (NOPS + 2)),
			     "thread %d: %llu switches", i,
			     (unsigned long long)w[i].switches);
	}
	/* Every task of either thread had its own id. */
	for (int i = 0; i < 2 * TASKS_PER_THREAD; i++)
		for (int j = 0; j < i; j++)
			cr_assert_neq(w[i / TASKS_PER_THREAD]
					      .tids[i % TASKS_PER_THREAD],
				      w[j / TASKS_PER_THREAD]
					      .tids[j % TASKS_PER_THREAD]);
}

Test(task_threads, two_threads_own_spaces)
{
	run_two_workers(NULL);
}

Test(task_threads, two_threads_shared_space)
{
	struct ua_space *sp = tt_space();

	run_two_workers(sp);
	ua_space_destroy(sp);
}

Test(task_threads, several_tasks_alive_on_one_space)
{
	struct ua_space *sp = tt_space();
	struct guest_args g[8];
	struct ua_task *t[8];

	for (int i = 0; i < 8; i++) {
		g[i] = (struct guest_args){ .code = 20 + i, .nops = 10 + i };
		t[i] = tt_task(sp, guest_work, &g[i]);
	}
	/* Interleaved: every other task first, then the rest backwards. */
	for (int i = 0; i < 8; i += 2)
		tt_assert_exited(ua_task_run(t[i]), 20 + i);
	for (int i = 7; i > 0; i -= 2)
		tt_assert_exited(ua_task_run(t[i]), 20 + i);
	for (int i = 0; i < 8; i++) {
		cr_assert_eq(g[i].tid, ua_task_tid(t[i]));
		cr_assert_eq(g[i].bad, 0);
		ua_task_destroy(t[i]);
	}
	ua_space_destroy(sp);
}

/* Two threads, four tasks alive each, guest code meeting in the space. */
struct meet_worker {
	struct ua_task *t[4];
	struct guest_args g[4];
	const char *err;
};

static void *meet_main(void *arg)
{
	struct meet_worker *m = arg;

	for (int i = 0; i < 4 && !m->err; i++) {
		int status = ua_task_run(m->t[i]);

		if (status < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != m->g[i].code)
			m->err = "wrong exit status";
		else if (m->g[i].bad || m->g[i].tid != ua_task_tid(m->t[i]))
			m->err = "wrong syscall results";
	}
	return NULL;
}

Test(task_threads, guest_code_of_two_threads_in_one_space)
{
	struct ua_space *sp = tt_space();
	static atomic_int meet[4];
	struct meet_worker m[2];
	pthread_t th[2];

	memset(m, 0, sizeof(m));
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 4; i++) {
			atomic_store(&meet[i], 0);
			m[k].g[i] = (struct guest_args){
				.code = 40 + 10 * k + i, .nops = 2000,
				.meet = &meet[i], .meet_n = 2 };
			m[k].t[i] = tt_task(sp, guest_work, &m[k].g[i]);
		}
	}
	for (int k = 0; k < 2; k++)
		cr_assert_eq(pthread_create(&th[k], NULL, meet_main, &m[k]), 0);
	for (int k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	for (int k = 0; k < 2; k++) {
		cr_assert_null(m[k].err, "thread %d: %s", k, m[k].err);
		for (int i = 0; i < 4; i++)
			ua_task_destroy(m[k].t[i]);
	}
	for (int i = 0; i < 4; i++)
		cr_assert_eq(atomic_load(&meet[i]), 2, "rendezvous %d", i);
	ua_space_destroy(sp);
}

/* One task, two threads: the second is refused while the first runs. */
static atomic_int running, release;

static void guest_wait_for_release(void *arg)
{
	(void)arg;
	atomic_store(&running, 1);
	while (!atomic_load(&release))
		sched_yield();
	ua_sys_exit(12);
}

struct runner {
	struct ua_task *t;
	int status;
};

static void *runner_main(void *arg)
{
	struct runner *r = arg;

	r->status = ua_task_run(r->t);
	return NULL;
}

Test(task_threads, task_runs_on_one_thread_at_a_time)
{
	struct ua_space *sp = tt_space();
	struct runner r = { .t = tt_task(sp, guest_wait_for_release, NULL) };
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	pthread_t th;

	atomic_store(&running, 0);
	atomic_store(&release, 0);
	cr_assert_eq(pthread_create(&th, NULL, runner_main, &r), 0);
	while (!atomic_load(&running))
		sched_yield();
	cr_assert_eq(ua_task_run(r.t), -EBUSY);
	/* Not destroyed under the other thread (a message on stderr). */
	dup2(devnull, 2);
	errno = 0;
	ua_task_destroy(r.t);
	dup2(saved, 2);
	cr_assert_eq(errno, EBUSY);
	close(saved);
	close(devnull);
	atomic_store(&release, 1);
	pthread_join(th, NULL);
	tt_assert_exited(r.status, 12);
	cr_assert_eq(ua_task_run(r.t), -EBUSY);
	ua_task_destroy(r.t);
	ua_space_destroy(sp);
}

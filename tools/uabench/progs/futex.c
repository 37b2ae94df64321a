// SPDX-License-Identifier: MIT
/*
 * uabench real_futex: COUNT futex round trips between two threads, then
 * exit 0.
 *
 *   futex COUNT
 *
 * A word goes back and forth: each thread waits (FUTEX_WAIT) until the
 * word is its own, gives it to the other and wakes it (FUTEX_WAKE).  One
 * round trip is two hand-offs.  The second thread is started for a run
 * of no round trips too, so that uabench's N-less-none difference leaves
 * the round trips alone.  Raw futex calls, as in a libc's locks.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* include/uapi/linux/futex.h, which musl's headers lack. */
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129

static _Atomic int word;
static long count;

static void handoff(int mine)
{
	int theirs = !mine;

	for (long i = 0; i < count; i++) {
		while (atomic_load(&word) != mine)
			syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, theirs,
				NULL, NULL, 0);
		atomic_store(&word, theirs);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL,
			0);
	}
}

static void *other(void *arg)
{
	(void)arg;
	handoff(1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int err;

	count = argc > 1 ? atol(argv[1]) : 0;
	err = pthread_create(&t, NULL, other, NULL);
	if (err) {
		fprintf(stderr, "uabench-futex: pthread_create: error %d\n",
			err);
		return 1;
	}
	handoff(0);
	pthread_join(t, NULL);
	return 0;
}

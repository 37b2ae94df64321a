// SPDX-License-Identifier: MIT
/*
 * A sampling profiler's SIGPROF handler.  It runs at whatever instruction
 * the timer interrupted, and follows pointers that may be stale (the
 * request it describes may have been freed and unmapped).  The nofault
 * accessors read them without ever crashing, from inside the handler;
 * ua_copy_from_user_nofault() reads the guest's memory the same way.
 *
 * The samples here are taken with raise() so the output is the same on
 * every run; a real profiler arms setitimer(ITIMER_PROF) instead.
 *
 *   cc profiler.c $(pkg-config --cflags --libs uaccess)
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <uaccess.h>

struct request {
	uint64_t id;
	const char *name;
};

/* What the monitor is doing now: read by the handler, maybe stale. */
static struct request *volatile current_req;
/* Where the guest keeps its "program counter" (a guest address). */
static uint64_t *volatile guest_pc;

struct sample {
	long req_err, name_len, pc_err;
	uint64_t id, pc;
	char name[16];
};

static struct sample samples[8];
static volatile sig_atomic_t nsamples;

/* Async-signal-safe: nofault accessors and plain stores only. */
static void on_sigprof(int sig)
{
	struct sample *s = &samples[nsamples];
	struct request r;

	(void)sig;
	s->req_err = ua_copy_from_kernel_nofault(&r, current_req, sizeof(r));
	if (!s->req_err) {
		s->id = r.id;
		s->name_len = ua_strncpy_from_kernel_nofault(s->name, r.name,
							     sizeof(s->name));
	}
	s->pc_err = ua_copy_from_user_nofault(&s->pc, guest_pc,
					      sizeof(s->pc));
	nsamples++;
}

static void print_sample(const struct sample *s)
{
	printf("sample: request ");
	if (s->req_err)
		printf("unreadable (%ld)", s->req_err);
	else
		printf("#%llu \"%s\" (%ld)", (unsigned long long)s->id,
		       s->name_len > 0 ? s->name : "?", s->name_len);
	printf(", guest pc ");
	if (s->pc_err)
		printf("unreadable (%ld)\n", s->pc_err);
	else
		printf("%#llx\n", (unsigned long long)s->pc);
}

int main(void)
{
	struct ua_space *sp;
	struct request *req;
	uint64_t pc = 0x401000;
	char *g;
	struct sigaction sa = { .sa_handler = on_sigprof,
				.sa_flags = SA_RESTART };

	/* Initialise first: the handler must not be the first caller. */
	if (ua_init())
		return 1;
	sp = ua_space_create(1 << 20, NULL);
	if (!sp) {
		perror("ua_space_create");
		return 1;
	}
	ua_space_use(sp);
	g = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	if (!g || ua_copy_to_user(g, &pc, sizeof(pc)))
		return 1;
	guest_pc = (uint64_t *)g;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);

	/* A live request. */
	req = malloc(sizeof(*req));
	if (!req)
		return 1;
	*req = (struct request){ .id = 1, .name = "openat" };
	current_req = req;
	raise(SIGPROF);

	/* The request's memory is gone, but the pointer was not cleared. */
	current_req = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (current_req == MAP_FAILED)
		return 1;
	munmap(current_req, 4096);
	raise(SIGPROF);

	/* A pointer into the guest space is refused, not followed. */
	current_req = (struct request *)g;
	/* And the guest's pc slot has been unmapped meanwhile. */
	guest_pc = (uint64_t *)(g + 4096);
	raise(SIGPROF);

	for (int i = 0; i < nsamples; i++)
		print_sample(&samples[i]);
	free(req);
	ua_space_use(NULL);
	ua_space_destroy(sp);
	return 0;
}

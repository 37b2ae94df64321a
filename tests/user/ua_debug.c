// SPDX-License-Identifier: MIT
/*
 * UA_DEBUG=1: each kind of refused access says why on stderr, exactly;
 * without UA_DEBUG (or with UA_DEBUG=0) nothing is said.  The program
 * refuses accesses on purpose with its stderr sent to a file, then
 * compares the file with the lines it expects:
 *   - no current space on this thread (checked accessor, then a thread
 *     that never called ua_space_use() while the main thread has a space),
 *   - a range outside the current space (a monitor pointer; an iov_iter;
 *     a string),
 *   - a nested window (a checked accessor inside the program's own window,
 *     with the file and line of that window's begin).
 * Prints "ua_debug: N checks passed" and exits 0, or names the first
 * failure; exits 77 when UA_PROTECT names a backend this machine lacks.
 */
#define UA_DEBUG_WINDOWS 1 /* windows record where they were opened */

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uaccess.h>

static int checks;

#define CHECK(cond)                                                        \
	do {                                                               \
		checks++;                                                  \
		if (!(cond)) {                                             \
			dprintf(saved_err, "ua_debug: %s:%d: check failed: %s\n", \
				__FILE__, __LINE__, #cond);                \
			exit(1);                                           \
		}                                                          \
	} while (0)

static int saved_err = 2;
static char expect[4096];
static char *g;

/* Appends one expected line. */
static void want(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void want(const char *fmt, ...)
{
	size_t len = strlen(expect);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(expect + len, sizeof(expect) - len, fmt, ap);
	va_end(ap);
}

static void *no_space_thread(void *arg)
{
	uint32_t v = 1;

	(void)arg;
	CHECK(ua_current_space() == NULL);
	CHECK(ua_get_user(v, (uint32_t *)g) == -EFAULT && v == 0);
	return NULL;
}

int main(void)
{
	const char *dbg = getenv("UA_DEBUG");
	bool on = dbg && *dbg && strcmp(dbg, "0") != 0;
	struct ua_space *sp = ua_space_create(1 << 20, NULL);
	char tmpl[] = "/tmp/ua_debug.XXXXXX", got[4096], buf[16];
	struct ua_iov_iter it;
	uintptr_t base, limit;
	uint32_t mon = 5;
	pthread_t th;
	int fd, line;
	ssize_t n;

	if (!sp && errno == EOPNOTSUPP) {
		printf("SKIP: UA_PROTECT=%s is not available here\n",
		       getenv("UA_PROTECT"));
		return 77;
	}
	CHECK(sp != NULL);
	base = (uintptr_t)ua_space_base(sp);
	limit = (uintptr_t)ua_space_limit(sp);
	g = ua_map(sp, NULL, 4096, PROT_READ | PROT_WRITE);
	CHECK(g != NULL);

	fd = mkstemp(tmpl);
	CHECK(fd >= 0);
	unlink(tmpl);
	saved_err = dup(2);
	CHECK(saved_err >= 0 && dup2(fd, 2) == 2);

	/* 1. The thread has no current space yet. */
	CHECK(ua_copy_from_user(buf, g, sizeof(buf)) == sizeof(buf));
	want("uaccess: UA_DEBUG: read access to [%p, +16) refused: no "
	     "current space on this thread (ua_space_use() sets one, for the "
	     "calling thread only)\n", (void *)g);
	ua_space_use(sp);

	/* 2. Another thread: the current space is per thread. */
	CHECK(pthread_create(&th, NULL, no_space_thread, NULL) == 0);
	CHECK(pthread_join(th, NULL) == 0);
	want("uaccess: UA_DEBUG: read access to [%p, +4) refused: no current "
	     "space on this thread (ua_space_use() sets one, for the calling "
	     "thread only)\n", (void *)g);

	/* 3. Outside the space: a monitor pointer, an iovec, a string. */
	CHECK(ua_put_user(7u, &mon) == -EFAULT && mon == 5);
	want("uaccess: UA_DEBUG: write access to [%p, +4) refused: outside "
	     "the current space [0x%lx, 0x%lx)\n", (void *)&mon,
	     (unsigned long)base, (unsigned long)limit);
	CHECK(ua_iov_iter_ubuf(&it, UA_ITER_DEST, (void *)(limit - 8), 9) ==
	      -EFAULT);
	want("uaccess: UA_DEBUG: write access to [0x%lx, +9) refused: outside "
	     "the current space [0x%lx, 0x%lx)\n", (unsigned long)(limit - 8),
	     (unsigned long)base, (unsigned long)limit);
	CHECK(ua_strnlen_user(buf, 32) == 0);
	want("uaccess: UA_DEBUG: read access to [%p, +32) refused: outside "
	     "the current space [0x%lx, 0x%lx)\n", (void *)buf,
	     (unsigned long)base, (unsigned long)limit);

	/* 4. A checked accessor inside the program's own window. */
	line = __LINE__ + 1;
	CHECK(ua_user_read_access_begin(g, 64));
	CHECK(ua_copy_to_user(g + 8, "12345678", 8) == 8);
	ua_user_read_access_end();
	want("uaccess: UA_DEBUG: write access to [%p, +8) refused: nested "
	     "window: a read window opened at %s:%d is still open on this "
	     "thread (one window at a time)\n", (void *)(g + 8), __FILE__,
	     line);

	/* A successful access says nothing. */
	CHECK(ua_copy_to_user(g, "ok", 2) == 0);

	fflush(stderr);
	CHECK(dup2(saved_err, 2) == 2);
	n = pread(fd, got, sizeof(got) - 1, 0);
	CHECK(n >= 0);
	got[n] = 0;
	if (!on)
		expect[0] = 0;
	if (strcmp(got, expect) != 0) {
		fprintf(stderr, "ua_debug: stderr was:\n%s-- expected:\n%s--\n",
			got, expect);
		return 1;
	}
	ua_space_use(NULL);
	ua_space_destroy(sp);
	printf("ua_debug: %d checks passed (UA_DEBUG %s)\n", checks,
	       on ? "on: every refusal explained" : "off: silent");
	return 0;
}

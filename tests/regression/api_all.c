// SPDX-License-Identifier: MIT
/*
 * Every public call of the core, once, with exact results: space.h,
 * access.h, window.h (scoped forms included), nofault.h, iter.h, fault.h,
 * stats.h (ua_stats_get_insns() too), protect.h and extable.h.  tools/check-install builds it against
 * an installed copy with nothing but `pkg-config --cflags --libs uaccess`;
 * meson also builds and runs it against the build tree.  No test framework:
 * prints "api_all: N checks passed" and exits 0, or names the first failure.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <ucontext.h>

#include <uaccess.h>

static int checks;

#define CHECK(cond)                                                        \
	do {                                                               \
		checks++;                                                  \
		if (!(cond)) {                                             \
			fprintf(stderr, "api_all: %s:%d: check failed: %s\n", \
				__FILE__, __LINE__, #cond);                \
			exit(1);                                           \
		}                                                          \
	} while (0)

#define PG 4096

struct args_v1 {
	uint32_t a, b;
};

struct args_v2 {
	uint32_t a, b;
	uint64_t c;
};

static struct ua_space *sp;
static char *g;    /* two mapped guest pages */
static char *hole; /* the unmapped page after them */

static void stats_delta(const struct ua_stats *before, uint64_t switches,
			uint64_t windows, uint64_t fixups, int line)
{
	struct ua_stats now;

	ua_stats_get(&now);
	if (now.switches - before->switches != switches ||
	    now.windows - before->windows != windows ||
	    now.fixups - before->fixups != fixups) {
		fprintf(stderr,
			"api_all: line %d: stats +%llu/+%llu/+%llu, want "
			"+%llu/+%llu/+%llu (switches/windows/fixups)\n",
			line, (unsigned long long)(now.switches - before->switches),
			(unsigned long long)(now.windows - before->windows),
			(unsigned long long)(now.fixups - before->fixups),
			(unsigned long long)switches,
			(unsigned long long)windows,
			(unsigned long long)fixups);
		exit(1);
	}
	checks++;
}

static void spaces(void)
{
	struct ua_space_opts o = { .protect = UA_PROTECT_AUTO };
	const char *why = NULL;
	char *base;

	CHECK(ua_init() == 0);
	CHECK(ua_protect_available(UA_PROTECT_NONE, &why));
	CHECK(ua_protect_available(UA_PROTECT_MPROTECT, NULL));
	(void)ua_protect_available(UA_PROTECT_PKEY, &why);
	CHECK(!strcmp(ua_protect_name(UA_PROTECT_MPROTECT), "mprotect"));

	sp = ua_space_create(1 << 20, &o);
	if (!sp && errno == EOPNOTSUPP) {
		/* UA_PROTECT names a backend this machine lacks (pkey). */
		printf("SKIP: UA_PROTECT=%s is not available here\n",
		       getenv("UA_PROTECT"));
		exit(77);
	}
	CHECK(sp != NULL);
	base = ua_space_base(sp);
	CHECK(ua_space_size(sp) == 1 << 20);
	CHECK((char *)ua_space_limit(sp) == base + (1 << 20));
	CHECK(ua_space_protect(sp) != UA_PROTECT_AUTO);
	CHECK(ua_space_find(base + 5) == sp);
	CHECK(ua_space_find(&o) == NULL);
	CHECK(ua_current_space() == NULL);
	CHECK(ua_space_use(sp) == NULL);
	CHECK(ua_current_space() == sp);

	g = ua_map(sp, base + 16 * PG, 3 * PG, PROT_READ | PROT_WRITE);
	CHECK(g == base + 16 * PG);
	CHECK(ua_map(sp, g, PG, PROT_READ) == NULL && errno == EEXIST);
	CHECK(ua_unmap(sp, g + 2 * PG, PG) == 0);
	hole = g + 2 * PG;
}

static uint16_t monitor_u16 = 3;

static void checked(void)
{
	struct args_v2 k2;
	struct args_v1 v1 = { 1, 2 };
	struct ua_stats st;
	uint32_t w = 0;
	uint16_t h;
	char buf[32];

	CHECK(ua_access_ok(g, 2 * PG));
	CHECK(ua_access_ok(ua_space_limit(sp), 0));
	CHECK(!ua_access_ok(g, SIZE_MAX));
	CHECK(!ua_access_ok(&w, sizeof(w)));
	CHECK(ua_mask_user_address(g) == g);
	CHECK(ua_mask_user_address(&w) == ua_space_limit(sp));

	ua_stats_reset();
	ua_stats_get(&st);
	CHECK(st.switches == 0 && st.windows == 0 && st.fixups == 0);
	CHECK(ua_put_user((uint32_t)0xabcd1234, (uint32_t *)g) == 0);
	CHECK(ua_get_user(w, (uint32_t *)g) == 0 && w == 0xabcd1234);
	stats_delta(&st, 4, 2, 0, __LINE__);
	h = 7;
	CHECK(ua_get_user(h, (uint16_t *)hole) == -EFAULT && h == 0);
	CHECK(ua_put_user(h, (uint16_t *)hole) == -EFAULT);
	CHECK(ua_get_user(h, &monitor_u16) == -EFAULT);

	CHECK(ua_copy_to_user(g + 100, "hello, guest", 13) == 0);
	CHECK(ua_copy_from_user(buf, g + 100, 13) == 0);
	CHECK(!strcmp(buf, "hello, guest"));
	memset(buf, 'x', sizeof(buf));
	CHECK(ua_copy_from_user(buf, hole - 4, 10) == 6);
	CHECK(buf[4] == 0 && buf[9] == 0 && buf[10] == 'x');
	CHECK(ua_copy_to_user(hole - 3, "abcdef", 6) == 3);
	CHECK(ua_clear_user(hole - 8, 16) == 8);
	CHECK(ua_clear_user(g + 100, 5) == 0);

	CHECK(ua_copy_to_user(g + 200, "path/name", 10) == 0);
	CHECK(ua_strncpy_from_user(buf, g + 200, sizeof(buf)) == 9);
	CHECK(!strcmp(buf, "path/name"));
	CHECK(ua_strncpy_from_user(buf, g + 200, 4) == 4);
	CHECK(ua_strncpy_from_user(buf, hole, 4) == -EFAULT);
	CHECK(ua_strnlen_user(g + 200, 64) == 10);
	CHECK(ua_strnlen_user(g + 200, 5) > 5);
	CHECK(ua_strnlen_user(hole, 5) == 0);

	CHECK(ua_check_zeroed_user(g + 300, 64) == 1);
	CHECK(ua_check_zeroed_user(g + 200, 64) == 0);
	CHECK(ua_check_zeroed_user(hole - 8, 64) == -EFAULT);

	CHECK(ua_copy_to_user(g + 400, &v1, sizeof(v1)) == 0);
	memset(&k2, 0xff, sizeof(k2));
	CHECK(ua_copy_struct_from_user(&k2, sizeof(k2), g + 400,
				       sizeof(v1)) == 0);
	CHECK(k2.a == 1 && k2.b == 2 && k2.c == 0);
	CHECK(ua_copy_to_user(g + 420, "\1", 1) == 0);
	CHECK(ua_copy_struct_from_user(&v1, sizeof(v1), g + 400, 24) ==
	      -E2BIG);
	CHECK(ua_copy_struct_from_user(&v1, sizeof(v1), hole - 4, 8) ==
	      -EFAULT);
}

static int window_reads(const uint32_t *u, uint32_t *out)
{
	uint32_t v;

	if (!ua_user_read_access_begin(u, 2 * sizeof(*u)))
		return -EFAULT;
	ua_unsafe_get_user(v, u, efault);
	ua_unsafe_get_user(out[1], u + 1, efault);
	ua_user_read_access_end();
	out[0] = v;
	return 0;
efault:
	ua_user_read_access_end();
	return -EFAULT;
}

static int window_writes(uint64_t *u, const char *src)
{
	if (!ua_user_write_access_begin(u, 24))
		return -EFAULT;
	ua_unsafe_put_user(0x1122334455667788ULL, u, efault);
	ua_unsafe_copy_to_user(u + 1, src, 16, efault);
	ua_user_write_access_end();
	return 0;
efault:
	ua_user_write_access_end();
	return -EFAULT;
}

/* Non-zero when a byte is NUL: an "operation" for ua_unsafe_op_wrap. */
static int has_nul(const char *p, size_t n)
{
	return memchr(p, 0, n) != NULL;
}

/* Flip the case bit of n guest bytes in place (n is not a constant). */
static int window_rw(char *u, size_t n)
{
	char tmp[64];

	if (n > sizeof(tmp) || !ua_user_access_begin(u, n))
		return -EFAULT;
	ua_unsafe_copy_from_user(tmp, u, n, efault);
	ua_unsafe_op_wrap(has_nul(tmp, n), efault);
	for (size_t k = 0; k < n; k++)
		tmp[k] ^= 0x20;
	ua_unsafe_copy_to_user(u, tmp, n, efault);
	ua_user_access_end();
	return 0;
efault:
	ua_user_access_end();
	return -EFAULT;
}

static int scoped(uint64_t *u, uint32_t *r, char *s, uint64_t *q)
{
	uint64_t v = 0;
	char sbuf[8];

	ua_scoped_user_read_access(u, efault) {
		ua_unsafe_get_user(v, u, efault);
	}
	ua_scoped_user_write_access(r, efault) {
		ua_unsafe_put_user((uint32_t)v, r, efault);
	}
	ua_scoped_user_rw_access(q, efault) {
		uint64_t x;

		ua_unsafe_get_user(x, q, efault);
		ua_unsafe_put_user(x + 1, q, efault);
	}
	ua_scoped_user_read_access_size(s, 8, efault) {
		ua_unsafe_copy_from_user(sbuf, s, 8, efault);
	}
	ua_scoped_user_write_access_size(s + 8, 8, efault) {
		ua_unsafe_copy_to_user(s + 8, sbuf, 8, efault);
	}
	ua_scoped_user_rw_access_size(s, 16, efault) {
		ua_unsafe_put_user('S', s, efault);
	}
	return 0;
efault:
	return -EFAULT;
}

static void windows(void)
{
	struct ua_stats st;
	uint32_t out[2];
	uint64_t q = 0;
	char s[17] = { 0 };

	CHECK(ua_copy_to_user(g, "\1\0\0\0\2\0\0\0", 8) == 0);
	ua_stats_get(&st);
	CHECK(window_reads((uint32_t *)g, out) == 0);
	CHECK(out[0] == 1 && out[1] == 2);
	stats_delta(&st, 2, 1, 0, __LINE__);
	CHECK(window_reads((uint32_t *)(hole - 4), out) == -EFAULT);
	CHECK(window_reads(&out[0], out) == -EFAULT);

	CHECK(window_writes((uint64_t *)(g + 64), "0123456789abcdef") == 0);
	CHECK(ua_copy_from_user(s, g + 72, 16) == 0);
	CHECK(!strcmp(s, "0123456789abcdef"));
	CHECK(ua_get_user(q, (uint64_t *)(g + 64)) == 0);
	CHECK(q == 0x1122334455667788ULL);
	CHECK(window_writes((uint64_t *)(hole - 16), "0123456789abcdef") ==
	      -EFAULT);

	CHECK(window_rw(g + 72, 4) == 0);
	CHECK(ua_copy_from_user(s, g + 72, 4) == 0 && !memcmp(s, "\x10\x11\x12\x13", 4));
	CHECK(window_rw(hole - 2, 4) == -EFAULT);
	CHECK(window_rw(g + 2000, 4) == -EFAULT); /* NULs: op_wrap jumps */

	/* Scoped: u64 at g+64, u32 to g+128, string at g+72, counter g+136. */
	ua_stats_get(&st);
	CHECK(scoped((uint64_t *)(g + 64), (uint32_t *)(g + 128), g + 72,
		     (uint64_t *)(g + 136)) == 0);
	stats_delta(&st, 12, 6, 0, __LINE__);
	CHECK(ua_get_user(out[0], (uint32_t *)(g + 128)) == 0);
	CHECK(out[0] == 0x55667788u);
	CHECK(ua_get_user(q, (uint64_t *)(g + 136)) == 0 && q == 1);
	CHECK(ua_copy_from_user(s, g + 72, 16) == 0);
	CHECK(!memcmp(s, "S\x11\x12\x13" "4567" "\x10\x11\x12\x13" "4567", 16));
	/* A fault inside a scoped block closes its window on the way out. */
	ua_stats_get(&st);
	CHECK(scoped((uint64_t *)(hole - 8), (uint32_t *)(g + 128), hole - 4,
		     (uint64_t *)hole) == -EFAULT);
	stats_delta(&st, 6, 3, 1, __LINE__);
	CHECK(scoped((uint64_t *)&q, (uint32_t *)(g + 128), g, &q) == -EFAULT);
}

static volatile int nofault_src = 0x5a5a;

static void nofault(void)
{
	long v = 0;
	int x = 0;
	char buf[16];

	CHECK(ua_get_kernel_nofault(x, (const int *)&nofault_src) == 0);
	CHECK(x == 0x5a5a);
	CHECK(ua_get_kernel_nofault(v, (const long *)16) == -EFAULT);
	CHECK(ua_get_kernel_nofault(v, (const long *)g) == -ERANGE);
	CHECK(v == 0); /* failed reads do not assign */
	CHECK(ua_copy_from_kernel_nofault(buf, "kernel", 7) == 0);
	CHECK(!strcmp(buf, "kernel"));
	CHECK(ua_copy_from_kernel_nofault(buf, (void *)16, 4) == -EFAULT);
	CHECK(ua_copy_from_kernel_nofault(buf, hole, 4) == -ERANGE);
	CHECK(ua_copy_to_kernel_nofault(buf, "copy", 5) == 0);
	CHECK(!strcmp(buf, "copy"));
	CHECK(ua_copy_to_kernel_nofault((void *)16, "x", 1) == -EFAULT);
	CHECK(ua_copy_to_kernel_nofault(g, "x", 1) == -ERANGE);
	CHECK(ua_strncpy_from_kernel_nofault(buf, "abc", sizeof(buf)) == 4);
	CHECK(ua_strncpy_from_kernel_nofault(buf, "abcdef", 4) == 4 &&
	      !strcmp(buf, "abc"));
	CHECK(ua_strncpy_from_kernel_nofault(buf, (void *)16, 4) == -EFAULT);
	CHECK(ua_strncpy_from_kernel_nofault(buf, g, 4) == -ERANGE);
	CHECK(ua_copy_from_user_nofault(buf, g + 200, 10) == 0);
	CHECK(!strcmp(buf, "path/name"));
	CHECK(ua_copy_from_user_nofault(buf, hole - 2, 4) == -EFAULT);
	CHECK(ua_copy_from_user_nofault(buf, "monitor", 4) == -EFAULT);
}

static void iter(void)
{
	struct iovec uv[3] = {
		{ g + 1000, 5 }, { g + 2000, 0 }, { g + 3000, 7 },
	};
	char out[16] = { 0 }, back[12];
	struct iovec kv[2] = { { out, 6 }, { out + 8, 6 } };
	struct ua_iov_iter it;

	CHECK(ua_copy_to_user(g + 500, uv, sizeof(uv)) == 0);
	CHECK(ua_import_iovec(&it, UA_ITER_DEST, (struct iovec *)(g + 500),
			      3) == 12);
	CHECK(ua_iov_iter_count(&it) == 12);
	CHECK(ua_copy_to_iter("helloWORLD!!", 12, &it) == 12);
	CHECK(ua_iov_iter_count(&it) == 0);
	ua_iov_iter_release(&it);
	CHECK(ua_copy_from_user(back, g + 1000, 5) == 0 &&
	      !memcmp(back, "hello", 5));
	CHECK(ua_copy_from_user(back, g + 3000, 7) == 0 &&
	      !memcmp(back, "WORLD!!", 7));

	CHECK(ua_import_iovec(&it, UA_ITER_SOURCE, (struct iovec *)(g + 500),
			      3) == 12);
	ua_iov_iter_advance(&it, 3);
	CHECK(ua_iov_iter_count(&it) == 9);
	CHECK(ua_copy_from_iter(back, sizeof(back), &it) == 9);
	CHECK(!memcmp(back, "loWORLD!!", 9));
	ua_iov_iter_release(&it);

	CHECK(ua_import_iovec(&it, UA_ITER_DEST, (struct iovec *)(g + 500),
			      3) == 12);
	CHECK(ua_iov_iter_zero(6, &it) == 6);
	CHECK(ua_iov_iter_count(&it) == 6);
	ua_iov_iter_release(&it);
	CHECK(ua_copy_from_user(back, g + 3000, 2) == 0 && back[0] == 0 &&
	      back[1] == 'O');

	/* A guest array running into the hole: a short count. */
	CHECK(ua_copy_to_user(hole - sizeof(uv[0]), uv, sizeof(uv[0])) == 0);
	CHECK(ua_import_iovec(&it, UA_ITER_DEST,
			      (struct iovec *)(hole - sizeof(uv[0])), 3) == 5);
	ua_iov_iter_release(&it);
	CHECK(ua_import_iovec(&it, UA_ITER_DEST, (struct iovec *)hole, 1) ==
	      -EFAULT);

	ua_iov_iter_kvec(&it, UA_ITER_DEST, kv, 2);
	CHECK(ua_iov_iter_count(&it) == 12);
	CHECK(ua_copy_to_iter("abcdefghijkl", 12, &it) == 12);
	CHECK(!memcmp(out, "abcdef\0\0ghijkl", 14));
	ua_iov_iter_release(&it);
}

static void fault_and_extable(void)
{
	siginfo_t si;
	ucontext_t uc;
	uintptr_t fix = 0;

	memset(&si, 0, sizeof(si));
	memset(&uc, 0, sizeof(uc));
	si.si_code = SI_USER;
	CHECK(!ua_handle_fault(SIGSEGV, &si, &uc));
	si.si_code = SEGV_MAPERR;
	CHECK(!ua_handle_fault(SIGUSR1, &si, &uc));
	CHECK(ua_extable_search((uintptr_t)&fix, &fix) == 0);
	/* This program's own table (its inline accessors), found. */
#if UA_ARCH_HAS_INLINE_ACCESSORS
	{
		const struct ua_extable_entry *e = __start_ua_extable;

		CHECK(e != NULL && e < __stop_ua_extable);
		CHECK(ua_extable_search((uintptr_t)&e->insn + e->insn, &fix) ==
		      UA_EX_TYPE_DEFAULT);
		CHECK(fix == (uintptr_t)&e->fixup + e->fixup);
		/* Registering again is a no-op; unregister and back. */
		CHECK(ua_extable_register(e, __stop_ua_extable) == 0);
		ua_extable_unregister(e);
		CHECK(ua_extable_search((uintptr_t)&e->insn + e->insn, &fix) == 0);
		CHECK(ua_extable_register(e, __stop_ua_extable) == 0);
		CHECK(ua_extable_search((uintptr_t)&e->insn + e->insn, &fix) ==
		      UA_EX_TYPE_DEFAULT);
	}
#endif
}

static void protect(void)
{
	struct ua_stats st;
	uint64_t v = 0;

	ua_stats_get(&st);
	ua_protect_unlock(sp);
	/* Guest mode: the memory is the guest's, touched directly. */
	((volatile char *)g)[600] = 'G';
	ua_protect_lock(sp);
	stats_delta(&st, 2, 0, 0, __LINE__);
	CHECK(ua_get_user(v, (uint8_t *)(g + 600)) == 0 && v == 'G');

	ua_stats_get(&st);
	CHECK(ua_user_write_access_begin(g + 601, 1));
	ua_unsafe_put_user('H', g + 601, efault);
	/* The last window folds into the switch to guest mode. */
	ua_protect_unlock_from_window(sp);
	CHECK(((volatile char *)g)[601] == 'H');
	ua_protect_lock(sp);
	stats_delta(&st, 3, 1, 0, __LINE__);
	return;
efault:
	ua_user_write_access_end();
	CHECK(!"store in a write window faulted");
}

/*
 * ua_stats_get_insns(): a fixed-up fault is one host signal in the fault
 * handler; a shorter structure gets only its own bytes; the reset
 * zeroes the counts with the others.
 */
static void insn_stats(void)
{
	struct ua_insn_stats a, b;
	uint64_t part[2] = { 7, 7 };
	uint32_t v;

	CHECK(ua_stats_get_insns(&a, sizeof(a)) == sizeof(a));
	CHECK(ua_get_user(v, (uint32_t *)hole) == -EFAULT && v == 0);
	CHECK(ua_stats_get_insns(&b, sizeof(b)) == sizeof(b));
	CHECK(b.sig_fault == a.sig_fault + 1);
	CHECK(b.sig_sysdispatch == a.sig_sysdispatch && b.sig_irq == a.sig_irq);
	CHECK(b.wrfsbase == a.wrfsbase && b.fs_syscalls == a.fs_syscalls);
	CHECK(ua_stats_get_insns((struct ua_insn_stats *)part, 8) ==
		      sizeof(a) &&
	      part[0] == b.wrpkru && part[1] == 7);
	ua_stats_reset();
	ua_stats_get_insns(&b, sizeof(b));
	CHECK(!b.wrpkru && !b.wrfsbase && !b.fs_syscalls &&
	      !b.sig_sysdispatch && !b.sig_irq && !b.sig_fault);
}

int main(void)
{
	spaces();
	checked();
	windows();
	nofault();
	iter();
	fault_and_extable();
	protect();
	insn_stats();
	CHECK(ua_space_use(NULL) == sp);
	ua_space_destroy(sp);
	printf("api_all: %d checks passed (protection %s)\n", checks,
	       getenv("UA_PROTECT") ? getenv("UA_PROTECT") : "auto");
	return 0;
}

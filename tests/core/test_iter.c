// SPDX-License-Identifier: MIT
/*
 * iov_iter over monitor kvecs and guest iovecs: copies, zeroing, advance
 * and counts; an iovec array that runs into an unmapped page gives a short
 * count, a buffer that faults mid-way a short count with the iterator
 * standing at the fault; more than UA_IOV_FAST segments; the limits.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>

#include "tcore.h"

static struct t_env env;

static void setup(void)
{
	t_env_setup(&env, T_PAGES);
}

static void teardown(void)
{
	t_env_teardown(&env);
}

TestSuite(iter, .init = setup, .fini = teardown);

#define CANARY 0xa5

/* Where the iterator stands: segment index from first, offset, count. */
static void assert_at(const struct ua_iov_iter *i, const struct iovec *first,
		      size_t seg, size_t off, size_t count)
{
	cr_assert_eq((size_t)(i->iov - first), seg, "segment %zu, expected %zu",
		     (size_t)(i->iov - first), seg);
	cr_assert_eq(i->iov_offset, off, "offset %zu, expected %zu",
		     i->iov_offset, off);
	cr_assert_eq(ua_iov_iter_count(i), count, "count %zu, expected %zu",
		     ua_iov_iter_count(i), count);
}

Test(iter, kvec_copy_zero_advance)
{
	unsigned char a[5], b[0 + 1], c[11], src[16], dst[16];
	struct iovec kv[] = { { a, 5 }, { b, 0 }, { c, 11 } };
	struct ua_iov_iter it;

	t_pat_fill(src, sizeof(src), 0);
	memset(a, CANARY, 5);
	memset(c, CANARY, 11);
	ua_iov_iter_kvec(&it, UA_ITER_DEST, kv, 3);
	cr_assert_eq(ua_iov_iter_count(&it), 16);
	ua_stats_reset();
	cr_assert_eq(ua_copy_to_iter(src, 7, &it), 7);
	assert_at(&it, kv, 2, 2, 9);
	cr_assert_eq(memcmp(a, src, 5), 0);
	cr_assert_eq(memcmp(c, src + 5, 2), 0);
	cr_assert_eq(c[2], CANARY);
	ua_iov_iter_advance(&it, 3);
	assert_at(&it, kv, 2, 5, 6);
	cr_assert_eq(ua_iov_iter_zero(100, &it), 6, "clamped to the count");
	cr_assert_eq(ua_iov_iter_count(&it), 0);
	cr_assert_eq(t_first_not(c + 2, CANARY, 3), 3, "advanced over");
	cr_assert_eq(t_first_not(c + 5, 0, 6), 6);
	cr_assert_eq(ua_copy_to_iter(src, 1, &it), 0, "exhausted");
	t_assert_stats(0, 0, 0, "monitor buffers need no window");
	/* Reading back the same kvecs. */
	ua_iov_iter_kvec(&it, UA_ITER_SOURCE, kv, 3);
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_copy_from_iter(dst, 16, &it), 16);
	cr_assert_eq(memcmp(dst, a, 5), 0);
	cr_assert_eq(memcmp(dst + 5, c, 11), 0);
	/* Direction is enforced. */
	ua_iov_iter_kvec(&it, UA_ITER_SOURCE, kv, 3);
	cr_assert_eq(ua_copy_to_iter(src, 4, &it), 0);
	cr_assert_eq(ua_iov_iter_zero(4, &it), 0);
	ua_iov_iter_kvec(&it, UA_ITER_DEST, kv, 3);
	cr_assert_eq(ua_copy_from_iter(dst, 4, &it), 0);
	cr_assert_eq(ua_iov_iter_count(&it), 16);
}

/* Guest iovecs: [gbuf+0, 100) [gbuf+200, 0) [gbuf+300, 50) [gbuf+500, 7) */
static struct iovec *guest_vec(size_t *nr)
{
	struct iovec v[] = {
		{ env.buf, 100 },
		{ env.buf + 200, 0 },
		{ env.buf + 300, 50 },
		{ env.buf + 500, 7 },
	};
	struct iovec *g = (struct iovec *)(env.buf + 2 * T_PG);

	t_poke(g, v, sizeof(v));
	*nr = 4;
	return g;
}

Test(iter, guest_iovec_roundtrip)
{
	unsigned char src[157], dst[157 + 8], back[100];
	struct ua_iov_iter it;
	const struct iovec *first;
	size_t nr;
	struct iovec *g = guest_vec(&nr);

	t_pat_fill(src, sizeof(src), 1);
	t_fill(env.buf, CANARY, 2 * T_PG);
	ua_stats_reset();
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, nr), 157);
	t_assert_stats(2, 1, 0, "one copy of the array");
	cr_assert_eq(it.type, UA_ITER_UVEC);
	cr_assert_eq(ua_iov_iter_count(&it), 157);
	ua_stats_reset();
	cr_assert_eq(ua_copy_to_iter(src, sizeof(src), &it), 157);
	t_assert_stats(6, 3, 0, "one checked copy per non-empty segment");
	cr_assert_eq(ua_iov_iter_count(&it), 0);
	t_peek(back, env.buf, 100);
	cr_assert_eq(memcmp(back, src, 100), 0);
	t_peek(back, env.buf + 300, 51);
	cr_assert_eq(memcmp(back, src + 100, 50), 0);
	cr_assert_eq(back[50], CANARY);
	t_peek(back, env.buf + 500, 8);
	cr_assert_eq(memcmp(back, src + 150, 7), 0);
	cr_assert_eq(back[7], CANARY);
	t_peek(back, env.buf + 100, 100);
	cr_assert_eq(t_first_not(back, CANARY, 100), 100);
	ua_iov_iter_release(&it);

	cr_assert_eq(ua_import_iovec(&it, UA_ITER_SOURCE, g, nr), 157);
	first = it.iov;
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_copy_from_iter(dst, 60, &it), 60);
	assert_at(&it, first, 0, 60, 97);
	cr_assert_eq(ua_copy_from_iter(dst + 60, 200, &it), 97);
	cr_assert_eq(memcmp(dst, src, 157), 0);
	cr_assert_eq(t_first_not(dst + 157, CANARY, 8), 8);
	ua_iov_iter_release(&it);
}

Test(iter, guest_zero_and_advance)
{
	unsigned char back[100];
	struct ua_iov_iter it;
	const struct iovec *first;
	size_t nr;
	struct iovec *g = guest_vec(&nr);

	t_fill(env.buf, CANARY, 2 * T_PG);
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, nr), 157);
	first = it.iov;
	ua_iov_iter_advance(&it, 90);
	assert_at(&it, first, 0, 90, 67);
	ua_iov_iter_advance(&it, 10);
	assert_at(&it, first, 2, 0, 57);
	cr_assert_eq(ua_iov_iter_zero(55, &it), 55);
	assert_at(&it, first, 3, 5, 2);
	ua_iov_iter_advance(&it, 1000);
	cr_assert_eq(ua_iov_iter_count(&it), 0, "advance clamps");
	cr_assert_eq(it.nr_segs, 0);
	t_peek(back, env.buf, 100);
	cr_assert_eq(t_first_not(back, CANARY, 100), 100);
	t_peek(back, env.buf + 300, 51);
	cr_assert_eq(t_first_not(back, 0, 50), 50);
	cr_assert_eq(back[50], CANARY);
	t_peek(back, env.buf + 500, 8);
	cr_assert_eq(t_first_not(back, 0, 5), 5);
	cr_assert_eq(t_first_not(back + 5, CANARY, 3), 3);
	ua_iov_iter_release(&it);
}

/* The iterator copies the array once; later guest writes change nothing. */
Test(iter, array_copied_once)
{
	struct ua_iov_iter it;
	struct iovec evil = { env.buf, SIZE_MAX / 2 };
	unsigned char src[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	size_t nr;
	struct iovec *g = guest_vec(&nr);

	cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, nr), 157);
	t_poke(g, &evil, sizeof(evil));
	cr_assert_eq(it.iov[0].iov_len, 100);
	cr_assert_eq(ua_copy_to_iter(src, 8, &it), 8);
	assert_at(&it, it.iov, 0, 8, 149);
	ua_iov_iter_release(&it);
}

/*
 * An iovec array that runs into the unmapped page: only the entries that
 * could be read in full are used, and the count says so.
 */
Test(iter, array_crossing_into_unmapped_page)
{
	struct iovec v[3] = { { env.buf, 10 },
			      { env.buf + 100, 20 },
			      { env.buf + 200, 30 } };
	struct ua_iov_iter it;

	for (size_t cut = 0; cut <= 3 * sizeof(struct iovec); cut++) {
		char *arr = env.hole - cut;
		size_t whole = cut / sizeof(struct iovec);
		size_t want[] = { 0, 10, 30, 60 };
		long r;

		t_poke(arr, v, cut);
		r = ua_import_iovec(&it, UA_ITER_DEST, (struct iovec *)arr, 3);
		if (!whole) {
			cr_assert_eq(r, -EFAULT, "cut %zu", cut);
			cr_assert_eq(ua_iov_iter_count(&it), 0);
			continue;
		}
		cr_assert_eq(r, (long)want[whole], "cut %zu: %ld", cut, r);
		cr_assert_eq(it.nr_segs, whole);
		cr_assert_eq(ua_iov_iter_count(&it), want[whole]);
		ua_iov_iter_release(&it);
	}
	/* The same with more entries than fit in the iterator itself. */
	{
		struct iovec many[UA_IOV_FAST + 4];
		char *arr =
			env.hole - (UA_IOV_FAST + 2) * sizeof(struct iovec) - 3;

		for (size_t k = 0; k < UA_IOV_FAST + 4; k++)
			many[k] = (struct iovec){ env.buf + k * 16, 16 };
		t_poke(arr, many, (size_t)(env.hole - arr));
		cr_assert_eq(ua_import_iovec(&it, UA_ITER_SOURCE,
					     (struct iovec *)arr,
					     UA_IOV_FAST + 4),
			     (UA_IOV_FAST + 2) * 16);
		cr_assert_eq(it.nr_segs, UA_IOV_FAST + 2);
		ua_iov_iter_release(&it);
	}
}

/*
 * A buffer that faults mid-way: the copy stops at the exact byte, the
 * count is short by the rest, and the iterator stands at the fault.
 */
Test(iter, buffer_faults_midway)
{
	struct iovec v[3] = { { env.buf, 100 },
			      { env.hole - 50, 100 },
			      { env.buf + 1000, 100 } };
	struct iovec *g = (struct iovec *)(env.buf + 2 * T_PG);
	unsigned char src[300], dst[300], back[100];
	struct ua_iov_iter it;
	const struct iovec *first;

	t_pat_fill(src, sizeof(src), 5);
	t_poke(g, v, sizeof(v));
	t_fill(env.buf, CANARY, 2 * T_PG);

	cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, 3), 300);
	first = it.iov;
	ua_stats_reset();
	cr_assert_eq(ua_copy_to_iter(src, 300, &it), 150);
	t_assert_stats_faulted(4, 2, true, "stops at the faulting segment");
	assert_at(&it, first, 1, 50, 150);
	t_peek(back, env.hole - 50, 50);
	cr_assert_eq(memcmp(back, src + 100, 50), 0);
	t_peek(back, env.buf + 1000, 100);
	cr_assert_eq(t_first_not(back, CANARY, 100), 100, "C untouched");
	/* Trying again makes no progress and keeps the position. */
	cr_assert_eq(ua_copy_to_iter(src, 300, &it), 0);
	assert_at(&it, first, 1, 50, 150);
	cr_assert_eq(ua_iov_iter_zero(10, &it), 0);
	/* Skipping the bad part lets the rest through. */
	ua_iov_iter_advance(&it, 50);
	assert_at(&it, first, 2, 0, 100);
	cr_assert_eq(ua_copy_to_iter(src, 300, &it), 100);
	ua_iov_iter_release(&it);

	cr_assert_eq(ua_import_iovec(&it, UA_ITER_SOURCE, g, 3), 300);
	first = it.iov;
	memset(dst, CANARY, sizeof(dst));
	cr_assert_eq(ua_copy_from_iter(dst, 300, &it), 150);
	assert_at(&it, first, 1, 50, 150);
	cr_assert_eq(memcmp(dst, src, 100), 0);
	cr_assert_eq(t_first_not(dst + 150, CANARY, 150), 150,
		     "no zero-fill past the short count");
	ua_iov_iter_release(&it);

	cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, 3), 300);
	first = it.iov;
	cr_assert_eq(ua_iov_iter_zero(300, &it), 150);
	assert_at(&it, first, 1, 50, 150);
	t_peek(back, env.hole - 50, 50);
	cr_assert_eq(t_first_not(back, 0, 50), 50);
	ua_iov_iter_release(&it);
}

/* One guest segment running into the hole, at every offset. */
static void iter_every_offset(size_t len, unsigned char *src,
			      unsigned char *dst)
{
	struct iovec *g = (struct iovec *)env.buf;

	for (size_t k = 0; k <= len; k++) {
		struct iovec v = { env.hole - k, len };
		struct ua_iov_iter it;
		size_t r;

		t_poke(g, &v, sizeof(v));
		cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, 1),
			     (long)len);
		r = ua_copy_to_iter(src, len, &it);
		cr_assert_eq(r, k, "to: len %zu k %zu: %zu", len, k, r);
		cr_assert_eq(ua_iov_iter_count(&it), len - k);
		if (k < len)
			cr_assert_eq(it.iov_offset, k);
		ua_iov_iter_release(&it);

		cr_assert_eq(ua_import_iovec(&it, UA_ITER_SOURCE, g, 1),
			     (long)len);
		memset(dst, CANARY, len);
		r = ua_copy_from_iter(dst, len, &it);
		cr_assert_eq(r, k, "from: len %zu k %zu: %zu", len, k, r);
		cr_assert_eq(memcmp(dst, src, k), 0);
		cr_assert_eq(t_first_not(dst + k, CANARY, len - k), len - k);
		ua_iov_iter_release(&it);

		cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, 1),
			     (long)len);
		cr_assert_eq(ua_iov_iter_zero(len, &it), k);
		cr_assert_eq(ua_iov_iter_count(&it), len - k);
		ua_iov_iter_release(&it);
	}
}

Test(iter, fault_at_every_offset)
{
	static unsigned char src[T_BIGLEN], dst[T_BIGLEN];

	t_pat_fill(src, sizeof(src), 9);
	for (size_t len = 1; len <= T_MAXLEN; len++)
		iter_every_offset(len, src, dst);
	iter_every_offset(T_BIGLEN, src, dst);
}

Test(iter, many_segments)
{
	enum { NR = 3 * UA_IOV_FAST + 1, SEG = 7 };
	struct iovec v[NR];
	struct iovec *g = (struct iovec *)(env.buf + 2 * T_PG);
	unsigned char src[NR * SEG], dst[NR * SEG], back[2 * NR * SEG];
	struct ua_iov_iter it;

	for (size_t k = 0; k < NR; k++)
		v[k] = (struct iovec){ env.buf + 2 * SEG * k, SEG };
	t_poke(g, v, sizeof(v));
	t_pat_fill(src, sizeof(src), 2);
	t_fill(env.buf, CANARY, sizeof(back));
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, NR), NR * SEG);
	cr_assert_not_null(it.alloc, "more than UA_IOV_FAST: allocated");
	ua_stats_reset();
	cr_assert_eq(ua_copy_to_iter(src, sizeof(src), &it), sizeof(src));
	t_assert_stats(2 * NR, NR, 0);
	ua_iov_iter_release(&it);
	cr_assert_null(it.alloc);
	t_peek(back, env.buf, sizeof(back));
	for (size_t k = 0; k < NR; k++) {
		cr_assert_eq(memcmp(back + 2 * SEG * k, src + SEG * k, SEG), 0);
		cr_assert_eq(t_first_not(back + 2 * SEG * k + SEG, CANARY, SEG),
			     SEG);
	}
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_SOURCE, g, NR), NR * SEG);
	cr_assert_eq(ua_copy_from_iter(dst, sizeof(dst), &it), sizeof(dst));
	cr_assert_eq(memcmp(dst, src, sizeof(dst)), 0);
	ua_iov_iter_release(&it);
	/* Exactly UA_IOV_FAST stays inside the iterator. */
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_SOURCE, g, UA_IOV_FAST),
		     UA_IOV_FAST * SEG);
	cr_assert_null(it.alloc);
	ua_iov_iter_release(&it);
}

Test(iter, segment_count_limits)
{
	enum { MAXB = UA_IOV_MAX * sizeof(struct iovec) };
	char *arr = (char *)ua_space_base(env.sp) + (512 << 10);
	static struct iovec v[UA_IOV_MAX + 1];
	struct ua_iov_iter it;

	cr_assert_eq(ua_map(env.sp, arr, MAXB + T_PG, PROT_READ | PROT_WRITE),
		     arr);
	for (size_t k = 0; k <= UA_IOV_MAX; k++)
		v[k] = (struct iovec){ env.buf + k % 64, 1 };
	t_poke(arr, v, MAXB + sizeof(struct iovec));
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_SOURCE, (struct iovec *)arr,
				     UA_IOV_MAX),
		     UA_IOV_MAX);
	ua_iov_iter_release(&it);
	ua_stats_reset();
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_SOURCE, (struct iovec *)arr,
				     UA_IOV_MAX + 1),
		     -EINVAL);
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_SOURCE, (struct iovec *)arr,
				     ULONG_MAX),
		     -EINVAL);
	cr_assert_eq(ua_import_iovec(&it, 7, (struct iovec *)arr, 1), -EINVAL,
		     "bad direction");
	t_assert_stats(0, 0, 0, "refused before reading the array");
	cr_assert_eq(ua_iov_iter_count(&it), 0);
	cr_assert_eq(
		ua_import_iovec(&it, UA_ITER_SOURCE, (struct iovec *)arr, 0),
		0);
	cr_assert_eq(ua_iov_iter_count(&it), 0);
	ua_iov_iter_release(&it);
}

Test(iter, zero_bytes_and_limit)
{
	char *lim = t_map_last_page(&env);
	struct iovec v[2] = { { env.buf, 8 }, { lim - 8, 8 } };
	struct iovec *g = (struct iovec *)(env.buf + T_PG);
	unsigned char src[16], back[8];
	struct ua_iov_iter it;

	t_pat_fill(src, sizeof(src), 0);
	t_poke(g, v, sizeof(v));
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, 2), 16,
		     "a segment ending exactly at the limit");
	ua_stats_reset();
	cr_assert_eq(ua_copy_to_iter(src, 0, &it), 0);
	cr_assert_eq(ua_iov_iter_zero(0, &it), 0);
	ua_iov_iter_advance(&it, 0);
	t_assert_stats(0, 0, 0, "zero bytes touch nothing");
	assert_at(&it, it.iov, 0, 0, 16);
	cr_assert_eq(ua_copy_to_iter(src, 16, &it), 16);
	t_peek(back, lim - 8, 8);
	cr_assert_eq(memcmp(back, src + 8, 8), 0);
	ua_iov_iter_release(&it);
	v[1].iov_len = 9;
	t_poke(g, v, sizeof(v));
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, 2), -EFAULT,
		     "one byte past the limit");
}

Test(iter, bad_pointers)
{
	unsigned char mon[64], keep[64];
	struct iovec mv[1] = { { env.buf, 8 } };
	struct iovec *g = (struct iovec *)(env.buf + 2 * T_PG);
	char *lim = ua_space_limit(env.sp);
	struct iovec bad[] = {
		{ mon, sizeof(mon) },  /* monitor buffer */
		{ mon, 0 },	       /* monitor buffer, empty */
		{ lim - 8, 9 },	       /* past the limit */
		{ env.buf, SIZE_MAX }, /* wraps */
		{ (void *)(UINTPTR_MAX - 7), 8 },
	};
	struct ua_iov_iter it;

	memset(mon, CANARY, sizeof(mon));
	memcpy(keep, mon, sizeof(mon));
	/* The array itself must be guest memory. */
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, mv, 1), -EFAULT);
	cr_assert_eq(
		ua_import_iovec(&it, UA_ITER_DEST, (struct iovec *)env.hole, 1),
		-EFAULT);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct iovec two[2] = { { env.buf, 4 }, bad[k] };

		t_poke(g, two, sizeof(two));
		cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, 2), -EFAULT,
			     "bad segment %zu", k);
		cr_assert_eq(ua_iov_iter_count(&it), 0);
		cr_assert_eq(ua_copy_to_iter(keep, 4, &it), 0);
	}
	cr_assert_eq(memcmp(mon, keep, sizeof(mon)), 0);
}

/* One guest buffer (the kernel's import_ubuf): no array, one window per op. */
Test(iter, ubuf_zero_copy_and_fault)
{
	struct ua_iov_iter it;
	unsigned char out[64], back[64];

	t_fill(env.buf, CANARY, 512);
	cr_assert_eq(ua_iov_iter_ubuf(&it, UA_ITER_DEST, env.buf, 512), 0);
	cr_assert_eq(ua_iov_iter_count(&it), 512);
	ua_stats_reset();
	cr_assert_eq(ua_iov_iter_zero(512, &it), 512);
	t_assert_stats(2, 1, 0);
	cr_assert_eq(ua_iov_iter_count(&it), 0);
	t_peek(back, env.buf + 448, 64);
	memset(out, 0, 64);
	cr_assert_eq(memcmp(back, out, 64), 0);

	/* A buffer running into the hole: a short, exact count. */
	cr_assert_eq(ua_iov_iter_ubuf(&it, UA_ITER_DEST, env.hole - 10, 64), 0);
	t_pat_fill(out, 64, 3);
	cr_assert_eq(ua_copy_to_iter(out, 64, &it), 10);
	cr_assert_eq(ua_iov_iter_count(&it), 54);
	t_peek(back, env.hole - 10, 10);
	cr_assert_eq(memcmp(back, out, 10), 0);

	cr_assert_eq(ua_iov_iter_ubuf(&it, UA_ITER_SOURCE, env.buf, 64), 0);
	cr_assert_eq(ua_copy_from_iter(back, 64, &it), 64);
}

/*
 * A one-buffer iterator is zeroed inline (it stays UA_ITER_UBUF); the
 * out-of-line calls turn it into its one segment, at the same place.
 */
Test(iter, ubuf_inline_then_out_of_line)
{
	struct ua_iov_iter it;
	unsigned char pat[30], back[100], want[100];

	t_fill(env.buf, CANARY, 100);
	cr_assert_eq(ua_iov_iter_ubuf(&it, UA_ITER_DEST, env.buf, 100), 0);
	cr_assert_eq(it.type, UA_ITER_UBUF);
	cr_assert_eq(it.nr_segs, 1);
	cr_assert_eq(ua_iov_iter_zero(40, &it), 40);
	cr_assert_eq(it.type, UA_ITER_UBUF);
	cr_assert_eq(it.iov_offset, 40);
	cr_assert_eq(ua_iov_iter_count(&it), 60);

	t_pat_fill(pat, sizeof(pat), 5);
	cr_assert_eq(ua_copy_to_iter(pat, sizeof(pat), &it), 30);
	cr_assert_eq(it.type, UA_ITER_UVEC);
	cr_assert_eq(it.iov, it.fast);
	cr_assert_eq(it.fast[0].iov_base, env.buf);
	cr_assert_eq(it.fast[0].iov_len, 100);
	assert_at(&it, it.fast, 0, 70, 30);
	memset(want, 0, 40);
	memcpy(want + 40, pat, 30);
	memset(want + 70, CANARY, 30);
	t_peek(back, env.buf, 100);
	cr_assert_eq(memcmp(back, want, 100), 0);

	ua_iov_iter_advance(&it, 30);
	cr_assert_eq(ua_iov_iter_count(&it), 0);
	cr_assert_eq(it.nr_segs, 0);
	cr_assert_eq(ua_iov_iter_zero(10, &it), 0);
}

/* Used up inline: no segment left; a fault leaves it at the fault. */
Test(iter, ubuf_zero_used_up_and_fault)
{
	struct ua_iov_iter it;

	cr_assert_eq(ua_iov_iter_ubuf(&it, UA_ITER_DEST, env.buf, 64), 0);
	cr_assert_eq(ua_iov_iter_zero(100, &it), 64);
	cr_assert_eq(it.nr_segs, 0);
	cr_assert_eq(it.iov_offset, 0);
	cr_assert_eq(ua_iov_iter_count(&it), 0);
	cr_assert_eq(ua_iov_iter_zero(100, &it), 0);

	cr_assert_eq(ua_iov_iter_ubuf(&it, UA_ITER_DEST, env.hole - 10, 64), 0);
	cr_assert_eq(ua_iov_iter_zero(64, &it), 10);
	cr_assert_eq(it.nr_segs, 1);
	cr_assert_eq(it.iov_offset, 10);
	cr_assert_eq(ua_iov_iter_count(&it), 54);
	cr_assert_eq(ua_iov_iter_zero(64, &it), 0);
	cr_assert_eq(ua_iov_iter_count(&it), 54);

	/* A zero-length buffer is used up by its first zero. */
	cr_assert_eq(ua_iov_iter_ubuf(&it, UA_ITER_DEST, env.buf, 0), 0);
	cr_assert_eq(ua_iov_iter_zero(8, &it), 0);
	cr_assert_eq(it.nr_segs, 0);

	/* A source iterator is not zeroed. */
	cr_assert_eq(ua_iov_iter_ubuf(&it, UA_ITER_SOURCE, env.buf, 64), 0);
	cr_assert_eq(ua_iov_iter_zero(8, &it), 0);
	cr_assert_eq(ua_iov_iter_count(&it), 64);
}

Test(iter, ubuf_bad_arguments)
{
	struct ua_iov_iter it;
	char mon[8];

	cr_assert_eq(ua_iov_iter_ubuf(&it, 7, env.buf, 8), -EINVAL);
	cr_assert_eq(ua_iov_iter_ubuf(&it, UA_ITER_DEST, mon, 8), -EFAULT);
	cr_assert_eq(ua_iov_iter_ubuf(&it, UA_ITER_DEST, (void *)-8L, 16),
		     -EFAULT);
	cr_assert_eq(ua_iov_iter_count(&it), 0);
}

static int ubuf_dest(void *buf, size_t len)
{
	struct ua_iov_iter it;

	return ua_iov_iter_ubuf(&it, UA_ITER_DEST, buf, len);
}

static void *ubuf_in_new_thread(void *buf)
{
	return (void *)(intptr_t)ubuf_dest(buf, 8);
}

/*
 * The inline check reads a copy of the current space's range
 * (ua__cur_range): it must follow every ua_space_use(), and a new thread
 * has none.  The edges of the space, inline and out of line.
 */
Test(iter, ubuf_range_follows_space_use)
{
	struct ua_space *other = ua_space_create(1 << 20, NULL);
	char *lim = t_map_last_page(&env);
	char *obuf, *base = ua_space_base(env.sp);
	pthread_t th;
	void *ret;

	cr_assert_not_null(other);
	obuf = ua_map(other, NULL, T_PG, PROT_READ | PROT_WRITE);
	cr_assert_not_null(obuf);

	cr_assert_eq(ubuf_dest(env.buf, 8), 0);
	cr_assert_eq(ubuf_dest(base, 1), 0);
	cr_assert_eq(ubuf_dest(lim - 8, 8), 0);
	cr_assert_eq(ubuf_dest(lim, 0), 0);
	cr_assert_eq(ubuf_dest(lim - 8, 9), -EFAULT);
	cr_assert_eq(ubuf_dest(lim, 1), -EFAULT);
	cr_assert_eq(ubuf_dest(base - 1, 2), -EFAULT);
	cr_assert_eq(ubuf_dest(obuf, 8), -EFAULT);

	cr_assert_eq(ua_space_use(other), env.sp);
	cr_assert_eq(ubuf_dest(obuf, 8), 0);
	cr_assert_eq(ubuf_dest(env.buf, 8), -EFAULT);

	cr_assert_eq(ua_space_use(NULL), other);
	cr_assert_eq(ubuf_dest(obuf, 8), -EFAULT);
	cr_assert_eq(ubuf_dest(env.buf, 8), -EFAULT);
	cr_assert_eq(ubuf_dest(NULL, 8), -EFAULT);

	cr_assert_eq(ua_space_use(env.sp), NULL);
	cr_assert_eq(ubuf_dest(env.buf, 8), 0);
	cr_assert_eq(pthread_create(&th, NULL, ubuf_in_new_thread, env.buf), 0);
	cr_assert_eq(pthread_join(th, &ret), 0);
	cr_assert_eq((intptr_t)ret, -EFAULT);

	/* The current space destroyed: nothing of it is accepted. */
	cr_assert_eq(ua_space_use(other), env.sp);
	cr_assert_eq(ua_space_destroy(other), 0);
	cr_assert_eq(ua_current_space(), NULL);
	cr_assert_eq(ubuf_dest(obuf, 8), -EFAULT);
	ua_space_use(env.sp);
}

/*
 * An empty segment at NULL is accepted, as the kernel's access_ok(NULL, 0)
 * does (musl's stdio writes one); the bytes go to the other segments.
 */
Test(iter, empty_null_segment)
{
	struct iovec *g = (struct iovec *)(env.buf + 2 * T_PG);
	struct iovec two[2] = { { NULL, 0 }, { env.buf, 4 } };
	struct ua_iov_iter it;

	t_poke(g, two, sizeof(two));
	cr_assert_eq(ua_import_iovec(&it, UA_ITER_DEST, g, 2), 4);
	cr_assert_eq(ua_copy_to_iter("abcd", 4, &it), 4);
	ua_iov_iter_release(&it);
}

// SPDX-License-Identifier: MIT
/*
 * iov_iter: one cursor for guest iovecs and monitor kvecs.  Guest buffers
 * go through the checked accessors (so a bad or unmapped segment gives a
 * short count); monitor buffers through plain memory operations.  There
 * is no address-limit override anywhere: the type decides.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

static void iter_setup(struct ua_iov_iter *i, enum ua_iter_type type,
		       int dir, const struct iovec *iov, unsigned long nr,
		       size_t count)
{
	i->type = type;
	i->dir = dir;
	i->iov = iov;
	i->nr_segs = nr;
	i->iov_offset = 0;
	i->count = count;
}

long ua_import_iovec(struct ua_iov_iter *i, int dir, const struct iovec *uvec,
		     unsigned long nr_segs)
{
	struct iovec *v;
	unsigned long n;
	size_t total = 0;

	i->alloc = NULL;
	iter_setup(i, UA_ITER_UVEC, dir, i->fast, 0, 0);
	if ((dir != UA_ITER_SOURCE && dir != UA_ITER_DEST) ||
	    nr_segs > UA_IOV_MAX)
		return -EINVAL;
	v = i->fast;
	if (nr_segs > UA_IOV_FAST) {
		v = malloc(nr_segs * sizeof(*v));
		if (!v)
			return -ENOMEM;
		i->alloc = v;
	}
	/* One copy of the array: later guest writes to it change nothing. */
	n = (nr_segs * sizeof(*v) -
	     ua_copy_from_user(v, uvec, nr_segs * sizeof(*v))) /
	    sizeof(*v);
	if (nr_segs && !n)
		goto efault;
	for (unsigned long k = 0; k < n; k++) {
		size_t len = v[k].iov_len;

		if (len > (size_t)SSIZE_MAX - total)
			len = (size_t)SSIZE_MAX - total;
		/*
		 * An empty segment at NULL is a user address to the kernel's
		 * access_ok() (musl's stdio writes one); a monitor pointer
		 * stays refused, empty or not.
		 */
		if (!ua_access_ok(v[k].iov_base, len) &&
		    (len || v[k].iov_base)) {
			ua__debug_refused(dir == UA_ITER_SOURCE ? UA_WIN_READ :
								  UA_WIN_WRITE,
					  v[k].iov_base, len);
			goto efault;
		}
		v[k].iov_len = len;
		total += len;
	}
	iter_setup(i, UA_ITER_UVEC, dir, v, n, total);
	return (long)total;
efault:
	ua_iov_iter_release(i);
	return -EFAULT;
}

/* ua_iov_iter_ubuf() (include/uaccess/iter.h) is inline up to this. */
int ua__iov_iter_ubuf_check(int dir, const void *buf, size_t len)
{
	const struct ua_space *sp = ua_self.cur;

	if (dir != UA_ITER_SOURCE && dir != UA_ITER_DEST)
		return -EINVAL;
	if (ua_likely(sp && ua__space_has(sp, buf, len)))
		return 0;
	ua__debug_refused(dir == UA_ITER_SOURCE ? UA_WIN_READ : UA_WIN_WRITE,
			  buf, len);
	return -EFAULT;
}

void ua_iov_iter_kvec(struct ua_iov_iter *i, int dir, const struct iovec *kvec,
		      unsigned long nr_segs)
{
	size_t total = 0;

	for (unsigned long k = 0; k < nr_segs; k++)
		total += kvec[k].iov_len;
	i->alloc = NULL;
	iter_setup(i, UA_ITER_KVEC, dir, kvec, nr_segs, total);
}

void ua_iov_iter_release(struct ua_iov_iter *i)
{
	free(i->alloc);
	i->alloc = NULL;
	i->nr_segs = 0;
	i->count = 0;
}

/*
 * Advance past n bytes, and past every segment that leaves used up.
 * Each field is written once in the common case (still inside the
 * segment): a readv() into one segment steps once per call.
 */
static inline void step(struct ua_iov_iter *i, size_t n)
{
	size_t off = i->iov_offset + n;

	i->count -= n;
	if (!i->nr_segs || off != i->iov->iov_len) {
		i->iov_offset = off;
		return;
	}
	do {
		i->iov++;
		i->nr_segs--;
	} while (i->nr_segs && !i->iov->iov_len);
	i->iov_offset = 0;
}

/*
 * The out-of-line code walks segments only: a one-buffer iterator becomes
 * the one-segment iterator it stands for, kept in the iterator itself.
 * Its length is what is consumed plus what is left (the buffer stays one
 * segment until used up, and used up it has no segment left).
 */
static void ubuf_to_segment(struct ua_iov_iter *i)
{
	void *buf = i->ubuf;

	if (i->type != UA_ITER_UBUF)
		return;
	i->fast[0].iov_base = buf;
	i->fast[0].iov_len = i->iov_offset + i->count;
	i->iov = i->fast;
	i->type = UA_ITER_UVEC;
}

enum op { OP_TO, OP_FROM, OP_ZERO };

/* One segment piece; returns the bytes done (short on a guest fault). */
static size_t piece(struct ua_iov_iter *i, enum op op, char *buf, size_t n)
{
	char *seg = (char *)i->iov->iov_base + i->iov_offset;

	if (i->type == UA_ITER_KVEC) {
		if (op == OP_TO)
			memcpy(seg, buf, n);
		else if (op == OP_FROM)
			memcpy(buf, seg, n);
		else
			memset(seg, 0, n);
		return n;
	}
	if (op == OP_TO)
		return n - ua_copy_to_user(seg, buf, n);
	if (op == OP_FROM)
		return n - ua__copy_from_user_nozero(buf, seg, n);
	return n - ua__clear_user(seg, n);
}

static size_t iterate(struct ua_iov_iter *i, enum op op, char *buf,
		      size_t bytes)
{
	size_t done = 0;

	ubuf_to_segment(i);
	if (bytes > i->count)
		bytes = i->count;
	while (done < bytes && i->nr_segs) {
		size_t n = i->iov->iov_len - i->iov_offset, got;

		if (n > bytes - done)
			n = bytes - done;
		got = piece(i, op, buf ? buf + done : NULL, n);
		step(i, got);
		done += got;
		if (got < n)
			break;
	}
	return done;
}

size_t ua_copy_to_iter(const void *addr, size_t bytes, struct ua_iov_iter *i)
{
	if (i->dir != UA_ITER_DEST)
		return 0;
	return iterate(i, OP_TO, (char *)addr, bytes);
}

size_t ua_copy_from_iter(void *addr, size_t bytes, struct ua_iov_iter *i)
{
	if (i->dir != UA_ITER_SOURCE)
		return 0;
	return iterate(i, OP_FROM, addr, bytes);
}

/* ua_iov_iter_zero() takes one guest buffer inline; the rest is here. */
size_t ua__iov_iter_zero(size_t bytes, struct ua_iov_iter *i)
{
	if (i->dir != UA_ITER_DEST)
		return 0;
	return iterate(i, OP_ZERO, NULL, bytes);
}

void ua_iov_iter_advance(struct ua_iov_iter *i, size_t bytes)
{
	ubuf_to_segment(i);
	if (bytes > i->count)
		bytes = i->count;
	while (bytes && i->nr_segs) {
		size_t n = i->iov->iov_len - i->iov_offset;

		if (n > bytes)
			n = bytes;
		step(i, n);
		bytes -= n;
	}
}

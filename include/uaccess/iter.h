/* SPDX-License-Identifier: MIT */
/*
 * iov_iter: one cursor over a list of buffers that live either in the guest
 * (checked, through the user accessors) or in the monitor (plain memory),
 * so that one code path serves both without any address-limit override.
 */
#ifndef UACCESS_ITER_H
#define UACCESS_ITER_H

#include <limits.h>
#include <sys/uio.h>

#include <uaccess/access.h>
#include <uaccess/compiler.h>

UA_BEGIN_DECLS

/** enum ua_iter_type - where the iterator's buffers live */
enum ua_iter_type {
	UA_ITER_UVEC = 1, /* guest buffers */
	UA_ITER_KVEC,     /* monitor buffers */
	UA_ITER_UBUF,     /* one guest buffer (ua_iov_iter_ubuf()) */
};

/* Direction, as the kernel's ITER_SOURCE / ITER_DEST. */
#define UA_ITER_SOURCE 0 /* data is read from the buffers */
#define UA_ITER_DEST 1   /* data is written into the buffers */

/* Segments kept inside the iterator before it allocates. */
#define UA_IOV_FAST 8
/* Most segments accepted (the kernel's UIO_MAXIOV). */
#define UA_IOV_MAX 1024

/**
 * struct ua_iov_iter - a cursor over segments
 * @type: UA_ITER_UVEC, UA_ITER_KVEC or UA_ITER_UBUF
 * @dir: UA_ITER_SOURCE or UA_ITER_DEST
 * @iov: the segments (a monitor-side copy for guest iovecs)
 * @ubuf: UA_ITER_UBUF: the buffer, whose length is @iov_offset + @count
 *	while @nr_segs is 1 (the kernel's ITER_UBUF)
 * @nr_segs: segments left, starting at @iov (UA_ITER_UBUF: 1, then 0)
 * @iov_offset: bytes already consumed of @iov[0] (or of @ubuf)
 * @count: bytes left in total
 * @alloc: heap copy of the segments, freed by ua_iov_iter_release()
 * @fast: inline storage for up to UA_IOV_FAST segments
 */
struct ua_iov_iter {
	enum ua_iter_type type;
	int dir;
	union {
		const struct iovec *iov;
		void *ubuf;
	};
	unsigned long nr_segs;
	size_t iov_offset;
	size_t count;
	struct iovec *alloc;
	struct iovec fast[UA_IOV_FAST];
};

/**
 * ua_import_iovec() - set up an iterator over a guest iovec array
 * @i: the iterator
 * @dir: UA_ITER_SOURCE or UA_ITER_DEST
 * @uvec: the iovec array, in guest memory
 * @nr_segs: entries in @uvec
 *
 * The array is copied into the monitor once, so a guest that changes it
 * later cannot change what the iterator does.  When the array faults part
 * way, the entries before the fault form the iterator (a short count).
 * Each buffer range must lie inside the current space.  The total is
 * capped at SSIZE_MAX.
 *
 * Return: the total byte count, or -EINVAL (@nr_segs > UA_IOV_MAX, bad
 * direction), -EFAULT (the first entry, or a buffer range, is not
 * accessible), -ENOMEM.
 */
UA_EXPORT long ua_import_iovec(struct ua_iov_iter *i, int dir,
			       const struct iovec *uvec,
			       unsigned long nr_segs);

/*
 * The out-of-line half of ua_iov_iter_ubuf(): the direction and the range
 * check (the kernel's access_ok() in import_ubuf()), and with UA_DEBUG=1
 * the reason for a refusal.  Return: 0, -EINVAL or -EFAULT.
 */
UA_EXPORT int ua__iov_iter_ubuf_check(int dir, const void *buf, size_t len);

/**
 * ua_iov_iter_ubuf() - set up an iterator over one guest buffer
 * @i: the iterator
 * @dir: UA_ITER_SOURCE or UA_ITER_DEST
 * @buf: the buffer, in guest memory
 * @len: its length, capped at SSIZE_MAX
 *
 * The kernel's import_ubuf(): no iovec array to read, only the range
 * check, so a read()/write() of one buffer costs no extra window.  Inline,
 * as the kernel's ITER_UBUF paths are, and with no pointer into itself:
 * with ua_iov_iter_zero() on a local iterator, the compiler keeps the
 * iterator in registers.  A refused buffer leaves an empty iterator.
 *
 * Return: 0, -EINVAL (bad direction) or -EFAULT (not inside the space).
 */
static inline int ua_iov_iter_ubuf(struct ua_iov_iter *i, int dir, void *buf,
				   size_t len)
{
	int err;

	if (len > (size_t)SSIZE_MAX)
		len = (size_t)SSIZE_MAX;
	if (ua_likely((dir == UA_ITER_SOURCE || dir == UA_ITER_DEST) &&
		      ua__cur_range_has(buf, len)))
		err = 0;
	else
		err = ua__iov_iter_ubuf_check(dir, buf, len);
	i->type = UA_ITER_UBUF;
	i->dir = dir;
	i->ubuf = buf;
	i->alloc = NULL;
	i->iov_offset = 0;
	if (ua_unlikely(err)) {
		i->nr_segs = 0;
		i->count = 0;
		return err;
	}
	i->nr_segs = 1;
	i->count = len;
	return 0;
}

/**
 * ua_iov_iter_kvec() - set up an iterator over monitor buffers
 * @i: the iterator
 * @dir: UA_ITER_SOURCE or UA_ITER_DEST
 * @kvec: the segments, in monitor memory; must outlive the iterator
 * @nr_segs: entries in @kvec
 */
UA_EXPORT void ua_iov_iter_kvec(struct ua_iov_iter *i, int dir,
				const struct iovec *kvec,
				unsigned long nr_segs);

/** ua_iov_iter_release() - free what ua_import_iovec() allocated */
UA_EXPORT void ua_iov_iter_release(struct ua_iov_iter *i);

/** ua_iov_iter_count() - bytes left */
static inline size_t ua_iov_iter_count(const struct ua_iov_iter *i)
{
	return i->count;
}

/**
 * ua_copy_to_iter() - copy from a monitor buffer into the iterator's buffers
 * @addr: monitor source
 * @bytes: bytes to copy
 * @i: a UA_ITER_DEST iterator
 *
 * Return: bytes copied; less than @bytes when the iterator runs out or a
 * guest buffer faults (the iterator then stands at the fault).
 */
UA_EXPORT size_t ua_copy_to_iter(const void *addr, size_t bytes,
				 struct ua_iov_iter *i);

/**
 * ua_copy_from_iter() - copy from the iterator's buffers into monitor memory
 * @addr: monitor destination
 * @bytes: bytes to copy
 * @i: a UA_ITER_SOURCE iterator
 *
 * Return: bytes copied (the rest of @addr is left untouched).
 */
UA_EXPORT size_t ua_copy_from_iter(void *addr, size_t bytes,
				   struct ua_iov_iter *i);

/* The out-of-line half of ua_iov_iter_zero(): every other iterator. */
UA_EXPORT size_t ua__iov_iter_zero(size_t bytes, struct ua_iov_iter *i);

/**
 * ua_iov_iter_zero() - zero bytes of the iterator's buffers
 * @bytes: bytes to zero
 * @i: a UA_ITER_DEST iterator
 *
 * A one-buffer iterator (a read() of /dev/zero) is zeroed inline with one
 * ua_clear_user(); anything else goes out of line.
 *
 * Return: bytes zeroed; less than @bytes when the iterator runs out or a
 * guest buffer faults (the iterator then stands at the fault).
 */
static inline size_t ua_iov_iter_zero(size_t bytes, struct ua_iov_iter *i)
{
	size_t n;

	if (!(i->type == UA_ITER_UBUF && i->nr_segs == 1 &&
	      i->dir == UA_ITER_DEST))
		return ua__iov_iter_zero(bytes, i);
	n = bytes < i->count ? bytes : i->count;
	n -= ua_clear_user((char *)i->ubuf + i->iov_offset, n);
	i->count -= n;
	i->iov_offset += n;
	/* Used up: no segment left, as the out-of-line step() leaves it. */
	if (!i->count) {
		i->nr_segs = 0;
		i->iov_offset = 0;
	}
	return n;
}

/**
 * ua_iov_iter_advance() - skip bytes without touching them
 * @i: the iterator
 * @bytes: bytes to skip, capped at what is left
 */
UA_EXPORT void ua_iov_iter_advance(struct ua_iov_iter *i, size_t bytes);

UA_END_DECLS

#endif /* UACCESS_ITER_H */

/* SPDX-License-Identifier: MIT */
/*
 * Guest spaces: the "user address space" of the monitor.
 *
 * A space is one reserved range [base, limit) followed by a guard gap that
 * is never mapped, so an access clamped to limit always faults.  Memory is
 * mapped into it with ua_map().  Each thread has a current space, the one
 * the user accessors check against (the kernel's current->mm).
 */
#ifndef UACCESS_SPACE_H
#define UACCESS_SPACE_H

#include <sys/mman.h> /* PROT_READ, PROT_WRITE ...: the prot of ua_map() */

#include <uaccess/compiler.h>

UA_BEGIN_DECLS

struct ua_space;

/** enum ua_protect - how a space is locked against the monitor */
enum ua_protect {
	UA_PROTECT_AUTO = 0, /* UA_PROTECT from the environment, else pkey, else mprotect */
	UA_PROTECT_NONE,     /* bookkeeping only; nothing is locked */
	UA_PROTECT_MPROTECT, /* PROT_NONE when locked; PROT_READ(|WRITE) windows */
	UA_PROTECT_PKEY,     /* a protection key per space; PKRU per thread */
};

/**
 * struct ua_space_opts - options for ua_space_create()
 * @protect: protection backend, UA_PROTECT_AUTO by default
 * @guard_size: bytes of never-mapped guard gap after the limit; 0 picks
 *	the default (64 KiB), other values are rounded up to a page
 * @addr: page-aligned address the space must start at, or NULL for
 *	anywhere; a range already in use fails with EEXIST (programs linked
 *	at a fixed address need their space there)
 */
struct ua_space_opts {
	enum ua_protect protect;
	size_t guard_size;
	void *addr;
};

/** UA_SPACE_DEFAULT_GUARD - guard gap after a space's limit, in bytes */
#define UA_SPACE_DEFAULT_GUARD ((size_t)64 << 10)

/**
 * ua_init() - initialise the library
 *
 * Installs the SIGSEGV/SIGBUS handler and reads the environment.  Idempotent
 * and thread-safe; every entry point that needs it calls it lazily.
 *
 * Return: 0, or a negative errno value.
 */
UA_EXPORT int ua_init(void);

/**
 * ua_space_create() - reserve a new guest space
 * @size: bytes in [base, limit); rounded up to a page, must not be 0
 * @opts: options, or NULL for the defaults
 *
 * The whole range starts reserved and unmapped (any access faults).
 *
 * Return: the space, or NULL with errno set: EINVAL for a zero size or bad
 * options, ENOMEM when the range cannot be reserved, EOPNOTSUPP when an
 * explicitly requested protection backend is not available here, EINVAL
 * for an unknown UA_PROTECT value (a message on stderr names the accepted
 * values).
 */
UA_EXPORT struct ua_space *ua_space_create(size_t size,
					   const struct ua_space_opts *opts);

/**
 * ua_space_destroy() - release a space and everything mapped in it
 * @sp: the space, or NULL
 *
 * A space in use is refused, not kept alive: it is not destroyed while
 * another thread has it as its current space (ua_space_use(); a thread
 * that exits gives its current space up) or while a task created in it
 * has not been destroyed (ua_task_destroy(), running or not).  The
 * refusal names the reason on stderr and changes nothing; destroy the
 * tasks, switch the threads away, and call again.  The calling thread's
 * own current space is given up.  A thread that starts using @sp while
 * it is being destroyed is a bug the library cannot catch.
 *
 * Return: 0 (also for NULL), or -EBUSY.
 */
UA_EXPORT int ua_space_destroy(struct ua_space *sp);

/** ua_space_base() - first address of @sp */
UA_EXPORT void *ua_space_base(const struct ua_space *sp);

/** ua_space_size() - bytes from base to limit */
UA_EXPORT size_t ua_space_size(const struct ua_space *sp);

/** ua_space_limit() - one past the last guest byte (start of the guard) */
UA_EXPORT void *ua_space_limit(const struct ua_space *sp);

/**
 * ua_map() - map anonymous zeroed memory into a space
 * @sp: the space
 * @addr: page-aligned address inside the space, or NULL for anywhere
 * @len: bytes, rounded up to a page; not 0
 * @prot: PROT_READ, PROT_WRITE, PROT_EXEC combination (the protection the
 *	guest sees; the monitor sees it only through windows)
 *
 * Return: the address, or NULL with errno set: EINVAL (unaligned address,
 * zero length, bad prot), ERANGE (range not inside the space), EEXIST
 * (overlaps an existing mapping), ENOMEM (no room / no memory).
 */
UA_EXPORT void *ua_map(struct ua_space *sp, void *addr, size_t len, int prot);

/**
 * ua_mprotect() - change the guest protection of mapped pages of a space
 * @sp: the space
 * @addr: page-aligned address inside the space
 * @len: bytes, rounded up to a page; every page must be mapped
 * @prot: PROT_READ, PROT_WRITE, PROT_EXEC combination
 *
 * Return: 0, -EINVAL (unaligned, bad prot), -ERANGE (outside the space),
 * -ENOMEM (a page of the range is not mapped, as mprotect(2) says).
 */
UA_EXPORT int ua_mprotect(struct ua_space *sp, void *addr, size_t len,
			  int prot);

/**
 * ua_unmap() - unmap part of a space
 * @sp: the space
 * @addr: page-aligned address inside the space
 * @len: bytes, rounded up to a page
 *
 * The range becomes reserved again: accesses fault, the guard stays.
 * Unmapping a range that is only partly mapped unmaps what is there.
 *
 * Return: 0, -EINVAL (unaligned or zero length) or -ERANGE (outside).
 */
UA_EXPORT int ua_unmap(struct ua_space *sp, void *addr, size_t len);

/**
 * ua_space_use() - set the calling thread's current space
 * @sp: the new current space, or NULL for none (no guest pointer is valid)
 *
 * While it is a thread's current space, @sp cannot be destroyed by
 * another thread (ua_space_destroy() returns -EBUSY); a thread that exits
 * gives up its current space.
 *
 * Return: the previous current space.
 */
UA_EXPORT struct ua_space *ua_space_use(struct ua_space *sp);

/** ua_current_space() - the calling thread's current space, or NULL */
UA_EXPORT struct ua_space *ua_current_space(void);

/** ua_space_protect() - the protection backend in force for @sp */
UA_EXPORT enum ua_protect ua_space_protect(const struct ua_space *sp);

/** ua_protect_name() - "none", "mprotect", "pkey" or "auto" */
UA_EXPORT const char *ua_protect_name(enum ua_protect p);

/**
 * ua_space_find() - the space containing an address
 * @addr: any address
 *
 * The range searched includes each space's guard gap.  Lock-free and
 * async-signal-safe.
 *
 * Return: the space, or NULL.
 */
UA_EXPORT struct ua_space *ua_space_find(const void *addr);

UA_END_DECLS

#endif /* UACCESS_SPACE_H */

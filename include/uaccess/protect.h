/* SPDX-License-Identifier: MIT */
/*
 * Protection transitions for the task layer.
 *
 * A space is in one of three states for a thread: monitor mode (locked:
 * the monitor cannot touch it), inside a window (read, write or both), or
 * guest mode (unlocked: guest code runs and sees the mappings' own
 * protection).  Every transition is one protection switch in ua_stats,
 * counted alike under every backend.
 */
#ifndef UACCESS_PROTECT_H
#define UACCESS_PROTECT_H

#include <uaccess/compiler.h>
#include <uaccess/space.h>

UA_BEGIN_DECLS

/**
 * ua_protect_lock() - guest mode -> monitor mode (syscall entry)
 * @sp: the space the thread was running guest code in
 *
 * Async-signal-safe under none and pkey.
 */
UA_EXPORT void ua_protect_lock(struct ua_space *sp);

/**
 * ua_protect_unlock() - monitor mode -> guest mode (syscall exit)
 * @sp: the space guest code will run in
 */
UA_EXPORT void ua_protect_unlock(struct ua_space *sp);

/**
 * ua_protect_unlock_from_window() - close the open window into guest mode
 * @sp: the space
 *
 * The fold of DESIGN.md §5: the last window of a syscall is closed by the
 * same switch that enters guest mode, so the pair costs one switch, not
 * two.  The thread must have a window open on @sp.
 */
UA_EXPORT void ua_protect_unlock_from_window(struct ua_space *sp);

/**
 * ua_protect_available() - can this backend be used here?
 * @p: UA_PROTECT_NONE, UA_PROTECT_MPROTECT or UA_PROTECT_PKEY
 * @why: if not NULL and the answer is no, set to a static reason string
 */
UA_EXPORT bool ua_protect_available(enum ua_protect p, const char **why);

UA_END_DECLS

#endif /* UACCESS_PROTECT_H */

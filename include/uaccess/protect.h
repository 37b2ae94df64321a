/* SPDX-License-Identifier: MIT */
/*
 * Protection transitions for the task layer.
 *
 * A thread has one of three modes on each space:
 *
 *   monitor mode (locked) -- the monitor cannot touch the space;
 *   a window (read, write or read-write) -- opened by
 *       ua_user_*_access_begin() or a checked accessor;
 *   guest mode (unlocked) -- guest code runs and sees each mapping's own
 *       protection (as given to ua_map()).
 *
 * A syscall goes: guest mode --ua_protect_lock()--> monitor mode
 * (entry) -- windows, each opened and closed -- ua_protect_unlock()
 * --> guest mode (exit).  When the syscall's last window is still open at
 * exit, ua_protect_unlock_from_window() closes it and enters guest mode in
 * one switch instead of two (the fold of doc/design.md §5: raise -> handler
 * -> sigreturn costs 5 switches instead of 8 with it).
 *
 * Every transition is one protection switch in ua_stats.switches, counted
 * alike under every backend (none included): lock 1, unlock 1,
 * unlock_from_window 1, a window 2 (open and close).  Misuse that would
 * corrupt the backend's state -- lock outside guest mode, unlock in guest
 * mode, unlock_from_window without a window -- prints "uaccess: ..." and
 * aborts, in every build.  See doc/protection.md.
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
 * The thread must be in guest mode on @sp.  Under pkey this also puts
 * back the monitor's whole PKRU as it was at the unlock, whatever guest
 * code or the init PKRU of a signal handler did to it meanwhile.
 * Async-signal-safe under none and pkey (no call, no lock); under
 * mprotect it takes the space's lock and calls mprotect().
 */
UA_EXPORT void ua_protect_lock(struct ua_space *sp);

/**
 * ua_protect_unlock() - monitor mode -> guest mode (syscall exit)
 * @sp: the space guest code will run in
 *
 * The thread must not be in guest mode already (on any space).  A window
 * still open on @sp is a bug: debug builds (-Ddebug_windows=true) report
 * it and abort, release builds close it as part of this switch, as
 * ua_protect_unlock_from_window() does.  A window open on another space
 * aborts in every build: guest code would run with it open.
 */
UA_EXPORT void ua_protect_unlock(struct ua_space *sp);

/**
 * ua_protect_unlock_from_window() - close the open window into guest mode
 * @sp: the space
 *
 * The fold: the window open on @sp is closed by the same switch that
 * enters guest mode, so the pair costs one switch, not two (and
 * ua_stats.windows still counts the window once).  The thread must have a
 * window open on @sp and not be in guest mode; a later
 * ua_user_*_access_end() for that window finds it closed and does nothing
 * (a debug build reports it as an end without begin).
 */
UA_EXPORT void ua_protect_unlock_from_window(struct ua_space *sp);

/**
 * ua_protect_available() - can this backend be used here?
 * @p: UA_PROTECT_NONE, UA_PROTECT_MPROTECT or UA_PROTECT_PKEY
 * @why: if not NULL, set to a static reason string when the answer is no
 *	(NULL when it is yes)
 *
 * pkey needs the CPU's protection keys enabled by the kernel (CPUID
 * OSPKE) and a working pkey_alloc(); the answer is computed once.  A yes
 * does not promise a key: each pkey space holds one of the at most 15 a
 * process gets, and ua_space_create() fails with ENOSPC when none is left.
 *
 * Return: true when ua_space_create() may use @p.
 */
UA_EXPORT bool ua_protect_available(enum ua_protect p, const char **why);

/**
 * ua_protect_probe() - what the calling thread can do to a byte right now
 * @addr: any address; normally a guest byte
 *
 * For tests and debugging: reads the byte and stores the same value back,
 * each with fault recovery, and reports which of the two the hardware
 * allowed -- the thread's protection state as it really is, not as the
 * bookkeeping says.  Its faults are never reported as violations and are
 * not counted in ua_stats.  The store-back races with other writers of
 * the byte: probe only bytes nobody else writes at the time.
 *
 * Return: UA_WIN_READ | UA_WIN_WRITE bits for the accesses that worked
 * (0: locked or unmapped).
 */
UA_EXPORT int ua_protect_probe(const void *addr);

UA_END_DECLS

#endif /* UACCESS_PROTECT_H */

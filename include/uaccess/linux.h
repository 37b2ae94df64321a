/* SPDX-License-Identifier: MIT */
/*
 * Unmodified Linux programs: the loader and what goes with it.  A loaded
 * program runs as a task whose `syscall` instructions are trapped and
 * served, by their Linux numbers, through the library's accessors.
 * x86-64 only; elsewhere ua_task_exec() fails with EOPNOTSUPP.
 */
#ifndef UACCESS_LINUX_H
#define UACCESS_LINUX_H

#include <uaccess/compiler.h>
#include <uaccess/task.h>

UA_BEGIN_DECLS

/**
 * ua_task_exec() - load a Linux x86-64 program into a space
 * @sp: the space; ET_EXEC programs need their link addresses inside it
 *	(see ua_exec_space_addr())
 * @path: the executable, or a `#!` script (run as execve runs it)
 * @argv: its arguments (argv[0] included), NULL-terminated
 * @envp: its environment, NULL-terminated; NULL for none
 * @opts: task options or NULL; trap_syscalls is implied
 *
 * Maps the PT_LOAD segments with their protections, zeroes the bss, maps
 * a dynamic program's interpreter (PT_INTERP) and builds the initial
 * stack (argc, argv, envp, the auxiliary vector) the way the kernel's
 * binfmt_elf does.  Static, static-pie and dynamically linked
 * executables.  Refusals are explained on stderr.  The calling thread,
 * which is to run the task, takes the program's name (PR_SET_NAME: the
 * last part of @path), as execve names the process after its file; the
 * task keeps the signals that thread ignores ignored and starts with its
 * signal mask, as execve keeps them (caught ones start at SIG_DFL).
 *
 * Return: the task, ready for ua_task_run(), or NULL with errno set:
 * ENOENT/EACCES (the file, or a dynamic program's interpreter), EISDIR,
 * ENOEXEC (not ELF, truncated or inconsistent headers, another
 * architecture or class), ELIBBAD (an interpreter that is not an x86-64
 * ELF shared object), ELOOP (scripts nested too deep), ERANGE (a segment
 * outside the space), ENOMEM, ENOSYS (no way to trap syscalls here).
 */
UA_EXPORT struct ua_task *ua_task_exec(struct ua_space *sp, const char *path,
				       char *const argv[], char *const envp[],
				       const struct ua_task_opts *opts);

/**
 * ua_exec_space_addr() - where a space for @path should start
 * @path: the executable
 *
 * Return: the page-aligned address an ET_EXEC program needs its space to
 * start at (below its lowest segment), or 0 when the program can be
 * loaded anywhere (static-pie) or cannot be read.
 */
UA_EXPORT unsigned long ua_exec_space_addr(const char *path);

/**
 * typedef ua_exec_fn - how a guest's execve starts the new image
 * @state_fd: a host descriptor (not close-on-exec) holding the new
 *	image's description: hand it to ua_exec_state_read() in the new
 *	monitor
 * @arg: what ua_linux_set_exec() was given
 *
 * A guest's execve replaces the whole process, its monitor included: the
 * function execs the host program that is the monitor again (uarun runs
 * itself with --exec-state=FD), which loads the image with
 * ua_task_exec_state().  It runs on the task's thread, after every check
 * the kernel makes before its point of no return, with the host signal
 * mask empty and the descriptors the new image keeps open across exec.
 *
 * Return: only on failure, a negative errno for the guest's execve.
 */
typedef int (*ua_exec_fn)(int state_fd, void *arg);

/**
 * ua_linux_set_exec() - let loaded programs call execve
 * @fn: starts a new monitor image, or NULL: execve is then ENOSYS
 * @arg: passed to @fn
 */
UA_EXPORT void ua_linux_set_exec(ua_exec_fn fn, void *arg);

struct ua_exec_state;

/**
 * ua_exec_state_read() - the image a guest's execve asked for
 * @fd: the state descriptor given to the new monitor; closed here
 *
 * Return: the state, or NULL with errno set (EINVAL: not a state this
 * version of the library wrote; EBADF, ENOMEM).
 */
UA_EXPORT struct ua_exec_state *ua_exec_state_read(int fd);

/**
 * ua_exec_state_path() - the executable to load, for ua_exec_space_addr()
 * @st: from ua_exec_state_read()
 */
UA_EXPORT const char *ua_exec_state_path(const struct ua_exec_state *st);

/**
 * ua_task_exec_state() - load the image of a guest's execve
 * @sp: a space for it (see ua_exec_space_addr())
 * @st: from ua_exec_state_read()
 * @opts: as for ua_task_exec()
 *
 * Loads the program as ua_task_exec() does, with the arguments and
 * environment the guest gave, then gives the task what the kernel's exec
 * keeps: the descriptors without close-on-exec at their numbers, the
 * signal mask, ignored signals and pending signals, resource limits and
 * the real-time interval timer.  Caught signals are back at SIG_DFL.
 * The calling thread takes the name the guest's execve gave the file,
 * as ua_task_exec() does.
 *
 * Return: the task, or NULL with errno set as ua_task_exec().
 */
UA_EXPORT struct ua_task *ua_task_exec_state(struct ua_space *sp,
					     const struct ua_exec_state *st,
					     const struct ua_task_opts *opts);

/**
 * ua_exec_state_free() - release a state
 * @st: from ua_exec_state_read(), or NULL
 */
UA_EXPORT void ua_exec_state_free(struct ua_exec_state *st);

/**
 * ua_linux_host_proc() - make the host's /proc entries of this process
 * describe the program of @t
 * @t: a task made by ua_task_exec() or ua_task_exec_state(), which
 *     stands for the whole process (as in uarun)
 *
 * Another process reads this process's /proc/<pid>/cmdline, environ,
 * auxv and the code, data and stack bounds of stat from the host
 * kernel, which otherwise shows the application that runs the task:
 * its command line, auxiliary vector and bounds.  After this call they
 * are the program's: its arguments and environment (read from the space
 * at each read, as natively; under the mprotect backend, whose space is
 * inaccessible while the monitor runs, from a copy made here), the
 * auxiliary vector it was given, its code, data and initial stack.  A
 * fork inherits them.  The task's own view of /proc/self is the
 * guest's with or without this call.  The exe link, the memory map and
 * the descriptors stay the host's.  Call before other threads start:
 * the host's brk bounds are written back as read.
 *
 * Return: 0, -EINVAL (not such a task, or the kernel has no
 * PR_SET_MM_MAP: built without CONFIG_CHECKPOINT_RESTORE), -EIO (the
 * host's brk bounds cannot be read), -EFAULT, -ENOMEM, or the kernel's
 * error (-EPERM, -ENOSPC under a small RLIMIT_DATA).
 */
UA_EXPORT int ua_linux_host_proc(struct ua_task *t);

/**
 * ua_linux_trace() - print every syscall of @t strace-style on @fd
 * @t: a task made by ua_task_exec()
 * @fd: host descriptor, or -1 to stop
 */
UA_EXPORT void ua_linux_trace(struct ua_task *t, int fd);

/**
 * ua_linux_print_stats() - print syscalls by name and signals delivered
 * @t: a task made by ua_task_exec()
 * @fd: host descriptor
 */
UA_EXPORT void ua_linux_print_stats(struct ua_task *t, int fd);

UA_END_DECLS

#endif /* UACCESS_LINUX_H */

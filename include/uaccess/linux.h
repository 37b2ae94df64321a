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
 * ua_task_exec() - load a static Linux x86-64 program into a space
 * @sp: the space; ET_EXEC programs need their link addresses inside it
 *	(see ua_exec_space_opts())
 * @path: the executable
 * @argv: its arguments (argv[0] included), NULL-terminated
 * @envp: its environment, NULL-terminated; NULL for none
 * @opts: task options or NULL; trap_syscalls is implied
 *
 * Maps the PT_LOAD segments with their protections, zeroes the bss and
 * builds the initial stack (argc, argv, envp, the auxiliary vector) the
 * way the kernel's binfmt_elf does.  Static and static-pie executables
 * only.  Refusals are explained on stderr.
 *
 * Return: the task, ready for ua_task_run(), or NULL with errno set:
 * ENOENT/EACCES (the file), EISDIR, ENOEXEC (not ELF, truncated or
 * inconsistent headers, another architecture or class), ELIBBAD (a
 * dynamic program: PT_INTERP), ERANGE (a segment outside the space),
 * ENOMEM, ENOSYS (no way to trap syscalls here).
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

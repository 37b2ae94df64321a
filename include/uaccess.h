/* SPDX-License-Identifier: MIT */
/*
 * uaccess: the Linux kernel's user-access machinery as a user-space library.
 * This umbrella header brings in every public part; see doc/usage.md.
 */
#ifndef UACCESS_H
#define UACCESS_H

#include <uaccess/config.h>
#include <uaccess/compiler.h>
#include <uaccess/extable.h>
#include <uaccess/arch.h>
#include <uaccess/space.h>
#include <uaccess/stats.h>
#include <uaccess/access.h>
#include <uaccess/window.h>
#include <uaccess/nofault.h>
#include <uaccess/iter.h>
#include <uaccess/futex.h>
#include <uaccess/fault.h>
#include <uaccess/protect.h>
#include <uaccess/task.h>
#include <uaccess/signal.h>
#include <uaccess/linux.h>

#endif /* UACCESS_H */

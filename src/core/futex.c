// SPDX-License-Identifier: MIT
/*
 * The futex atomics on a word of the current space (include/uaccess/
 * futex.h): the kernel's futex_atomic_cmpxchg_inatomic() and
 * futex_atomic_op_inuser() (kernel/futex/core.c), over one
 * fault-recoverable LOCK CMPXCHG (src/arch/) in a write window.  The
 * kernel's x86 code does SET and ADD with XCHG and XADD and the rest
 * with a compare-and-exchange loop; a loop for all five costs nothing
 * that matters here and keeps the arch part to one instruction.
 */
#include <errno.h>
#include <uaccess/futex.h>

#include "../internal.h"

int ua_futex_atomic_cmpxchg_inatomic(uint32_t *uval, uint32_t *uaddr,
				     uint32_t oldval, uint32_t newval)
{
	int ret;

	if ((uintptr_t)uaddr % sizeof(*uaddr))
		return -EINVAL;
	if (!ua_user_write_access_begin(uaddr, sizeof(*uaddr)))
		return -EFAULT;
	ret = ua__raw_cmpxchg32(uaddr, oldval, newval, uval);
	ua_user_write_access_end();
	return ret;
}

/* sign_extend32(v, 11): the 12-bit fields of an encoded operation. */
static int field12(unsigned int v)
{
	return (int)(v << 20) >> 20;
}

static uint32_t apply(unsigned int op, uint32_t oparg, uint32_t old)
{
	switch (op) {
	case UA_FUTEX_OP_SET:
		return oparg;
	case UA_FUTEX_OP_ADD:
		return old + oparg;
	case UA_FUTEX_OP_OR:
		return old | oparg;
	case UA_FUTEX_OP_ANDN:
		return old & ~oparg;
	}
	return old ^ oparg; /* UA_FUTEX_OP_XOR */
}

/* The operation, atomically: a compare-and-exchange until it holds. */
static int op_word(unsigned int op, uint32_t oparg, uint32_t *uaddr,
		   int32_t *oldval)
{
	uint32_t cur, seen;
	int ret;

	if (!ua_user_write_access_begin(uaddr, sizeof(*uaddr)))
		return -EFAULT;
	/* Exchanging 0 for 0 reads the word: it changes nothing. */
	ret = ua__raw_cmpxchg32(uaddr, 0, 0, &seen);
	while (!ret) {
		cur = seen;
		ret = ua__raw_cmpxchg32(uaddr, cur, apply(op, oparg, cur),
					&seen);
		if (!ret && seen == cur) {
			*oldval = (int32_t)cur;
			break;
		}
	}
	ua_user_write_access_end();
	return ret;
}

int ua_futex_atomic_op_inuser(unsigned int encoded_op, uint32_t *uaddr)
{
	unsigned int op = (encoded_op >> 28) & 7, cmp = (encoded_op >> 24) & 15;
	int oparg = field12(encoded_op >> 12), cmparg = field12(encoded_op);
	int32_t old;
	int ret;

	if ((uintptr_t)uaddr % sizeof(*uaddr))
		return -EINVAL;
	/* The kernel warns of a shift out of range and masks it. */
	if (encoded_op & (UA_FUTEX_OP_OPARG_SHIFT << 28))
		oparg = (int)(1u << (oparg & 31));
	if (op > UA_FUTEX_OP_XOR)
		return -ENOSYS;
	ret = op_word(op, (uint32_t)oparg, uaddr, &old);
	if (ret)
		return ret;
	switch (cmp) {
	case UA_FUTEX_OP_CMP_EQ:
		return old == cmparg;
	case UA_FUTEX_OP_CMP_NE:
		return old != cmparg;
	case UA_FUTEX_OP_CMP_LT:
		return old < cmparg;
	case UA_FUTEX_OP_CMP_GE:
		return old >= cmparg;
	case UA_FUTEX_OP_CMP_LE:
		return old <= cmparg;
	case UA_FUTEX_OP_CMP_GT:
		return old > cmparg;
	}
	return -ENOSYS;
}

// SPDX-License-Identifier: MIT
/*
 * ua_futex_atomic_cmpxchg_inatomic() and ua_futex_atomic_op_inuser():
 * the word's value and the results the kernel's futex_atomic_* give, one
 * write window per call, faults at the hole and the space's limit,
 * misaligned words and monitor pointers refused before any access.
 */
#include <errno.h>
#include <limits.h>

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

TestSuite(futex, .init = setup, .fini = teardown);

static uint32_t *word(void)
{
	return (uint32_t *)(env.buf + 64);
}

static void set_word(uint32_t v)
{
	t_poke(word(), &v, sizeof(v));
}

static uint32_t get_word(void)
{
	uint32_t v;

	t_peek(&v, word(), sizeof(v));
	return v;
}

Test(futex, cmpxchg_exchanges_only_the_expected_value)
{
	uint32_t seen = 0;

	set_word(5);
	ua_stats_reset();
	cr_assert_eq(ua_futex_atomic_cmpxchg_inatomic(&seen, word(), 5, 9), 0);
	t_assert_stats(2, 1, 0, "one write window");
	cr_assert_eq(seen, 5);
	cr_assert_eq(get_word(), 9);
	/* A mismatch changes nothing and says what was there. */
	cr_assert_eq(ua_futex_atomic_cmpxchg_inatomic(&seen, word(), 5, 1), 0);
	cr_assert_eq(seen, 9);
	cr_assert_eq(get_word(), 9);
}

Test(futex, cmpxchg_faults_and_refusals)
{
	uint32_t seen = 0x5a5a5a5a;
	void *mon = t_noaccess_page();

	ua_stats_reset();
	cr_assert_eq(ua_futex_atomic_cmpxchg_inatomic(
			     &seen, (uint32_t *)env.hole, 0, 1),
		     -EFAULT);
	t_assert_stats(2, 1, 1, "the hole faults inside the window");
	cr_assert_eq(seen, 0x5a5a5a5a, "nothing stored on a fault");
	ua_stats_reset();
	cr_assert_eq(ua_futex_atomic_cmpxchg_inatomic(&seen, mon, 0, 1),
		     -EFAULT);
	cr_assert_eq(ua_futex_atomic_cmpxchg_inatomic(
			     &seen, (uint32_t *)(env.buf + 2), 0, 1),
		     -EINVAL);
	t_assert_stats(0, 0, 0, "refused before any window or access");
	munmap(mon, T_PG);
}

/* One operation from old; the word after it and the result. */
static void op_case(uint32_t old, unsigned int op, int oparg, unsigned int cmp,
		    int cmparg, int want, uint32_t after)
{
	set_word(old);
	ua_stats_reset();
	cr_assert_eq(ua_futex_atomic_op_inuser(
			     UA_FUTEX_OP(op, oparg, cmp, cmparg), word()),
		     want, "op %u oparg %d cmp %u cmparg %d on %#x", op, oparg,
		     cmp, cmparg, old);
	/* One write window, none for an unknown op. */
	if ((op & 7) <= UA_FUTEX_OP_XOR)
		t_assert_stats(2, 1, 0, "op %u", op);
	else
		t_assert_stats(0, 0, 0, "op %u", op);
	cr_assert_eq(get_word(), after, "op %u oparg %d on %#x", op, oparg,
		     old);
}

Test(futex, op_every_operation)
{
	op_case(7, UA_FUTEX_OP_SET, 3, UA_FUTEX_OP_CMP_EQ, 7, 1, 3);
	op_case(7, UA_FUTEX_OP_ADD, 5, UA_FUTEX_OP_CMP_EQ, 0, 0, 12);
	op_case(7, UA_FUTEX_OP_ADD, -1, UA_FUTEX_OP_CMP_NE, 0, 1, 6);
	op_case(0xf0, UA_FUTEX_OP_OR, 0x0f, UA_FUTEX_OP_CMP_GT, 0xef, 1, 0xff);
	op_case(0xff, UA_FUTEX_OP_ANDN, 0x0f, UA_FUTEX_OP_CMP_GE, 0x100, 0,
		0xf0);
	op_case(0xff, UA_FUTEX_OP_XOR, 0x101, UA_FUTEX_OP_CMP_LE, 0xff, 1,
		0x1fe);
	op_case(0, UA_FUTEX_OP_ADD, 1, UA_FUTEX_OP_CMP_LT, 1, 1, 1);
}

Test(futex, op_arguments_are_signed_12_bits)
{
	/* cmparg 0xfff is -1; the old value compares as a signed int. */
	op_case(0xffffffffu, UA_FUTEX_OP_SET, 0, UA_FUTEX_OP_CMP_EQ, 0xfff, 1,
		0);
	op_case(0x80000000u, UA_FUTEX_OP_SET, 1, UA_FUTEX_OP_CMP_LT, 0, 1, 1);
	/* oparg 0x800 is -2048. */
	op_case(0, UA_FUTEX_OP_ADD, 0x800, UA_FUTEX_OP_CMP_EQ, 0, 1,
		(uint32_t)-2048);
}

Test(futex, op_oparg_shift)
{
	op_case(1, UA_FUTEX_OP_OR | UA_FUTEX_OP_OPARG_SHIFT, 4,
		UA_FUTEX_OP_CMP_EQ, 1, 1, 0x11);
	op_case(0, UA_FUTEX_OP_SET | UA_FUTEX_OP_OPARG_SHIFT, 31,
		UA_FUTEX_OP_CMP_EQ, 0, 1, 0x80000000u);
	/* A shift past 31 is masked, as the kernel does after its warning. */
	op_case(0, UA_FUTEX_OP_SET | UA_FUTEX_OP_OPARG_SHIFT, 33,
		UA_FUTEX_OP_CMP_EQ, 0, 1, 2);
}

Test(futex, op_unknown_op_or_cmp)
{
	/* An unknown op changes nothing; an unknown cmp comes after it. */
	op_case(7, 5, 1, UA_FUTEX_OP_CMP_EQ, 7, -ENOSYS, 7);
	op_case(7, UA_FUTEX_OP_ADD, 1, 6, 7, -ENOSYS, 8);
	op_case(7, UA_FUTEX_OP_ADD, 1, 15, 7, -ENOSYS, 8);
}

Test(futex, op_faults_and_refusals)
{
	unsigned int op = UA_FUTEX_OP(UA_FUTEX_OP_ADD, 1, 0, 0);
	void *mon = t_noaccess_page();
	char *lim = ua_space_limit(env.sp);

	ua_stats_reset();
	cr_assert_eq(ua_futex_atomic_op_inuser(op, (uint32_t *)env.hole),
		     -EFAULT);
	t_assert_stats(2, 1, 1, "the hole faults inside the window");
	ua_stats_reset();
	cr_assert_eq(ua_futex_atomic_op_inuser(op, mon), -EFAULT);
	cr_assert_eq(ua_futex_atomic_op_inuser(op, (uint32_t *)(lim - 2)),
		     -EINVAL);
	cr_assert_eq(ua_futex_atomic_op_inuser(op, (uint32_t *)lim), -EFAULT);
	t_assert_stats(0, 0, 0, "refused before any window or access");
	munmap(mon, T_PG);
}

// SPDX-License-Identifier: MIT
/*
 * Criterion main for every suite.  UA_PROTECT selects the backend the
 * suite runs under; where that backend cannot exist on this machine
 * (protection keys) every test is reported as skipped with the reason and
 * the suite exits 77 so Meson shows it as skipped, never as passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tsupport.h"

int main(int argc, char *argv[])
{
	struct criterion_test_set *tests = criterion_initialize();
	const char *skip = t_backend_unavailable();
	int result = 0;

	if (criterion_handle_args(argc, argv, true))
		result = !criterion_run_all_tests(tests);
	criterion_finalize(tests);
	if (!result && skip) {
		printf("SKIP: %s\n", skip);
		return 77;
	}
	return result;
}

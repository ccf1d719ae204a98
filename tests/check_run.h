/* check_run.h: the one way every Check suite of pmctop is run, so that a
 * test program's main() is only the list of its suites. */
#ifndef PMCTOP_CHECK_RUN_H
#define PMCTOP_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

/* Runs the suite (forking per test unless CK_FORK=no, which valgrind runs
 * use) and returns the process exit status: failure if any test failed. */
static inline int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif

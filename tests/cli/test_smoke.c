/* test_smoke.c - the program runs and reports its version. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support.h"

Test(cli, version)
{
	char cmd[256], *out;
	snprintf(cmd, sizeof cmd, "%s --version", ts_program());
	cr_assert_eq(ts_run(cmd, &out, NULL), 0);
	cr_assert(strncmp(out, "stagecut ", 9) == 0, "got '%s'", out);
	free(out);
}

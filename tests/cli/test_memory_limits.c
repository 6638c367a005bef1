/*
 * test_memory_limits.c - allocation failures inside the libraries end in
 * one message and exit 2, not a crash: under `ulimit -v`,
 * Graphviz's cairo plugin drew on after failing to make its surface, and
 * cgraph went on with a null pointer after failing to copy a name; both
 * crashed with SIGSEGV.  Nothing is written either time.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support.h"

TestSuite(memlimits, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 120);

Test(memlimits, a_huge_dot_file_under_a_small_address_space)
{
	char out[256];
	ts_tpath(out, sizeof out, "million.dot");
	char *o, *e, cmd[1024];
	snprintf(cmd, sizeof cmd, "ulimit -v 300000; %s gen -n 1000000 -o %s", ts_program(), out);
	int st = ts_run(cmd, &o, &e);
	cr_assert_eq(st, 2, "exit %d: %s", st, e);
	cr_assert(strstr(e, "out of memory") && strstr(e, out), "%s", e);
	cr_assert_eq(access(out, F_OK), -1, "%s was written", out);
	free(o);
	free(e);
}

/* 150 chains of 40 ops: dot lays them out in seconds as a bitmap of about
 * 13 800 x 6 700 pixels (370 MB), more than a 400 MB address space has
 * left beside the program. */
Test(memlimits, a_bitmap_too_large_for_the_address_space)
{
	char g[256], png[256];
	ts_tpath(g, sizeof g, "chains.dot");
	ts_tpath(png, sizeof png, "full.png");
	FILE *f = fopen(g, "w");
	cr_assert(f);
	fprintf(f, "digraph chains { k = 2;\n");
	for (int c = 0; c < 150; c++)
		for (int i = 0; i < 40; i++)
			fprintf(f, "c%d_%d_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx [work = 1, out = 1];\n%s",
			        c, i, "");
	for (int c = 0; c < 150; c++)
		for (int i = 0; i + 1 < 40; i++)
			fprintf(f,
			        "c%d_%d_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx -> "
			        "c%d_%d_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx;\n",
			        c, i, c, i + 1);
	fprintf(f, "}\n");
	cr_assert_eq(fclose(f), 0);
	char cmd[1024], *o, *e;
	snprintf(cmd, sizeof cmd,
	         "ulimit -v 400000; %s render %s --full --max-ops 6000 --page-ops 0 -o %s",
	         ts_program(), g, png);
	int st = ts_run(cmd, &o, &e);
	cr_assert_eq(st, 2, "exit %d: %s", st, e);
	cr_assert(strstr(e, "not enough memory") && strstr(e, "try svg or pdf"), "%s", e);
	cr_assert_eq(access(png, F_OK), -1, "%s was written", png);
	free(o);
	free(e);
}

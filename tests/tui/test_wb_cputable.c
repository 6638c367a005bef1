/*
 * test_wb_cputable.c - the workbench's CPU table (001 section 3) driven
 * in tmux: on the msr-fiddle ResNet-50 sample (layer level) at k 3, with
 * --cpus 1 and without, C opens the table of the optimum at k 3 and 4
 * accelerators and 0, 1, 2 CPUs; once every cell has ended, the cells must
 * read what `solve -m exact --cpus L --json` gives (as ui_num prints it),
 * the current run's cell marked, and Esc closes it.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/support.h"

#define RESNET "samples/msr-fiddle/layer/resnet50_inference.json"

/* The optimum solve's exact DP gives at k accelerators and l CPUs, as
 * the table prints it ("%.4f", ui_num's for these values). */
static void cli_value(int k, int l, char *buf, size_t size)
{
	json_t *o = ts_run_json(0, "solve %s -k %d --cpus %d -m exact --json", RESNET, k, l);
	cr_assert(ts_jbool(o, "optimal"), "k %d, L %d: not proven", k, l);
	snprintf(buf, size, "%.4f", ts_jnum(o, "bottleneck"));
	json_decref(o);
}

/* The screen once no cell runs any more (no "…"), or fails. */
static char *wait_cells(ts_tmux *t)
{
	free(ts_tmux_wait(t, "* the current run", 10));
	for (int i = 0; i < 200; i++) {
		char *s = ts_tmux_screen(t);
		if (!strstr(s, "\u2026"))
			return s;
		free(s);
		nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
	}
	cr_assert_fail("the CPU table's cells never ended:\n%s", ts_tmux_screen(t));
	return NULL;
}

/* The three cells of row k on screen s into cell (marks stripped) and
 * which of them is marked (-1: none). */
static int row_cells(const char *s, int k, char cell[3][32])
{
	const char *p = s;
	int marked = -1;
	for (; (p = strchr(p, '\n')); p++) {
		int rk, nread = 0;
		/* the box's left border, then the row */
		const char *q = strstr(p + 1, "\u2502"), *eol = strchr(p + 1, '\n');
		if (!q || (eol && q > eol))
			continue;
		q += strlen("\u2502");
		if (sscanf(q, "%d%n", &rk, &nread) != 1 || rk != k || q[nread] != ' ')
			continue;
		q += nread;
		int got = 0;
		for (int c = 0; c < 3; c++) {
			char word[64];
			int m;
			if (sscanf(q, " %63s%n", word, &m) != 1)
				break;
			q += m;
			size_t len = strlen(word);
			if (len && word[len - 1] == '*') {
				word[--len] = '\0';
				marked = c;
			}
			snprintf(cell[c], 32, "%s", word);
			got++;
		}
		if (got == 3)
			return marked;
	}
	cr_assert_fail("no row for k %d in:\n%s", k, s);
	return -1;
}

static void run_table(const char *cpus, int current_l)
{
	ts_tmux t;
	char cmd[9000], prog[4096], path[4096];
	cr_assert(realpath(ts_program(), prog));
	cr_assert(realpath(RESNET, path));
	char dir[] = "/tmp/sc-wbcput-XXXXXX";
	cr_assert(mkdtemp(dir));
	snprintf(cmd, sizeof cmd, "sh -c 'cd %s && XDG_STATE_HOME=%s %s %s -k 3 %s'", dir, dir,
	         prog, path, cpus);
	ts_tmux_start(&t, 120, 32, "TERM=xterm-256color", cmd);
	free(ts_tmux_wait(&t, current_l ? "k 3 + 1 CPU" : "k 3", 10));
	ts_tmux_keys(&t, "C");
	char *s = wait_cells(&t);
	char cell[2][3][32], want[32];
	int marked3 = row_cells(s, 3, cell[0]), marked4 = row_cells(s, 4, cell[1]);
	cr_expect_eq(marked3, current_l, "the current run's cell:\n%s", s);
	cr_expect_eq(marked4, -1, "k 4 is not the current run:\n%s", s);
	/* four cells against the command line */
	static const int check[][2] = {{3, 0}, {3, 1}, {4, 2}, {4, 0}};
	for (size_t i = 0; i < sizeof check / sizeof *check; i++) {
		int k = check[i][0], l = check[i][1];
		cli_value(k, l, want, sizeof want);
		cr_expect_str_eq(cell[k - 3][l], want, "k %d, L %d:\n%s", k, l, s);
	}
	free(s);
	ts_tmux_keys(&t, "Escape");
	for (int i = 0; i < 50; i++) {
		s = ts_tmux_screen(&t);
		bool open = strstr(s, "* the current run") != NULL;
		free(s);
		if (!open)
			break;
		cr_assert_lt(i, 49, "Esc does not close the CPU table");
		nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
	}
	ts_tmux_keys(&t, "q");
	ts_tmux_stop(&t);
	ts_remove_dir(dir);
}

Test(wbcputable, with_one_cpu, .timeout = 90)
{
	run_table("--cpus 1", 1);
}

Test(wbcputable, without_cpus, .timeout = 90)
{
	run_table("", 0);
}

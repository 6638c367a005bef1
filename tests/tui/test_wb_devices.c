/*
 * test_wb_devices.c - the workbench on a fleet of kinds (--devices) driven
 * in tmux.  A DOT graph of four ops with times on a kind b, opened with
 * --devices accel:1,b:2 and a partition file written here (stage 1 on b:
 * a and d; stage 2 on accel: c; stage 3 on b: e; its costs worked out by
 * hand below).  The screen names the fleet and each stage's kind.  D gives
 * the selected stage the next kind and the nearest stage of that kind its
 * own: when op c has no time on b every such swap would put it there and
 * is refused by name, nothing changed; when it has one, the swap is taken
 * at the costs computed by hand, u undoes it, and the file w saves names
 * the kinds, which eval reads back at the bottleneck the screen showed.
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

/* a [4 | b 6], c [8 | b 12 or none], d [6 | b 3], e [7 | b 7]; out: a 2,
 * c 2, d 1, e 1; a -> c -> e, a -> d -> e; bandwidth 1. */
static void write_graph(const char *path, bool c_on_b)
{
	char text[512];
	snprintf(text, sizeof text,
	         "digraph { a [work=4, work_b=6, out=2]; c [work=8%s, out=2]; "
	         "d [work=6, work_b=3, out=1]; e [work=7, work_b=7, out=1]; "
	         "a -> c -> e; a -> d -> e; }",
	         c_on_b ? ", work_b=12" : "");
	ts_write_text(path, text);
}

/* Starts the workbench in dir on g.dot with the fleet and -p start.json. */
static void start(ts_tmux *t, const char *dir)
{
	char cmd[9000], prog[4096];
	cr_assert(realpath(ts_program(), prog));
	snprintf(cmd, sizeof cmd,
	         "sh -c 'cd %s && XDG_STATE_HOME=%s %s g.dot --devices accel:1,b:2 -p "
	         "start.json'",
	         dir, dir, prog);
	ts_tmux_start(t, 120, 32, "TERM=xterm-256color", cmd);
}

/* The partition file: stage 1 (b) a and d, stage 2 (accel) c, stage 3 (b)
 * e.  Costs: stage 1 on b: work 6 + 3 = 9, out a->c 2 + d->e 1 = 3: 12;
 * stage 2 on accel: 8 + in 2 + out 2 = 12; stage 3 on b: 7 + in 3 = 10. */
static void write_start(const char *path)
{
	ts_write_text(path, "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"devices\": "
	                    "[\"b\", \"accel\", \"b\"], \"stages\": {\"a\": 1, \"d\": 1, "
	                    "\"c\": 2, \"e\": 3}}\n");
}

/* A scratch directory into dir (64 bytes) holding g.dot (write_graph) and
 * start.json (write_start). */
static void make_files(char *dir, bool c_on_b)
{
	char path[4096];
	ts_make_dir(dir, "sc-wbdev");
	snprintf(path, sizeof path, "%s/g.dot", dir);
	write_graph(path, c_on_b);
	snprintf(path, sizeof path, "%s/start.json", dir);
	write_start(path);
}

Test(wbdevices, kinds_shown_and_a_swap_refused_by_name, .timeout = 60)
{
	char dir[64];
	make_files(dir, false);
	ts_tmux t;
	start(&t, dir);
	char *s = ts_tmux_wait(&t, "devices accel:1,b:2", 10);
	cr_assert(strstr(s, "    1 b "), "stage 1 on b:\n%s", s);
	cr_assert(strstr(s, "    2 accel "), "stage 2 on accel:\n%s", s);
	cr_assert(strstr(s, "    3 b "), "stage 3 on b:\n%s", s);
	cr_assert(strstr(s, "bottleneck 12.0000"), "%s", s);
	free(s);
	free(ts_tmux_idle(&t, 20));
	/* stage 1 (the bottleneck, selected by b) to accel: c would go to b */
	ts_tmux_keys(&t, "b D");
	free(ts_tmux_wait(&t, "not swapped: op 'c' of stage 2 may not run on b", 5));
	ts_tmux_keys(&t, "j j D");
	free(ts_tmux_wait(&t, "not swapped: op 'c' of stage 2 may not run on b", 5));
	s = ts_tmux_screen(&t);
	cr_assert(strstr(s, "    1 b ") && strstr(s, "    2 accel "), "nothing changed:\n%s", s);
	free(s);
	ts_tmux_quit(&t);
	ts_remove_dir(dir);
}

Test(wbdevices, a_swap_costs_undoes_and_saves, .timeout = 60)
{
	char dir[64];
	make_files(dir, true);
	ts_tmux t;
	start(&t, dir);
	free(ts_tmux_wait(&t, "devices accel:1,b:2", 10));
	free(ts_tmux_idle(&t, 20));
	/* stage 1 to accel, stage 2 to b: stage 1 costs 4 + 6 + 3 = 13, stage
	 * 2 12 + 2 + 2 = 16, the bottleneck */
	ts_tmux_keys(&t, "b D");
	char *s = ts_tmux_wait(&t, "stage 1 to accel, stage 2 to b (u undoes)", 5);
	cr_assert(strstr(s, "    1 accel ") && strstr(s, "    2 b "), "%s", s);
	cr_assert(strstr(s, "bottleneck 16.0000 (stage 2)"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "u");
	s = ts_tmux_wait(&t, "bottleneck 12.0000", 5);
	cr_assert(strstr(s, "    1 b ") && strstr(s, "    2 accel "), "undone:\n%s", s);
	free(s);
	/* swapped again and saved: the file names the kinds, eval agrees */
	ts_tmux_keys(&t, "b D");
	free(ts_tmux_wait(&t, "bottleneck 16.0000", 5));
	ts_tmux_keys(&t, "w");
	free(ts_tmux_wait(&t, "save the partition to:", 5));
	ts_tmux_keys(&t, "C-u 'saved.json' Enter");
	free(ts_tmux_wait(&t, "saved to saved.json", 5));
	ts_tmux_quit(&t);
	char cmd[9000], *out;
	snprintf(cmd, sizeof cmd, "%s eval %s/g.dot %s/saved.json --json", ts_program(), dir, dir);
	cr_assert_eq(ts_run(cmd, &out, NULL), 0, "%s", out);
	json_t *r = json_loads(out, 0, NULL);
	cr_assert(r, "%s", out);
	cr_assert_float_eq(json_real_value(json_object_get(r, "bottleneck")), 16, 1e-9);
	json_t *dev = json_object_get(r, "devices");
	cr_assert_str_eq(json_string_value(json_array_get(dev, 0)), "accel");
	cr_assert_str_eq(json_string_value(json_array_get(dev, 1)), "b");
	cr_assert_str_eq(json_string_value(json_array_get(dev, 2)), "b");
	json_decref(r);
	free(out);
	ts_remove_dir(dir);
}

/* C on a fleet: the optimum on the fleet and on one device fewer or more
 * of each kind, each row what info --devices --json says of that mix. */
Test(wbdevices, the_table_of_mixes_is_info_s, .timeout = 60)
{
	char dir[64];
	make_files(dir, true);
	char cmd[9000], *out;
	snprintf(cmd, sizeof cmd, "%s info %s/g.dot --devices accel:1,b:2 --json", ts_program(),
	         dir);
	cr_assert_eq(ts_run(cmd, &out, NULL), 0, "%s", out);
	json_t *info = json_loads(out, 0, NULL);
	cr_assert(info, "%s", out);
	free(out);
	json_t *table = json_object_get(json_object_get(info, "devices"), "table");
	cr_assert_eq(json_array_size(table), 5);
	ts_tmux t;
	start(&t, dir);
	free(ts_tmux_wait(&t, "devices accel:1,b:2", 10));
	free(ts_tmux_idle(&t, 20));
	ts_tmux_keys(&t, "C");
	char *s = ts_tmux_settled(&t, "one device fewer or more", 10);
	for (int tries = 0; strstr(s, "\u2026") && tries < 50; tries++) {
		free(s);
		nanosleep(&(struct timespec){0, 200000000}, NULL);
		s = ts_tmux_screen(&t);
	}
	for (size_t i = 0; i < json_array_size(table); i++) {
		json_t *row = json_array_get(table, i);
		const char *mix = json_string_value(json_object_get(row, "devices"));
		const char *at = strstr(strstr(s, "one device fewer or more"), mix);
		cr_assert(at, "no row %s:\n%s", mix, s);
		char want[64];
		snprintf(want, sizeof want, "%.4f",
		         json_real_value(json_object_get(row, "bottleneck")));
		const char *eol = strchr(at, '\n');
		const char *v = strstr(at, want);
		cr_assert(v && (!eol || v < eol), "row %s: no %s:\n%s", mix, want, s);
	}
	free(s);
	json_decref(info);
	ts_tmux_keys(&t, "Escape");
	ts_tmux_quit(&t);
	ts_remove_dir(dir);
}

/* A swap is an unsaved edit: after the session dies the next one offers
 * it back, and r restores the partition with its kinds. */
Test(wbdevices, a_swap_is_recovered_with_its_kinds, .timeout = 60)
{
	char dir[64];
	make_files(dir, true);
	ts_tmux t;
	start(&t, dir);
	free(ts_tmux_wait(&t, "devices accel:1,b:2", 10));
	free(ts_tmux_idle(&t, 20));
	ts_tmux_keys(&t, "b D");
	free(ts_tmux_wait(&t, "bottleneck 16.0000 (stage 2)", 5));
	/* the recovery file is written (at most every 2 s) */
	nanosleep(&(struct timespec){3, 0}, NULL);
	ts_tmux_stop(&t); /* the session dies */
	start(&t, dir);
	free(ts_tmux_wait(&t, "r restores it", 10));
	ts_tmux_keys(&t, "r");
	char *s = ts_tmux_wait(&t, "recovered from an earlier session", 5);
	cr_assert(strstr(s, "    1 accel ") && strstr(s, "    2 b "), "the kinds came back:\n%s",
	          s);
	cr_assert(strstr(s, "bottleneck 16.0000 (stage 2)"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "q");
	ts_tmux_stop(&t);
	ts_remove_dir(dir);
}

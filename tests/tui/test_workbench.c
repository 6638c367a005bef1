/*
 * test_workbench.c - the workbench driven in tmux, as a person would: it
 * opens on a graph, shows the stage table with the bottleneck marked and the
 * costs `stagecut eval` computes, follows a resize, and quits on q.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <criterion/criterion.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support.h"

/* The line of the screen that starts with prefix (after spaces), or NULL. */
static const char *line_with(const char *screen, const char *text)
{
	return strstr(screen, text);
}

Test(workbench, opens_on_figure2_and_quits, .timeout = 30)
{
	ts_tmux t;
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s samples/paper/figure2.dot", ts_program());
	ts_tmux_start(&t, 120, 40, "TERM=xterm-256color", cmd);
	char *s = ts_tmux_wait(&t, "bottleneck", 5);
	cr_assert(line_with(s, "figure2.dot"), "%s", s);
	cr_assert(line_with(s, "6 ops  6 edges  k 3"), "%s", s);
	/* the stage costs of the file's partition (hand-checked in figure2.dot),
	 * the bottleneck row marked with '*' so it shows without colours */
	cr_assert(line_with(s, "bottleneck 8.0000"), "%s", s);
	cr_assert(line_with(s, "*     2      2      4.0000      2.0000      2.0000      0.0000     "
	                       " 8.0000"),
	          "%s", s);
	cr_assert(line_with(s, "      1      2      3.0000      0.0000      2.0000      0.0000     "
	                       " 5.0000"),
	          "%s", s);
	/* the ladder's first rung, the simple bound max(3, 10 / 3) */
	cr_assert(line_with(s, "simple      done                            3.3333"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "q");
	s = ts_tmux_wait(&t, "EXIT=0", 5);
	free(s);
	ts_tmux_stop(&t);
}

Test(workbench, default_sample_small_terminal_resize_no_colour, .timeout = 30)
{
	ts_tmux t;
	ts_tmux_start(&t, 80, 24, "NO_COLOR=1 TERM=vt100", ts_program());
	/* the header's second line, not its first, so the screen is not caught
	 * half drawn */
	char *s = ts_tmux_wait(&t, "235 ops  250 edges  k 3", 5);
	cr_assert(line_with(s, "bert_l-3_inference.json"), "%s", s);
	cr_assert(strchr(s, '*'), "the bottleneck is marked without colours:\n%s", s);
	free(s);
	ts_tmux_resize(&t, 100, 30);
	s = ts_tmux_wait(&t, "ladder of lower bounds", 5);
	free(s);
	ts_tmux_keys(&t, "q");
	s = ts_tmux_wait(&t, "EXIT=0", 5);
	free(s);
	ts_tmux_stop(&t);
}

Test(workbench, refuses_without_a_terminal)
{
	char cmd[512], *out, *err;
	snprintf(cmd, sizeof cmd, "%s samples/paper/figure2.dot", ts_program());
	cr_assert_eq(ts_run(cmd, &out, &err), 2);
	cr_assert(strstr(err, "needs a terminal"), "%s", err);
	cr_assert_str_eq(out, "");
	free(out);
	free(err);
}

/* ---- hand edits, undo, the ladder live, saving, recovery, settings ------ */

#define FIG2 "samples/paper/figure2.dot"

static void start_fig2(ts_tmux *t, const char *env)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s " FIG2, ts_program());
	ts_tmux_start(t, 100, 30, env, cmd);
	free(ts_tmux_wait(t, "bottleneck 8.0000", 5));
}

Test(workbench, a_move_that_sends_an_edge_back_is_refused_naming_it, .timeout = 30)
{
	ts_tmux t;
	start_fig2(&t, "TERM=xterm-256color");
	/* node browser sorted by stage, then name: a is first; a -> u with u in
	 * stage 1, so a cannot go to stage 2 */
	ts_tmux_keys(&t, "2");
	free(ts_tmux_wait(&t, "ops: 6 of 6", 5));
	ts_tmux_keys(&t, "'>'");
	char *s = ts_tmux_wait(&t, "a -> u", 5);
	cr_assert(strstr(s, "refused"), "%s", s);
	cr_assert(strstr(s, "bottleneck 8.0000"), "nothing changed:\n%s", s);
	free(s);
	/* with its dependents: a and u go to stage 2 together */
	ts_tmux_keys(&t, "']'");
	s = ts_tmux_wait(&t, "moved 2 ops to stage 2", 5);
	/* stage 2 = {a, u, v, w}: work 7, no input, out u->? none: x reads v, w */
	cr_assert(strstr(s, "bottleneck 9.0000"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "u");
	s = ts_tmux_wait(&t, "undone", 5);
	cr_assert(strstr(s, "bottleneck 8.0000"), "undo restores the costs:\n%s", s);
	free(s);
	ts_tmux_keys(&t, "U");
	s = ts_tmux_wait(&t, "redone", 5);
	cr_assert(strstr(s, "bottleneck 9.0000"), "%s", s);
	free(s);
	/* quitting with unsaved edits asks; q again quits */
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "unsaved changes", 5));
	ts_tmux_keys(&t, "q Enter");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
}

Test(workbench, save_writes_what_eval_reads, .timeout = 30)
{
	char dir[] = "/tmp/sc-wb-XXXXXX";
	cr_assert(mkdtemp(dir));
	ts_tmux t;
	char cmd[9000], prog[4096], root[4096];
	cr_assert(realpath(ts_program(), prog) && getcwd(root, sizeof root));
	snprintf(cmd, sizeof cmd, "sh -c 'cd %s && %s %s/" FIG2 "'", dir, prog, root);
	ts_tmux_start(&t, 100, 30, "TERM=xterm-256color", cmd);
	free(ts_tmux_wait(&t, "bottleneck 8.0000", 5));
	/* adopt the best partition found (7, the optimum), then save it */
	free(ts_tmux_wait(&t, "best 7.0000", 10));
	ts_tmux_keys(&t, "a");
	free(ts_tmux_wait(&t, "bottleneck 7.0000", 5));
	ts_tmux_keys(&t, "w");
	free(ts_tmux_wait(&t, "save the partition to:", 5));
	ts_tmux_keys(&t, "Enter");
	free(ts_tmux_wait(&t, "saved to figure2-k3.partition.json", 5));
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
	char *out;
	snprintf(cmd, sizeof cmd, "%s eval " FIG2 " %s/figure2-k3.partition.json --json",
	         ts_program(), dir);
	cr_assert_eq(ts_run(cmd, &out, NULL), 0);
	cr_assert(strstr(out, "\"bottleneck\": 7.0"), "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(workbench, a_killed_terminal_leaves_a_recovery_file_offered_next_time, .timeout = 40)
{
	char dir[] = "/tmp/sc-state-XXXXXX", env[128];
	cr_assert(mkdtemp(dir));
	snprintf(env, sizeof env, "TERM=xterm-256color XDG_STATE_HOME=%s", dir);
	ts_tmux t;
	start_fig2(&t, env);
	free(ts_tmux_wait(&t, "best 7.0000", 10));
	ts_tmux_keys(&t, "a");
	free(ts_tmux_wait(&t, "bottleneck 7.0000", 5));
	/* the recovery file is written within two seconds of an edit */
	struct timespec nap = {3, 0};
	nanosleep(&nap, NULL);
	ts_tmux_stop(&t); /* kills the terminal */
	ts_tmux u;
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s " FIG2, ts_program());
	ts_tmux_start(&u, 100, 30, env, cmd);
	free(ts_tmux_wait(&u, "recovered", 5));
	ts_tmux_keys(&u, "r Enter");
	char *s = ts_tmux_wait(&u, "recovered from an earlier session (unsaved)", 5);
	cr_assert(strstr(s, "bottleneck 7.0000"), "%s", s);
	free(s);
	ts_tmux_keys(&u, "q");
	free(ts_tmux_wait(&u, "unsaved changes", 5));
	ts_tmux_keys(&u, "q Enter");
	free(ts_tmux_wait(&u, "EXIT=0", 5));
	ts_tmux_stop(&u);
	snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s/stagecut)\" && rm -rf %s", dir, dir);
	cr_assert_eq(system(cmd), 0, "a deliberate quit removes the recovery file");
}

Test(workbench, the_ladder_fills_in_live, .timeout = 90)
{
	ts_tmux t;
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s samples/msr-fiddle/operator/bert_l-3_inference.json -k 2",
	         ts_program());
	ts_tmux_start(&t, 120, 40, "TERM=screen", cmd);
	/* the search (the exact DP) proves the optimum, so the ladder it starts
	 * stops its rungs; l runs every rung anyway */
	free(ts_tmux_wait(&t, "stopped: optimum proven by the exact DP", 20));
	/* 8 s per rung (settings, last field): the cover rung needs about a
	 * minute on this graph, and a rung stopped by its limit keeps a bound */
	ts_tmux_keys(&t, "o");
	free(ts_tmux_wait(&t, "time per ladder rung (s)", 5));
	ts_tmux_keys(&t, "Down Down Down Down Down Down Down Down Enter");
	free(ts_tmux_wait(&t, "new value: 60", 5));
	ts_tmux_keys(&t, "8 Enter");
	free(ts_tmux_wait(&t, "time per ladder rung (s)     8 ", 5));
	ts_tmux_keys(&t, "Escape l");
	char *s = ts_tmux_wait(&t, "running", 20);
	free(s);
	/* bert_l-3, k = 2: optimum 33.9891 (REFERENCE.tsv); every rung ends,
	 * guess and exact proving it, bottleneck and cover done or at their
	 * limit (the bottleneck MIP takes 3 s alone, more on a busy machine) */
	s = ts_tmux_idle(&t, 40);
	cr_assert(strstr(s, "bottleneck 33.9891"), "%s", s);
	cr_assert(strstr(s, "exact       done"), "%s", s);
	cr_assert(strstr(s, "guess       done"), "%s", s);
	cr_assert(strstr(s, "cover       time limit 8s") || strstr(s, "cover       done"), "%s", s);
	cr_assert(strstr(s, "gap 0.00%"), "%s", s);
	free(s);
	/* the tour's cover step: a bound below the rungs before it leaves the
	 * gap where it was; a gap never grows (it said "from 0.0% to 37.7%") */
	ts_tmux_keys(&t, "t t t t t");
	s = ts_tmux_wait(&t, "tour 5/6", 5);
	const char *at = strstr(s, "gap goes from ");
	double from = -1, to = -1;
	if (at) {
		cr_assert_eq(sscanf(at, "gap goes from %lf%% to %lf%%", &from, &to), 2, "%s", s);
		cr_assert_leq(to, from, "%s", s);
	} else {
		cr_assert(
		        strstr(s,
		               "no more than the rungs below it: this partition's gap stays 0.0%"),
		        "%s", s);
	}
	free(s);
	ts_tmux_keys(&t, "Escape q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
}

Test(workbench, settings_help_and_tour, .timeout = 30)
{
	ts_tmux t;
	start_fig2(&t, "NO_COLOR=1 TERM=vt100");
	ts_tmux_keys(&t, "'?'");
	free(ts_tmux_wait(&t, "stagecut help", 5));
	ts_tmux_keys(&t, "Escape");
	ts_tmux_keys(&t, "t");
	char *s = ts_tmux_wait(&t, "tour 1/6", 5);
	/* figure2's stage 2 costs 8; the simple bound is 10 / 3 */
	cr_assert(strstr(s, "costing 8.0000"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "Escape");
	ts_tmux_keys(&t, "o");
	free(ts_tmux_wait(&t, "settings", 5));
	ts_tmux_keys(&t, "Enter BSpace 2 Enter");
	free(ts_tmux_wait(&t, "edges  k 2", 5));
	ts_tmux_keys(&t, "Escape");
	/* k = 2: the optimum is 9 (tests/unit/test_mip.c) */
	s = ts_tmux_wait(&t, "bottleneck 9.0000", 10);
	free(s);
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
}

Test(workbench, quotient_view_and_export, .timeout = 30)
{
	char dir[] = "/tmp/sc-wbq-XXXXXX";
	cr_assert(mkdtemp(dir));
	ts_tmux t;
	char cmd[9000], prog[4096], root[4096];
	cr_assert(realpath(ts_program(), prog) && getcwd(root, sizeof root));
	snprintf(cmd, sizeof cmd, "sh -c 'cd %s && %s %s/" FIG2 "'", dir, prog, root);
	ts_tmux_start(&t, 120, 40, "TERM=xterm-256color LANG=C.UTF-8", cmd);
	free(ts_tmux_wait(&t, "bottleneck 8.0000", 5));
	ts_tmux_keys(&t, "3");
	char *s = ts_tmux_wait(&t, "stage graph", 5);
	free(s);
	/* the file's stages cost 5, 8, 5: stage 2 is the bottleneck, drawn with
	 * heavy lines and a star; each stage's tensors cross once (2 bytes) */
	s = ts_tmux_wait(&t, "stage 2 *", 5);
	cr_assert(strstr(s, "\xe2\x94\x8f"), "heavy corner of the bottleneck box:\n%s", s);
	cr_assert(strstr(s, "2 B"), "%s", s);
	free(s);
	ts_tmux_keys(&t, "e");
	free(ts_tmux_wait(&t, "export the stage graph", 5));
	ts_tmux_keys(&t, "Enter");
	free(ts_tmux_wait(&t, "exported the stage graph to figure2-k3.png", 10));
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
	char path[128];
	snprintf(path, sizeof path, "%s/figure2-k3.png", dir);
	FILE *f = fopen(path, "rb");
	cr_assert(f, "the image exists");
	unsigned char sig[8];
	cr_assert_eq(fread(sig, 1, 8, f), 8);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	cr_assert(memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0, "a PNG");
	cr_assert_gt(size, 1000);
	unlink(path);
	rmdir(dir);
}

Test(workbench, a_legal_move_shows_the_costs_eval_gives_for_the_saved_file, .timeout = 40)
{
	char dir[] = "/tmp/sc-wbm-XXXXXX";
	cr_assert(mkdtemp(dir));
	ts_tmux t;
	char cmd[9000], prog[4096], root[4096];
	cr_assert(realpath(ts_program(), prog) && getcwd(root, sizeof root));
	snprintf(cmd, sizeof cmd, "sh -c 'cd %s && %s %s/" FIG2 "'", dir, prog, root);
	ts_tmux_start(&t, 80, 24, "TERM=xterm-256color", cmd);
	free(ts_tmux_wait(&t, "bottleneck 8.0000", 5));
	/* node browser: a, u, v, ...; u goes to stage 2 (legal: v, w are there) */
	ts_tmux_keys(&t, "2 j '>'");
	free(ts_tmux_wait(&t, "moved u to stage 2", 5));
	ts_tmux_keys(&t, "1");
	/* the overview's own text, not the header's: the header shows the
	 * edit in the node browser too */
	char *screen = ts_tmux_wait(&t, "ladder of lower bounds", 5);
	cr_assert(strstr(screen, "edited by hand"), "%s", screen);
	ts_tmux_keys(&t, "w");
	free(ts_tmux_wait(&t, "save the partition to:", 5));
	ts_tmux_keys(&t, "Enter");
	free(ts_tmux_wait(&t, "saved to", 5));
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
	/* every stage's cost on the screen is what eval says of the saved file */
	char *out;
	snprintf(cmd, sizeof cmd, "%s eval " FIG2 " %s/figure2-k3.partition.json --json",
	         ts_program(), dir);
	cr_assert_eq(ts_run(cmd, &out, NULL), 0);
	int found = 0;
	for (const char *p = strstr(out, "\"cost\": "); p; p = strstr(p + 1, "\"cost\": ")) {
		char want[32];
		snprintf(want, sizeof want, "%.4f", atof(p + 8));
		cr_assert(strstr(screen, want), "stage cost %s not on the screen:\n%s", want,
		          screen);
		found++;
	}
	cr_assert_eq(found, 3);
	/* u joins v and w: stage 1 = {a} costs 1 + 1, stage 2 = {u, v, w} 1 + 6 + 2 */
	cr_assert(strstr(out, "\"bottleneck\": 9.0"), "%s", out);
	cr_assert(strstr(screen, "bottleneck 9.0000"), "%s", screen);
	free(out);
	free(screen);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/* ---- the key table, the partition files through sc_part_load ----------- */

Test(workbench, the_help_lists_the_keys_once_and_aliases_work, .timeout = 30)
{
	ts_tmux t;
	start_fig2(&t, "NO_COLOR=1 TERM=vt100");
	ts_tmux_keys(&t, "'?'");
	/* its last line: the whole box is drawn */
	char *s = ts_tmux_wait(&t, "far from the optimum it can be", 5);
	/* the keys the hand-written help left out, and r once */
	cr_assert(strstr(s, "PgDn Space PgUp"), "%s", s);
	cr_assert(strstr(s, "g Home G End"), "%s", s);
	cr_assert(strstr(s, "u U ^R"), "%s", s);
	cr_assert(strstr(s, "< , > ."), "%s", s);
	const char *r = strstr(s, "  r  ");
	cr_assert(r && !strstr(r + 1, "  r  "), "r is listed once:\n%s", s);
	free(s);
	/* any key closes the help; then , and . move like < and > */
	ts_tmux_keys(&t, "Escape");
	ts_tmux_keys(&t, "2 j .");
	free(ts_tmux_wait(&t, "moved u to stage 2", 5));
	ts_tmux_keys(&t, ",");
	free(ts_tmux_wait(&t, "moved u to stage 1", 5));
	ts_tmux_keys(&t, "C-r");
	free(ts_tmux_wait(&t, "nothing to redo", 5));
	/* u went there and back: the partition is the file's again, nothing
	 * is unsaved, so q quits without asking */
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
}

Test(workbench, a_bad_partition_file_at_start_exits_with_its_status, .timeout = 30)
{
	ts_tmux t;
	char cmd[512];
	/* breaks the stage order: exit 1, as the batch commands */
	snprintf(cmd, sizeof cmd, "%s " FIG2 " -p tests/bad/part_edge_back.json", ts_program());
	ts_tmux_start(&t, 120, 10, "", cmd);
	char *s = ts_tmux_wait(&t, "EXIT=1", 5);
	cr_assert(strstr(s, "part_edge_back.json: the partition is invalid: edge"), "%s", s);
	free(s);
	ts_tmux_stop(&t);
	/* unreadable: exit 2 */
	snprintf(cmd, sizeof cmd, "%s " FIG2 " -p tests/bad/part_malformed.json", ts_program());
	ts_tmux_start(&t, 120, 10, "", cmd);
	free(ts_tmux_wait(&t, "EXIT=2", 5));
	ts_tmux_stop(&t);
}

Test(workbench, loading_a_partition_of_another_k_says_how, .timeout = 40)
{
	char dir[] = "/tmp/sc-wbl-XXXXXX";
	cr_assert(mkdtemp(dir));
	char part[256];
	snprintf(part, sizeof part, "%s/k2.json", dir);
	cr_assert_eq(ts_runf(NULL, NULL, "solve " FIG2 " -k 2 -o %s", part), 0);
	ts_tmux t;
	start_fig2(&t, "TERM=xterm-256color");
	ts_tmux_keys(&t, "L");
	free(ts_tmux_wait(&t, "load a partition file:", 5));
	char keys[300];
	snprintf(keys, sizeof keys, "-l %s", part);
	ts_tmux_keys(&t, keys);
	ts_tmux_keys(&t, "Enter");
	free(ts_tmux_wait(&t, "has k = 2; change k to 2 first (o)", 5));
	ts_tmux_keys(&t, "L");
	free(ts_tmux_wait(&t, "load a partition file:", 5));
	ts_tmux_keys(&t, "-l tests/bad/part_edge_back.json");
	ts_tmux_keys(&t, "Enter");
	free(ts_tmux_wait(&t, "not loaded: tests/bad/part_edge_back.json: the partition is invalid",
	                  5));
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
	unlink(part);
	rmdir(dir);
}

/* T loads measured op times: the op's work is replaced, the
 * partition on screen is re-costed (figure2's stage 2 holds v and w: io in
 * 2 + work 10 + 1 + io out 2 = 15 once v takes 10) and the header says
 * where the costs came from. */
Test(workbench, T_loads_measured_times, .timeout = 30)
{
	const char *csv = "/tmp/stagecut-wb-times.csv";
	FILE *f = fopen(csv, "w");
	cr_assert_not_null(f);
	fprintf(f, "name,microseconds\nv,10\n");
	fclose(f);
	ts_tmux t;
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s samples/paper/figure2.dot", ts_program());
	ts_tmux_start(&t, 120, 40, "TERM=xterm-256color", cmd);
	free(ts_tmux_wait(&t, "bottleneck 8.0000", 5));
	ts_tmux_keys(&t, "T");
	free(ts_tmux_wait(&t, "measured op times", 5));
	ts_tmux_keys(&t, "/tmp/stagecut-wb-times.csv");
	ts_tmux_keys(&t, "Enter");
	char *s = ts_tmux_wait(&t, "bottleneck 15.0000", 5);
	cr_assert(line_with(s, "costs measured"), "%s", s);
	free(s);
	/* the node browser says which op's work was measured */
	ts_tmux_keys(&t, "2");
	free(ts_tmux_wait(&t, "ops: 6 of 6", 5));
	ts_tmux_keys(&t, "/");
	ts_tmux_keys(&t, "v");
	ts_tmux_keys(&t, "Enter");
	free(ts_tmux_wait(&t, "v: 1 predecessors, 1 successors, work measured", 5));
	ts_tmux_keys(&t, "/");
	ts_tmux_keys(&t, "BSpace");
	ts_tmux_keys(&t, "w");
	ts_tmux_keys(&t, "Enter");
	free(ts_tmux_wait(&t, "w: 1 predecessors, 1 successors, work from the file", 5));
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
	remove(csv);
}

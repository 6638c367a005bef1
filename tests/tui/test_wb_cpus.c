/*
 * test_wb_cpus.c - the workbench with CPU stages (001 section 3) driven in
 * tmux: a copy of the msr-fiddle ResNet-50 sample (layer level, every op
 * with a CPU time but one, taken away here) opened with --cpus 1 and a
 * partition file written here: stages 1, 3, 4 accelerators and stage 2 a
 * CPU, cut along a topological order so that the last op of stage 1 (t)
 * may go on to stage 2 by the edges and the first op of stage 2 (f) back
 * to stage 1.  The screen must show the devices and "k 3 + 1 CPU"; f moves
 * to stage 1 and back; t, without a CPU time, is refused by name; the
 * saved file names the devices, and eval --cpus 1 gives the bottleneck the
 * screen showed.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cost.h"
#include "core/formats/partition_file.h"
#include "core/graph.h"
#include "core/partition.h"
#include "tests/support.h"

#define RESNET "samples/msr-fiddle/layer/resnet50_inference.json"

/* The copy of RESNET in dir without t's CPU time, and the partition file
 * described above; t and f get the two ops' names. */
static void make_files(const char *dir, char *t, char *f, size_t size)
{
	sc_graph *g = ts_load(RESNET);
	int n = g->n, cut1 = n / 3, cut2 = cut1 + 4, cut3 = (cut2 + n) / 2;
	snprintf(t, size, "%s", g->op_name[g->topo[cut1 - 1]]);
	snprintf(f, size, "%s", g->op_name[g->topo[cut1]]);
	json_error_t je;
	json_t *root = json_load_file(RESNET, 0, &je);
	cr_assert(root, "%s", je.text);
	size_t i;
	json_t *node;
	bool found = false;
	json_array_foreach(json_object_get(root, "nodes"), i, node)
	{
		if (strcmp(json_string_value(json_object_get(node, "name")), t) == 0) {
			json_object_del(node, "cpuLatency");
			found = true;
		}
	}
	cr_assert(found, "no op %s", t);
	char path[4096];
	snprintf(path, sizeof path, "%s/resnet.json", dir);
	cr_assert_eq(json_dump_file(root, path, JSON_INDENT(1)), 0);
	json_decref(root);
	sc_graph_free(g);
	g = ts_load(path);
	cr_assert_not(sc_graph_cpu_ok(g, sc_graph_find(g, t)), "%s keeps a CPU time", t);
	int *stage = sc_part_new(g);
	for (int p = 0; p < n; p++)
		stage[g->topo[p]] = p < cut1 ? 0 : p < cut2 ? 1 : p < cut3 ? 2 : 3;
	int kind[4] = {0, 1, 0, 0}; /* stage 2 a CPU */
	sc_settings set = g->settings;
	set.k = 4;
	set.cpus = 1;
	sc_error err;
	sc_costs *c = sc_costs_new(g, &set, &err);
	cr_assert(c, "%s", err.msg);
	sc_costs_set_kinds(c, kind);
	sc_costs_eval(c, stage);
	snprintf(path, sizeof path, "%s/start.json", dir);
	cr_assert_eq(sc_part_write(path, g, stage, 4, c, &err), SC_OK, "%s", err.msg);
	sc_costs_free(c);
	free(stage);
	sc_graph_free(g);
}

/* Selects op name in the node browser (filtered to it). */
static void select_op(ts_tmux *t, const char *name)
{
	char keys[128];
	ts_tmux_keys(t, "/");
	snprintf(keys, sizeof keys, "'%s' Enter", name);
	ts_tmux_keys(t, keys);
	free(ts_tmux_wait(t, "ops: 1 of", 5));
}

Test(wbcpus, devices_moves_refusal_and_save, .timeout = 60)
{
	char dir[] = "/tmp/sc-wbcpu-XXXXXX";
	cr_assert(mkdtemp(dir));
	char tname[64], fname[64];
	make_files(dir, tname, fname, sizeof tname);
	ts_tmux t;
	char cmd[9000], prog[4096];
	cr_assert(realpath(ts_program(), prog));
	snprintf(cmd, sizeof cmd,
	         "sh -c 'cd %s && XDG_STATE_HOME=%s %s resnet.json --cpus 1 -p start.json'", dir,
	         dir, prog);
	ts_tmux_start(&t, 120, 32, "TERM=xterm-256color", cmd);
	char *s = ts_tmux_wait(&t, "k 3 + 1 CPU", 10);
	cr_assert(strstr(s, "dev"), "the device column:\n%s", s);
	cr_assert(strstr(s, "    2 CPU"), "stage 2 is the CPU:\n%s", s);
	cr_assert(strstr(s, "    1 accel"), "%s", s);
	cr_assert(strstr(s, "    4 accel"), "%s", s);
	free(s);
	/* f (first op of the CPU stage) back to stage 1 and on to stage 2 */
	ts_tmux_keys(&t, "2");
	free(ts_tmux_wait(&t, "ops: ", 5));
	select_op(&t, fname);
	ts_tmux_keys(&t, "'<'");
	char want[128];
	/* every op of the sample is a group of its own (colorClass) */
	snprintf(want, sizeof want, "(1 op) to stage 1");
	free(ts_tmux_wait(&t, want, 5));
	ts_tmux_keys(&t, "'>'");
	snprintf(want, sizeof want, "(1 op) to stage 2");
	free(ts_tmux_wait(&t, want, 5));
	/* t has no CPU time: refused, named */
	select_op(&t, tname);
	ts_tmux_keys(&t, "'>'");
	snprintf(want, sizeof want, "%s has no CPU time: it may not go to stage 2 (CPU)", tname);
	free(ts_tmux_wait(&t, want, 5));
	/* f to stage 1 again, kept; saved; the screen's bottleneck */
	select_op(&t, fname);
	ts_tmux_keys(&t, "'<'");
	snprintf(want, sizeof want, "(1 op) to stage 1");
	free(ts_tmux_wait(&t, want, 5));
	ts_tmux_keys(&t, "1");
	s = ts_tmux_wait(&t, "ladder of lower bounds", 5);
	const char *b = strstr(s, "bottleneck ");
	cr_assert(b, "%s", s);
	double shown = atof(b + strlen("bottleneck "));
	free(s);
	ts_tmux_keys(&t, "w");
	free(ts_tmux_wait(&t, "save the partition to:", 5));
	ts_tmux_keys(&t, "C-u 'saved.json' Enter");
	free(ts_tmux_wait(&t, "saved to saved.json", 5));
	ts_tmux_keys(&t, "q");
	free(ts_tmux_wait(&t, "EXIT=0", 5));
	ts_tmux_stop(&t);
	char *out;
	snprintf(cmd, sizeof cmd, "%s eval %s/resnet.json %s/saved.json --cpus 1 --json",
	         ts_program(), dir, dir);
	cr_assert_eq(ts_run(cmd, &out, NULL), 0, "%s", out);
	json_error_t je;
	json_t *r = json_loads(out, 0, &je);
	cr_assert(r, "%s", out);
	double bn = json_real_value(json_object_get(r, "bottleneck"));
	char a1[32], a2[32];
	snprintf(a1, sizeof a1, "%.4f", bn);
	snprintf(a2, sizeof a2, "%.4f", shown);
	cr_assert_str_eq(a1, a2, "eval says %s, the screen said %s", a1, a2);
	cr_assert(strstr(out, "\"cpu\""), "the saved file names the CPU stage:\n%s", out);
	json_decref(r);
	free(out);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

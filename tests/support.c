/*
 * support.c - test helpers every kind of test uses: random graphs, brute
 * force, running a command, scratch files, and the solvers' and
 * Graphviz layer's shared fixtures.  See support.h; the command-line tests'
 * own helpers are in support_cli.c, the terminal tests' in support_tmux.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdarg.h>

#include "core/cost.h"
#include "core/fleet.h"
#include "core/formats/load.h"
#include "core/partition.h"

uint64_t ts_next(ts_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double ts_uniform(ts_rng *r)
{
	return (double)(ts_next(r) >> 11) * 0x1.0p-53;
}

int ts_below(ts_rng *r, int n)
{
	return (int)(ts_next(r) % (uint64_t)n);
}

sc_graph *ts_random_graph(ts_rng *r, const ts_graph_spec *spec)
{
	int n = spec->n;
	sc_builder *b = sc_builder_new();
	cr_assert(b);
	int *perm = malloc((size_t)n * sizeof *perm);
	int *idx = malloc((size_t)n * sizeof *idx);
	cr_assert(perm && idx);
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = ts_below(r, i + 1);
		int t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	sc_error err;
	/* op perm[i] is the i-th op added; position in the DAG is perm[i] */
	for (int i = 0; i < n; i++) {
		char name[32], group[32] = "";
		snprintf(name, sizeof name, "op%d", perm[i]);
		double w, p, o;
		if (spec->integer_weights) {
			w = ts_below(r, 10);
			p = ts_below(r, 10);
			o = ts_below(r, 6);
		} else {
			w = ts_uniform(r) * 10;
			p = ts_uniform(r) * 10;
			o = ts_uniform(r) * 5;
		}
		if (spec->ngroups > 0 && ts_uniform(r) < spec->group_p)
			snprintf(group, sizeof group, "g%d", ts_below(r, spec->ngroups));
		int v = sc_builder_add_op(b, name, w, p, o, group, &err);
		cr_assert(v >= 0, "%s", err.msg);
		idx[perm[i]] = v;
	}
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (ts_uniform(r) < spec->edge_p)
				cr_assert(sc_builder_add_edge(b, idx[i], idx[j], &err) == SC_OK);
	sc_builder_set_settings(b, &spec->settings);
	sc_graph *g = sc_builder_finish(b, "random", "random", &err);
	cr_assert(g, "%s", err.msg);
	sc_builder_free(b);
	free(perm);
	free(idx);
	return g;
}

double ts_brute_optimum(const sc_graph *g, int k, int *best)
{
	return ts_brute_optimum_sched(g, k, g->settings.schedule, best);
}

double ts_brute_optimum_sched(const sc_graph *g, int k, sc_schedule sched, int *best)
{
	return ts_brute_optimum_pinned(g, k, sched, NULL, best);
}

double ts_brute_optimum_pinned(const sc_graph *g, int k, sc_schedule sched, const int *pin,
                               int *best)
{
	int n = g->n;
	int *stage = calloc((size_t)(n ? n : 1), sizeof *stage);
	ts_cost *c = calloc((size_t)k, sizeof *c);
	cr_assert(stage && c);
	sc_settings set = g->settings;
	double opt = INFINITY;
	for (;;) {
		bool pinned = true;
		for (int v = 0; pin && v < n; v++)
			pinned = pinned && (pin[v] < 0 || stage[v] == pin[v]);
		if (pinned && ts_valid(g, stage, k)) {
			ts_costs(g, stage, &set, k, c);
			int at;
			double v = sched == SC_SCHEDULE_GPIPE ? ts_gpipe(c, k)
			                                      : ts_bottleneck(c, k, &at);
			if (set.policy == SC_MEM_HARD)
				for (int s = 0; s < k; s++)
					if (c[s].over)
						v = INFINITY;
			if (v < opt) {
				opt = v;
				if (best)
					memcpy(best, stage, (size_t)n * sizeof *stage);
			}
		}
		int i = 0;
		while (i < n && ++stage[i] == k)
			stage[i++] = 0;
		if (i == n)
			break;
	}
	free(c);
	free(stage);
	return opt;
}

sc_graph *ts_random_training_graph(ts_rng *r, const ts_graph_spec *spec)
{
	int n = spec->n, nf = (n + 1) / 2, nb = n - nf;
	char(*group)[32] = calloc((size_t)(n ? n : 1), sizeof *group);
	int *perm = malloc((size_t)(n ? n : 1) * sizeof *perm);
	int *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
	cr_assert(group && perm && idx);
	/* positions 0..nf-1 forward, nf..n-1 backward; groups first */
	for (int i = 0; i < nf; i++)
		if (spec->ngroups > 0 && ts_uniform(r) < spec->group_p)
			snprintf(group[i], sizeof group[i], "g%d", ts_below(r, spec->ngroups));
	for (int i = nf; i < n; i++) {
		double x = ts_uniform(r);
		if (x < 0.6 && nf > 0) {
			int f = ts_below(r, nf);
			if (!group[f][0])
				snprintf(group[f], sizeof group[f], "w%d", f);
			memcpy(group[i], group[f], sizeof group[i]);
		} else if (x < 0.8) {
			snprintf(group[i], sizeof group[i], "o%d", ts_below(r, 2));
		} /* else an orphan without a group */
	}
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = ts_below(r, i + 1);
		int t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	sc_builder *b = sc_builder_new();
	cr_assert(b);
	sc_error err;
	for (int i = 0; i < n; i++) {
		int pos = perm[i];
		char name[32];
		snprintf(name, sizeof name, "%s%d", pos < nf ? "f" : "b", pos);
		double w, p, o;
		if (spec->integer_weights) {
			w = ts_below(r, 10);
			p = ts_below(r, 10);
			o = ts_below(r, 6);
		} else {
			w = ts_uniform(r) * 10;
			p = ts_uniform(r) * 10;
			o = ts_uniform(r) * 5;
		}
		int v = sc_builder_add_op(b, name, w, p, o, group[pos], &err);
		cr_assert(v >= 0, "%s", err.msg);
		if (pos >= nf)
			cr_assert(sc_builder_set_backward(b, v, &err) == SC_OK);
		idx[pos] = v;
	}
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			/* forward to forward and backward to backward along positions,
			 * forward to backward more sparsely; never backward to forward */
			double p = (i < nf) == (j < nf) ? spec->edge_p : spec->edge_p / 2;
			if (ts_uniform(r) < p)
				cr_assert(sc_builder_add_edge(b, idx[i], idx[j], &err) == SC_OK);
		}
	sc_builder_set_settings(b, &spec->settings);
	sc_graph *g = sc_builder_finish(b, "random-training", "random-training", &err);
	cr_assert(g, "%s", err.msg);
	(void)nb;
	sc_builder_free(b);
	free(group);
	free(perm);
	free(idx);
	return g;
}

sc_graph *ts_load(const char *path)
{
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g = sc_load(path, &err);
	cr_assert(g, "loading %s: %s", path, err.msg);
	return g;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return strdup("");
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (cap - len < 2) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			} else {
				buf = nb;
			}
		}
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

pid_t ts_spawn(const char *cmd, bool own_group)
{
	pid_t pid = fork();
	cr_assert_neq(pid, -1, "fork: %s", cmd);
	if (pid == 0) {
		if (own_group)
			setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

int ts_run(const char *cmd, char **out, char **err)
{
	char tout[] = "/tmp/sc-test-out-XXXXXX", terr[] = "/tmp/sc-test-err-XXXXXX";
	int fo = mkstemp(tout), fe = mkstemp(terr);
	if (fo < 0 || fe < 0)
		return -1;
	size_t len = strlen(cmd) + 128;
	char *full = malloc(len);
	snprintf(full, len, "(%s) >%s 2>%s </dev/null", cmd, tout, terr);
	int st = system(full);
	free(full);
	if (out)
		*out = slurp(tout);
	if (err)
		*err = slurp(terr);
	close(fo);
	close(fe);
	unlink(tout);
	unlink(terr);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

const char *ts_program(void)
{
	const char *p = getenv("STAGECUT");
	return p && *p ? p : "./stagecut";
}

bool ts_short(void)
{
	const char *v = getenv("STAGECUT_TEST_SHORT");
	return v && *v && strcmp(v, "0") != 0;
}

int ts_trials(int n)
{
	if (!ts_short())
		return n;
	return n / 10 > 0 ? n / 10 : 1;
}

int ts_runf(char **out, char **err, const char *fmt, ...)
{
	char args[4096], cmd[4608];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof cmd, "%s %s", ts_program(), args);
	char *text = NULL;
	int status = ts_run(cmd, &text, err);
	cr_assert_neq(status, -1, "could not run: %s", cmd);
	ts_json_keys_check_output(args, text, out); /* read or not */
	return status;
}

char *ts_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap);
	cr_assert(buf);
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n < 2) {
			buf = realloc(buf, cap *= 2);
			cr_assert(buf);
		}
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

void ts_make_dir(char *dir, const char *prefix)
{
	snprintf(dir, 64, "/tmp/%s-XXXXXX", prefix);
	cr_assert(mkdtemp(dir), "cannot make a scratch directory %s", dir);
}

void ts_remove_dir(const char *dir)
{
	if (!dir[0])
		return;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* ---- the solvers' unit tests (see the end of support.h) ---------------- */

#include <errno.h>

#include "core/cost.h"
#include "core/partition.h"
#include "solvers/jobs.h"
#include "solvers/ladder.h"
#include "solvers/dp_exact.h"
#include "solvers/search.h"

double ts_search(const sc_graph *g, int k, const char *method, uint64_t seed, long evals,
                 int *stage, bool *optimal)
{
	sc_settings set = g->settings;
	set.k = k;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = method;
	p.seed = seed;
	p.evals = evals;
	/* the exact DP's optimum, without the second DP that balances it (as
	 * much time again; test_ideals.c tests the balancing itself) */
	p.refine = strcmp(method, "exact") != 0;
	sc_error err;
	sc_search *s = sc_search_new(g, &set, &p, &err);
	cr_assert(s, "%s: %s", method, err.msg);
	cr_assert_eq(sc_search_run(s, &err), SC_OK, "%s: %s", method, err.msg);
	double v = sc_search_result(s, stage, optimal);
	sc_search_free(s);
	return v;
}

double ts_objective(const sc_graph *g, int k, const int *stage)
{
	cr_assert(sc_part_check(g, stage, k, NULL), "the partition is valid");
	sc_settings set = g->settings;
	set.k = k;
	sc_costs *c = sc_costs_new(g, &set, NULL);
	sc_costs_eval(c, stage);
	double v = sc_costs_objective(c);
	sc_costs_free(c);
	return v;
}

static bool ladder_done(void *l)
{
	return sc_ladder_done(l);
}

static void ladder_update(void *l)
{
	sc_ladder_update(l);
}

void ts_run_ladder(struct sc_ladder *l, struct sc_engine *e)
{
	sc_engine_run_until(e, 100, ladder_done, ladder_update, l);
}

void ts_assert_no_children(void)
{
	int st;
	pid_t p = waitpid(-1, &st, WNOHANG);
	cr_assert(p == -1 && errno == ECHILD, "a solver process was left behind (pid %d)", (int)p);
}

/* ---- the Graphviz layer's tests (see the end of support.h) ------------ */

#include "viz/layout.h"
#include "viz/quotient.h"

sc_quotient *ts_quotient_of(const sc_graph *g, int k, const int *stage)
{
	sc_settings set = g->settings;
	set.k = k;
	sc_error err;
	sc_error_clear(&err);
	sc_quotient *q = sc_quotient_new(g, &set, stage, &err);
	cr_assert(q, "%s", err.msg);
	return q;
}

sc_quotient *ts_figure2_quotient(void)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	cr_assert(g->init_stage);
	sc_quotient *q = ts_quotient_of(g, 3, g->init_stage);
	sc_graph_free(g);
	return q;
}

sc_graph *ts_chain_graph(int n, int k, int **stage)
{
	sc_builder *b = sc_builder_new();
	cr_assert(b);
	sc_error err;
	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "op%d", i);
		cr_assert(sc_builder_add_op(b, name, 1 + i % 7, 2, i + 1, NULL, &err) == i, "%s",
		          err.msg);
	}
	for (int i = 0; i + 1 < n; i++)
		cr_assert(sc_builder_add_edge(b, i, i + 1, &err) == SC_OK);
	sc_settings s;
	sc_settings_init(&s);
	s.k = k;
	sc_builder_set_settings(b, &s);
	sc_graph *g = sc_builder_finish(b, "chain", "chain", &err);
	cr_assert(g, "%s", err.msg);
	sc_builder_free(b);
	*stage = malloc((size_t)n * sizeof **stage);
	for (int i = 0; i < n; i++)
		(*stage)[i] = (int)((long)i * k / n);
	return g;
}

sc_layout *ts_layout_of(const sc_quotient *q, const char *title)
{
	sc_error err;
	sc_error_clear(&err);
	sc_caption cap = {.title = title, .lower = NAN};
	sc_layout *l = sc_layout_quotient(q, &cap, &err);
	cr_assert(l, "%s", err.msg);
	return l;
}

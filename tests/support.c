/*
 * support.c - test helpers.  See support.h.
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
#include "core/load.h"
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
	int n = g->n;
	int *stage = calloc((size_t)(n ? n : 1), sizeof *stage);
	sc_settings set = g->settings;
	set.k = k;
	sc_error err;
	sc_costs *c = sc_costs_new(g, &set, &err);
	cr_assert(stage && c);
	double opt = INFINITY;
	for (;;) {
		if (sc_part_check(g, stage, k, NULL)) {
			sc_costs_eval(c, stage);
			double v = sc_costs_objective(c);
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
	sc_costs_free(c);
	free(stage);
	return opt;
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

void ts_tmux_start(ts_tmux *t, int cols, int rows, const char *env, const char *cmd)
{
	static int counter;
	snprintf(t->name, sizeof t->name, "sctest-%d-%d", (int)getpid(), counter++);
	char buf[2048];
	snprintf(buf, sizeof buf,
	         "tmux new-session -d -s %s -x %d -y %d \"env %s timeout --foreground -s HUP 300 %s; echo "
	         "EXIT=\\$?; sleep 60\"",
	         t->name, cols, rows, env, cmd);
	cr_assert_eq(system(buf), 0, "tmux failed: %s", buf);
}

void ts_tmux_keys(ts_tmux *t, const char *keys)
{
	char buf[512];
	snprintf(buf, sizeof buf, "tmux send-keys -t %s %s", t->name, keys);
	cr_assert_eq(system(buf), 0);
}

char *ts_tmux_screen(ts_tmux *t)
{
	char buf[256], *out = NULL;
	snprintf(buf, sizeof buf, "tmux capture-pane -p -t %s", t->name);
	ts_run(buf, &out, NULL);
	return out;
}

char *ts_tmux_wait(ts_tmux *t, const char *text, double seconds)
{
	char *screen = NULL;
	for (double waited = 0; waited <= seconds; waited += 0.05) {
		free(screen);
		screen = ts_tmux_screen(t);
		if (screen && strstr(screen, text))
			return screen;
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	/* the failure ends the test: do not leave the program running */
	char kill[128];
	snprintf(kill, sizeof kill, "tmux kill-session -t %s 2>/dev/null", t->name);
	if (system(kill) != 0) {
		/* already gone */
	}
	cr_assert_fail("waited %.1f s for '%s'; the screen shows:\n%s", seconds, text,
	               screen ? screen : "(nothing)");
	return NULL;
}

void ts_tmux_resize(ts_tmux *t, int cols, int rows)
{
	char buf[256];
	snprintf(buf, sizeof buf, "tmux resize-window -t %s -x %d -y %d", t->name, cols, rows);
	cr_assert_eq(system(buf), 0);
}

void ts_tmux_stop(ts_tmux *t)
{
	char buf[256];
	snprintf(buf, sizeof buf, "tmux kill-session -t %s 2>/dev/null", t->name);
	(void)system(buf);
}

int ts_trials(int n)
{
	const char *v = getenv("STAGECUT_TEST_SHORT");
	if (!v || !*v || strcmp(v, "0") == 0)
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
	int status = ts_run(cmd, out, err);
	cr_assert_neq(status, -1, "could not run: %s", cmd);
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
/* ---- a scratch directory per command-line test ------------------------ */

char ts_dir[64];

void ts_scratch_init(void)
{
	ts_make_dir(ts_dir, "sc-cmd");
}

void ts_scratch_fini(void)
{
	ts_remove_dir(ts_dir);
}

/* path of name in the scratch directory, into buf */
const char *ts_tpath(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", ts_dir, name);
	return buf;
}

void ts_write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* ---- running the program ---------------------------------------------- */

/* Runs the program (args printf-style in args), expects one JSON object (and
 * nothing else) on stdout and an exit status in [lo, hi]; returns the object
 * and the status in *status. */
json_t *ts_json_of(int lo, int hi, int *status, const char *args)
{
	char *out, *err;
	*status = ts_runf(&out, &err, "%s", args);
	cr_assert(*status >= lo && *status <= hi, "'%s': exit status %d; stderr: %s", args, *status,
	          err);
	json_error_t jerr;
	json_t *v = json_loads(out, 0, &jerr);
	cr_assert(v, "'%s': stdout is not one JSON value (%s, line %d): %s", args, jerr.text,
	          jerr.line, out);
	cr_assert(json_is_object(v), "'%s': stdout is not a JSON object", args);
	free(out);
	free(err);
	return v;
}

/* Runs the program, expects exit status want and one JSON object (and
 * nothing else) on stdout; returns it. */
json_t *ts_run_json(int want, const char *fmt, ...)
{
	char args[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	int status;
	return ts_json_of(want, want, &status, args);
}

json_t *ts_jget(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	cr_assert(v, "JSON key '%s' missing", key);
	return v;
}

double ts_jnum(json_t *o, const char *key)
{
	json_t *v = ts_jget(o, key);
	cr_assert(json_is_number(v), "JSON key '%s' is not a number", key);
	return json_number_value(v);
}

long long ts_jint(json_t *o, const char *key)
{
	json_t *v = ts_jget(o, key);
	cr_assert(json_is_integer(v), "JSON key '%s' is not an integer", key);
	return json_integer_value(v);
}

bool ts_jbool(json_t *o, const char *key)
{
	json_t *v = ts_jget(o, key);
	cr_assert(json_is_boolean(v), "JSON key '%s' is not a boolean", key);
	return json_is_true(v);
}

const char *ts_jstr(json_t *o, const char *key)
{
	json_t *v = ts_jget(o, key);
	cr_assert(json_is_string(v), "JSON key '%s' is not a string", key);
	return json_string_value(v);
}

bool ts_close_rel(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* ---- an independent implementation of the cost model ------------------ */

/* Per-stage costs of stage[] (0-based) straight from DESIGN.md section 1:
 * a tensor counts once per stage that reads it from outside, and once in
 * its producer's io out however many other stages read it. */
void ts_costs(const sc_graph *g, const int *stage, const sc_settings *set, int k, ts_cost *c)
{
	memset(c, 0, (size_t)k * sizeof *c);
	int *seen = calloc((size_t)k, sizeof *seen);
	cr_assert(seen);
	for (int u = 0; u < g->n; u++) {
		ts_cost *s = &c[stage[u]];
		s->ops++;
		s->work += g->work[u];
		s->param += g->param[u];
		bool leaves = false;
		for (int j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			int t = stage[g->succ[j]];
			if (t != stage[u] && seen[t] != u + 1) {
				seen[t] = u + 1;
				c[t].in_bytes += g->out[u];
				leaves = true;
			}
		}
		if (leaves)
			s->out_bytes += g->out[u];
	}
	for (int s = 0; s < k; s++) {
		c[s].io_in = c[s].in_bytes / set->bandwidth;
		c[s].io_out = c[s].out_bytes / set->bandwidth;
		c[s].over = c[s].param > set->memory;
		if (c[s].over && set->policy == SC_MEM_OVERFLOW)
			c[s].overflow = (c[s].param - set->memory) / set->bandwidth;
		c[s].cost = c[s].io_in + c[s].work + c[s].io_out + c[s].overflow;
	}
	free(seen);
}

/* The bottleneck of c and its lowest 0-based stage. */
double ts_bottleneck(const ts_cost *c, int k, int *at)
{
	double best = -1;
	for (int s = 0; s < k; s++)
		if (c[s].cost > best) {
			best = c[s].cost;
			*at = s;
		}
	return best;
}

/* Reads the partition file at path for g (asserting its format and k) into
 * stage[] (0-based). */
void ts_read_partition(const char *path, const sc_graph *g, int k, int *stage)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	cr_assert(root, "%s: %s", path, jerr.text);
	cr_assert_str_eq(ts_jstr(root, "format"), "stagecut-partition/1");
	cr_assert_eq(ts_jint(root, "k"), k, "%s: k", path);
	json_t *stages = ts_jget(root, "stages");
	cr_assert(json_is_object(stages));
	cr_assert_eq((int)json_object_size(stages), g->n, "%s: not one stage per op", path);
	for (int v = 0; v < g->n; v++)
		stage[v] = -1;
	const char *name;
	json_t *val;
	json_object_foreach(stages, name, val)
	{
		int v = sc_graph_find(g, name);
		cr_assert(v >= 0, "%s: unknown op '%s'", path, name);
		cr_assert(json_is_integer(val), "%s: stage of '%s'", path, name);
		stage[v] = (int)json_integer_value(val) - 1;
	}
	json_decref(root);
}

/* Asserts that stage[] is a valid partition into k stages (every stage in
 * range, no edge going back, groups whole) and, under the hard policy,
 * within the memory limit. */
void ts_assert_valid(const sc_graph *g, const int *stage, int k, const char *what)
{
	for (int v = 0; v < g->n; v++)
		cr_assert(stage[v] >= 0 && stage[v] < k, "%s: op '%s' in stage %d of %d", what,
		          g->op_name[v], stage[v] + 1, k);
	for (int u = 0; u < g->n; u++)
		for (int j = g->succ_off[u]; j < g->succ_off[u + 1]; j++)
			cr_assert(stage[u] <= stage[g->succ[j]], "%s: edge '%s' -> '%s' goes back",
			          what, g->op_name[u], g->op_name[g->succ[j]]);
	for (int u = 0; u < g->n; u++)
		for (int v = u + 1; v < g->n; v++)
			if (g->group[u] >= 0 && g->group[u] == g->group[v])
				cr_assert_eq(stage[u], stage[v], "%s: group of '%s' and '%s' split",
				             what, g->op_name[u], g->op_name[v]);
}

/* Compares a JSON "stages" array with costs computed here. */
void ts_assert_stages_match(json_t *stages, const ts_cost *c, int k, const char *what)
{
	cr_assert(json_is_array(stages), "%s: stages is not an array", what);
	cr_assert_eq((int)json_array_size(stages), k, "%s: %zu stages, want %d", what,
	             json_array_size(stages), k);
	for (int s = 0; s < k; s++) {
		json_t *st = json_array_get(stages, (size_t)s);
		cr_assert_eq(ts_jint(st, "stage"), s + 1, "%s", what);
		cr_assert_eq(ts_jint(st, "ops"), c[s].ops, "%s: stage %d ops", what, s + 1);
		static const char *const keys[] = {"work", "io_in", "io_out",   "overflow",
		                                   "cost", "param", "in_bytes", "out_bytes"};
		const double want[] = {c[s].work, c[s].io_in, c[s].io_out,   c[s].overflow,
		                       c[s].cost, c[s].param, c[s].in_bytes, c[s].out_bytes};
		for (int i = 0; i < 8; i++)
			cr_assert(ts_close_rel(ts_jnum(st, keys[i]), want[i], 1e-9),
			          "%s: stage %d %s is %.17g, want %.17g", what, s + 1, keys[i],
			          ts_jnum(st, keys[i]), want[i]);
		cr_assert_eq(ts_jbool(st, "over_memory"), c[s].over, "%s: stage %d over_memory", what,
		             s + 1);
	}
}

/* ---- hand-derived stage tables ---------------------------------------- */

/* Checks eval's (or solve's) stages against a hand table at bandwidth bw:
 * cost = io_in + work + io_out + overflow, bytes = io x bw.  Exact. */
void ts_assert_hand_stages(json_t *root, const ts_hand_stage *h, int k, double bw,
                               const char *what)
{
	json_t *stages = ts_jget(root, "stages");
	cr_assert(json_is_array(stages));
	cr_assert_eq((int)json_array_size(stages), k, "%s: number of stages", what);
	double worst = -1;
	int worst_at = 0;
	for (int s = 0; s < k; s++) {
		json_t *st = json_array_get(stages, (size_t)s);
		double cost = h[s].io_in + h[s].work + h[s].io_out + h[s].overflow;
		if (cost > worst) {
			worst = cost;
			worst_at = s;
		}
		cr_assert_eq(ts_jint(st, "stage"), s + 1);
		cr_assert_eq(ts_jint(st, "ops"), h[s].ops, "%s: stage %d ops", what, s + 1);
#define EXACT(key, val)                                                                            \
	cr_assert(ts_jnum(st, key) == (val), "%s: stage %d %s is %.17g, want %.17g", what, s + 1,     \
	          key, ts_jnum(st, key), (double)(val))
		EXACT("work", h[s].work);
		EXACT("io_in", h[s].io_in);
		EXACT("io_out", h[s].io_out);
		EXACT("overflow", h[s].overflow);
		EXACT("cost", cost);
		EXACT("param", h[s].param);
		EXACT("in_bytes", h[s].io_in * bw);
		EXACT("out_bytes", h[s].io_out * bw);
#undef EXACT
		cr_assert_eq(ts_jbool(st, "over_memory"), h[s].over, "%s: stage %d over_memory", what,
		             s + 1);
	}
	cr_assert(ts_jnum(root, "bottleneck") == worst, "%s: bottleneck %.17g, want %.17g", what,
	          ts_jnum(root, "bottleneck"), worst);
	cr_assert_eq(ts_jint(root, "bottleneck_stage"), worst_at + 1, "%s: bottleneck stage", what);
}

/* ---- partition files used by several command-line tests ---------------- */

/* figure2's own partition, as in its comments: 5 / 8 / 5 */
const char ts_fig2_own[] = "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"stages\": "
                           "{\"a\": 1, \"u\": 1, \"v\": 2, \"w\": 2, \"x\": 3, \"y\": 3}}\n";

/* Four stages, the third empty: {a} {u, v, w} {} {x, y}. */
const char ts_fig2_p4[] = "{\"format\": \"stagecut-partition/1\", \"k\": 4, \"stages\": "
                          "{\"a\": 1, \"u\": 2, \"v\": 2, \"w\": 2, \"x\": 4, \"y\": 4}}\n";

/* residual.dot in two stages: {input, conv1, conv2} {add, mm_a, mm_b, concat, output} */
const char ts_residual_two[] =
        "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": {\"input\": 1, "
        "\"conv1\": 1, \"conv2\": 1, \"add\": 2, \"mm_a\": 2, \"mm_b\": 2, \"concat\": 2, "
        "\"output\": 2}}";

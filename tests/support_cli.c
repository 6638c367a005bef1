/*
 * support_cli.c - test helpers of the command-line tests: a scratch
 * directory per test, running the program for JSON, an independent cost
 * model, partition files and hand-derived stage tables.  See support.h; the
 * helpers every kind of test uses (random graphs, brute force, running a
 * command, tmux) are in support.c.
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
#include "core/formats/load.h"
#include "core/partition.h"

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
		bool bw = g->backward && g->backward[u];
		if (bw)
			s->work_bw += g->work[u];
		bool leaves = false;
		for (int j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			int t = stage[g->succ[j]];
			if (t != stage[u] && seen[t] != u + 1) {
				seen[t] = u + 1;
				c[t].in_bytes += g->out[u];
				if (bw) {
					c[t].cost_bw += g->out[u] / set->bandwidth;
					c[t].io_in_bw += g->out[u] / set->bandwidth;
				}
				leaves = true;
			}
		}
		if (leaves) {
			s->out_bytes += g->out[u];
			if (bw) {
				s->cost_bw += g->out[u] / set->bandwidth;
				s->io_out_bw += g->out[u] / set->bandwidth;
			}
		}
	}
	for (int s = 0; s < k; s++) {
		c[s].io_in = c[s].in_bytes / set->bandwidth;
		c[s].io_out = c[s].out_bytes / set->bandwidth;
		c[s].over = c[s].param > set->memory;
		if (c[s].over && set->policy == SC_MEM_OVERFLOW)
			c[s].overflow = (c[s].param - set->memory) / set->bandwidth;
		c[s].cost = c[s].io_in + c[s].work + c[s].io_out + c[s].overflow;
		c[s].cost_bw += c[s].work_bw;
		c[s].cost_fw = c[s].cost - c[s].cost_bw;
	}
	free(seen);
}

double ts_gpipe(const ts_cost *c, int k)
{
	double fw = 0, bw = 0;
	for (int s = 0; s < k; s++) {
		fw = fmax(fw, c[s].cost_fw);
		bw = fmax(bw, c[s].cost_bw);
	}
	return fw + bw;
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
	cr_assert(ts_valid(g, stage, k), "%s: the partition breaks a rule of the stage order",
	          what);
}

/* An orphan by the definition, from the groups and passes alone. */
static bool ts_orphan(const sc_graph *g, int v)
{
	if (!g->backward || !g->backward[v])
		return false;
	if (g->group[v] < 0)
		return true;
	for (int u = 0; u < g->n; u++)
		if (g->group[u] == g->group[v] && !g->backward[u])
			return false;
	return true;
}

bool ts_valid(const sc_graph *g, const int *stage, int k)
{
	for (int v = 0; v < g->n; v++)
		if (stage[v] < 0 || stage[v] >= k)
			return false;
	for (int u = 0; u < g->n; u++) {
		bool bu = g->backward && g->backward[u];
		for (int j = g->succ_off[u]; j < g->succ_off[u + 1]; j++) {
			int v = g->succ[j];
			bool bv = g->backward && g->backward[v];
			if (!bu && !bv && stage[u] > stage[v])
				return false;
			if (bu && bv && (ts_orphan(g, u) || ts_orphan(g, v)) && stage[v] > stage[u])
				return false;
		}
	}
	for (int u = 0; u < g->n; u++)
		if (g->group[u] >= 0)
			for (int v = u + 1; v < g->n; v++)
				if (g->group[v] == g->group[u] && stage[u] != stage[v])
					return false;
	return true;
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
		cr_assert_eq(ts_jbool(st, "over_memory"), c[s].over, "%s: stage %d over_memory",
		             what, s + 1);
	}
}

/* ---- hand-derived stage tables ---------------------------------------- */

/* Checks eval's (or solve's) stages against a hand table at bandwidth bw:
 * cost = io_in + work + io_out + overflow, bytes = io x bw.  Exact. */
void ts_assert_hand_stages(json_t *root, const ts_hand_stage *h, int k, double bw, const char *what)
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
	cr_assert(ts_jnum(st, key) == (val), "%s: stage %d %s is %.17g, want %.17g", what, s + 1,  \
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
		cr_assert_eq(ts_jbool(st, "over_memory"), h[s].over, "%s: stage %d over_memory",
		             what, s + 1);
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

int ts_man_json_keys(const char *cmd, char keys[][40], int max)
{
	char *man = ts_slurp("man/stagecut.1", NULL);
	cr_assert(man);
	char head[64];
	snprintf(head, sizeof head, "\n.SS %s \\-\\-json\n", cmd);
	char *sect = strstr(man, head);
	cr_assert(sect, "no %s --json section", cmd);
	char *end = strstr(sect + 1, "\n.SS ");
	cr_assert(end);
	*end = '\0';
	int n = 0;
	for (char *p = strstr(sect, "\n.TP\n"); p; p = strstr(p + 1, "\n.TP\n")) {
		char *line = p + 5, *eol = strchr(line, '\n');
		if (!eol)
			break;
		*eol = '\0';
		/* ".B key" or ".BR a \", \" b \", \" c" */
		if (strncmp(line, ".B ", 3) == 0 && n < max) {
			snprintf(keys[n++], 40, "%s", line + 3);
		} else if (strncmp(line, ".BR ", 4) == 0) {
			char words[160];
			snprintf(words, sizeof words, "%s", line + 4);
			for (char *t = strtok(words, " "); t; t = strtok(NULL, " "))
				if (*t != '"' && n < max)
					snprintf(keys[n++], 40, "%s", t);
		}
		*eol = '\n';
	}
	free(man);
	return n;
}

void ts_assert_man_order(json_t *o, char keys[][40], int n, const char *const *optional,
                         const char *what)
{
	int at = -1, seen = 0;
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v)
	{
		(void)v;
		if (strcmp(key, "costs") == 0)
			continue;
		int i = 0;
		while (i < n && strcmp(keys[i], key) != 0)
			i++;
		cr_assert_lt(i, n, "%s: key '%s' is not in the man page", what, key);
		cr_assert_gt(i, at, "%s: key '%s' comes before '%s' in the man page", what, key,
		             at >= 0 ? keys[at] : "");
		at = i;
		seen++;
	}
	int always = n;
	for (int i = 0; i < n; i++)
		for (int c = 0; optional[c]; c++)
			always -= strcmp(keys[i], optional[c]) == 0;
	cr_assert_geq(seen, always, "%s: %d keys, the man page has %d", what, seen, always);
}

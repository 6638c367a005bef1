/*
 * test_commands.c - the commands run end to end: help and version, the man
 * page in step with the help, info, eval, solve and gen, and atomic -o.
 *
 * Expected values never come from the program's own output.  For the small
 * samples they are derived by hand from the DOT files (and their comments);
 * for the msr-fiddle graphs the test parses the raw JSON itself with jansson;
 * partitions written by solve are costed by an independent implementation of
 * the model of DESIGN.md section 1 (my_costs below) and compared with both
 * solve's and eval's reports; exact optima come from REFERENCE.tsv and from
 * brute force over every assignment (tests/support.c).
 *
 * Hand-derived values are sums of dyadic numbers (integers, halves, eighths),
 * which floating point adds exactly in any order, so they are compared with
 * ==; values from real-valued inputs are compared to a relative 1e-9.
 */
#define _XOPEN_SOURCE 700 /* POSIX 2008 and realpath */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/graph.h"
#include "tests/support.h"

#define FIGURE2 "samples/paper/figure2.dot"
#define RESIDUAL "samples/small/residual.dot"
#define LEMMA_B2 "samples/paper/lemma_b2.dot"
#define FIDDLE "samples/msr-fiddle/"
#define RESNET_OP FIDDLE "operator/resnet50_inference.json"
#define BERT3_OP FIDDLE "operator/bert_l-3_inference.json"
#define MAN_PAGE "man/stagecut.1"

/* ---- a scratch directory per test ------------------------------------- */

static char g_dir[64];

static void make_dir(void)
{
	ts_make_dir(g_dir, "sc-cmd");
}

static void remove_dir(void)
{
	ts_remove_dir(g_dir);
}

TestSuite(commands, .init = make_dir, .fini = remove_dir, .timeout = 60);

/* path of name in the scratch directory, into buf */
static const char *tpath(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", g_dir, name);
	return buf;
}

static void write_text(const char *path, const char *text)
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
static json_t *json_of(int lo, int hi, int *status, const char *args)
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
static json_t *run_json(int want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static json_t *run_json(int want, const char *fmt, ...)
{
	char args[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	int status;
	return json_of(want, want, &status, args);
}

static json_t *jget(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	cr_assert(v, "JSON key '%s' missing", key);
	return v;
}

static double jnum(json_t *o, const char *key)
{
	json_t *v = jget(o, key);
	cr_assert(json_is_number(v), "JSON key '%s' is not a number", key);
	return json_number_value(v);
}

static long long jint(json_t *o, const char *key)
{
	json_t *v = jget(o, key);
	cr_assert(json_is_integer(v), "JSON key '%s' is not an integer", key);
	return json_integer_value(v);
}

static bool jbool(json_t *o, const char *key)
{
	json_t *v = jget(o, key);
	cr_assert(json_is_boolean(v), "JSON key '%s' is not a boolean", key);
	return json_is_true(v);
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = jget(o, key);
	cr_assert(json_is_string(v), "JSON key '%s' is not a string", key);
	return json_string_value(v);
}

static bool close_rel(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* ---- an independent implementation of the cost model ------------------ */

typedef struct my_cost {
	int ops;
	double work, param, in_bytes, out_bytes, io_in, io_out, overflow, cost;
	bool over;
} my_cost;

/* Per-stage costs of stage[] (0-based) straight from DESIGN.md section 1:
 * a tensor counts once per stage that reads it from outside, and once in
 * its producer's io out however many other stages read it. */
static void my_costs(const sc_graph *g, const int *stage, const sc_settings *set, int k, my_cost *c)
{
	memset(c, 0, (size_t)k * sizeof *c);
	int *seen = calloc((size_t)k, sizeof *seen);
	cr_assert(seen);
	for (int u = 0; u < g->n; u++) {
		my_cost *s = &c[stage[u]];
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
static double my_bottleneck(const my_cost *c, int k, int *at)
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
static void read_partition(const char *path, const sc_graph *g, int k, int *stage)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	cr_assert(root, "%s: %s", path, jerr.text);
	cr_assert_str_eq(jstr(root, "format"), "stagecut-partition/1");
	cr_assert_eq(jint(root, "k"), k, "%s: k", path);
	json_t *stages = jget(root, "stages");
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
static void assert_valid(const sc_graph *g, const int *stage, int k, const char *what)
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
static void assert_stages_match(json_t *stages, const my_cost *c, int k, const char *what)
{
	cr_assert(json_is_array(stages), "%s: stages is not an array", what);
	cr_assert_eq((int)json_array_size(stages), k, "%s: %zu stages, want %d", what,
	             json_array_size(stages), k);
	for (int s = 0; s < k; s++) {
		json_t *st = json_array_get(stages, (size_t)s);
		cr_assert_eq(jint(st, "stage"), s + 1, "%s", what);
		cr_assert_eq(jint(st, "ops"), c[s].ops, "%s: stage %d ops", what, s + 1);
		static const char *const keys[] = {"work", "io_in", "io_out",   "overflow",
		                                   "cost", "param", "in_bytes", "out_bytes"};
		const double want[] = {c[s].work, c[s].io_in, c[s].io_out,   c[s].overflow,
		                       c[s].cost, c[s].param, c[s].in_bytes, c[s].out_bytes};
		for (int i = 0; i < 8; i++)
			cr_assert(close_rel(jnum(st, keys[i]), want[i], 1e-9),
			          "%s: stage %d %s is %.17g, want %.17g", what, s + 1, keys[i],
			          jnum(st, keys[i]), want[i]);
		cr_assert_eq(jbool(st, "over_memory"), c[s].over, "%s: stage %d over_memory", what,
		             s + 1);
	}
}

/* ---- hand-derived stage tables ---------------------------------------- */

typedef struct hand_stage {
	int ops;
	double work, io_in, io_out, overflow, param;
	bool over;
} hand_stage;

/* Checks eval's (or solve's) stages against a hand table at bandwidth bw:
 * cost = io_in + work + io_out + overflow, bytes = io x bw.  Exact. */
static void assert_hand_stages(json_t *root, const hand_stage *h, int k, double bw,
                               const char *what)
{
	json_t *stages = jget(root, "stages");
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
		cr_assert_eq(jint(st, "stage"), s + 1);
		cr_assert_eq(jint(st, "ops"), h[s].ops, "%s: stage %d ops", what, s + 1);
#define EXACT(key, val)                                                                            \
	cr_assert(jnum(st, key) == (val), "%s: stage %d %s is %.17g, want %.17g", what, s + 1,     \
	          key, jnum(st, key), (double)(val))
		EXACT("work", h[s].work);
		EXACT("io_in", h[s].io_in);
		EXACT("io_out", h[s].io_out);
		EXACT("overflow", h[s].overflow);
		EXACT("cost", cost);
		EXACT("param", h[s].param);
		EXACT("in_bytes", h[s].io_in * bw);
		EXACT("out_bytes", h[s].io_out * bw);
#undef EXACT
		cr_assert_eq(jbool(st, "over_memory"), h[s].over, "%s: stage %d over_memory", what,
		             s + 1);
	}
	cr_assert(jnum(root, "bottleneck") == worst, "%s: bottleneck %.17g, want %.17g", what,
	          jnum(root, "bottleneck"), worst);
	cr_assert_eq(jint(root, "bottleneck_stage"), worst_at + 1, "%s: bottleneck stage", what);
}

/* ---- help, version, usage --------------------------------------------- */

static char *help_of(const char *cmd)
{
	char *out, *err;
	int status = ts_runf(&out, &err, "%s --help", cmd);
	cr_assert_eq(status, 0, "'%s --help' exits %d: %s", cmd, status, err);
	cr_assert_str_empty(err, "'%s --help' wrote to stderr: %s", cmd, err);
	free(err);
	return out;
}

static const char *const commands[] = {"info", "eval", "solve", "gen"};
#define NCMDS (int)(sizeof commands / sizeof commands[0])

Test(commands, help_goes_to_stdout_and_exits_0)
{
	char *main_help = help_of("");
	cr_assert(strncmp(main_help, "Usage: stagecut", 15) == 0, "got: %s", main_help);
	for (int i = 0; i < NCMDS; i++) {
		/* the command's usage line and its options */
		char want[64];
		snprintf(want, sizeof want, "Usage: stagecut %s ", commands[i]);
		char *h = help_of(commands[i]);
		cr_assert(strncmp(h, want, strlen(want)) == 0, "'%s --help': %s", commands[i], h);
		cr_assert(strstr(h, "--help"), "'%s --help' lists no --help", commands[i]);
		/* the program's help names the command too */
		snprintf(want, sizeof want, "stagecut %s", commands[i]);
		cr_assert(strstr(main_help, want), "'stagecut --help' does not list %s",
		          commands[i]);
		/* -h is the same as --help, wherever it stands */
		char *out;
		cr_assert_eq(ts_runf(&out, NULL, "%s " FIGURE2 " -h", commands[i]), 0);
		cr_assert_str_eq(out, h, "'%s -h' differs from '%s --help'", commands[i],
		                 commands[i]);
		free(out);
		free(h);
	}
	free(main_help);
}

Test(commands, version_matches_the_man_page)
{
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "--version"), 0);
	cr_assert_str_empty(err);
	int a, b, c, used = 0;
	cr_assert_eq(sscanf(out, "stagecut %d.%d.%d\n%n", &a, &b, &c, &used), 3, "got '%s'", out);
	cr_assert_eq((size_t)used, strlen(out), "trailing text after the version: '%s'", out);
	/* the man page's title line carries the same version */
	char *man = ts_slurp(MAN_PAGE, NULL);
	cr_assert(man);
	char want[64];
	snprintf(want, sizeof want, "\"stagecut %d.%d.%d\"", a, b, c);
	char *th = strstr(man, "\n.TH ");
	cr_assert(th);
	char *eol = strchr(th + 1, '\n');
	*eol = '\0';
	cr_assert(strstr(th, want), "man page title '%s' lacks %s", th + 1, want);
	free(man);
	free(out);
	free(err);
}

Test(commands, bad_usage_exits_2_with_one_line_on_stderr)
{
	static const char *const bad[] = {
	        "", /* the workbench, without a terminal */
	        "--bogus",
	        "info",
	        "info " FIGURE2 " " RESIDUAL,
	        "info " FIGURE2 " --frobnicate",
	        "info " FIGURE2 " -k 0",
	        "info " FIGURE2 " -k 2.5",
	        "info " FIGURE2 " -B 0",
	        "info " FIGURE2 " -M -1",
	        "info " FIGURE2 " --memory-policy soft",
	        "info " FIGURE2 " --json=yes",
	        "info " FIGURE2 " -k",
	        "eval",
	        "eval " FIGURE2,
	        "eval " FIGURE2 " x.json -k 3",
	        "solve",
	        "solve " FIGURE2 " -m nosuch",
	        "solve " FIGURE2 " -e 0",
	        "solve " FIGURE2 " -s -1",
	        "solve " FIGURE2 " -t 0",
	        "solve " FIGURE2 " --elite 1",
	        "solve " FIGURE2 " -m exact --ideal-limit 2",
	        "solve " LEMMA_B2 " -k 4 -m exact --ideal-limit 3",
	        "gen",
	        "gen -n 0",
	        "gen -n 5 --model xx",
	        "gen -n 5 extra",
	        "gen -n 5 --json",
	        "gen --layers 3",
	        "gen -n 5 --layers 3 --model transformer",
	        "gen --model transformer",
	        "gen --model resnet --layers 11",
	        "gen --model transformer --layers 0",
	        "gen --model transformer --layers 100001",
	        "gen --model bert --layers 3",
	        "frobnicate " FIGURE2,
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *out, *err;
		int status = ts_runf(&out, &err, "%s", bad[i]);
		cr_expect_eq(status, 2, "'%s' exits %d, want 2; stderr: %s", bad[i], status, err);
		cr_expect_str_empty(out, "'%s' wrote to stdout: %s", bad[i], out);
		cr_expect(strncmp(err, "stagecut: ", 10) == 0, "'%s': stderr '%s'", bad[i], err);
		char *nl = strchr(err, '\n');
		cr_expect(nl && nl[1] == '\0', "'%s': stderr is not one line: '%s'", bad[i], err);
		free(out);
		free(err);
	}
}

/* ---- the man page is in step with the help ----------------------------- */

/* The man page with groff's "\-" turned into "-". */
static char *man_text(void)
{
	char *man = ts_slurp(MAN_PAGE, NULL);
	cr_assert(man, "cannot read " MAN_PAGE);
	char *w = man;
	for (const char *r = man; *r; r++) {
		if (r[0] == '\\' && r[1] == '-')
			r++;
		*w++ = *r;
	}
	*w = '\0';
	return man;
}

static bool is_opt_char(int ch)
{
	return islower(ch) || isdigit(ch) || ch == '-';
}

/* True when text holds the long option opt ("--name") as a whole word. */
static bool has_option(const char *text, const char *opt)
{
	size_t len = strlen(opt);
	for (const char *p = strstr(text, opt); p; p = strstr(p + 1, opt))
		if ((p == text || p[-1] != '-') && !is_opt_char((unsigned char)p[len]))
			return true;
	return false;
}

Test(commands, man_page_lists_every_long_option_of_the_help)
{
	char *man = man_text();
	int checked = 0;
	for (int i = -1; i < NCMDS; i++) {
		char *h = help_of(i < 0 ? "" : commands[i]);
		for (const char *p = strstr(h, "--"); p; p = strstr(p + 2, "--")) {
			if (p > h && p[-1] == '-')
				continue;
			size_t len = 2;
			while (is_opt_char((unsigned char)p[len]))
				len++;
			if (len == 2 || !islower((unsigned char)p[2]))
				continue;
			char opt[64];
			snprintf(opt, sizeof opt, "%.*s", (int)len, p);
			cr_expect(has_option(man, opt), "'%s' in 'stagecut %s--help' is not in %s",
			          opt, i < 0 ? "" : commands[i], MAN_PAGE);
			checked++;
		}
		free(h);
	}
	/* the option table alone has 20 long options */
	cr_assert_geq(checked, 20, "only %d long options found in the help", checked);
	free(man);
}

/* The commands named by `stagecut --help` ("stagecut NAME ..." lines). */
static int help_commands(char names[][32], int max)
{
	char *h = help_of("");
	int n = 0;
	for (char *line = strtok(h, "\n"); line; line = strtok(NULL, "\n")) {
		char word[32];
		if (sscanf(line, "Usage: stagecut %31s", word) != 1 &&
		    sscanf(line, " stagecut %31s", word) != 1)
			continue;
		bool lower = true;
		for (char *c = word; *c; c++)
			lower = lower && islower((unsigned char)*c);
		if (lower && n < max)
			snprintf(names[n++], 32, "%s", word);
	}
	free(h);
	return n;
}

Test(commands, man_page_has_a_section_for_every_command)
{
	char names[16][32];
	int n = help_commands(names, 16);
	cr_assert_geq(n, 4, "found %d commands in 'stagecut --help'", n);
	char *man = man_text();
	char *sect = strstr(man, "\n.SH COMMANDS\n");
	cr_assert(sect, "the man page has no COMMANDS section");
	sect += 1;
	char *end = strstr(sect + 4, "\n.SH ");
	cr_assert(end);
	*end = '\0';
	for (int i = 0; i < n; i++) {
		/* ".TP" then a bold line whose first word is the command */
		bool found = false;
		for (char *p = strstr(sect, ".TP\n"); p && !found; p = strstr(p + 1, ".TP\n")) {
			char macro[8], word[32];
			if (sscanf(p + 4, ".%7s %31s", macro, word) == 2 && macro[0] == 'B') {
				char *q = word;
				if (*q == '"')
					q++;
				q[strcspn(q, "\"")] = '\0';
				found = strcmp(q, names[i]) == 0;
			}
		}
		cr_expect(found, "no '.TP' entry for the command '%s' in the COMMANDS section",
		          names[i]);
		/* and the command takes --help */
		char *h = help_of(names[i]);
		free(h);
	}
	free(man);
}

Test(commands, man_page_lists_every_solve_method)
{
	char *h = help_of("solve");
	char *m = strstr(h, "Methods:");
	cr_assert(m);
	char *opts = strstr(m, "\nOptions:");
	cr_assert(opts);
	*opts = '\0';
	char *man = man_text();
	int n = 0;
	for (char *line = strtok(m, "\n"); line; line = strtok(NULL, "\n")) {
		char name[32];
		if (strncmp(line, "  ", 2) != 0 || sscanf(line, " %31s", name) != 1)
			continue;
		char want[48];
		snprintf(want, sizeof want, "\n.B %s\n", name);
		cr_expect(strstr(man, want), "method '%s' has no '.B %s' entry in the man page",
		          name, name);
		n++;
	}
	cr_assert_geq(n, 10, "found %d methods in 'solve --help'", n);
	free(man);
	free(h);
}

/* ---- info ----------------------------------------------------------- */

/* What `info` should report, computed from the raw msr-fiddle JSON. */
typedef struct fiddle_facts {
	int ops, edges, sources, sinks, depth, groups, grouped_ops, largest_group;
	double work, param, out, largest_unit;
	long long k;
	double memory;
} fiddle_facts;

static int index_of_id(json_t *nodes, long long id)
{
	for (size_t i = 0; i < json_array_size(nodes); i++)
		if (json_integer_value(json_object_get(json_array_get(nodes, i), "id")) == id)
			return (int)i;
	cr_assert_fail("edge to an unknown id %lld", id);
	return -1;
}

static void fiddle_facts_of(const char *path, fiddle_facts *f)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	cr_assert(root, "%s: %s", path, jerr.text);
	json_t *nodes = json_object_get(root, "nodes"), *edges = json_object_get(root, "edges");
	cr_assert(json_is_array(nodes) && json_is_array(edges));
	memset(f, 0, sizeof *f);
	int n = (int)json_array_size(nodes), m = (int)json_array_size(edges);
	f->ops = n;
	f->k = json_integer_value(json_object_get(root, "maxFPGAs"));
	f->memory = json_number_value(json_object_get(root, "maxSizePerFPGA"));
	int *src = malloc((size_t)m * sizeof *src), *dst = malloc((size_t)m * sizeof *dst);
	int *indeg = calloc((size_t)n, sizeof *indeg), *outdeg = calloc((size_t)n, sizeof *outdeg);
	int *level = malloc((size_t)n * sizeof *level);
	double *outv = calloc((size_t)n, sizeof *outv);
	long long *color = malloc((size_t)n * sizeof *color);
	double *cwork = calloc((size_t)n, sizeof *cwork);
	int *csize = calloc((size_t)n, sizeof *csize), ncolors = 0;
	cr_assert(src && dst && indeg && outdeg && level && outv && color && cwork && csize);
	/* distinct edges */
	for (int e = 0; e < m; e++) {
		json_t *ed = json_array_get(edges, (size_t)e);
		int s = index_of_id(nodes, json_integer_value(json_object_get(ed, "sourceId")));
		int d = index_of_id(nodes, json_integer_value(json_object_get(ed, "destId")));
		bool dup = false;
		for (int j = 0; j < f->edges && !dup; j++)
			dup = src[j] == s && dst[j] == d;
		if (!dup) {
			src[f->edges] = s;
			dst[f->edges] = d;
			f->edges++;
			indeg[d]++;
			outdeg[s]++;
		}
		outv[s] = json_number_value(json_object_get(ed, "cost"));
	}
	for (int v = 0; v < n; v++) {
		json_t *node = json_array_get(nodes, (size_t)v);
		double w = json_number_value(json_object_get(node, "fpgaLatency"));
		f->work += w;
		f->param += json_number_value(json_object_get(node, "size"));
		f->out += outv[v];
		f->sources += indeg[v] == 0;
		f->sinks += outdeg[v] == 0;
		json_t *cc = json_object_get(node, "colorClass");
		if (!cc || json_is_null(cc)) {
			f->largest_unit = fmax(f->largest_unit, w);
			continue;
		}
		int c = 0;
		while (c < ncolors && color[c] != json_integer_value(cc))
			c++;
		if (c == ncolors)
			color[ncolors++] = json_integer_value(cc);
		cwork[c] += w;
		csize[c]++;
	}
	for (int c = 0; c < ncolors; c++) {
		f->largest_unit = fmax(f->largest_unit, cwork[c]);
		if (csize[c] > 1) {
			f->groups++;
			f->grouped_ops += csize[c];
			if (csize[c] > f->largest_group)
				f->largest_group = csize[c];
		}
	}
	/* the longest path in ops, by relaxing the edges until nothing changes */
	for (int v = 0; v < n; v++)
		level[v] = 1;
	for (bool changed = true; changed;) {
		changed = false;
		for (int e = 0; e < f->edges; e++)
			if (level[dst[e]] < level[src[e]] + 1) {
				level[dst[e]] = level[src[e]] + 1;
				changed = true;
			}
	}
	for (int v = 0; v < n; v++)
		if (level[v] > f->depth)
			f->depth = level[v];
	free(src);
	free(dst);
	free(indeg);
	free(outdeg);
	free(level);
	free(outv);
	free(color);
	free(cwork);
	free(csize);
	json_decref(root);
}

/* Asserts info's simple_bound array: k = 2, 4, ..., 64 then extra_k (when
 * > 0), each max(largest, total / k). */
static void assert_simple_bounds(json_t *info, double largest, double total, int extra_k,
                                 const char *what)
{
	static const int ks[] = {2, 4, 8, 16, 32, 64};
	json_t *b = jget(info, "simple_bound");
	cr_assert(json_is_array(b));
	size_t want_n = 6 + (extra_k > 0);
	cr_assert_eq(json_array_size(b), want_n, "%s: %zu simple bounds, want %zu", what,
	             json_array_size(b), want_n);
	for (size_t i = 0; i < want_n; i++) {
		json_t *e = json_array_get(b, i);
		int k = i < 6 ? ks[i] : extra_k;
		cr_assert_eq(jint(e, "k"), k, "%s: entry %zu", what, i);
		double want = fmax(largest, total / k);
		cr_assert(close_rel(jnum(e, "bound"), want, 1e-12),
		          "%s: k %d bound %.17g, want %.17g", what, k, jnum(e, "bound"), want);
	}
}

static void check_fiddle_info(const char *path)
{
	fiddle_facts f;
	fiddle_facts_of(path, &f);
	json_t *info = run_json(0, "info --json %s", path);
	cr_assert_str_eq(jstr(info, "source"), path);
	cr_assert_str_eq(jstr(info, "graph"), strrchr(path, '/') + 1);
	cr_assert_eq(jint(info, "ops"), f.ops, "%s: ops", path);
	cr_assert_eq(jint(info, "edges"), f.edges, "%s: edges", path);
	cr_assert_eq(jint(info, "sources"), f.sources, "%s: sources", path);
	cr_assert_eq(jint(info, "sinks"), f.sinks, "%s: sinks", path);
	cr_assert_eq(jint(info, "depth"), f.depth, "%s: depth", path);
	cr_assert_eq(jint(info, "groups"), f.groups, "%s: groups", path);
	cr_assert_eq(jint(info, "grouped_ops"), f.grouped_ops, "%s: grouped ops", path);
	cr_assert_eq(jint(info, "largest_group"), f.largest_group, "%s: largest group", path);
	cr_assert(close_rel(jnum(info, "total_work"), f.work, 1e-9), "%s: total work", path);
	cr_assert(close_rel(jnum(info, "total_param"), f.param, 1e-9), "%s: total param", path);
	cr_assert(close_rel(jnum(info, "total_out"), f.out, 1e-9), "%s: total out", path);
	json_t *set = jget(info, "settings");
	cr_assert_eq(jint(set, "k"), f.k);
	cr_assert(jnum(set, "bandwidth") == 1);
	cr_assert(jnum(set, "memory") == f.memory);
	cr_assert_str_eq(jstr(set, "memory_policy"), "hard");
	int extra = (int)f.k;
	for (int k = 2; k <= 64; k *= 2)
		if (k == extra)
			extra = 0;
	assert_simple_bounds(info, f.largest_unit, f.work, extra, path);
	json_decref(info);
}

Test(commands, info_counts_match_the_raw_msr_fiddle_json)
{
	check_fiddle_info(BERT3_OP);
	check_fiddle_info(RESNET_OP);
}

Test(commands, info_figure2_by_hand)
{
	/* ops a, u, v, w, x, y; edges a-u, u-v, u-w, v-x, w-x, x-y; one source
	 * (a), one sink (y), longest path a u v x y; work 1+2+3+1+2+1 = 10,
	 * param 4+4+8+2+6+1 = 25, out 1+2+1+1+1+0 = 6; largest op v = 3 */
	json_t *info = run_json(0, "info --json " FIGURE2);
	cr_assert_str_eq(jstr(info, "graph"), "figure2.dot");
	cr_assert_eq(jint(info, "ops"), 6);
	cr_assert_eq(jint(info, "edges"), 6);
	cr_assert_eq(jint(info, "sources"), 1);
	cr_assert_eq(jint(info, "sinks"), 1);
	cr_assert_eq(jint(info, "depth"), 5);
	cr_assert_eq(jint(info, "groups"), 0);
	cr_assert_eq(jint(info, "grouped_ops"), 0);
	cr_assert_eq(jint(info, "largest_group"), 0);
	cr_assert(jnum(info, "total_work") == 10);
	cr_assert(jnum(info, "total_param") == 25);
	cr_assert(jnum(info, "total_out") == 6);
	json_t *set = jget(info, "settings");
	cr_assert_eq(jint(set, "k"), 3);
	cr_assert(jnum(set, "bandwidth") == 1);
	cr_assert(json_is_null(jget(set, "memory")), "unlimited memory is not null");
	cr_assert_str_eq(jstr(set, "memory_policy"), "overflow");
	/* 5, 3 (2.5 < v's 3), 3, 3, 3, 3, then the file's k = 3: 10/3 */
	assert_simple_bounds(info, 3, 10, 3, "figure2");
	cr_assert(close_rel(jnum(json_array_get(jget(info, "simple_bound"), 6), "bound"), 10.0 / 3,
	                    1e-15));
	json_decref(info);
}

Test(commands, info_residual_by_hand)
{
	/* 8 ops, 9 edges; input is the only source, output the only sink;
	 * longest path input conv1 conv2 add mm_a concat output = 7 ops;
	 * group matmul = {mm_a, mm_b} with work 3+3 = 6 = conv1's 6;
	 * work 0+6+6+3+3+1+1+1 = 21, param 60+60+30+30 = 180,
	 * out 8+8+8+4+4+8+8+0 = 48 */
	json_t *info = run_json(0, "info --json " RESIDUAL);
	cr_assert_eq(jint(info, "ops"), 8);
	cr_assert_eq(jint(info, "edges"), 9);
	cr_assert_eq(jint(info, "sources"), 1);
	cr_assert_eq(jint(info, "sinks"), 1);
	cr_assert_eq(jint(info, "depth"), 7);
	cr_assert_eq(jint(info, "groups"), 1);
	cr_assert_eq(jint(info, "grouped_ops"), 2);
	cr_assert_eq(jint(info, "largest_group"), 2);
	cr_assert(jnum(info, "total_work") == 21);
	cr_assert(jnum(info, "total_param") == 180);
	cr_assert(jnum(info, "total_out") == 48);
	json_t *set = jget(info, "settings");
	cr_assert_eq(jint(set, "k"), 3);
	cr_assert(jnum(set, "bandwidth") == 2);
	cr_assert(jnum(set, "memory") == 100);
	cr_assert_str_eq(jstr(set, "memory_policy"), "hard");
	assert_simple_bounds(info, 6, 21, 3, "residual");
	json_decref(info);
}

Test(commands, info_options_override_the_file)
{
	/* -k 2 is in the list already: no extra row; the group's 6 dominates
	 * 21/k from k = 4 */
	json_t *info =
	        run_json(0, "info --json " RESIDUAL " -k 2 -B 0.5 -M inf --memory-policy overflow");
	json_t *set = jget(info, "settings");
	cr_assert_eq(jint(set, "k"), 2);
	cr_assert(jnum(set, "bandwidth") == 0.5);
	cr_assert(json_is_null(jget(set, "memory")));
	cr_assert_str_eq(jstr(set, "memory_policy"), "overflow");
	assert_simple_bounds(info, 6, 21, 0, "residual -k 2");
	json_decref(info);
	/* a k of its own joins the end of the list: figure2 with k = 7 */
	info = run_json(0, "info --json " FIGURE2 " --k 7 --memory 12.5 --memory-policy hard");
	set = jget(info, "settings");
	cr_assert_eq(jint(set, "k"), 7);
	cr_assert(jnum(set, "memory") == 12.5);
	cr_assert_str_eq(jstr(set, "memory_policy"), "hard");
	assert_simple_bounds(info, 3, 10, 7, "figure2 -k 7");
	json_decref(info);
}

/* ---- eval --------------------------------------------------------------- */

/* figure2's own partition, as in its comments: 5 / 8 / 5 */
static const char fig2_own[] = "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"stages\": "
                               "{\"a\": 1, \"u\": 1, \"v\": 2, \"w\": 2, \"x\": 3, \"y\": 3}}\n";

/* Four stages, the third empty: {a} {u, v, w} {} {x, y}. */
static const char fig2_p4[] = "{\"format\": \"stagecut-partition/1\", \"k\": 4, \"stages\": "
                              "{\"a\": 1, \"u\": 2, \"v\": 2, \"w\": 2, \"x\": 4, \"y\": 4}}\n";

Test(commands, eval_figure2_own_partition_by_hand)
{
	char p[128];
	write_text(tpath(p, sizeof p, "own.json"), fig2_own);
	json_t *r = run_json(0, "eval --json " FIGURE2 " %s", p);
	cr_assert_str_eq(jstr(r, "graph"), "figure2.dot");
	cr_assert_str_eq(jstr(r, "partition"), p);
	cr_assert_eq(jint(r, "k"), 3);
	cr_assert(jbool(r, "valid"));
	cr_assert(jbool(r, "feasible"));
	cr_assert_null(json_object_get(r, "violation"));
	/* the file's comments: 0+3+2, 2+4+2, 2+3+0; params 8, 10, 7 */
	const hand_stage h[] = {
	        {2, 3, 0, 2, 0, 8, false},
	        {2, 4, 2, 2, 0, 10, false},
	        {2, 3, 2, 0, 0, 7, false},
	};
	assert_hand_stages(r, h, 3, 1, "figure2 own");
	cr_assert(jnum(r, "bottleneck") == 8);
	json_decref(r);

	/* the text report says the same */
	char *out;
	cr_assert_eq(ts_runf(&out, NULL, "eval " FIGURE2 " %s", p), 0);
	cr_assert(strstr(out, "bottleneck 8.0000 (stage 2)"), "%s", out);
	cr_assert(strstr(out, "\nvalid\n"), "%s", out);
	free(out);
}

/* The hand table of fig2_p4 at bandwidth bw, memory M (overflow policy):
 * stage 1 {a}: io out 1 (a's tensor to u);
 * stage 2 {u, v, w}: io in 1 (a), work 2+3+1 = 6, io out v 1 + w 1 = 2,
 *   param 4+8+2 = 14 (u's tensor stays inside);
 * stage 3: empty;
 * stage 4 {x, y}: io in v 1 + w 1 = 2, work 2+1 = 3; param 6+1 = 7. */
static void fig2_p4_table(hand_stage h[4], double bw, double memory, bool hard)
{
	const hand_stage base[4] = {
	        {1, 1, 0, 1, 0, 4, false},
	        {3, 6, 1, 2, 0, 14, false},
	        {0, 0, 0, 0, 0, 0, false},
	        {2, 3, 2, 0, 0, 7, false},
	};
	for (int s = 0; s < 4; s++) {
		h[s] = base[s];
		h[s].io_in /= bw;
		h[s].io_out /= bw;
		h[s].over = h[s].param > memory;
		if (h[s].over && !hard)
			h[s].overflow = (h[s].param - memory) / bw;
	}
}

Test(commands, eval_figure2_with_an_empty_stage_by_hand)
{
	char p[128];
	write_text(tpath(p, sizeof p, "p4.json"), fig2_p4);
	json_t *r = run_json(0, "eval --json " FIGURE2 " %s", p);
	cr_assert_eq(jint(r, "k"), 4);
	cr_assert(jbool(r, "valid") && jbool(r, "feasible"));
	hand_stage h[4];
	fig2_p4_table(h, 1, INFINITY, false);
	assert_hand_stages(r, h, 4, 1, "figure2 p4");
	cr_assert(jnum(r, "bottleneck") == 9);
	cr_assert_eq(jint(r, "bottleneck_stage"), 2);
	json_decref(r);
}

Test(commands, eval_ties_go_to_the_lowest_stage)
{
	/* lemma_b2's own partition {h_i, l_i}: every stage works 7/8 + 1/8 = 1
	 * and nothing crosses (h1 -> l1 stays in stage 1) */
	char p[128];
	write_text(tpath(p, sizeof p, "opt.json"),
	           "{\"format\": \"stagecut-partition/1\", \"k\": 4, \"stages\": {\"h1\": 1, "
	           "\"l1\": 1, \"h2\": 2, \"l2\": 2, \"h3\": 3, \"l3\": 3, \"h4\": 4, \"l4\": 4}}");
	json_t *r = run_json(0, "eval --json " LEMMA_B2 " %s", p);
	const hand_stage h[4] = {
	        {2, 1, 0, 0, 0, 0, false},
	        {2, 1, 0, 0, 0, 0, false},
	        {2, 1, 0, 0, 0, 0, false},
	        {2, 1, 0, 0, 0, 0, false},
	};
	assert_hand_stages(r, h, 4, 1, "lemma_b2 optimum");
	cr_assert_eq(jint(r, "bottleneck_stage"), 1);
	json_decref(r);
}

/* Runs eval on residual.dot with partition text; expects exit 1, and
 * returns the JSON report; *text_out gets the text report's stdout. */
static json_t *eval_bad(const char *name, const char *text, const char *opts, char **text_out)
{
	char p[128];
	write_text(tpath(p, sizeof p, name), text);
	json_t *r = run_json(1, "eval --json %s " RESIDUAL " %s", opts, p);
	char *err;
	int status = ts_runf(text_out, &err, "eval %s " RESIDUAL " %s", opts, p);
	cr_assert_eq(status, 1, "eval %s: exit %d, stderr %s", name, status, err);
	free(err);
	return r;
}

Test(commands, eval_names_an_edge_going_back)
{
	/* conv1 in stage 2 feeds conv2 in stage 1: the only edge going back */
	char *out;
	json_t *r = eval_bad("back.json",
	                     "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"stages\": "
	                     "{\"input\": 1, \"conv1\": 2, \"conv2\": 1, \"add\": 2, \"mm_a\": 3,"
	                     " \"mm_b\": 3, \"concat\": 3, \"output\": 3}}",
	                     "", &out);
	cr_assert_not(jbool(r, "valid"));
	const char *why = jstr(r, "violation");
	cr_assert(strstr(why, "'conv1'") && strstr(why, "'conv2'"), "violation: %s", why);
	cr_assert(strstr(why, "'conv1' -> 'conv2'"), "edge not named in order: %s", why);
	/* the last line of the text report is "invalid: " and the same reason */
	char want[600];
	snprintf(want, sizeof want, "\ninvalid: %s\n", why);
	cr_assert(strstr(out, want), "text report: %s", out);
	/* the costs are still reported (B = 2): stage 1 {input, conv2} reads
	 * conv1 (8/2), works 6, sends input's and conv2's tensors (16/2) */
	json_t *st = json_array_get(jget(r, "stages"), 0);
	cr_assert(jnum(st, "io_in") == 4 && jnum(st, "work") == 6 && jnum(st, "io_out") == 8);
	json_decref(r);
	free(out);
}

Test(commands, eval_names_a_split_group)
{
	char *out;
	json_t *r = eval_bad("split.json",
	                     "{\"format\": \"stagecut-partition/1\", \"k\": 3, \"stages\": "
	                     "{\"input\": 1, \"conv1\": 1, \"conv2\": 2, \"add\": 2, \"mm_a\": 2,"
	                     " \"mm_b\": 3, \"concat\": 3, \"output\": 3}}",
	                     "", &out);
	cr_assert_not(jbool(r, "valid"));
	const char *why = jstr(r, "violation");
	cr_assert(strstr(why, "matmul"), "the group is not named: %s", why);
	char want[600];
	snprintf(want, sizeof want, "\ninvalid: %s\n", why);
	cr_assert(strstr(out, want), "text report: %s", out);
	json_decref(r);
	free(out);
}

static const char residual_two[] =
        "{\"format\": \"stagecut-partition/1\", \"k\": 2, \"stages\": {\"input\": 1, "
        "\"conv1\": 1, \"conv2\": 1, \"add\": 2, \"mm_a\": 2, \"mm_b\": 2, \"concat\": 2, "
        "\"output\": 2}}";

Test(commands, eval_names_the_stage_over_the_hard_memory_limit)
{
	/* conv1 + conv2 hold 120 bytes in stage 1, over M = 100 (hard) */
	char *out;
	json_t *r = eval_bad("two.json", residual_two, "", &out);
	cr_assert(jbool(r, "valid"));
	cr_assert_not(jbool(r, "feasible"));
	const char *why = jstr(r, "violation");
	cr_assert(strstr(why, "stage 1") && strstr(why, "120") && strstr(why, "100") &&
	                  strstr(why, "memory"),
	          "violation: %s", why);
	char want[600];
	snprintf(want, sizeof want, "\ninfeasible: %s\n", why);
	cr_assert(strstr(out, want), "text report: %s", out);
	cr_assert(strstr(out, "over memory"), "stage not marked: %s", out);
	/* stage 1 {input, conv1, conv2}: sends input's and conv2's tensors to
	 * add (16 bytes / 2); stage 2 reads them and works 1+3+3+1+1 = 9 */
	const hand_stage h[2] = {
	        {3, 12, 0, 8, 0, 120, true},
	        {5, 9, 8, 0, 0, 60, false},
	};
	assert_hand_stages(r, h, 2, 2, "residual two");
	json_decref(r);
	free(out);
}

/* ---- eval: the settings options move the costs as the model says --------- */

Test(commands, eval_bandwidth_scales_io_exactly)
{
	char p[128];
	write_text(tpath(p, sizeof p, "p4.json"), fig2_p4);
	static const double bws[] = {2, 0.5, 4};
	for (size_t i = 0; i < sizeof bws / sizeof bws[0]; i++) {
		json_t *r = run_json(0, "eval --json " FIGURE2 " %s -B %g", p, bws[i]);
		hand_stage h[4];
		fig2_p4_table(h, bws[i], INFINITY, false);
		char what[64];
		snprintf(what, sizeof what, "figure2 p4 -B %g", bws[i]);
		assert_hand_stages(r, h, 4, bws[i], what);
		json_decref(r);
	}
	/* B = 2: 0.5 + 6 + 1 = 7.5 */
	json_t *r = run_json(0, "eval --json " FIGURE2 " %s --bandwidth 2", p);
	cr_assert(jnum(r, "bottleneck") == 7.5);
	json_decref(r);
}

Test(commands, eval_memory_overflow_and_hard_policy)
{
	char p[128];
	write_text(tpath(p, sizeof p, "p4.json"), fig2_p4);
	hand_stage h[4];
	/* M = 10, overflow: stage 2 pays (14 - 10)/1 = 4, so 13 */
	json_t *r = run_json(0, "eval --json " FIGURE2 " %s -M 10", p);
	fig2_p4_table(h, 1, 10, false);
	assert_hand_stages(r, h, 4, 1, "p4 -M 10");
	cr_assert(jnum(r, "bottleneck") == 13);
	cr_assert(jbool(r, "feasible"));
	json_decref(r);
	/* M = 10, B = 2: the overflow halves too: 0.5 + 6 + 1 + 2 = 9.5 */
	r = run_json(0, "eval --json " FIGURE2 " %s -M 10 -B 2", p);
	fig2_p4_table(h, 2, 10, false);
	assert_hand_stages(r, h, 4, 2, "p4 -M 10 -B 2");
	cr_assert(jnum(r, "bottleneck") == 9.5);
	json_decref(r);
	/* M = 14 exactly fits: no overflow */
	r = run_json(0, "eval --json " FIGURE2 " %s -M 14", p);
	fig2_p4_table(h, 1, 14, false);
	assert_hand_stages(r, h, 4, 1, "p4 -M 14");
	cr_assert(jnum(r, "bottleneck") == 9);
	json_decref(r);
	/* M = 10, hard: no overflow, stage 2 infeasible, exit 1 */
	r = run_json(1, "eval --json " FIGURE2 " %s -M 10 --memory-policy hard", p);
	fig2_p4_table(h, 1, 10, true);
	assert_hand_stages(r, h, 4, 1, "p4 -M 10 hard");
	cr_assert(jbool(r, "valid"));
	cr_assert_not(jbool(r, "feasible"));
	const char *why = jstr(r, "violation");
	cr_assert(strstr(why, "stage 2") && strstr(why, "14"), "violation: %s", why);
	json_decref(r);
}

Test(commands, eval_policy_and_memory_overrides_on_residual)
{
	char p[128];
	write_text(tpath(p, sizeof p, "two.json"), residual_two);
	/* overflow instead of hard: valid, stage 1 pays (120 - 100)/2 = 10 */
	json_t *r = run_json(0, "eval --json --memory-policy overflow " RESIDUAL " %s", p);
	hand_stage h[2] = {
	        {3, 12, 0, 8, 10, 120, true},
	        {5, 9, 8, 0, 0, 60, false},
	};
	assert_hand_stages(r, h, 2, 2, "two, overflow");
	cr_assert(jnum(r, "bottleneck") == 30);
	json_decref(r);
	/* unlimited memory: nothing over, 20 */
	r = run_json(0, "eval --json -M inf " RESIDUAL " %s", p);
	h[0].overflow = 0;
	h[0].over = false;
	assert_hand_stages(r, h, 2, 2, "two, -M inf");
	json_decref(r);
	/* M = 120 under the hard policy fits exactly; B = 1 doubles the io */
	r = run_json(0, "eval --json -M 120 -B 1 " RESIDUAL " %s", p);
	h[0].io_out = 16;
	h[1].io_in = 16;
	assert_hand_stages(r, h, 2, 1, "two, -M 120 -B 1");
	cr_assert(jnum(r, "bottleneck") == 28);
	json_decref(r);
}

/* ---- solve ------------------------------------------------------------ */

static const char *const methods[] = {"exact", "slice",  "kahn",   "dpl",
                                      "brkga", "random", "refine", "best"};
#define NMETHODS (int)(sizeof methods / sizeof methods[0])

/* The optimum from REFERENCE.tsv for graph (relative to samples/msr-fiddle/)
 * and k, or NAN. */
static double reference(const char *graph, int k)
{
	char *tsv = ts_slurp(FIDDLE "REFERENCE.tsv", NULL);
	cr_assert(tsv, "cannot read REFERENCE.tsv");
	double v = NAN;
	for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
		char name[256];
		int kk;
		double b;
		if (sscanf(line, "%255s %d %lf", name, &kk, &b) == 3 && strcmp(name, graph) == 0 &&
		    kk == k)
			v = b;
	}
	free(tsv);
	return v;
}

/* Runs solve with -o and --json, checks the JSON's shape, that the file is a
 * valid partition whose costs (computed here) are the ones solve and eval
 * report; returns the bottleneck and *optimal.  With may_fail, a search that
 * finds nothing within a hard memory limit may exit 1 (then it must not
 * claim a proof, and NAN is returned). */
static double solve_checked(const char *graph, int k, const char *method, const char *extra,
                            bool may_fail, bool *optimal)
{
	char outp[192], args[1024];
	snprintf(outp, sizeof outp, "%s/%s-%d-%s.json", g_dir, strrchr(graph, '/') + 1, k, method);
	snprintf(args, sizeof args, "solve %s -k %d --method %s %s -o %s --json", graph, k, method,
	         extra, outp);
	int status;
	json_t *r = json_of(0, may_fail ? 1 : 0, &status, args);
	if (status == 1) {
		cr_assert_not(jbool(r, "feasible"), "%s", args);
		cr_assert_not(jbool(r, "optimal"), "%s: claims that nothing fits", args);
		cr_assert(json_is_null(jget(r, "bottleneck")), "%s", args);
		cr_assert(access(outp, F_OK) != 0, "%s: wrote %s", args, outp);
		json_decref(r);
		*optimal = false;
		return NAN;
	}
	char what[256];
	snprintf(what, sizeof what, "solve %s -k %d -m %s", graph, k, method);
	cr_assert_str_eq(jstr(r, "method"), method, "%s", what);
	cr_assert_eq(jint(r, "k"), k, "%s", what);
	double bn = jnum(r, "bottleneck");
	long long evals = jint(r, "evaluations");
	cr_assert_geq(evals, 1, "%s: %lld evaluations", what, evals);
	double secs = jnum(r, "seconds");
	cr_assert(secs >= 0 && secs < 60, "%s: %g seconds", what, secs);
	*optimal = jbool(r, "optimal");
	cr_assert(jbool(r, "feasible"), "%s", what);
	cr_assert_str_eq(jstr(r, "partition"), outp, "%s", what);

	/* the file: a valid partition with the costs reported */
	sc_graph *g = ts_load(graph);
	int *stage = malloc((size_t)g->n * sizeof *stage);
	my_cost *c = malloc((size_t)k * sizeof *c);
	cr_assert(stage && c);
	read_partition(outp, g, k, stage);
	assert_valid(g, stage, k, what);
	sc_settings set = g->settings;
	my_costs(g, stage, &set, k, c);
	if (set.policy == SC_MEM_HARD)
		for (int s = 0; s < k; s++)
			cr_assert_not(c[s].over, "%s: stage %d over the hard limit", what, s + 1);
	int at = 0;
	double mine = my_bottleneck(c, k, &at);
	cr_assert(close_rel(bn, mine, 1e-9), "%s: bottleneck %.17g, costed here %.17g", what, bn,
	          mine);
	cr_assert_eq(jint(r, "bottleneck_stage"), at + 1, "%s: bottleneck stage", what);
	assert_stages_match(jget(r, "stages"), c, k, what);

	/* the file carries the costs beside the stages (stagecut(1), PARTITION
	 * FILES) */
	json_error_t jerr;
	json_t *file = json_load_file(outp, 0, &jerr);
	cr_assert(file, "%s: %s", outp, jerr.text);
	cr_assert_str_eq(jstr(file, "graph"), strrchr(graph, '/') + 1, "%s", what);
	cr_assert(close_rel(jnum(file, "bottleneck"), mine, 1e-9), "%s: file bottleneck", what);
	cr_assert_eq(jint(file, "bottleneck_stage"), at + 1, "%s: file bottleneck stage", what);
	assert_stages_match(jget(file, "stage_costs"), c, k, what);
	json_decref(file);

	/* eval reads the file back and agrees */
	json_t *e = run_json(0, "eval --json %s %s", graph, outp);
	cr_assert(jbool(e, "valid") && jbool(e, "feasible"), "%s: eval of the output", what);
	cr_assert(close_rel(jnum(e, "bottleneck"), bn, 1e-9),
	          "%s: eval says %.17g, solve said %.17g", what, jnum(e, "bottleneck"), bn);
	assert_stages_match(jget(e, "stages"), c, k, what);
	json_decref(e);
	json_decref(r);
	free(c);
	free(stage);
	sc_graph_free(g);
	return bn;
}

/* Every method on one graph: exact is optimal (and equals want when it is
 * a number), every method finds a feasible partition, no method beats
 * exact, and "optimal" is never claimed wrongly. */
static void solve_all_methods(const char *graph, int k, double want)
{
	bool optimal;
	double exact = solve_checked(graph, k, "exact", "", false, &optimal);
	cr_assert(optimal, "exact does not report optimal on %s", graph);
	if (!isnan(want))
		cr_assert(close_rel(exact, want, 1e-9), "%s k %d: exact %.17g, want %.17g", graph,
		          k, exact, want);
	for (int i = 1; i < NMETHODS; i++) {
		bool is_best = strcmp(methods[i], "best") == 0;
		const char *budget = strcmp(methods[i], "brkga") == 0    ? "--evals 300"
		                     : strcmp(methods[i], "random") == 0 ? "--evals 30"
		                                                         : "";
		double b = solve_checked(graph, k, methods[i], budget, false, &optimal);
		cr_assert(b >= exact * (1 - 1e-9),
		          "%s k %d: %s finds %.17g below the optimum %.17g", graph, k, methods[i],
		          b, exact);
		if (optimal)
			cr_assert(close_rel(b, exact, 1e-9), "%s claims optimal with %.17g > %.17g",
			          methods[i], b, exact);
		/* best runs exact on these narrow graphs */
		if (is_best)
			cr_assert(optimal, "best does not prove optimality on %s", graph);
	}
}

Test(commands, solve_every_method_on_figure2)
{
	/* brute force over all 3^6 assignments */
	sc_graph *g = ts_load(FIGURE2);
	double opt = ts_brute_optimum(g, 3, NULL);
	sc_graph_free(g);
	cr_assert(opt == 7, "brute force gives %g (README: 7)", opt);
	solve_all_methods(FIGURE2, 3, opt);
}

Test(commands, solve_every_method_on_residual)
{
	sc_graph *g = ts_load(RESIDUAL);
	double opt = ts_brute_optimum(g, 3, NULL);
	sc_graph_free(g);
	cr_assert(opt == 17, "brute force gives %g", opt);
	/* kahn's equal-work cut is over the hard limit, and refinement repairs
	 * it (kahn_refines_an_over_memory_split) */
	solve_all_methods(RESIDUAL, 3, opt);
}

/* kahn's one equal-work cut puts input, conv1 and conv2 (120 bytes) in stage
 * 1, over the hard limit of 100.  The search keeps that partition as its
 * best so far although it is infeasible, and refinement repairs it (the
 * grouped matmul makes residual a chain of units, whose one order the
 * repair re-slices exactly), so every seed finds a partition that fits. */
Test(commands, kahn_refines_an_over_memory_split)
{
	for (int seed = 1; seed <= 5; seed++) {
		char extra[32];
		snprintf(extra, sizeof extra, "--seed %d", seed);
		bool optimal;
		double b = solve_checked(RESIDUAL, 3, "kahn", extra, false, &optimal);
		cr_assert(b >= 17, "kahn --seed %d: %.17g below the optimum 17", seed, b);
		cr_assert_not(optimal, "kahn --seed %d claims optimality", seed);
	}
}

/* When nothing fits (residual's three 60-byte blocks in two stages of 100),
 * every search exits 1 and reports and writes no partition, although each
 * keeps an infeasible one internally for refinement to repair. */
Test(commands, no_search_reports_a_partition_over_the_limit)
{
	for (int i = 1; i < NMETHODS; i++) {
		if (strcmp(methods[i], "best") == 0)
			continue; /* exact: proves that nothing fits, see bounds */
		bool optimal;
		double b = solve_checked(RESIDUAL, 2, methods[i], "", true, &optimal);
		cr_assert(isnan(b), "%s finds %.17g where nothing fits", methods[i], b);
	}
}

Test(commands, solve_every_method_on_lemma_b2)
{
	/* the file's comments: OPT = 1 for k = 4 */
	solve_all_methods(LEMMA_B2, 4, 1.0);
}

Test(commands, solve_every_method_on_resnet50_operators)
{
	double want = reference("operator/resnet50_inference.json", 4);
	cr_assert(!isnan(want), "REFERENCE.tsv lacks resnet50 k 4");
	solve_all_methods(RESNET_OP, 4, want);
}

Test(commands, exact_reproduces_every_reference_optimum)
{
	char *tsv = ts_slurp(FIDDLE "REFERENCE.tsv", NULL);
	cr_assert(tsv);
	int rows = 0;
	char *save = NULL;
	for (char *line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[256];
		int k;
		double want;
		if (sscanf(line, "%255s %d %lf", name, &k, &want) != 3)
			continue;
		json_t *r = run_json(0, "solve " FIDDLE "%s -k %d -m exact --json", name, k);
		cr_expect(jbool(r, "optimal"), "%s k %d: not optimal", name, k);
		cr_expect(close_rel(jnum(r, "bottleneck"), want, 1e-9),
		          "%s k %d: %.17g, want %.17g", name, k, jnum(r, "bottleneck"), want);
		json_decref(r);
		rows++;
	}
	free(tsv);
	cr_assert_geq(rows, 30, "only %d rows in REFERENCE.tsv", rows);
}

Test(commands, exact_equals_brute_force_with_overrides)
{
	/* the settings options reach the search: each optimum is the brute
	 * force one for the same settings */
	static const struct {
		const char *graph, *opts;
		int k;
		double bw, mem;
		int policy; /* -1: the file's */
	} cases[] = {
	        {FIGURE2, "-k 2", 2, 0, -1, -1},
	        {FIGURE2, "-k 4 -B 2", 4, 2, -1, -1},
	        {FIGURE2, "-k 3 -B 0.5 -M 9", 3, 0.5, 9, -1},
	        {FIGURE2, "-k 3 -M 9 --memory-policy hard", 3, 0, 9, SC_MEM_HARD},
	        {RESIDUAL, "-k 2 --memory-policy overflow", 2, 0, -1, SC_MEM_OVERFLOW},
	        {RESIDUAL, "-k 4 -B 1 -M 70", 4, 1, 70, -1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sc_graph *g = ts_load(cases[i].graph);
		if (cases[i].bw > 0)
			g->settings.bandwidth = cases[i].bw;
		if (cases[i].mem >= 0)
			g->settings.memory = cases[i].mem;
		if (cases[i].policy >= 0)
			g->settings.policy = (sc_mem_policy)cases[i].policy;
		double opt = ts_brute_optimum(g, cases[i].k, NULL);
		sc_graph_free(g);
		cr_assert(isfinite(opt));
		json_t *r =
		        run_json(0, "solve %s %s -m exact --json", cases[i].graph, cases[i].opts);
		cr_expect(close_rel(jnum(r, "bottleneck"), opt, 1e-12),
		          "solve %s %s: %.17g, brute force %.17g", cases[i].graph, cases[i].opts,
		          jnum(r, "bottleneck"), opt);
		cr_expect_eq(jint(r, "k"), cases[i].k);
		json_decref(r);
	}
}

Test(commands, exact_finds_the_lemma_b2_optimum)
{
	char outp[128];
	tpath(outp, sizeof outp, "b2.json");
	json_t *r = run_json(0, "solve " LEMMA_B2 " -k 4 -m exact -o %s --json", outp);
	cr_assert(jnum(r, "bottleneck") == 1, "exact finds %.17g", jnum(r, "bottleneck"));
	cr_assert(jbool(r, "optimal"));
	json_decref(r);
	/* the optimum pairs each heavy op with a light one, h1 with l1 */
	sc_graph *g = ts_load(LEMMA_B2);
	int stage[8];
	read_partition(outp, g, 4, stage);
	cr_assert_eq(stage[sc_graph_find(g, "h1")], stage[sc_graph_find(g, "l1")]);
	for (int s = 0; s < 4; s++) {
		int n = 0;
		for (int v = 0; v < g->n; v++)
			n += stage[v] == s;
		cr_assert_eq(n, 2, "stage %d has %d ops", s + 1, n);
	}
	sc_graph_free(g);
}

/* Runs solve on graph with seed into the scratch file name; returns the
 * file's text. */
static char *solve_with_seed(const char *graph, const char *method, const char *budget,
                             const char *seed, const char *name, size_t *len)
{
	char f[128], *err;
	tpath(f, sizeof f, name);
	int status = ts_runf(NULL, &err, "solve %s -k 6 -m %s %s --seed %s -o %s", graph, method,
	                 budget, seed, f);
	cr_assert_eq(status, 0, "%s --seed %s: %s", method, seed, err);
	free(err);
	char *text = ts_slurp(f, len);
	cr_assert(text);
	return text;
}

Test(commands, solve_with_the_same_seed_repeats)
{
	/* a random graph of 150 ops, where the searches' random choices show */
	char g[128];
	tpath(g, sizeof g, "r.dot");
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 150 -s 4 -o %s", g), 0);
	static const char *const seeded[] = {"kahn", "slice", "random", "brkga", "best"};
	int differ = 0;
	for (size_t i = 0; i < sizeof seeded / sizeof seeded[0]; i++) {
		/* best is too wide for exact here: brkga with this budget */
		const char *budget = strcmp(seeded[i], "random") == 0 ? "-e 20" : "-e 200";
		size_t la, lb, lc;
		char *ta = solve_with_seed(g, seeded[i], budget, "12345", "a.json", &la);
		char *tb = solve_with_seed(g, seeded[i], budget, "12345", "b.json", &lb);
		char *tc = solve_with_seed(g, seeded[i], budget, "54321", "c.json", &lc);
		cr_assert(la == lb && memcmp(ta, tb, la) == 0,
		          "%s --seed 12345 twice gives different partitions", seeded[i]);
		differ += lc != la || memcmp(ta, tc, la) != 0;
		free(ta);
		free(tb);
		free(tc);
	}
	/* and the seed matters: another one changes some result */
	cr_assert_gt(differ, 0, "no method's result depends on the seed");
}

Test(commands, solve_reports_no_feasible_partition_and_writes_nothing)
{
	/* conv1 alone holds 60 bytes: nothing fits in M = 50 (hard) */
	char outp[128];
	tpath(outp, sizeof outp, "keep.json");
	write_text(outp, "precious\n");
	json_t *r = run_json(1, "solve " RESIDUAL " -M 50 -o %s --json", outp);
	cr_assert_not(jbool(r, "feasible"));
	cr_assert(json_is_null(jget(r, "bottleneck")));
	cr_assert(jbool(r, "optimal"), "exact proves that nothing fits");
	/* stagecut(1): every key present, the unknown ones null */
	cr_assert_eq(jint(r, "seed"), 1);
	cr_assert(json_is_null(jget(r, "bottleneck_stage")));
	cr_assert(json_is_null(jget(r, "partition")));
	cr_assert_eq(json_array_size(jget(r, "stages")), 0);
	json_decref(r);
	char *err;
	cr_assert_eq(ts_runf(NULL, &err, "solve " RESIDUAL " -M 50 -o %s", outp), 1);
	cr_assert(strncmp(err, "stagecut: ", 10) == 0 && strstr(err, "memory"), "stderr: %s", err);
	free(err);
	char *now = ts_slurp(outp, NULL);
	cr_assert_str_eq(now, "precious\n", "the output file was touched");
	free(now);
	DIR *d = opendir(g_dir);
	struct dirent *de;
	int entries = 0;
	while ((de = readdir(d)))
		entries += de->d_name[0] != '.';
	closedir(d);
	cr_assert_eq(entries, 1, "files were left in %s", g_dir);
}

/* ---- gen ------------------------------------------------------------- */

static int count_edges_in_dot(const char *text)
{
	int n = 0;
	for (const char *p = strstr(text, "->"); p; p = strstr(p + 2, "->"))
		n++;
	return n;
}

Test(commands, gen_writes_a_graph_of_n_ops)
{
	static const int sizes[] = {1, 2, 17, 120};
	static const char *const models[] = {"er", "ba", "ws", "any"};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		for (size_t j = 0; j < sizeof models / sizeof models[0]; j++) {
			char f[128];
			tpath(f, sizeof f, "g.dot");
			char *err;
			int status = ts_runf(NULL, &err, "gen --nodes %d --seed 5 --model %s -o %s",
			                 sizes[i], models[j], f);
			cr_assert_eq(status, 0, "gen -n %d --model %s: %s", sizes[i], models[j],
			             err);
			free(err);
			json_t *info = run_json(0, "info --json %s", f);
			cr_assert_eq(jint(info, "ops"), sizes[i], "gen -n %d --model %s", sizes[i],
			             models[j]);
			char *text = ts_slurp(f, NULL);
			cr_assert_eq(jint(info, "edges"), count_edges_in_dot(text),
			             "gen -n %d --model %s: edges", sizes[i], models[j]);
			/* named regal-MODEL-N-SEED */
			char tail[64];
			snprintf(tail, sizeof tail, "-%d-5\"", sizes[i]);
			char *nl = strchr(text, '\n');
			cr_assert(nl);
			*nl = '\0';
			cr_assert(strstr(text, "\"regal-") && strstr(text, tail), "first line: %s",
			          text);
			if (strcmp(models[j], "any") != 0) {
				char want[32];
				snprintf(want, sizeof want, "\"regal-%s-", models[j]);
				cr_assert(strstr(text, want), "first line: %s", text);
			}
			free(text);
			json_decref(info);
		}
	/* -k writes the graph's k */
	char f[128];
	tpath(f, sizeof f, "k.dot");
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 30 -s 2 -k 6 -o %s", f), 0);
	json_t *info = run_json(0, "info --json %s", f);
	cr_assert_eq(jint(jget(info, "settings"), "k"), 6);
	json_decref(info);
	/* without -k the graph has no k: six bounds, and solve needs -k */
	tpath(f, sizeof f, "nok.dot");
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 30 -s 2 -o %s", f), 0);
	info = run_json(0, "info --json %s", f);
	cr_assert(json_is_null(jget(jget(info, "settings"), "k")));
	cr_assert_eq(json_array_size(jget(info, "simple_bound")), 6);
	json_decref(info);
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "solve %s", f), 2, "solve without k: %s", err);
	cr_assert_str_empty(out);
	cr_assert(strstr(err, "-k"), "stderr: %s", err);
	free(out);
	free(err);
	info = run_json(0, "solve --json %s -k 3 -m dpl", f);
	cr_assert_eq(jint(info, "k"), 3);
	json_decref(info);
}

Test(commands, gen_is_deterministic_per_seed)
{
	char a[128], b[128], c[128];
	tpath(a, sizeof a, "a.dot");
	tpath(b, sizeof b, "b.dot");
	tpath(c, sizeof c, "c.dot");
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 60 -s 42 --model er -o %s", a), 0);
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 60 -s 42 --model er -o %s", b), 0);
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 60 -s 43 --model er -o %s", c), 0);
	size_t la, lb, lc;
	char *ta = ts_slurp(a, &la), *tb = ts_slurp(b, &lb), *tc = ts_slurp(c, &lc);
	cr_assert(ta && tb && tc);
	cr_assert(la == lb && memcmp(ta, tb, la) == 0, "the same seed gives different files");
	/* beyond the name, which holds the seed, the graphs differ */
	const char *ba = strchr(ta, '\n'), *bc = strchr(tc, '\n');
	cr_assert(ba && bc);
	cr_assert(strcmp(ba, bc) != 0, "seeds 42 and 43 give the same graph");
	/* without -o the same DOT goes to stdout */
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "gen -n 60 -s 42 --model er"), 0);
	cr_assert_str_empty(err);
	cr_assert(strstr(out, "digraph") != NULL && strstr(out, "->") != NULL);
	cr_assert_str_eq(out, ta, "stdout differs from the file written with -o");
	free(out);
	free(err);
	free(ta);
	free(tb);
	free(tc);
}

/* ---- gen: the layered families and the testbed ------------------------- */

/* Runs "gen ARGS -o DIR/name" (args printf-style), expects success and
 * returns the path (in buf). */
static const char *gen_to(char *buf, size_t size, const char *name, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static const char *gen_to(char *buf, size_t size, const char *name, const char *fmt, ...)
{
	char args[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	tpath(buf, size, name);
	char *err;
	int status = ts_runf(NULL, &err, "gen %s -o %s", args, buf);
	cr_assert_eq(status, 0, "gen %s: exit %d: %s", args, status, err);
	free(err);
	return buf;
}

/* The graph name on the first line of a DOT file ("strict digraph "NAME" {"),
 * into buf. */
static const char *dot_graph_name(const char *path, char *buf, size_t size)
{
	char *text = ts_slurp(path, NULL);
	cr_assert(text, "cannot read %s", path);
	const char *q = strchr(text, '"');
	cr_assert(q && strncmp(text, "strict digraph \"", 16) == 0, "%s: first line %.60s", path,
	          text);
	const char *e = strchr(q + 1, '"');
	cr_assert(e);
	snprintf(buf, size, "%.*s", (int)(e - q - 1), q + 1);
	free(text);
	return buf;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t ls = strlen(s), lt = strlen(tail);
	return ls >= lt && strcmp(s + ls - lt, tail) == 0;
}

/* Ops whose name ends in tail (".matmul", ".add": the kind gen gives them). */
static int count_named(const sc_graph *g, const char *tail)
{
	int n = 0;
	for (int v = 0; v < g->n; v++)
		n += ends_with(g->op_name[v], tail);
	return n;
}

/* The op called name (printf-style), which must exist. */
static int op_named(const sc_graph *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int op_named(const sc_graph *g, const char *fmt, ...)
{
	char name[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	int v = sc_graph_find(g, name);
	cr_assert_geq(v, 0, "%s: no op '%s'", g->name, name);
	return v;
}

static bool has_pred(const sc_graph *g, int v, int u)
{
	for (int i = g->pred_off[v]; i < g->pred_off[v + 1]; i++)
		if (g->pred[i] == u)
			return true;
	return false;
}

/* The only predecessor of v. */
static int only_pred(const sc_graph *g, int v)
{
	cr_assert_eq(sc_graph_indeg(g, v), 1, "%s: '%s' has %d predecessors, want 1", g->name,
	             g->op_name[v], sc_graph_indeg(g, v));
	return g->pred[g->pred_off[v]];
}

/* within rel of want (the generator's +-10% and the rounding) */
static void assert_about(double got, double want, double rel, const char *what)
{
	cr_assert(fabs(got - want) <= rel * want, "%s: %.17g, want %.17g +- %g%%", what, got, want,
	          100 * rel);
}

Test(commands, gen_transformer_has_the_ops_of_l_layers)
{
	/* hidden d, sequence s, MLP 4 d, fp16: what the man page says */
	const double d = 1024, s = 512, act = s * d * 2;
	static const int layers[] = {1, 3, 12};
	for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
		int L = layers[i];
		char f[128], name[64], want[64];
		gen_to(f, sizeof f, "t.dot", "--model transformer --layers %d --seed 5", L);
		snprintf(want, sizeof want, "transformer-%d-5", L);
		cr_assert_str_eq(dot_graph_name(f, name, sizeof name), want);
		json_t *info = run_json(0, "info --json %s", f);
		/* 14 ops per layer, the embedding and the final layernorm; 18
		 * edges per layer and the one into the final layernorm; the
		 * residual stream's longest path: 12 ops per layer */
		cr_assert_eq(jint(info, "ops"), 14 * L + 2, "L %d", L);
		cr_assert_eq(jint(info, "edges"), 18 * L + 1, "L %d", L);
		cr_assert_eq(jint(info, "depth"), 12 * L + 2, "L %d", L);
		cr_assert_eq(jint(info, "sources"), 1);
		cr_assert_eq(jint(info, "sinks"), 1);
		cr_assert_eq(jnum(jget(info, "settings"), "bandwidth"), 100);
		json_decref(info);

		sc_graph *g = ts_load(f);
		cr_assert_eq(count_named(g, ".matmul"), 8 * L, "L %d: matmuls", L);
		cr_assert_eq(count_named(g, ".softmax"), L);
		cr_assert_eq(count_named(g, ".layernorm"), 2 * L + 1);
		cr_assert_eq(count_named(g, ".add"), 2 * L);
		cr_assert_eq(count_named(g, ".gelu"), L);
		cr_assert_eq(count_named(g, ".embedding"), 1);
		for (int l = 0; l < L; l++) {
			/* attention: Q K^T, softmax, times V, projection, residual */
			int q = op_named(g, "l%d.attn.q.matmul", l);
			int k = op_named(g, "l%d.attn.k.matmul", l);
			int v = op_named(g, "l%d.attn.v.matmul", l);
			int sc = op_named(g, "l%d.attn.scores.matmul", l);
			int sm = op_named(g, "l%d.attn.softmax", l);
			int ctx = op_named(g, "l%d.attn.context.matmul", l);
			int o = op_named(g, "l%d.attn.out.matmul", l);
			int add = op_named(g, "l%d.attn.add", l);
			int ln1 = op_named(g, "l%d.ln1.layernorm", l);
			int in = only_pred(g, ln1);
			cr_assert(only_pred(g, q) == ln1 && only_pred(g, k) == ln1 &&
			          only_pred(g, v) == ln1);
			cr_assert(sc_graph_indeg(g, sc) == 2 && has_pred(g, sc, q) &&
			          has_pred(g, sc, k));
			cr_assert_eq(only_pred(g, sm), sc);
			cr_assert(sc_graph_indeg(g, ctx) == 2 && has_pred(g, ctx, sm) &&
			          has_pred(g, ctx, v));
			cr_assert_eq(only_pred(g, o), ctx);
			cr_assert(sc_graph_indeg(g, add) == 2 && has_pred(g, add, o) &&
			                  has_pred(g, add, in),
			          "layer %d: the residual skips attention", l);
			/* MLP and its residual */
			int ln2 = op_named(g, "l%d.ln2.layernorm", l);
			int fc1 = op_named(g, "l%d.mlp.fc1.matmul", l);
			int gelu = op_named(g, "l%d.mlp.gelu", l);
			int fc2 = op_named(g, "l%d.mlp.fc2.matmul", l);
			int add2 = op_named(g, "l%d.mlp.add", l);
			cr_assert_eq(only_pred(g, ln2), add);
			cr_assert_eq(only_pred(g, fc1), ln2);
			cr_assert_eq(only_pred(g, gelu), fc1);
			cr_assert_eq(only_pred(g, fc2), gelu);
			cr_assert(sc_graph_indeg(g, add2) == 2 && has_pred(g, add2, fc2) &&
			                  has_pred(g, add2, add),
			          "layer %d: the residual skips the MLP", l);
			/* realistic numbers within the seed's 10% (and rounding):
			 * a projection is 2 s d^2 FLOPs at 1e5 FLOP/ns, its weights
			 * (d^2 + d) fp16 values; the MLP's are 4x that */
			assert_about(g->work[q], 2 * s * d * d / 1e5, 0.101, "q work (ns)");
			assert_about(g->param[q], (d * d + d) * 2, 0.101, "q param (bytes)");
			assert_about(g->out[q], act, 0.101, "q out (bytes)");
			assert_about(g->work[fc1], 8 * s * d * d / 1e5, 0.101, "fc1 work");
			assert_about(g->param[fc1], (4 * d * d + 4 * d) * 2, 0.101, "fc1 param");
			assert_about(g->out[fc1], 4 * act, 0.101, "fc1 out");
			/* scores: 16 heads x s x s fp16 */
			assert_about(g->out[sc], 16 * s * s * 2, 0.101, "scores out");
			cr_assert_eq(g->param[sm], 0);
			cr_assert_eq(g->param[add], 0);
		}
		sc_graph_free(g);
	}
	/* --nodes N: the layer count whose 14 L + 2 ops are nearest N */
	static const int nodes[][2] = {{1, 1}, {16, 1}, {100, 7}, {170, 12}, {176, 12}, {179, 13}};
	for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
		char f[128], name[64], want[64];
		gen_to(f, sizeof f, "n.dot", "--model transformer -n %d -s 2", nodes[i][0]);
		snprintf(want, sizeof want, "transformer-%d-2", nodes[i][1]);
		cr_assert_str_eq(dot_graph_name(f, name, sizeof name), want, "-n %d", nodes[i][0]);
		json_t *info = run_json(0, "info --json %s", f);
		cr_assert_eq(jint(info, "ops"), 14 * nodes[i][1] + 2);
		json_decref(info);
	}
}

Test(commands, gen_resnet_blocks_have_their_skip_edges)
{
	static const struct {
		int depth, blocks[4];
	} nets[] = {
	        {14, {1, 1, 1, 1}},   {26, {2, 2, 3, 1}}, {50, {3, 4, 6, 3}}, /* ResNet-50 */
	        {101, {3, 4, 23, 3}},                                         /* ResNet-101 */
	        {152, {3, 8, 36, 3}},                                         /* ResNet-152 */
	};
	for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
		int D = nets[i].depth, B = (D - 2) / 3;
		char f[128], name[64], want[64];
		gen_to(f, sizeof f, "r.dot", "--model resnet --layers %d --seed 3", D);
		snprintf(want, sizeof want, "resnet-%d-3", D);
		cr_assert_str_eq(dot_graph_name(f, name, sizeof name), want);
		json_t *info = run_json(0, "info --json %s", f);
		/* 10 ops per block, 2 per projection (one per stage), a stem of
		 * 4 and a head of 2; the longest path skips the projections */
		cr_assert_eq(jint(info, "ops"), 10 * B + 14, "depth %d", D);
		cr_assert_eq(jint(info, "depth"), 10 * B + 6, "depth %d", D);
		cr_assert_eq(jint(info, "sources"), 1);
		cr_assert_eq(jint(info, "sinks"), 1);
		json_decref(info);

		sc_graph *g = ts_load(f);
		cr_assert_eq(count_named(g, ".add"), B, "depth %d: one add per block", D);
		cr_assert_eq(count_named(g, ".conv"), 3 * B + 4 + 1, "depth %d: convs", D);
		cr_assert_eq(count_named(g, ".batchnorm"), 3 * B + 4 + 1);
		cr_assert_eq(count_named(g, ".matmul"), 1, "the fc layer");
		int prev_out = op_named(g, "stem.maxpool"), seen = 0;
		for (int st = 1; st <= 4; st++) {
			for (int b = 0; b < nets[i].blocks[st - 1]; b++, seen++) {
				/* the block's input is what its first conv reads */
				int c1 = op_named(g, "s%d.b%d.c1.conv", st, b);
				int in = only_pred(g, c1);
				cr_assert_eq(in, prev_out, "s%d.b%d reads the previous block", st,
				             b);
				int bn3 = op_named(g, "s%d.b%d.c3.batchnorm", st, b);
				int add = op_named(g, "s%d.b%d.add", st, b);
				cr_assert_eq(sc_graph_indeg(g, add), 2, "s%d.b%d.add", st, b);
				cr_assert(has_pred(g, add, bn3), "s%d.b%d: add after c3", st, b);
				int skip = -1;
				for (int e = g->pred_off[add]; e < g->pred_off[add + 1]; e++)
					if (g->pred[e] != bn3)
						skip = g->pred[e];
				if (b == 0) {
					/* a stage's first block: the skip goes through a
					 * projection of the block's input */
					int pbn = op_named(g, "s%d.b%d.proj.batchnorm", st, b);
					int pconv = op_named(g, "s%d.b%d.proj.conv", st, b);
					cr_assert_eq(skip, pbn, "s%d.b%d: projection shortcut", st,
					             b);
					cr_assert_eq(only_pred(g, pbn), pconv);
					cr_assert_eq(only_pred(g, pconv), in);
				} else {
					cr_assert_eq(skip, in,
					             "s%d.b%d: the skip edge from the input", st,
					             b);
					char proj[64];
					snprintf(proj, sizeof proj, "s%d.b%d.proj.conv", st, b);
					cr_assert_lt(sc_graph_find(g, proj), 0, "%s", proj);
				}
				prev_out = op_named(g, "s%d.b%d.relu", st, b);
				cr_assert_eq(only_pred(g, prev_out), add);
			}
			char nope[64];
			snprintf(nope, sizeof nope, "s%d.b%d.add", st, nets[i].blocks[st - 1]);
			cr_assert_lt(sc_graph_find(g, nope), 0, "depth %d: %s", D, nope);
		}
		cr_assert_eq(seen, B);
		cr_assert_eq(only_pred(g, op_named(g, "head.avgpool")), prev_out);
		if (D == 50) {
			/* ResNet-50: 25 557 032 parameters (torchvision), fp16; ours
			 * add batchnorm's running mean and variance (26 560
			 * channels); each op's param is within 10% */
			double total = 0;
			for (int v = 0; v < g->n; v++)
				total += g->param[v];
			assert_about(total, (25557032.0 + 2 * 26560) * 2, 0.101, "resnet50 param");
			/* the 3x3 conv of stage 1: 64 -> 64 channels on 56x56, a
			 * batch of 8: 2 * 8 * 56^2 * 64 * 64 * 9 FLOPs at 1e5
			 * FLOP/ns (compute-bound); out 8 * 56^2 * 64 fp16 */
			int c2 = op_named(g, "s1.b0.c2.conv");
			double map = 8.0 * 56 * 56 * 64 * 2;
			assert_about(g->work[c2], 2.0 * 8 * 56 * 56 * 64 * 64 * 9 / 1e5, 0.101,
			             "s1.b0.c2 work");
			assert_about(g->param[c2], 9.0 * 64 * 64 * 2, 0.101, "s1.b0.c2 param");
			assert_about(g->out[c2], map, 0.101, "s1.b0.c2 out");
			/* its relu is memory-bound: the map read and written at
			 * 1500 bytes/ns */
			int r2 = op_named(g, "s1.b0.c2.relu");
			assert_about(g->work[r2], 2 * map / 1500, 0.101, "s1.b0.c2.relu work");
			cr_assert_eq(g->param[r2], 0);
			/* the last block's output: 2048 channels of 7x7 */
			assert_about(g->out[prev_out], 8.0 * 7 * 7 * 2048 * 2, 0.101, "last out");
		}
		sc_graph_free(g);
	}
	/* other depths round to the nearest 3 B + 2; --nodes to the nearest
	 * 10 B + 14 ops (at least 4 blocks) */
	static const struct {
		const char *args;
		int depth;
	} sized[] = {{"--layers 51", 50}, {"--layers 52", 53}, {"--layers 13", 14}, {"-n 1", 14},
	             {"-n 174", 50},      {"-n 178", 50},      {"-n 180", 53}};
	for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++) {
		char f[128], name[64], want[64];
		gen_to(f, sizeof f, "n.dot", "--model resnet %s -s 9", sized[i].args);
		snprintf(want, sizeof want, "resnet-%d-9", sized[i].depth);
		cr_assert_str_eq(dot_graph_name(f, name, sizeof name), want, "%s", sized[i].args);
		json_t *info = run_json(0, "info --json %s", f);
		cr_assert_eq(jint(info, "ops"), 10 * ((sized[i].depth - 2) / 3) + 14, "%s",
		             sized[i].args);
		json_decref(info);
	}
}

Test(commands, gen_layered_graphs_are_deterministic_and_vary_by_seed)
{
	static const char *const args[] = {"--model transformer --layers 4",
	                                   "--model resnet --layers 50"};
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		char a[128], b[128], c[128];
		gen_to(a, sizeof a, "a.dot", "%s -s 42", args[i]);
		gen_to(b, sizeof b, "b.dot", "%s -s 42", args[i]);
		gen_to(c, sizeof c, "c.dot", "%s -s 43", args[i]);
		size_t la, lb;
		char *ta = ts_slurp(a, &la), *tb = ts_slurp(b, &lb);
		cr_assert(la == lb && memcmp(ta, tb, la) == 0, "%s: the same seed differs",
		          args[i]);
		/* stdout carries the same text */
		char *out;
		cr_assert_eq(ts_runf(&out, NULL, "gen %s -s 42", args[i]), 0);
		cr_assert_str_eq(out, ta, "%s: stdout differs from -o", args[i]);
		free(out);
		free(ta);
		free(tb);
		/* another seed: the same ops and edges, each op's numbers
		 * moved by its own factor in [0.9, 1.1] */
		sc_graph *ga = ts_load(a), *gc = ts_load(c);
		cr_assert_eq(ga->n, gc->n);
		cr_assert_eq(ga->m, gc->m);
		cr_assert_eq(ga->settings.bandwidth, gc->settings.bandwidth);
		int moved = 0;
		double lo = 1, hi = 1;
		for (int v = 0; v < ga->n; v++) {
			cr_assert_str_eq(ga->op_name[v], gc->op_name[v]);
			for (int e = ga->succ_off[v]; e < ga->succ_off[v + 1]; e++)
				cr_assert_eq(ga->succ[e], gc->succ[e]);
			const double *xa[] = {ga->work, ga->out}, *xc[] = {gc->work, gc->out};
			for (int q = 0; q < 2; q++) {
				/* whole nanoseconds and bytes */
				cr_assert_eq(xa[q][v], floor(xa[q][v]));
				cr_assert_geq(xa[q][v], 1, "%s: %s", args[i], ga->op_name[v]);
				double r = xa[q][v] / xc[q][v];
				lo = fmin(lo, r);
				hi = fmax(hi, r);
				moved += r != 1;
			}
			if (ga->param[v] > 0)
				cr_assert_gt(gc->param[v], 0);
		}
		/* 0.9 / 1.1 and 1.1 / 0.9, with the rounding of the smallest
		 * works (a few hundred ns) */
		cr_assert(lo >= 0.815 && hi <= 1.227, "%s: ratios %g to %g", args[i], lo, hi);
		cr_assert(lo < 0.9 && hi > 1.1, "%s: ratios only %g to %g", args[i], lo, hi);
		cr_assert_gt(moved, ga->n, "%s: seeds 42 and 43 give nearly the same numbers",
		             args[i]);
		sc_graph_free(ga);
		sc_graph_free(gc);
	}
}

#define TESTBED "samples/testbed"

Test(commands, testbed_files_are_what_make_sh_writes)
{
	/* remake the testbed into the scratch directory */
	char dir[128], cmd[1024], *out, *err;
	tpath(dir, sizeof dir, "testbed");
	snprintf(cmd, sizeof cmd, "STAGECUT='%s' sh " TESTBED "/make.sh '%s'", ts_program(), dir);
	int status = ts_run(cmd, &out, &err);
	cr_assert_eq(status, 0, "make.sh exits %d: %s", status, err);
	cr_assert_str_empty(out);
	cr_assert_str_empty(err);
	free(out);
	free(err);
	/* every file in either directory is in the other, byte for byte */
	const char *both[2] = {TESTBED, dir};
	int count[2] = {0, 0}, family[3] = {0, 0, 0};
	for (int side = 0; side < 2; side++) {
		DIR *d = opendir(both[side]);
		cr_assert(d, "cannot open %s", both[side]);
		struct dirent *de;
		while ((de = readdir(d))) {
			if (!ends_with(de->d_name, ".dot"))
				continue;
			count[side]++;
			char pa[512], pb[512];
			snprintf(pa, sizeof pa, "%s/%s", both[side], de->d_name);
			snprintf(pb, sizeof pb, "%s/%s", both[1 - side], de->d_name);
			size_t la, lb;
			char *ta = ts_slurp(pa, &la), *tb = ts_slurp(pb, &lb);
			cr_assert(tb, "%s is in %s but not in %s", de->d_name, both[side],
			          both[1 - side]);
			cr_assert(la == lb && memcmp(ta, tb, la) == 0,
			          "%s differs from what make.sh writes now", de->d_name);
			free(ta);
			free(tb);
			if (side == 1)
				continue;
			/* named after the graph; REGAL 50 to 200 ops, all under 600 */
			char name[128], file[128];
			snprintf(file, sizeof file, "%.*s", (int)strlen(de->d_name) - 4,
			         de->d_name);
			cr_assert_str_eq(dot_graph_name(pa, name, sizeof name), file);
			json_t *info = run_json(0, "info --json %s", pa);
			long long ops = jint(info, "ops");
			json_decref(info);
			cr_assert_lt(ops, 600, "%s", file);
			if (strncmp(file, "regal-", 6) == 0) {
				family[0]++;
				cr_assert(ops >= 50 && ops <= 200, "%s: %lld ops", file, ops);
			} else if (strncmp(file, "transformer-", 12) == 0) {
				family[1]++;
			} else {
				cr_assert(strncmp(file, "resnet-", 7) == 0, "%s", file);
				family[2]++;
			}
		}
		closedir(d);
	}
	cr_assert_eq(count[0], 12, "the testbed has %d graphs", count[0]);
	cr_assert_eq(count[1], 12);
	cr_assert(family[0] == 4 && family[1] == 4 && family[2] == 4,
	          "%d REGAL, %d transformer, "
	          "%d resnet",
	          family[0], family[1], family[2]);
}

/* ---- -o replaces a file atomically ------------------------------------- */

static void assert_only_entry(const char *name)
{
	DIR *d = opendir(g_dir);
	cr_assert(d);
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")))
			cr_assert_str_eq(de->d_name, name, "left in the directory: %s", de->d_name);
	closedir(d);
}

Test(commands, output_replaces_an_existing_file_atomically)
{
	char f[128];
	tpath(f, sizeof f, "out.json");
	write_text(f, "an older file that must be replaced whole\n");
	struct stat before, after;
	cr_assert_eq(stat(f, &before), 0);
	char *err;
	int status = ts_runf(NULL, &err, "solve " FIGURE2 " -m exact -o %s", f);
	cr_assert_eq(status, 0, "%s", err);
	free(err);
	cr_assert_eq(stat(f, &after), 0);
	/* a rename puts a new file in place instead of rewriting the old one */
	cr_assert_neq(before.st_ino, after.st_ino, "the file was rewritten in place");
	sc_graph *g = ts_load(FIGURE2);
	int stage[6];
	read_partition(f, g, 3, stage);
	assert_valid(g, stage, 3, "figure2 -o");
	sc_graph_free(g);
	assert_only_entry("out.json");

	/* gen -o over an existing file */
	cr_assert_eq(unlink(f), 0);
	char d[128];
	tpath(d, sizeof d, "out.dot");
	write_text(d, "digraph old { a; }\n");
	cr_assert_eq(stat(d, &before), 0);
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 20 -s 1 -o %s", d), 0);
	cr_assert_eq(stat(d, &after), 0);
	cr_assert_neq(before.st_ino, after.st_ino);
	json_t *info = run_json(0, "info --json %s", d);
	cr_assert_eq(jint(info, "ops"), 20);
	json_decref(info);
	assert_only_entry("out.dot");
}

/* ---- more of solve's options ------------------------------------------- */

Test(commands, solve_refines_a_given_partition)
{
	/* from figure2's own partition (8), refine is the default method and
	 * only improves, down to at best the optimum 7 */
	char p[128];
	write_text(tpath(p, sizeof p, "own.json"), fig2_own);
	json_t *r = run_json(0, "solve --json " FIGURE2 " -p %s", p);
	cr_assert_str_eq(jstr(r, "method"), "refine");
	double b = jnum(r, "bottleneck");
	cr_assert(b <= 8 && b >= 7, "refine from 8 gives %.17g", b);
	json_decref(r);
	/* a partition for another k is refused */
	char q[128];
	write_text(tpath(q, sizeof q, "p4.json"), fig2_p4);
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "solve " FIGURE2 " -p %s", q), 2);
	cr_assert_str_empty(out);
	cr_assert(strstr(err, q), "the partition file is not named: %s", err);
	free(out);
	free(err);
}

Test(commands, refinement_never_makes_a_result_worse)
{
	/* the same seed gives the same order; refining its split can only
	 * lower the bottleneck */
	static const char *const ms[] = {"kahn", "slice", "dpl"};
	static const int ks[] = {3, 8};
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
		for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
			json_t *raw = run_json(
			        0, "solve --json " RESNET_OP " -k %d -m %s -s 9 --no-refine", ks[j],
			        ms[i]);
			json_t *ref = run_json(0, "solve --json " RESNET_OP " -k %d -m %s -s 9",
			                       ks[j], ms[i]);
			cr_assert(jnum(ref, "bottleneck") <= jnum(raw, "bottleneck") * (1 + 1e-12),
			          "%s k %d: refined %.17g > unrefined %.17g", ms[i], ks[j],
			          jnum(ref, "bottleneck"), jnum(raw, "bottleneck"));
			json_decref(raw);
			json_decref(ref);
		}
}

Test(commands, solve_stops_at_its_time_limit)
{
	/* a budget that would take minutes, cut to 0.3 s */
	json_t *r = run_json(0, "solve --json " BERT3_OP " -k 8 -m brkga -e 1000000000 -t 0.3");
	double secs = jnum(r, "seconds");
	cr_assert(secs >= 0.25 && secs < 5, "a 0.3 s limit took %g s", secs);
	cr_assert(jbool(r, "feasible"));
	json_decref(r);
}

Test(commands, seeds_are_reported_exactly)
{
	json_t *r = run_json(0, "solve --json " FIGURE2 " -m slice --seed 12345");
	cr_assert_eq(jint(r, "seed"), 12345);
	json_decref(r);
	/* the largest seed JSON holds as an integer, and one past it */
	r = run_json(0, "solve --json " FIGURE2 " -m slice --seed 9223372036854775807");
	cr_assert_eq(jint(r, "seed"), 9223372036854775807LL);
	json_decref(r);
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "solve --json " FIGURE2 " --seed 9223372036854775808"), 2);
	cr_assert_str_empty(out);
	cr_assert(strstr(err, "--seed"), "stderr: %s", err);
	free(out);
	free(err);
}

/* ---- --json objects have the keys of stagecut(1), in its order ------------ */

static void assert_keys(json_t *o, const char *const *keys, int n, const char *what)
{
	const char *key;
	json_t *v;
	int i = 0;
	json_object_foreach(o, key, v)
	{
		(void)v;
		cr_assert_lt(i, n, "%s: unexpected key '%s'", what, key);
		cr_assert_str_eq(key, keys[i], "%s: key %d is '%s', want '%s'", what, i + 1, key,
		                 keys[i]);
		i++;
	}
	cr_assert_eq(i, n, "%s: %d keys, want %d", what, i, n);
}

static const char *const stage_keys[] = {"stage",    "ops",       "work",       "io_in",
                                         "io_out",   "overflow",  "cost",       "param",
                                         "in_bytes", "out_bytes", "over_memory"};

Test(commands, json_keys_follow_the_man_page)
{
	static const char *const info_keys[] = {
	        "graph",      "source",      "ops",       "edges",       "sources",
	        "sinks",      "depth",       "groups",    "grouped_ops", "largest_group",
	        "total_work", "total_param", "total_out", "settings",    "simple_bound"};
	static const char *const settings_keys[] = {"k", "bandwidth", "memory", "memory_policy"};
	json_t *r = run_json(0, "info --json " RESIDUAL);
	assert_keys(r, info_keys, 15, "info");
	assert_keys(jget(r, "settings"), settings_keys, 4, "info settings");
	json_decref(r);

	static const char *const eval_keys[] = {
	        "graph",      "partition",        "k",     "valid", "feasible",
	        "bottleneck", "bottleneck_stage", "stages"};
	static const char *const eval_bad_keys[] = {"graph",      "partition",        "k",
	                                            "valid",      "feasible",         "violation",
	                                            "bottleneck", "bottleneck_stage", "stages"};
	char p[128];
	write_text(tpath(p, sizeof p, "own.json"), fig2_own);
	r = run_json(0, "eval --json " FIGURE2 " %s", p);
	assert_keys(r, eval_keys, 8, "eval");
	assert_keys(json_array_get(jget(r, "stages"), 0), stage_keys, 11, "eval stage");
	json_decref(r);
	write_text(tpath(p, sizeof p, "two.json"), residual_two);
	r = run_json(1, "eval --json " RESIDUAL " %s", p);
	assert_keys(r, eval_bad_keys, 9, "eval, infeasible");
	json_decref(r);

	static const char *const solve_keys[] = {
	        "graph",    "method",  "k",           "seed",    "bottleneck", "bottleneck_stage",
	        "feasible", "optimal", "evaluations", "seconds", "partition",  "stages"};
	r = run_json(0, "solve --json " FIGURE2);
	assert_keys(r, solve_keys, 12, "solve");
	assert_keys(json_array_get(jget(r, "stages"), 2), stage_keys, 11, "solve stage");
	json_decref(r);
	r = run_json(1, "solve --json " RESIDUAL " -M 50");
	assert_keys(r, solve_keys, 12, "solve, infeasible");
	json_decref(r);
}

/* ---- results that cannot be written are not successes -------------------- */

Test(commands, a_full_stdout_is_an_error)
{
	if (access("/dev/full", W_OK) != 0)
		cr_skip_test("no /dev/full here");
	char p[128];
	write_text(tpath(p, sizeof p, "own.json"), fig2_own);
	char cmds[5][256];
	snprintf(cmds[0], sizeof cmds[0], "gen -n 50 >/dev/full");
	snprintf(cmds[1], sizeof cmds[1], "info --json " FIGURE2 " >/dev/full");
	snprintf(cmds[2], sizeof cmds[2], "eval " FIGURE2 " %s >/dev/full", p);
	snprintf(cmds[3], sizeof cmds[3], "solve --json " FIGURE2 " >/dev/full");
	snprintf(cmds[4], sizeof cmds[4], "--help >/dev/full");
	for (int i = 0; i < 5; i++) {
		char *err;
		int status = ts_runf(NULL, &err, "%s", cmds[i]);
		cr_expect_eq(status, 2, "'%s' exits %d", cmds[i], status);
		cr_expect(strncmp(err, "stagecut: ", 10) == 0 && strstr(err, "standard output"),
		          "'%s': stderr '%s'", cmds[i], err);
		free(err);
	}
}

/* ---- the examples of the man page and the README are what the program does */

/* The text of a man page line with groff's escapes for plain characters
 * undone (in place). */
static void ungroff(char *s)
{
	static const struct {
		const char *from, *to;
	} esc[] = {{"\\-", "-"}, {"\\(aq", "'"}, {"\\(dq", "\""}, {"\\e", "\\"}, {"\\~", " "}};
	char *w = s;
	for (const char *r = s; *r;) {
		size_t i, n = sizeof esc / sizeof esc[0];
		for (i = 0; i < n; i++)
			if (strncmp(r, esc[i].from, strlen(esc[i].from)) == 0)
				break;
		if (i < n) {
			size_t len = strlen(esc[i].to);
			memmove(w, esc[i].to, len);
			w += len;
			r += strlen(esc[i].from);
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Replaces every "in D.DD s" (solve's time, which varies) with "in T s". */
/* The seconds column of the bounds report: a number ending a line after a
 * rung's status. */
static void mask_rung_seconds(char *s)
{
	static const char *const st[] = {"optimal ", "time_limit ", "cancelled ", "error "};
	for (char *line = s; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char *end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		for (int i = 0; i < 4; i++) {
			char *p = strstr(line, st[i]);
			if (!p || p > end)
				continue;
			char *q = p + strlen(st[i]);
			while (*q == ' ')
				q++;
			char *digits = q;
			while (isdigit((unsigned char)*q) || *q == '.')
				q++;
			if (q > digits && q == end) {
				*digits = 'T';
				memmove(digits + 1, q, strlen(q) + 1);
			}
			break;
		}
	}
}

static void mask_seconds(char *s)
{
	mask_rung_seconds(s);
	for (char *p = strstr(s, " in "); p; p = strstr(p + 1, " in ")) {
		char *q = p + 4;
		char *digits = q;
		while (isdigit((unsigned char)*q) || *q == '.')
			q++;
		if (q > digits && strncmp(q, " s", 2) == 0) {
			*digits = 'T';
			memmove(digits + 1, q, strlen(q) + 1);
		}
	}
}

typedef struct doc_run {
	int examples, last_status;
	char prog[4096];
} doc_run;

/* Runs one example (cmd, then the text shown after it) in the scratch
 * directory, where "samples" links to the bundled samples. */
static void doc_example(doc_run *d, const char *doc, char *cmd, char *shown)
{
	if (strncmp(cmd, "cat ", 4) == 0) {
		char p[256];
		write_text(tpath(p, sizeof p, cmd + 4), shown);
		return;
	}
	if (strcmp(cmd, "echo $?") == 0) {
		cr_expect_eq(d->last_status, atoi(shown), "%s: exit status %d, shown %s", doc,
		             d->last_status, shown);
		return;
	}
	/* pipelines, continued lines and examples without output are not run */
	const char *args = strncmp(cmd, "./stagecut ", 11) == 0 ? cmd + 11
	                   : strncmp(cmd, "stagecut ", 9) == 0  ? cmd + 9
	                                                        : NULL;
	if (!args || strchr(cmd, '|') || cmd[strlen(cmd) - 1] == '\\' || !*shown)
		return;
	char full[8192], *out, *err;
	snprintf(full, sizeof full, "cd '%s' && '%s' %s", g_dir, d->prog, args);
	d->last_status = ts_run(full, &out, &err);
	mask_seconds(out);
	mask_seconds(shown);
	cr_expect_str_eq(out, shown, "%s: '$ %s' prints\n%s\nbut the example shows\n%s", doc, cmd,
	                 out, shown);
	free(out);
	free(err);
	d->examples++;
}

/* Finds the examples of doc: in the man page, the lines between .nf and
 * .fi; in the README, the blocks indented by four spaces.  A line "$ CMD"
 * starts an example and the lines up to the next "$ " or the end of the
 * block are what it prints. */
static int doc_examples(const char *doc, bool man)
{
	doc_run d = {0};
	cr_assert(realpath(ts_program(), d.prog), "no program at %s", ts_program());
	char cwd[4096], p[8400];
	cr_assert(getcwd(cwd, sizeof cwd));
	snprintf(p, sizeof p, "ln -s '%s/samples' '%s/samples'", cwd, g_dir);
	cr_assert_eq(system(p), 0);
	char *text = ts_slurp(doc, NULL);
	cr_assert(text, "cannot read %s", doc);
	char *cmd = NULL, shown[8192] = "";
	bool in_block = false;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		bool block_line;
		if (man) {
			if (strcmp(line, ".nf") == 0 || strcmp(line, ".fi") == 0) {
				in_block = strcmp(line, ".nf") == 0;
				block_line = false;
			} else {
				block_line = in_block && line[0] != '.';
				ungroff(line);
			}
		} else {
			/* a blank line stays in a block when the block goes on after it */
			block_line = strncmp(line, "    ", 4) == 0 ||
			             (!*line && cmd && next && strncmp(next, "    ", 4) == 0);
			if (block_line && *line)
				line += 4;
		}
		bool starts = block_line && strncmp(line, "$ ", 2) == 0;
		if (cmd && (!block_line || starts)) {
			size_t len = strlen(shown);
			while (len > 1 && shown[len - 1] == '\n' && shown[len - 2] == '\n')
				shown[--len] = '\0';
			doc_example(&d, doc, cmd, shown);
			cmd = NULL;
		}
		if (starts) {
			cmd = line + 2;
			shown[0] = '\0';
		} else if (cmd) {
			strncat(shown, line, sizeof shown - strlen(shown) - 2);
			strcat(shown, "\n");
		}
	}
	free(text);
	return d.examples;
}

Test(commands, man_page_examples_are_what_the_program_prints)
{
	int n = doc_examples(MAN_PAGE, true);
	cr_assert_geq(n, 4, "only %d examples of the man page were run", n);
}

Test(commands, readme_examples_are_what_the_program_prints)
{
	int n = doc_examples("README.md", false);
	cr_assert_geq(n, 3, "only %d examples of the README were run", n);
}

/* ---- long options may be abbreviated (stagecut(1), OPTIONS) ---------------- */

Test(commands, long_options_may_be_abbreviated)
{
	json_t *r = run_json(0, "info --js " FIGURE2 " --band 2 --memory-p hard --memory 5");
	json_t *set = jget(r, "settings");
	cr_assert(jnum(set, "bandwidth") == 2);
	cr_assert(jnum(set, "memory") == 5);
	cr_assert_str_eq(jstr(set, "memory_policy"), "hard");
	json_decref(r);
	/* an ambiguous prefix is refused, naming what it could mean */
	static const char *const cases[][3] = {
	        {"info " FIGURE2 " --mem 5", "--memory", "--memory-policy"},
	        {"solve " FIGURE2 " --e 5", "--evals", "--elite"},
	        {"solve " FIGURE2 " --p=5", "--population", "--partition"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err;
		cr_assert_eq(ts_runf(&out, &err, "%s", cases[i][0]), 2, "%s", cases[i][0]);
		cr_assert_str_empty(out);
		cr_assert(strstr(err, "ambiguous") && strstr(err, cases[i][1]) &&
		                  strstr(err, cases[i][2]),
		          "'%s': stderr %s", cases[i][0], err);
		free(out);
		free(err);
	}
}

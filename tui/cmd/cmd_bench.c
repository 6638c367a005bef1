/*
 * cmd_bench.c - `stagecut bench GRAPH... -k LIST`: a testbed run and its
 * tables (paper 000, Tables 1 and 2).
 *
 * An instance is one graph at one k.  Each runs every method of --methods
 * (without refinement, as the paper compares them) and then the ladder's
 * rungs against the best partition found, and its record, one JSON object,
 * is appended to the results file (-o, default stagecut-bench.jsonl) in a
 * single write as soon as it finishes.  A rerun with the same file skips
 * the instances recorded there with the same methods, rungs and time limit,
 * so an interrupted testbed resumes.  --jobs N forks N workers that take
 * instances in turn; --part I/N keeps every Nth instance (from the I-th) so
 * several machines can share a testbed, and --merge reads results files
 * (from all the parts) and prints the tables without running anything.
 *
 * ^C (or SIGTERM) stops the workers, which drop the instance they were on
 * (the engine kills its solver children), and the tables of what finished
 * are printed before exiting 130.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tui/ui.h"
#include "core/load.h"
#include "solvers/jobs.h"
#include "solvers/ladder.h"
#include "solvers/search.h"
#include "solvers/simple.h"

#define DEFAULT_METHODS "random-1,random-100,brkga-100,brkga-10000,mla,mla-weighted,dpl,exact"
#define DEFAULT_KS "2,4,8,16"
#define DEFAULT_RESULTS "stagecut-bench.jsonl"
#define MAX_METHODS 16
#define MAX_KS 32


static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct method {
	char name[32];  /* as given: "brkga-100" */
	char base[24];  /* the search method: "brkga" */
	long evals;     /* 0: the method's default */
} method;

typedef struct config {
	method m[MAX_METHODS];
	int nm;
	int k[MAX_KS];
	int nk;
	unsigned rungs;
	char rungs_text[128];
	double time_limit;
	char key[512]; /* what a record must match to count as done */
} config;

/* "name" or "name-EVALS" for every name in the list. */
static bool parse_methods(const char *list, config *c)
{
	int n;
	const sc_method_info *known = sc_search_methods(&n);
	char buf[512];
	snprintf(buf, sizeof buf, "%s", list);
	c->nm = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (c->nm == MAX_METHODS) {
			ui_error("bench: --methods: more than %d methods", MAX_METHODS);
			return false;
		}
		method *m = &c->m[c->nm];
		snprintf(m->name, sizeof m->name, "%s", t);
		snprintf(m->base, sizeof m->base, "%s", t);
		m->evals = 0;
		char *dash = strrchr(m->base, '-');
		if (dash && dash[1] && strspn(dash + 1, "0123456789") == strlen(dash + 1)) {
			m->evals = strtol(dash + 1, NULL, 10);
			*dash = '\0';
			if (m->evals < 1 || m->evals > 1000000000L) {
				ui_error("bench: --methods: '%s': the evaluation count must be 1 to 1e9", t);
				return false;
			}
		}
		bool found = false;
		for (int i = 0; i < n; i++)
			found = found || strcmp(known[i].name, m->base) == 0;
		if (!found || strcmp(m->base, "refine") == 0 || strcmp(m->base, "best") == 0) {
			ui_error("bench: --methods: unknown method '%s' (kahn, slice, random-T, brkga-T, "
			         "mla, mla-weighted, dpl, exact)",
			         t);
			return false;
		}
		c->nm++;
	}
	if (!c->nm) {
		ui_error("bench: --methods: no method named");
		return false;
	}
	return true;
}

static bool parse_ks(const char *list, config *c)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", list);
	c->nk = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		long k = strtol(t, &end, 10);
		if (*end || k < 1 || k > 1000000 || c->nk == MAX_KS) {
			ui_error("bench: -k: '%s' is not a list of up to %d integers from 1 to 1000000",
			         list, MAX_KS);
			return false;
		}
		c->k[c->nk++] = (int)k;
	}
	return c->nk > 0;
}

/* ---- instances ---------------------------------------------------------- */

typedef struct instance {
	char *path;
	int k;
} instance;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool graph_file(const char *name)
{
	const char *dot = strrchr(name, '.');
	return dot && (strcmp(dot, ".dot") == 0 || strcmp(dot, ".gv") == 0 ||
	               strcmp(dot, ".json") == 0);
}

/* Adds path, or the graph files of the directory path (sorted), to files. */
static bool add_path(const char *path, char ***files, int *n, int *cap)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		ui_error("bench: %s: %s", path, strerror(errno));
		return false;
	}
	char **found = NULL;
	int nf = 0;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (!d) {
			ui_error("bench: %s: %s", path, strerror(errno));
			return false;
		}
		for (struct dirent *e; (e = readdir(d));) {
			if (e->d_name[0] == '.' || !graph_file(e->d_name))
				continue;
			char **grown = realloc(found, (size_t)(nf + 1) * sizeof *found);
			if (!grown || asprintf(&grown[nf], "%s/%s", path, e->d_name) < 0) {
				closedir(d);
				ui_error("out of memory");
				return false;
			}
			found = grown;
			nf++;
		}
		closedir(d);
		qsort(found, (size_t)nf, sizeof *found, cmp_str);
		if (!nf)
			ui_error("bench: %s: no graph files (.dot, .gv, .json) in the directory; "
			         "going on with the others",
			         path);
	} else {
		found = malloc(sizeof *found);
		if (!found || !(found[0] = strdup(path))) {
			ui_error("out of memory");
			return false;
		}
		nf = 1;
	}
	for (int i = 0; i < nf; i++) {
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			char **grown = realloc(*files, (size_t)*cap * sizeof **files);
			if (!grown) {
				ui_error("out of memory");
				return false;
			}
			*files = grown;
		}
		(*files)[(*n)++] = found[i];
	}
	free(found);
	return true;
}

/* ---- running one instance ------------------------------------------------ */

/* Runs inst and returns its record (NULL when stopped). */
static json_t *run_instance(const instance *inst, const config *c, const ui_opts *o,
                            int mip_slots)
{
	json_t *rec = json_pack("{s:s, s:i, s:s}", "graph", inst->path, "k", inst->k, "config",
	                        c->key);
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g = sc_load(inst->path, &err);
	if (!g) {
		json_object_set_new(rec, "error", json_string(err.msg));
		return rec;
	}
	ui_opts_apply(o, &g->settings);
	sc_settings set = g->settings;
	set.k = inst->k;
	json_object_set_new(rec, "name", json_string(g->name));
	json_object_set_new(rec, "ops", json_integer(g->n));
	double simple = sc_bound_simple(g, inst->k);
	json_object_set_new(rec, "simple", json_real(simple));
	int *stage = malloc((size_t)(g->n ? g->n : 1) * sizeof *stage);
	int *best_stage = malloc((size_t)(g->n ? g->n : 1) * sizeof *best_stage);
	double best = INFINITY;
	bool optimal_dp = false;
	json_t *methods = json_object();
	json_object_set_new(rec, "methods", methods);
	for (int i = 0; i < c->nm && !ui_interrupted() && stage && best_stage; i++) {
		sc_search_params p;
		sc_search_params_init(&p);
		p.method = c->m[i].base;
		p.evals = c->m[i].evals;
		p.seed = o->seed;
		p.refine = false;
		p.time_limit = c->time_limit;
		double t0 = now();
		sc_search *s = sc_search_new(g, &set, &p, &err);
		json_t *row;
		if (!s) {
			row = json_pack("{s:n, s:s}", "bottleneck", "refused", err.msg);
		} else {
			while (!ui_interrupted() && sc_search_step(s))
				;
			bool optimal = false;
			double v = sc_search_result(s, stage, &optimal);
			if (sc_search_error(s))
				row = json_pack("{s:n, s:s}", "bottleneck", "refused",
				                sc_search_error(s)->msg);
			else
				row = json_pack("{s:o, s:f, s:b}", "bottleneck",
				                isfinite(v) ? json_real(v) : json_null(), "seconds",
				                now() - t0, "optimal", (int)optimal);
			if (isfinite(v) && v < best) {
				best = v;
				memcpy(best_stage, stage, (size_t)g->n * sizeof *stage);
			}
			optimal_dp = optimal_dp || (optimal && isfinite(v));
			sc_search_free(s);
		}
		json_object_set_new(methods, c->m[i].name, row);
	}
	double upper = best, lower = NAN;
	json_t *rungs = json_object();
	json_object_set_new(rec, "rungs", rungs);
	sc_engine *e = ui_interrupted() ? NULL : sc_engine_new(mip_slots, &err);
	sc_ladder *l = NULL;
	if (e) {
		sc_ladder_params lp = {.rungs = c->rungs,
		                       .time_limit = c->time_limit,
		                       .upper = best,
		                       .start = isfinite(best) ? best_stage : NULL};
		l = sc_ladder_new(e, g, &set, &lp, &err);
	}
	if (l) {
		bool cancelled = false;
		while (!sc_ladder_done(l)) {
			sc_engine_poll(e, 100, -1, NULL);
			sc_ladder_update(l);
			if (ui_interrupted() && !cancelled) {
				sc_ladder_cancel(l);
				cancelled = true;
			}
		}
		upper = sc_ladder_upper(l, stage);
		lower = sc_ladder_lower(l);
		for (int r = 0; r < SC_RUNG_COUNT; r++) {
			if (!(c->rungs & (1u << r)))
				continue;
			sc_rung_info ri;
			sc_ladder_info(l, (sc_rung)r, &ri);
			json_t *row = json_pack("{s:o, s:s, s:f}", "value",
			                        isfinite(ri.value) ? json_real(ri.value) : json_null(),
			                        "status", ui_rung_status_name(ri.state), "seconds",
			                        ri.seconds);
			if (ri.state == SC_RS_FAILED)
				json_object_set_new(row, "message", json_string(ri.message));
			json_object_set_new(rungs, sc_rung_name((sc_rung)r), row);
		}
	} else if (!ui_interrupted()) {
		json_object_set_new(rec, "error", json_string(err.msg));
	}
	sc_ladder_free(l);
	sc_engine_free(e);
	if (optimal_dp && isfinite(best) && !(lower >= best))
		lower = best; /* the exact DP is a proof */
	json_object_set_new(rec, "upper", isfinite(upper) ? json_real(upper) : json_null());
	json_object_set_new(rec, "lower", isfinite(lower) ? json_real(lower) : json_null());
	json_object_set_new(rec, "proven_optimal",
	                    json_boolean(isfinite(upper) && lower >= upper * (1 - 1e-9)));
	free(stage);
	free(best_stage);
	sc_graph_free(g);
	if (ui_interrupted()) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

/* Appends rec as one line to fd in one write (O_APPEND keeps the lines of
 * several workers whole). */
static bool append(int fd, json_t *rec)
{
	char *text = json_dumps(rec, JSON_COMPACT | JSON_REAL_PRECISION(17));
	if (!text)
		return false;
	size_t len = strlen(text);
	text[len] = '\n';
	bool ok = write(fd, text, len + 1) == (ssize_t)(len + 1);
	free(text);
	return ok;
}

/* ---- the results file --------------------------------------------------- */

typedef struct records {
	json_t **r;
	int n, cap;
} records;

/* Reads the records of path into rs (a missing file is empty).  A last
 * line without its newline is what an interrupted write leaves: ignored. */
static bool read_records(const char *path, records *rs, bool must_exist)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT && !must_exist)
			return true;
		ui_error("bench: %s: %s", path, strerror(errno));
		return false;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long no = 0;
	bool ok = true;
	while (ok && (len = getline(&line, &cap, f)) > 0) {
		no++;
		if (line[len - 1] != '\n')
			break;
		if (strspn(line, " \t\r\n") == (size_t)len)
			continue;
		json_error_t je;
		json_t *v = json_loads(line, 0, &je);
		if (!v || !json_is_object(v) || !json_is_string(json_object_get(v, "graph")) ||
		    !json_is_integer(json_object_get(v, "k")) ||
		    !json_is_string(json_object_get(v, "config"))) {
			ui_error("bench: %s:%ld: not a stagecut bench record%s%s", path, no,
			         v ? "" : ": ", v ? "" : je.text);
			json_decref(v);
			ok = false;
			break;
		}
		if (rs->n == rs->cap) {
			rs->cap = rs->cap ? 2 * rs->cap : 64;
			json_t **grown = realloc(rs->r, (size_t)rs->cap * sizeof *grown);
			if (!grown) {
				json_decref(v);
				ui_error("out of memory");
				ok = false;
				break;
			}
			rs->r = grown;
		}
		rs->r[rs->n++] = v;
	}
	if (ok && ferror(f)) {
		ui_error("bench: %s: cannot read", path);
		ok = false;
	}
	free(line);
	fclose(f);
	return ok;
}

static bool recorded(const records *rs, const instance *inst, const char *key)
{
	for (int i = 0; i < rs->n; i++)
		if (json_integer_value(json_object_get(rs->r[i], "k")) == inst->k &&
		    strcmp(json_string_value(json_object_get(rs->r[i], "graph")), inst->path) == 0 &&
		    strcmp(json_string_value(json_object_get(rs->r[i], "config")), key) == 0)
			return true;
	return false;
}

/* ---- tables -------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (!n)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The names of the members of `what` ("methods" or "rungs") over all
 * records, in first-seen order. */
static int names_of(const records *rs, const char *what, const char **names, int max)
{
	int n = 0;
	for (int i = 0; i < rs->n; i++) {
		const char *key;
		json_t *v;
		json_object_foreach(json_object_get(rs->r[i], what), key, v)
		{
			int j = 0;
			while (j < n && strcmp(names[j], key) != 0)
				j++;
			if (j == n && n < max)
				names[n++] = key;
		}
	}
	return n;
}

/* The distinct ks of the records, ascending. */
static int ks_of(const records *rs, int *ks, int max)
{
	int n = 0;
	for (int i = 0; i < rs->n; i++) {
		int k = (int)json_integer_value(json_object_get(rs->r[i], "k"));
		int j = 0;
		while (j < n && ks[j] != k)
			j++;
		if (j == n && n < max)
			ks[n++] = k;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && ks[j - 1] > ks[j]; j--) {
			int t = ks[j];
			ks[j] = ks[j - 1];
			ks[j - 1] = t;
		}
	return n;
}

static double num(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Geometric mean over the records at k of num/den, where num is the
 * member `name` of `what` (its field `field`) and den the record's `den`
 * ("upper" or "simple"), counting only positive finite ratios; *count gets
 * how many. */
static double geomean(const records *rs, int k, const char *what, const char *name,
                      const char *field, const char *den, int *count)
{
	double sum = 0;
	int n = 0;
	for (int i = 0; i < rs->n; i++) {
		json_t *r = rs->r[i];
		if (json_integer_value(json_object_get(r, "k")) != k)
			continue;
		double x = num(json_object_get(json_object_get(r, what), name), field);
		double d = num(r, den);
		if (isfinite(x) && isfinite(d) && x > 0 && d > 0) {
			sum += log(x / d);
			n++;
		}
	}
	*count = n;
	return n ? exp(sum / n) : NAN;
}

/* One table: a row per name of `what` (its `field` over the record's `den`,
 * geometric mean per k) into the JSON object table, printed under title
 * when print; ran[i] gets how many instances row i averaged over. */
static void ratio_table(const records *rs, const int *ks, int nk, const char *what,
                        const char *const *names, int n, const char *field, const char *den,
                        const char *title, const char *label, json_t *table, int *ran,
                        bool print)
{
	char b[32];
	if (print) {
		printf("%s\n%-14s", title, label);
		for (int j = 0; j < nk; j++)
			printf(" %9s", (snprintf(b, sizeof b, "k=%d", ks[j]), b));
	}
	for (int i = 0; i < n; i++) {
		json_t *row = json_object();
		json_object_set_new(table, names[i], row);
		if (print)
			printf("\n%-14s", names[i]);
		ran[i] = 0;
		for (int j = 0; j < nk; j++) {
			int cnt;
			double g = geomean(rs, ks[j], what, names[i], field, den, &cnt);
			ran[i] += cnt;
			snprintf(b, sizeof b, "%d", ks[j]);
			json_object_set_new(row, b, isnan(g) ? json_null() : json_real(g));
			if (print)
				printf(" %9s", isnan(g) ? "-" : (snprintf(b, sizeof b, "%.4f", g), b));
		}
	}
}

static json_t *tables(const records *rs, bool print)
{
	const char *methods[64], *rungs[8];
	int ks[64];
	int nm = names_of(rs, "methods", methods, 64);
	int nr = names_of(rs, "rungs", rungs, 8);
	int nk = ks_of(rs, ks, 64);
	json_t *root = json_object(), *t1 = json_object(), *t2 = json_object(),
	       *times = json_object(), *proven = json_object();
	json_object_set_new(root, "instances", json_integer(rs->n));
	json_object_set_new(root, "table1", t1);
	json_object_set_new(root, "table2", t2);
	json_object_set_new(root, "median_seconds", times);
	json_object_set_new(root, "proven_optimal", proven);
	int ran[64];
	char b[32];
	ratio_table(rs, ks, nk, "rungs", rungs, nr, "value", "upper",
	            "\nTable 1: lower bound / best partition (geometric mean over instances; 1 = "
	            "proven optimal)",
	            "rung", t1, ran, print);
	ratio_table(rs, ks, nk, "methods", methods, nm, "bottleneck", "simple",
	            "\n\nTable 2: bottleneck / simple lower bound (geometric mean over instances; "
	            "lower is better)",
	            "method", t2, ran, print);
	/* a method that refused some instances is averaged over fewer: say so */
	int usable = 0;
	for (int r = 0; r < rs->n; r++)
		usable += isfinite(num(rs->r[r], "simple")) && !json_object_get(rs->r[r], "error");
	for (int i = 0; i < nm; i++) {
		json_object_set_new(json_object_get(t2, methods[i]), "instances", json_integer(ran[i]));
		if (print && ran[i] < usable)
			printf("\n  (%s: over the %d of %d instances it ran on; it refused the others)",
			       methods[i], ran[i], usable);
	}
	/* running times, median over every instance */
	double *v = malloc((size_t)(rs->n ? rs->n : 1) * sizeof *v);
	if (print)
		printf("\n\nmedian seconds per instance\n");
	for (int pass = 0; pass < 2 && v; pass++) {
		const char *what = pass ? "rungs" : "methods";
		const char **names = pass ? rungs : methods;
		json_t *group = json_object();
		json_object_set_new(times, what, group);
		for (int i = 0; i < (pass ? nr : nm); i++) {
			int n = 0;
			for (int r = 0; r < rs->n; r++) {
				double s = num(json_object_get(json_object_get(rs->r[r], what), names[i]),
				               "seconds");
				if (isfinite(s))
					v[n++] = s;
			}
			double m = median(v, n);
			json_object_set_new(group, names[i], isnan(m) ? json_null() : json_real(m));
			if (print)
				printf("  %-6s %-14s %10s\n", pass ? "rung" : "method", names[i],
				       isnan(m) ? "-" : (snprintf(b, sizeof b, "%.3f", m), b));
		}
	}
	free(v);
	int all = 0, total = 0;
	if (print)
		printf("\nproven optimal:");
	for (int j = 0; j < nk; j++) {
		int p = 0, n = 0;
		for (int r = 0; r < rs->n; r++)
			if (json_integer_value(json_object_get(rs->r[r], "k")) == ks[j] &&
			    !json_object_get(rs->r[r], "error")) {
				n++;
				p += json_is_true(json_object_get(rs->r[r], "proven_optimal"));
			}
		snprintf(b, sizeof b, "%d", ks[j]);
		json_object_set_new(proven, b, json_pack("{s:i, s:i}", "proven", p, "of", n));
		all += p;
		total += n;
		if (print)
			printf(" k=%d %d/%d%s", ks[j], p, n, j + 1 < nk ? "," : "");
	}
	if (print)
		printf("; %d of %d instances\n", all, total);
	return root;
}

static int count_newlines(const char *buf, size_t len)
{
	int n = 0;
	for (const char *p = buf; (p = memchr(p, '\n', len - (size_t)(p - buf))) != NULL; p++)
		n++;
	return n;
}

/* ---- the command ------------------------------------------------------------ */

/* The workers' loop: worker w of n takes todo[w], todo[w + n], ... */
static void worker(const instance *todo, int ntodo, int w, int n, const config *c,
                   const ui_opts *o, int fd, int mip_slots)
{
	for (int i = w; i < ntodo && !ui_interrupted(); i += n) {
		json_t *rec = run_instance(&todo[i], c, o, mip_slots);
		if (rec && !append(fd, rec))
			_exit(3);
		json_decref(rec);
	}
}

int ui_cmd_bench(const ui_opts *o)
{
	config c = {0};
	records rs = {0};
	instance *todo = NULL;
	char **files = NULL;
	int nfiles = 0, capfiles = 0, ntodo = 0, status = UI_EXIT_OK;
	const char *results = o->output ? o->output : DEFAULT_RESULTS;
	if (o->merge) {
		for (int i = 0; i < o->npos; i++)
			if (!read_records(o->pos[i], &rs, true))
				return UI_EXIT_INPUT;
		if (!rs.n) {
			ui_error("bench: --merge: no records in the files given");
			status = UI_EXIT_INPUT;
			goto out;
		}
		json_t *t = tables(&rs, !o->json);
		if (o->json && !ui_print_json(t))
			status = UI_EXIT_INPUT;
		else if (!o->json)
			json_decref(t);
		goto out;
	}
	if (!o->npos) {
		ui_error("bench: give graph files or directories (or --merge RESULTS...)");
		return UI_EXIT_INPUT;
	}
	if (!parse_methods(o->methods ? o->methods : DEFAULT_METHODS, &c) ||
	    !parse_ks(o->klist ? o->klist : DEFAULT_KS, &c))
		return UI_EXIT_INPUT;
	c.rungs = (1u << SC_RUNG_SIMPLE) | (1u << SC_RUNG_BOTTLENECK) | (1u << SC_RUNG_GUESS) |
	          (1u << SC_RUNG_EXACT);
	if (o->rungs && !ui_parse_rungs(o->rungs, &c.rungs))
		return UI_EXIT_INPUT;
	c.time_limit = o->time_limit > 0 ? o->time_limit : 60;
	snprintf(c.key, sizeof c.key, "methods=%s;rungs=%s;time=%g;seed=%llu",
	         o->methods ? o->methods : DEFAULT_METHODS, o->rungs ? o->rungs : "all",
	         c.time_limit, (unsigned long long)o->seed);
	for (int i = 0; i < o->npos; i++)
		if (!add_path(o->pos[i], &files, &nfiles, &capfiles)) {
			status = UI_EXIT_INPUT;
			goto out;
		}
	if (!nfiles) {
		ui_error("bench: no graph files to run");
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (!read_records(results, &rs, false)) {
		status = UI_EXIT_INPUT;
		goto out;
	}
	int ninst = nfiles * c.nk, skipped = 0;
	todo = malloc((size_t)ninst * sizeof *todo);
	if (!todo) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	for (int i = 0; i < nfiles; i++)
		for (int j = 0; j < c.nk; j++) {
			int idx = i * c.nk + j;
			if (o->part_n > 0 && idx % o->part_n != o->part_i - 1)
				continue;
			instance inst = {files[i], c.k[j]};
			if (recorded(&rs, &inst, c.key))
				skipped++;
			else
				todo[ntodo++] = inst;
		}
	int fd = open(results, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		ui_error("bench: %s: %s", results, strerror(errno));
		status = UI_EXIT_INPUT;
		goto out;
	}
	bool tty = isatty(STDERR_FILENO);
	fprintf(stderr, "stagecut: bench: %d graph%s x %d k = %d instances%s, %d already in %s, %d to run\n",
	        nfiles, nfiles == 1 ? "" : "s", c.nk, ninst,
	        o->part_n > 0 ? " (before --part)" : "", skipped, results, ntodo);
	ui_interrupts saved;
	ui_catch_interrupts(&saved);
	int jobs = o->jobs > 0 ? o->jobs : 1;
	if (jobs > ntodo)
		jobs = ntodo ? ntodo : 1;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int slots = (int)(cores > jobs ? cores / jobs : 1);
	pid_t pids[256];
	int npids = 0;
	fflush(NULL);
	for (int w = 0; w < jobs && w < 256 && ntodo; w++) {
		pid_t pid = fork();
		if (pid == 0) {
			worker(todo, ntodo, w, jobs, &c, o, fd, slots);
			_exit(ui_interrupted() ? 130 : 0);
		}
		if (pid < 0) {
			ui_error("bench: cannot start a worker: %s", strerror(errno));
			ui_interrupt();
			break;
		}
		pids[npids++] = pid;
	}
	/* wait, showing progress from the results file's growth */
	int rfd = tty ? open(results, O_RDONLY | O_CLOEXEC) : -1, done = 0;
	off_t seen = rfd >= 0 ? lseek(rfd, 0, SEEK_END) : 0;
	int alive = npids, failed = 0;
	double t0 = now(), last = -1;
	bool forwarded = false;
	while (alive) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);
		if (p > 0) {
			alive--;
			if (!(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 130)))
				failed++;
			continue;
		}
		if (ui_interrupted() && !forwarded) {
			/* a signal sent to this process alone reaches the workers too */
			for (int i = 0; i < npids; i++)
				kill(pids[i], SIGTERM);
			forwarded = true;
		}
		if (tty && now() - last > 0.5) {
			/* each finished instance is one more line after where the
			 * file ended when the run began: count the new bytes' lines */
			char buf[4096];
			ssize_t got;
			while (rfd >= 0 && (got = pread(rfd, buf, sizeof buf, seen)) > 0) {
				seen += got;
				done += count_newlines(buf, (size_t)got);
			}
			fprintf(stderr, "\r\033[K[%d/%d] %.0f s", done, ntodo, now() - t0);
			last = now();
		}
		usleep(100000);
	}
	if (tty)
		fputs("\r\033[K", stderr);
	if (rfd >= 0)
		close(rfd);
	close(fd);
	ui_release_interrupts(&saved);
	if (failed) {
		ui_error("bench: %d worker%s failed (could not write %s?)", failed,
		         failed == 1 ? "" : "s", results);
		status = UI_EXIT_INPUT;
	}
	/* the tables of everything recorded for this configuration */
	for (int i = 0; i < rs.n; i++)
		json_decref(rs.r[i]);
	rs.n = 0;
	records all = {0};
	read_records(results, &all, false);
	for (int i = 0; i < all.n; i++) {
		json_t *r = all.r[i];
		bool mine = strcmp(json_string_value(json_object_get(r, "config")), c.key) == 0;
		bool listed = false;
		for (int j = 0; j < nfiles && mine && !listed; j++)
			listed = strcmp(json_string_value(json_object_get(r, "graph")), files[j]) == 0;
		if (mine && listed) {
			if (json_object_get(r, "error")) {
				ui_error("bench: %s", json_string_value(json_object_get(r, "error")));
				status = UI_EXIT_INPUT;
			}
			if (rs.n == rs.cap) {
				json_t **grown = realloc(rs.r, (size_t)(rs.cap ? 2 * rs.cap : 64) *
				                                       sizeof *rs.r);
				if (!grown) {
					json_decref(r);
					continue;
				}
				rs.r = grown;
				rs.cap = rs.cap ? 2 * rs.cap : 64;
			}
			rs.r[rs.n++] = json_incref(r);
		}
		json_decref(r);
	}
	free(all.r);
	json_t *t = tables(&rs, !o->json);
	if (o->json)
		ui_print_json(t);
	else
		json_decref(t);
	if (ui_interrupted()) {
		ui_error("bench: interrupted; %d instance%s recorded in %s, a rerun goes on from there",
		         rs.n, rs.n == 1 ? "" : "s", results);
		status = 130;
	}
out:
	for (int i = 0; i < rs.n; i++)
		json_decref(rs.r[i]);
	free(rs.r);
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	free(todo);
	return status;
}

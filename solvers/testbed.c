/*
 * testbed.c - a testbed's instances, records, resuming and tables.  See
 * testbed.h.
 *
 * Moved here from the bench command so that the tests can drive it and the
 * command keeps only what talks to a person: the worker processes, the
 * progress line, and printing the tables (computed in testbed_tables.c).  Records are
 * jansson objects from end to end: the results file is their text, and the
 * tables read them back by name, so a record from an older run with other
 * methods still counts where its members match.
 *
 * Longer than 600 lines: the configuration, the instance list, running an
 * instance (methods, then rungs) and the records file share the config and
 * record layout; the tables are already apart (testbed_tables.c).
 */
#define _GNU_SOURCE
#include "solvers/testbed.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/formats/load.h"
#include "core/partition.h"
#include "core/report.h"
#include "solvers/search.h"
#include "solvers/simple.h"

static sc_status nomem(sc_error *err)
{
	/* the command prints this one as it is, without its "bench: " */
	return sc_error_set(err, SC_ERR_NOMEM, "out of memory");
}

static bool asked_to_stop(sc_testbed_stop_fn *stop, void *ctx)
{
	return stop && stop(ctx);
}

/* ---- configuration ------------------------------------------------------ */

void sc_testbed_config_init(sc_testbed_config *c)
{
	memset(c, 0, sizeof *c);
	c->rungs = SC_RUNGS_ALL;
	c->time_limit = 60;
	c->seed = 1;
	c->memory = -1;
	c->policy = -1;
	c->schedule = -1;
}

sc_status sc_testbed_parse_methods(const char *list, sc_testbed_config *c, sc_error *err)
{
	int n;
	const sc_method_info *known = sc_search_methods(&n);
	char buf[512];
	snprintf(buf, sizeof buf, "%s", list);
	c->nm = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (c->nm == SC_TESTBED_MAX_METHODS)
			return sc_error_set(err, SC_ERR_INPUT, "--methods: more than %d methods",
			                    SC_TESTBED_MAX_METHODS);
		sc_testbed_method *m = &c->m[c->nm];
		snprintf(m->name, sizeof m->name, "%s", t);
		snprintf(m->base, sizeof m->base, "%s", t);
		m->evals = 0;
		char *dash = strrchr(m->base, '-');
		if (dash && dash[1] && strspn(dash + 1, "0123456789") == strlen(dash + 1)) {
			m->evals = strtol(dash + 1, NULL, 10);
			*dash = '\0';
			if (m->evals < 1 || m->evals > 1000000000L)
				return sc_error_set(
				        err, SC_ERR_INPUT,
				        "--methods: '%s': the evaluation count must be 1 to 1e9",
				        t);
		}
		bool found = false;
		for (int i = 0; i < n; i++)
			found = found || strcmp(known[i].name, m->base) == 0;
		if (!found || strcmp(m->base, "refine") == 0 || strcmp(m->base, "best") == 0)
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "--methods: unknown method '%s' (kahn, slice, random-T, "
			        "brkga-T, mla, mla-weighted, dpl, exact)",
			        t);
		c->nm++;
	}
	if (!c->nm)
		return sc_error_set(err, SC_ERR_INPUT, "--methods: no method named");
	return SC_OK;
}

sc_status sc_testbed_parse_ks(const char *list, sc_testbed_config *c, sc_error *err)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", list);
	c->nk = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		long k = strtol(t, &end, 10);
		if (*end || k < 1 || k > 1000000 || c->nk == SC_TESTBED_MAX_KS)
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "-k: '%s' is not a list of up to %d integers from 1 to 1000000",
			        list, SC_TESTBED_MAX_KS);
		for (int i = 0; i < c->nk; i++)
			if (c->k[i] == k)
				return sc_error_set(err, SC_ERR_INPUT,
				                    "-k: '%s' names k = %ld twice (each instance "
				                    "would run and count twice)",
				                    list, k);
		c->k[c->nk++] = (int)k;
	}
	if (!c->nk)
		return sc_error_set(
		        err, SC_ERR_INPUT,
		        "-k: '%s' names no k (give a comma-separated list such as 2,4,8)", list);
	return SC_OK;
}

void sc_testbed_config_key(sc_testbed_config *c, const char *methods, const char *rungs)
{
	/* a schedule given joins the key (the objective differs on training
	 * graphs); without one the keys stay as they were */
	int n = snprintf(
	        c->key, sizeof c->key, "methods=%s;rungs=%s;instance-time=%g;seed=%llu%s%s",
	        methods ? methods : SC_TESTBED_METHODS, rungs ? rungs : "all", c->time_limit,
	        (unsigned long long)c->seed, c->schedule >= 0 ? ";schedule=" : "",
	        c->schedule >= 0 ? sc_schedule_name((sc_schedule)c->schedule) : "");
	/* CPU stages and devices join the key too (001 section 3, fleet.h);
	 * without them it stays */
	if (c->cpus != 0 && n > 0 && (size_t)n < sizeof c->key) {
		if (c->cpus == SC_TESTBED_CPUS_FILE)
			n += snprintf(c->key + n, sizeof c->key - (size_t)n, ";cpus=file");
		else
			n += snprintf(c->key + n, sizeof c->key - (size_t)n, ";cpus=%d", c->cpus);
	}
	if (c->fleet.n > 0 && n > 0 && (size_t)n < sizeof c->key) {
		char spec[SC_KINDS_MAX * (SC_KIND_NAME + 12)];
		sc_fleet_format(&c->fleet, spec, sizeof spec);
		snprintf(c->key + n, sizeof c->key - (size_t)n, ";devices=%s", spec);
	}
}

/* ---- instances ---------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool graph_file(const char *name)
{
	const char *dot = strrchr(name, '.');
	return dot &&
	       (strcmp(dot, ".dot") == 0 || strcmp(dot, ".gv") == 0 || strcmp(dot, ".json") == 0);
}

static sc_status files_push(sc_testbed_files *f, char *path, sc_error *err)
{
	if (f->n == f->cap) {
		int cap = f->cap ? 2 * f->cap : 64;
		char **grown = realloc(f->path, (size_t)cap * sizeof *grown);
		if (!grown) {
			free(path);
			return nomem(err);
		}
		f->path = grown;
		f->cap = cap;
	}
	f->path[f->n++] = path;
	return SC_OK;
}

sc_status sc_testbed_add_path(sc_testbed_files *f, const char *path, int *added, sc_error *err)
{
	if (added)
		*added = 0;
	struct stat st;
	if (stat(path, &st) != 0)
		return sc_error_set(err, SC_ERR_IO, "%s: %s", path, strerror(errno));
	char **found = NULL;
	int nf = 0;
	sc_status status = SC_OK;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (!d)
			return sc_error_set(err, SC_ERR_IO, "%s: %s", path, strerror(errno));
		for (struct dirent *e; (e = readdir(d));) {
			if (e->d_name[0] == '.' || !graph_file(e->d_name))
				continue;
			char **grown = realloc(found, (size_t)(nf + 1) * sizeof *found);
			if (grown)
				found = grown;
			if (!grown || asprintf(&grown[nf], "%s/%s", path, e->d_name) < 0) {
				status = nomem(err);
				break;
			}
			nf++;
		}
		closedir(d);
		if (status == SC_OK)
			qsort(found, (size_t)nf, sizeof *found, cmp_str);
	} else {
		found = malloc(sizeof *found);
		if (!found || !(found[0] = strdup(path)))
			status = nomem(err);
		else
			nf = 1;
	}
	int i = 0;
	for (; i < nf && status == SC_OK; i++)
		status = files_push(f, found[i], err);
	for (; i < nf; i++)
		free(found[i]);
	free(found);
	if (status == SC_OK && added)
		*added = nf;
	return status;
}

void sc_testbed_files_fini(sc_testbed_files *f)
{
	for (int i = 0; i < f->n; i++)
		free(f->path[i]);
	free(f->path);
	memset(f, 0, sizeof *f);
}

/* ---- records ------------------------------------------------------------- */

sc_status sc_testbed_push(sc_testbed_records *rs, json_t *rec, sc_error *err)
{
	if (rs->n == rs->cap) {
		int cap = rs->cap ? 2 * rs->cap : 64;
		json_t **grown = realloc(rs->r, (size_t)cap * sizeof *grown);
		if (!grown) {
			json_decref(rec);
			return nomem(err);
		}
		rs->r = grown;
		rs->cap = cap;
	}
	rs->r[rs->n++] = rec;
	return SC_OK;
}

void sc_testbed_records_fini(sc_testbed_records *rs)
{
	for (int i = 0; i < rs->n; i++)
		json_decref(rs->r[i]);
	free(rs->r);
	memset(rs, 0, sizeof *rs);
}

/* Why record v's numbers cannot be a bench run's (into why, size bytes):
 * k from 1 to 1000000; upper and lower null or finite numbers >= 0 with
 * lower <= upper; upper not below the simple bound (a lower bound).
 * False when they can. */
static bool record_is_odd(json_t *v, char *why, size_t size)
{
	json_int_t k = json_integer_value(json_object_get(v, "k"));
	json_t *up = json_object_get(v, "upper"), *lo = json_object_get(v, "lower");
	json_t *simple = json_object_get(v, "simple");
	double u = json_is_number(up) ? json_number_value(up) : NAN;
	double l = json_is_number(lo) ? json_number_value(lo) : NAN;
	const double tol = 1e-9;
	if (k < 1 || k > 1000000)
		snprintf(why, size, "k %lld is not from 1 to 1000000", (long long)k);
	else if ((up && !json_is_null(up) && !json_is_number(up)) ||
	         (json_is_number(up) && !(u >= 0)))
		snprintf(why, size, "\"upper\" is not a number >= 0 or null");
	else if ((lo && !json_is_null(lo) && !json_is_number(lo)) ||
	         (json_is_number(lo) && !(l >= 0)))
		snprintf(why, size, "\"lower\" is not a number >= 0 or null");
	else if (json_is_number(up) && json_is_number(lo) && l > u * (1 + tol) + tol)
		snprintf(why, size, "\"lower\" %g exceeds \"upper\" %g", l, u);
	else if (json_is_number(up) && json_is_number(simple) &&
	         u < json_number_value(simple) * (1 - tol) - tol)
		snprintf(why, size, "\"upper\" %g is below the simple bound %g", u,
		         json_number_value(simple));
	else
		return false;
	return true;
}

sc_status sc_testbed_read(const char *path, bool must_exist, sc_testbed_records *rs, sc_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT && !must_exist)
			return SC_OK;
		return sc_error_set(err, SC_ERR_IO, "%s: %s", path, strerror(errno));
	}
	/* records live in regular files: a device (/dev/zero, /dev/full) or a
	 * FIFO holds none to resume from, and reading /dev/zero by lines never
	 * ended (21.7 GB) */
	struct stat sb;
	if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
		fclose(f);
		if (!must_exist)
			return SC_OK;
		return sc_error_set(err, SC_ERR_INPUT, "%s: not a results file (a regular file)",
		                    path);
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long no = 0;
	sc_status status = SC_OK;
	while (status == SC_OK && (len = getline(&line, &cap, f)) > 0) {
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
			status = sc_error_set(err, SC_ERR_INPUT,
			                      "%s:%ld: not a stagecut bench record%s%s", path, no,
			                      v ? "" : ": ", v ? "" : je.text);
			json_decref(v);
			break;
		}
		char why[160];
		if (record_is_odd(v, why, sizeof why)) {
			status = sc_error_set(err, SC_ERR_INPUT,
			                      "%s:%ld: not a stagecut bench record: %s", path, no,
			                      why);
			json_decref(v);
			break;
		}
		status = sc_testbed_push(rs, v, err);
	}
	if (status == SC_OK && ferror(f))
		status = sc_error_set(err, SC_ERR_IO, "%s: cannot read", path);
	free(line);
	fclose(f);
	return status;
}

bool sc_testbed_recorded(const sc_testbed_records *rs, const sc_testbed_instance *inst,
                         const char *key)
{
	for (int i = 0; i < rs->n; i++)
		if (json_integer_value(json_object_get(rs->r[i], "k")) == inst->k &&
		    strcmp(json_string_value(json_object_get(rs->r[i], "graph")), inst->path) ==
		            0 &&
		    strcmp(json_string_value(json_object_get(rs->r[i], "config")), key) == 0)
			return true;
	return false;
}

int sc_testbed_plan(const sc_testbed_files *files, const sc_testbed_config *c, int part_i,
                    int part_n, const sc_testbed_records *done, sc_testbed_instance *todo,
                    int *skipped)
{
	int n = 0;
	*skipped = 0;
	for (int i = 0; i < files->n; i++)
		for (int j = 0; j < c->nk; j++) {
			int idx = i * c->nk + j;
			if (part_n > 0 && idx % part_n != part_i - 1)
				continue;
			sc_testbed_instance inst = {files->path[i], c->k[j]};
			if (sc_testbed_recorded(done, &inst, c->key))
				(*skipped)++;
			else
				todo[n++] = inst;
		}
	return n;
}

sc_status sc_testbed_select(const sc_testbed_records *all, const char *key,
                            const sc_testbed_files *files, sc_testbed_records *out, sc_error *err)
{
	for (int i = 0; i < all->n; i++) {
		json_t *r = all->r[i];
		if (strcmp(json_string_value(json_object_get(r, "config")), key) != 0)
			continue;
		bool listed = false;
		for (int j = 0; j < files->n && !listed; j++)
			listed = strcmp(json_string_value(json_object_get(r, "graph")),
			                files->path[j]) == 0;
		if (listed && sc_testbed_push(out, json_incref(r), err) != SC_OK)
			return err->code;
	}
	return SC_OK;
}

sc_status sc_testbed_append(int fd, const json_t *rec, sc_error *err)
{
	char *text = sc_json_dumps(rec, JSON_COMPACT | JSON_REAL_PRECISION(17));
	if (!text)
		return nomem(err);
	size_t len = strlen(text);
	text[len] = '\n'; /* over the terminating NUL: written by length */
	bool ok = write(fd, text, len + 1) == (ssize_t)(len + 1);
	free(text);
	return ok ? SC_OK : sc_error_set(err, SC_ERR_IO, "cannot write a record");
}

/* ---- running one instance ------------------------------------------------ */

/* One instance's run: the caller's stop and phase callbacks, and its
 * deadlines (testbed.h, "the time budget"). */
typedef struct run_ctx {
	sc_testbed_stop_fn *stop;
	sc_testbed_phase_fn *phase;
	void *ctx;
	double end;  /* t0 + the time limit */
	double hard; /* end + SC_TESTBED_GRACE: the ladder is cancelled there */
	const sc_ladder *ladder;
	char said[96]; /* the phase last reported */
} run_ctx;

static void say(run_ctx *r, const char *phase)
{
	if (!r->phase || strcmp(r->said, phase) == 0)
		return;
	snprintf(r->said, sizeof r->said, "%s", phase);
	r->phase(r->ctx, phase);
}

static bool run_stopped(void *ctx)
{
	run_ctx *r = ctx;
	return asked_to_stop(r->stop, r->ctx);
}

/* The ladder's stop: the caller's, or the instance's hard deadline; also
 * reports which rungs run. */
static bool ladder_stop(void *ctx)
{
	run_ctx *r = ctx;
	char phase[96] = "", part[48];
	for (int i = SC_RUNG_BOTTLENECK; r->ladder && i < SC_RUNG_COUNT; i++) {
		sc_rung_info ri;
		sc_ladder_info(r->ladder, (sc_rung)i, &ri);
		if (ri.state != SC_RS_RUNNING)
			continue;
		if (i == SC_RUNG_GUESS)
			snprintf(part, sizeof part, "%sguess %d/%d", *phase ? ", " : "",
			         ri.parts_done + 1, ri.parts);
		else
			snprintf(part, sizeof part, "%s%s", *phase ? ", " : "",
			         sc_rung_name((sc_rung)i));
		strncat(phase, part, sizeof phase - strlen(phase) - 1);
	}
	if (*phase) {
		char text[112];
		snprintf(text, sizeof text, "rung %s", phase);
		say(r, text);
	}
	return asked_to_stop(r->stop, r->ctx) || sc_clock_now() > r->hard;
}

/* The MIP rungs of mask (every rung but simple takes time). */
static int timed_rungs(unsigned mask)
{
	int n = 0;
	for (int i = SC_RUNG_BOTTLENECK; i < SC_RUNG_COUNT; i++)
		n += (mask >> i) & 1u;
	return n;
}

/* Each method without refinement, as the paper compares them, each given
 * an even share of the time left until methods_end; the best partition
 * found goes to best_stage.  Returns its bottleneck (INFINITY when none);
 * *optimal_dp tells whether a method proved its result optimal, *none_dp
 * whether one proved that no partition fits (the exact DP finding none). */
static double run_methods(const sc_graph *g, const sc_settings *set, const sc_testbed_config *c,
                          double methods_end, json_t *methods, int *stage, int *best_stage,
                          int *kind, int *best_kind, bool *optimal_dp, bool *none_dp, run_ctx *r)
{
	double best = INFINITY;
	sc_error err;
	sc_error_clear(&err);
	for (int i = 0; i < c->nm && !run_stopped(r); i++) {
		sc_search_params p;
		sc_search_params_init(&p);
		p.method = c->m[i].base;
		p.evals = c->m[i].evals;
		p.seed = c->seed;
		p.refine = false;
		double t0 = sc_clock_now();
		/* a method done early leaves its time to the ones after it */
		p.time_limit = fmax((methods_end - t0) / (c->nm - i), SC_TESTBED_MIN_SHARE);
		p.dp_memory = c->dp_memory;
		p.stop = run_stopped;
		p.stop_ctx = r;
		say(r, c->m[i].name);
		sc_search *s = sc_search_new(g, set, &p, &err);
		json_t *row;
		if (!s) {
			row = json_pack("{s:n, s:s}", "bottleneck", "refused", err.msg);
		} else {
			while (!run_stopped(r) && sc_search_step(s))
				;
			bool optimal = false;
			double v = sc_search_result_kinds(s, stage, kind, &optimal);
			if (sc_search_error(s))
				row = json_pack("{s:n, s:s}", "bottleneck", "refused",
				                sc_search_error(s)->msg);
			else
				row = json_pack("{s:o, s:f, s:b}", "bottleneck",
				                isfinite(v) ? json_real(v) : json_null(), "seconds",
				                sc_clock_now() - t0, "optimal", (int)optimal);
			if (isfinite(v) && v < best) {
				best = v;
				memcpy(best_stage, stage, (size_t)g->n * sizeof *stage);
				memcpy(best_kind, kind,
				       (size_t)sc_settings_stages(set) * sizeof *kind);
			}
			*optimal_dp = *optimal_dp || (optimal && isfinite(v));
			*none_dp = *none_dp || (optimal && !isfinite(v));
			sc_search_free(s);
		}
		json_object_set_new(methods, c->m[i].name, row);
	}
	return best;
}

json_t *sc_testbed_run(const sc_testbed_instance *inst, const sc_testbed_config *c, int mip_slots,
                       sc_testbed_stop_fn *stop, sc_testbed_phase_fn *phase, void *ctx)
{
	double t_start = sc_clock_now();
	int nmip = timed_rungs(c->rungs);
	run_ctx run = {.stop = stop, .phase = phase, .ctx = ctx};
	run.end = t_start + c->time_limit;
	run.hard = run.end + SC_TESTBED_GRACE;
	/* the methods' share: half of the budget when MIP rungs follow */
	double methods_end = t_start + c->time_limit * (nmip ? SC_TESTBED_METHODS_SHARE : 1);
	json_t *rec =
	        json_pack("{s:s, s:i, s:s}", "graph", inst->path, "k", inst->k, "config", c->key);
	sc_error err;
	sc_error_clear(&err);
	say(&run, "loading");
	sc_graph *g = sc_load(inst->path, &err);
	if (!g) {
		json_object_set_new(rec, "error", json_string(err.msg));
		return rec;
	}
	if (c->bandwidth > 0)
		g->settings.bandwidth = c->bandwidth;
	if (c->memory >= 0)
		g->settings.memory = c->memory;
	if (c->policy >= 0)
		g->settings.policy = (sc_mem_policy)c->policy;
	if (c->schedule >= 0)
		g->settings.schedule = (sc_schedule)c->schedule;
	/* -B or -M may make costs too large to compute with where the file's
	 * settings did not: the same check as every command's */
	if (sc_graph_check_totals(g, &g->settings, &err) != SC_OK) {
		json_object_set_new(rec, "error", json_string(err.msg));
		sc_graph_free(g);
		return rec;
	}
	sc_settings set = g->settings;
	set.k = inst->k;
	set.cpus = c->cpus == SC_TESTBED_CPUS_FILE ? (g->max_cpus > 0 ? g->max_cpus : 0) : c->cpus;
	sc_fleet fleet;
	if (c->fleet.n > 0) {
		/* the devices, bound to this graph's op times (a kind it has
		 * none for is this instance's error) */
		set.fleet = &c->fleet;
		set.cpus = 0;
		if (!sc_fleet_resolve(g, &set, &fleet, &err)) {
			json_object_set_new(rec, "error", json_string(err.msg));
			sc_graph_free(g);
			return rec;
		}
	}
	int K = sc_settings_stages(&set);
	json_object_set_new(rec, "name", json_string(g->name));
	json_object_set_new(rec, "ops", json_integer(g->n));
	double simple = sc_bound_simple(g, inst->k);
	if (set.fleet) {
		char spec[SC_KINDS_MAX * (SC_KIND_NAME + 12)];
		sc_fleet_format(&c->fleet, spec, sizeof spec);
		json_object_set_new(rec, "devices", json_string(spec));
		simple = sc_bound_simple_kinds(g, &fleet);
	} else if (set.cpus > 0) {
		/* only with CPU stages: a record without them is as it was */
		json_object_set_new(rec, "cpus", json_integer(set.cpus));
		if (sc_bound_simple_cpus(g, sc_stages_useful(g, inst->k), set.cpus, &simple,
		                         &err) != SC_OK)
			simple = NAN;
	}
	json_object_set_new(rec, "simple", isfinite(simple) ? json_real(simple) : json_null());
	int *stage = sc_part_new(g);
	int *best_stage = sc_part_new(g);
	int *kind = calloc((size_t)K, sizeof *kind);
	int *best_kind = calloc((size_t)K, sizeof *best_kind);
	bool optimal_dp = false, none_dp = false;
	json_t *methods = json_object();
	json_object_set_new(rec, "methods", methods);
	double best = INFINITY;
	if (stage && best_stage && kind && best_kind)
		best = run_methods(g, &set, c, methods_end, methods, stage, best_stage, kind,
		                   best_kind, &optimal_dp, &none_dp, &run);
	double upper = best, lower = NAN;
	json_t *rungs = json_object();
	json_object_set_new(rec, "rungs", rungs);
	sc_engine *e = run_stopped(&run) ? NULL : sc_engine_new(mip_slots, &err);
	sc_ladder *l = NULL;
	if (e) {
		/* the MIP rungs share what is left evenly, each under the
		 * ladder's whole-rung deadline, less the time a rung takes to
		 * stop past it (CBC's last node, the solver's exit) */
		double share = (run.end - sc_clock_now()) / (nmip ? nmip : 1);
		share -= fmin(SC_TESTBED_RUNG_OVERRUN, share / 4);
		sc_ladder_params lp = {.rungs = c->rungs,
		                       .time_limit = fmax(share, SC_TESTBED_MIN_SHARE),
		                       .upper = best,
		                       .start = isfinite(best) ? best_stage : NULL,
		                       .start_kind = isfinite(best) && (set.cpus > 0 || set.fleet)
		                                             ? best_kind
		                                             : NULL,
		                       /* Table 1 needs every rung's value */
		                       .stop_at_proof = false};
		say(&run, "rungs");
		l = sc_ladder_new(e, g, &set, &lp, &err);
	}
	if (l) {
		run.ladder = l;
		sc_ladder_wait(e, l, ladder_stop, &run);
		run.ladder = NULL;
		upper = sc_ladder_upper(l, stage);
		lower = sc_ladder_lower(l);
		for (int r = 0; r < SC_RUNG_COUNT; r++) {
			if (!(c->rungs & (1u << r)))
				continue;
			sc_rung_info ri;
			sc_ladder_info(l, (sc_rung)r, &ri);
			json_t *row = json_pack(
			        "{s:o, s:s, s:f}", "value",
			        isfinite(ri.value) ? json_real(ri.value) : json_null(), "status",
			        sc_rung_report_name(ri.state), "seconds", ri.seconds);
			json_object_set_new(row, "infeasible", json_boolean(isinf(ri.value)));
			if (ri.state == SC_RS_FAILED)
				json_object_set_new(row, "message", json_string(ri.message));
			json_object_set_new(rungs, sc_rung_name((sc_rung)r), row);
		}
	} else if (!run_stopped(&run)) {
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
	/* no partition fits, proven (a rung's bound is infinite, or the exact
	 * DP found none): not the same as none found */
	bool none = !isfinite(upper) && (isinf(lower) || (none_dp && !isfinite(best)));
	json_object_set_new(rec, "none_fits", json_boolean(none));
	json_object_set_new(rec, "seconds", json_real(sc_clock_now() - t_start));
	free(stage);
	free(best_stage);
	free(kind);
	free(best_kind);
	sc_graph_free(g);
	if (run_stopped(&run)) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

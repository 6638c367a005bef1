/*
 * ui.c - what both rooms of tui/ share.  See ui.h.
 */
#include "ui.h"

#include "core/training.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/formats/load.h"
#include "core/formats/partition_file.h"
#include "core/parse.h"
#include "core/partition.h"
#include "core/report.h"

/* Messages and reports quote names and values from the input, which may
 * hold newlines, control characters (ESC starts a terminal escape, and so
 * does U+009B, CSI, on terminals that take the C1 controls U+0080-U+009F
 * in UTF-8) or bytes that are not UTF-8: print those escaped (\n, \t,
 * \xHH for each byte: a C1 control is \xc2\xHH) so that a line is always
 * exactly one line of plain text. */
static void put_escaped(const char *text, FILE *f)
{
	const unsigned char *s = (const unsigned char *)text;
	while (*s) {
		int len = sc_utf8_length((const char *)s);
		if (len == 1 && *s >= 0x20 && *s != 0x7f) {
			fputc(*s, f);
		} else if (len == 2 && s[0] == 0xc2 && s[1] <= 0x9f) {
			fprintf(f, "\\x%02x\\x%02x", s[0], s[1]); /* C1 control */
			s++;
		} else if (len > 1) {
			fwrite(s, 1, (size_t)len, f);
			s += len - 1;
		} else if (*s == '\n') {
			fputs("\\n", f);
		} else if (*s == '\t') {
			fputs("\\t", f);
		} else if (*s == '\r') {
			fputs("\\r", f);
		} else {
			fprintf(f, "\\x%02x", *s);
		}
		s++;
	}
}

/* Formats fmt and prints it escaped to f, then a newline. */
static void vput_line(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	char small[1024], *text = small;
	va_list again;
	va_copy(again, ap);
	/* names quoted '%s' bounded (sc_msg_vformat) */
	int len = sc_msg_vformat(small, sizeof small, fmt, ap);
	if (len >= (int)sizeof small && (text = malloc((size_t)len + 1)) != NULL)
		sc_msg_vformat(text, (size_t)len + 1, fmt, again);
	va_end(again);
	if (!text)
		text = small; /* out of memory: the line stays cut short */
	fputs(prefix, f);
	put_escaped(len < 0 ? fmt : text, f);
	fputc('\n', f);
	if (text != small)
		free(text);
}

void ui_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vput_line(stderr, "stagecut: ", fmt, ap);
	va_end(ap);
}

void ui_print_line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vput_line(stdout, "", fmt, ap);
	va_end(ap);
}

void ui_opts_apply(const ui_opts *o, sc_settings *s)
{
	if (o->k > 0)
		s->k = o->k;
	if (o->bandwidth > 0)
		s->bandwidth = o->bandwidth;
	if (o->memory >= 0)
		s->memory = o->memory;
	if (o->policy >= 0)
		s->policy = (sc_mem_policy)o->policy;
	if (o->schedule >= 0)
		s->schedule = (sc_schedule)o->schedule;
	if (o->cpus >= 0)
		s->cpus = o->cpus;
	if (o->batches > 0)
		s->microbatches = o->batches;
	/* --devices: the fleet's stages, no CPU count beside it */
	if (o->devices) {
		s->fleet = &o->fleet;
		s->k = sc_fleet_stages(&o->fleet);
		s->cpus = 0;
	}
}

bool ui_cpus_settings(sc_graph *g, const ui_opts *o)
{
	if (o->cpus == UI_CPUS_FILE) {
		if (g->max_cpus < 0) {
			ui_error("--cpus file: %s gives no number of CPUs (maxCPUs); give --cpus L",
			         g->source);
			return false;
		}
		g->settings.cpus = g->max_cpus;
	}
	if (g->settings.cpus > 0 && sc_graph_is_training(g) &&
	    g->settings.schedule == SC_SCHEDULE_GPIPE && !o->gpipe_cpus) {
		ui_error("--cpus: this command does not take CPU stages under the GPipe schedule "
		         "yet (solve and bounds do); use --schedule 1f1b");
		return false;
	}
	return true;
}

/* CPU stages (001 section 3) on a loaded graph: --cpus file takes the file's
 * maxCPUs; a graph with ops no accelerator may hold needs CPU stages; under
 * the GPipe schedule only solve and bounds take them yet.  False after a
 * message. */
static bool check_cpus(sc_graph *g, const ui_opts *o)
{
	if (!ui_cpus_settings(g, o))
		return false;
	/* (with --devices the fleet decides where such an op may go) */
	if (g->accel_refused > 0 && g->settings.cpus == 0 && !o->devices) {
		int v = 0;
		while (sc_graph_accel_ok(g, v))
			v++;
		ui_error("%s: node '%s' is not supported on an accelerator; only a CPU stage may "
		         "hold it (give --cpus L)",
		         g->source, g->op_name[v]);
		return false;
	}
	return true;
}

void ui_search_params(const ui_opts *o, sc_search_params *p)
{
	sc_search_params_init(p);
	if (o->method)
		p->method = o->method;
	p->seed = o->seed;
	/* no time limit: -t is the whole command's budget, which each command
	 * shares out between its search and the rest (solve, bounds) */
	p->evals = o->evals;
	p->population = o->population;
	p->generations = o->generations;
	if (o->elite >= 0)
		p->elite = o->elite;
	if (o->mutants >= 0)
		p->mutants = o->mutants;
	if (o->bias >= 0)
		p->bias = o->bias;
	if (o->ideal_limit > 0)
		p->ideal_limit = o->ideal_limit;
	p->refine = !o->no_refine;
}

int ui_exit_status(sc_status st)
{
	return st == SC_ERR_INVALID ? UI_EXIT_INFEASIBLE : UI_EXIT_INPUT;
}

sc_graph *ui_load(const char *path, const ui_opts *o, int *status)
{
	sc_onnx_report rep = {0};
	sc_graph *g = ui_load_report(path, o, &rep, status);
	sc_onnx_report_fini(&rep);
	return g;
}

/* names[0..n) (each followed by " (the output of 'OF')" when of is given)
 * joined by ", " into list, cut after about 400 characters with ", ...";
 * a long name is bounded as messages bound quoted names (sc_msg_name).
 * size must exceed 400 + 2 * SC_MSG_NAME_MAX + 80. */
static void name_list(char *list, size_t size, char *const *names, char *const *of, int n)
{
	size_t at = 0;
	list[0] = '\0';
	for (int i = 0; i < n && at < 400; i++) {
		char one[SC_MSG_NAME_MAX + 40], from[SC_MSG_NAME_MAX + 40];
		at += (size_t)snprintf(list + at, size - at,
		                       of ? "%s%s (the output of %s)" : "%s%s", i ? ", " : "",
		                       sc_msg_name(one, sizeof one, names[i]),
		                       of ? sc_msg_name(from, sizeof from, of[i]) : "");
	}
	if (at >= 400 && at < size)
		snprintf(list + at, size - at, ", ...");
}

static void warn_onnx(const char *path, const ui_opts *o, const sc_onnx_report *r)
{
	char list[400 + 2 * SC_MSG_NAME_MAX + 120];
	if (r->nunknown > 0) {
		name_list(list, sizeof list, r->unknown, NULL, r->nunknown);
		ui_error("warning: %s: %d op%s of unknown shape or type cost 0 (work and out; "
		         "their weights stay param): %s",
		         path, r->nunknown, r->nunknown == 1 ? "" : "s", list);
	}
	if (r->nunresolved > 0) {
		name_list(list, sizeof list, r->unresolved_dim, r->unresolved_op, r->nunresolved);
		ui_error("warning: %s: dim%s %s cannot be derived from the inputs' dims: the "
		         "ops that need %s cost 0 (give --dim NAME=N)",
		         path, r->nunresolved == 1 ? "" : "s", list,
		         r->nunresolved == 1 ? "it" : "them");
	}
	if (r->nonce > 0) {
		name_list(list, sizeof list, r->once, NULL, r->nonce);
		ui_error("warning: %s: the trip count of %s is not a constant: %s costed for one "
		         "iteration",
		         path, list, r->nonce == 1 ? "its body is" : "their bodies are");
	}
	for (int i = 0; i < o->ndims; i++) {
		int used = -1;
		for (int j = 0; j < r->ndims && used < 0; j++)
			if (strcmp(r->dim_name[j], o->dim_name[i]) == 0)
				used = j;
		if (used < 0)
			ui_error("warning: %s: --dim %s: the model has no dimension of that name",
			         path, o->dim_name[i]);
		else if (r->dim_from[used])
			ui_error(
			        "warning: %s: --dim %s=%lld changes nothing: shape inference "
			        "derives "
			        "%s from the inputs' dims (%lld, at op '%s'); set the inputs' dims "
			        "instead",
			        path, o->dim_name[i], (long long)o->dim_value[i], o->dim_name[i],
			        r->dim_value[used], r->dim_from[used]);
	}
}

double ui_deadline(const ui_opts *o)
{
	return o->time_limit > 0 ? o->started + o->time_limit : 0;
}

ui_budget ui_budget_of(const ui_opts *o)
{
	return (ui_budget){
	        .deadline = ui_deadline(o),
	        .search = o->search_time > 0 ? o->search_time : o->time_limit / 4,
	        .rung = o->rung_time > 0 ? o->rung_time : o->time_limit,
	};
}

double ui_budget_search_now(const ui_budget *b)
{
	double left = b->deadline > 0 ? b->deadline - sc_clock_now() : INFINITY;
	double limit = b->search > 0 ? fmin(b->search, left) : left;
	return isfinite(limit) ? fmax(0.1, limit) : 0;
}

sc_graph *ui_load_file(const char *path, const ui_opts *o, sc_onnx_report *report, sc_error *err)
{
	const char *names[UI_MAX_DIMS];
	for (int i = 0; i < o->ndims; i++)
		names[i] = o->dim_name[i];
	/* --devices: each kind with its profile and measured times, which the
	 * loader gives it (sc_load_kinds) */
	sc_load_kind kinds[SC_KINDS_MAX];
	int nkinds = o->devices ? o->fleet.n : 0;
	for (int d = 0; d < nkinds; d++)
		kinds[d] = (sc_load_kind){
		        .name = o->fleet.kind[d].name,
		        .profile = o->devfile.profile[d][0] ? o->devfile.profile[d] : NULL,
		        .times = o->kind_times[d],
		        .from = o->devices_file ? o->devices : NULL,
		        .refuse = o->devfile.refuse[d][0] ? o->devfile.refuse[d] : NULL};
	sc_load_opts lo = {.device = o->device,
	                   .precision = o->precision,
	                   .times = o->times,
	                   .nkinds = nkinds,
	                   .kinds = kinds,
	                   .ndims = o->ndims,
	                   .dim_name = names,
	                   .dim_value = o->dim_value,
	                   .report = report,
	                   .deadline = ui_deadline(o)};
	sc_graph *g = sc_load_with(path, &lo, err);
	if (g && report->filled)
		warn_onnx(path, o, report);
	return g;
}

/* --devices on a loaded graph (each kind's op times were loaded with it,
 * ui_load_file): the fleet checked against the graph.  False after a
 * message. */
static bool load_kinds(sc_graph *g, const ui_opts *o)
{
	if (!o->devices)
		return true;
	sc_error err;
	sc_fleet f;
	if (!sc_fleet_resolve(g, &g->settings, &f, &err)) {
		ui_error("--devices: %s", err.msg);
		return false;
	}
	return true;
}

bool ui_graph_devices(sc_graph *g, const ui_opts *o)
{
	return ui_cpus_settings(g, o) && load_kinds(g, o);
}

/* --memory-reserve: what the runtime takes, out of every device's memory
 * (the settings' and each kind's own). */
static void take_reserve(sc_graph *g, const ui_opts *o)
{
	if (o->reserve <= 0)
		return;
	g->settings.memory = fmax(0, g->settings.memory - o->reserve);
	for (int i = 0; i < g->nkinds; i++)
		if (g->kind_memory[i] == g->kind_memory[i])
			g->kind_memory[i] = fmax(0, g->kind_memory[i] - o->reserve);
}

/* --training: g's training graph in place of g (training.h), the backward
 * work by op kind where report knows the ops' kinds; NULL after a
 * message (g freed either way). */
static sc_graph *training_of(sc_graph *g, const ui_opts *o, const sc_onnx_report *report)
{
	if (!o->training) {
		if (o->optimizer < 0)
			return g;
		ui_error("--optimizer: give --training too (the optimizer's state is held by a "
		         "training graph stagecut builds from %s)",
		         g->source);
		sc_graph_free(g);
		return NULL;
	}
	double *factor = NULL;
	if (report->filled && report->nops == g->n && report->op_size) {
		factor = malloc((size_t)(g->n > 0 ? g->n : 1) * sizeof *factor);
		for (int v = 0; factor && v < g->n; v++)
			factor[v] = sc_train_backward_factor(report->op_size[v].kind);
	}
	sc_precision p = SC_PREC_FP32;
	if (report->filled)
		p = report->precision;
	else if (o->precision)
		sc_precision_parse(o->precision, &p);
	sc_train_spec spec = {.optimizer =
	                              o->optimizer >= 0 ? (sc_optimizer)o->optimizer : SC_OPT_ADAM,
	                      .param_bytes = sc_precision_bytes(p),
	                      .bw_factor = factor};
	sc_error err;
	sc_error_clear(&err);
	sc_graph *t = sc_graph_training(g, &spec, &err);
	if (!t)
		ui_error("--training: %s", err.msg);
	free(factor);
	sc_graph_free(g);
	return t;
}

sc_graph *ui_load_report(const char *path, const ui_opts *o, sc_onnx_report *report, int *status)
{
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g = ui_load_file(path, o, report, &err);
	if (!g) {
		ui_error("%s", err.msg);
		/* -t ran out while loading: nothing decided, not bad input */
		*status = err.code == SC_ERR_LIMIT ? UI_EXIT_UNDECIDED : UI_EXIT_INPUT;
		return NULL;
	}
	ui_opts_apply(o, &g->settings);
	if (!check_cpus(g, o) || !load_kinds(g, o)) {
		sc_graph_free(g);
		*status = UI_EXIT_INPUT;
		return NULL;
	}
	take_reserve(g, o);
	g = training_of(g, o, report);
	if (!g) {
		*status = UI_EXIT_INPUT;
		return NULL;
	}
	/* -B or -M may make costs too large to compute with where the file's
	 * settings did not */
	if (sc_graph_check_totals(g, &g->settings, &err) != SC_OK) {
		ui_error("%s", err.msg);
		sc_graph_free(g);
		*status = UI_EXIT_INPUT;
		return NULL;
	}
	return g;
}

/* ^C or SIGTERM while a large output is made. */
static bool print_stopped(void *ctx)
{
	(void)ctx;
	return ui_interrupted();
}

bool ui_print_json(json_t *v)
{
	bool stopped = false;
	char *text =
	        v ? sc_json_dumps_until(v, SC_JSON_FLAGS, print_stopped, NULL, &stopped) : NULL;
	json_decref(v);
	if (!text && stopped) {
		/* (a report of a million stages takes seconds to make: half of
		 * it would not be JSON) */
		ui_error("interrupted while making the JSON output; nothing printed");
		return true; /* the exit status is the signal's */
	}
	if (!text) {
		/* every string in it is UTF-8 (names are checked at load, paths
		 * go in through sc_json_text), so this is out of memory */
		ui_error("out of memory while writing the JSON output");
		return false;
	}
	puts(text);
	free(text);
	return true;
}

const char *ui_num(double x, char *buf, size_t size)
{
	if (isinf(x))
		snprintf(buf, size, "inf");
	else if (x != 0 && (fabs(x) >= 1e7 || fabs(x) < 1e-3))
		snprintf(buf, size, "%.4e", x);
	else
		snprintf(buf, size, "%.4f", x);
	return buf;
}

static volatile sig_atomic_t interrupted, interrupt_signal;

static void on_interrupt(int sig)
{
	if (!interrupted)
		interrupt_signal = sig;
	interrupted = 1;
}

void ui_catch_interrupts(ui_interrupts *saved)
{
	struct sigaction sa = {.sa_handler = on_interrupt};
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	interrupt_signal = 0;
	sigaction(SIGINT, &sa, &saved->old_int);
	sigaction(SIGTERM, &sa, &saved->old_term);
}

void ui_release_interrupts(const ui_interrupts *saved)
{
	sigaction(SIGINT, &saved->old_int, NULL);
	sigaction(SIGTERM, &saved->old_term, NULL);
}

bool ui_interrupted(void)
{
	return interrupted;
}

void ui_interrupt(void)
{
	interrupted = 1;
}

int ui_interrupt_signal(void)
{
	return interrupt_signal;
}

int ui_interrupt_status(void)
{
	return interrupt_signal == SIGTERM ? 128 + SIGTERM : 130;
}

const char *ui_file_extension(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	return dot && dot[1] ? dot + 1 : NULL;
}

/* Parses "simple,guess,..." into rung bits; false (after an error) when a
 * name is unknown. */
bool ui_parse_rungs(const char *list, unsigned *out)
{
	*out = 0;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		sc_rung r;
		if (!sc_rung_parse(t, &r)) {
			char names[128] = "";
			for (int q = 0; q < SC_RUNG_COUNT; q++)
				snprintf(names + strlen(names), sizeof names - strlen(names),
				         "%s%s", q ? ", " : "", sc_rung_name((sc_rung)q));
			ui_error("--rungs: unknown rung '%s' (%s)", t, names);
			return false;
		}
		*out |= 1u << r;
	}
	if (!*out) {
		ui_error("--rungs: no rung named");
		return false;
	}
	return true;
}

const char *ui_rung_status_name(sc_rung_state s)
{
	return sc_rung_report_name(s);
}

void ui_progress(const char *fmt, ...)
{
	fputs("\r\033[K", stderr);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

void ui_progress_done(void)
{
	fputs("\r\033[K", stderr);
	fflush(stderr);
}

void ui_print_dp_progress(const sc_progress *p)
{
	if (p->layers > 0)
		fprintf(stderr, "  ideals %ld (%ld done)  layers %d/%d", p->ideals, p->ideals_done,
		        p->layers_done, p->layers);
}

void ui_search_progress(sc_search *s, bool tty, double *last)
{
	if (!tty)
		return;
	sc_progress p;
	sc_search_progress(s, &p);
	if (p.elapsed - *last < 0.1 && !p.done)
		return;
	*last = p.elapsed;
	char b[32];
	ui_progress("%-8s %9ld evals  best %s  %.1f s", p.phase, p.evals,
	            isfinite(p.best) ? ui_num(p.best, b, sizeof b) : "-", p.elapsed);
	ui_print_dp_progress(&p);
	fflush(stderr);
}

void ui_print_costs(const sc_graph *g)
{
	if (g->cost_origin)
		ui_print_line("costs: %s", g->cost_origin); /* quotes a path: escaped */
}

void ui_json_costs(json_t *root, const sc_graph *g)
{
	if (root && g->cost_origin) {
		char *text = sc_utf8_escape(g->cost_origin);
		if (text)
			json_object_set_new(root, "costs", json_string(text));
		free(text);
	}
}

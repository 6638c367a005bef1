/*
 * load_kinds.c - every loader's last step: the measured times of the
 * graph's own device and each kind of device the run names, with its own
 * op times, measured times and the ops it refuses (DESIGN.md section 1,
 * Devices: "each kind with its own cost (a device profile or measured
 * times), memory, link bandwidth, and which ops it may run").  See load.h.
 *
 * The times are read and mapped by times.c, the same rules for every kind;
 * this file only decides which table each file goes into and what the
 * other ops of a kind keep.
 */
#include "load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "times.h"

/* "GRAPH" or, for a kind a devices file gave, "GRAPH (FILE)": where a
 * message about kind k says the fault is. */
static void kind_where(const sc_graph *g, const sc_load_kind *k, char *buf, size_t size)
{
	snprintf(buf, size, k && k->from ? "%s (%s)" : "%s",
	         g->source && *g->source ? g->source : g->name, k ? k->from : "");
}

/* Where kind k's op times come from before measured ones, into model
 * (size bytes): a table of the file's (DOT work_NAME), the loader's model
 * (add_model), or, with measured times and neither, the graph's own work
 * (and the ops it refuses).
 * *added: a table was made here.  SC_OK with *model empty: none (the
 * fleet then says the kind has no times). */
static sc_status kind_base(sc_graph *g, const sc_load_kind *k, sc_load_model_fn add_model,
                           void *ctx, char *model, size_t size, bool *added, sc_error *err)
{
	char where[1280];
	kind_where(g, k, where, sizeof where);
	*added = false;
	model[0] = '\0';
	if (sc_graph_find_kind(g, k->name) >= 0) {
		snprintf(model, size, "the file's work_%s", k->name);
		return k->profile ? sc_error_set(err, SC_ERR_INPUT,
		                                 "%s: the device '%s' has op times in the file: "
		                                 "no profile may replace them",
		                                 where, k->name)
		                  : SC_OK;
	}
	if (add_model) {
		*added = true;
		return add_model(ctx, g, k, model, size, err);
	}
	if (k->profile)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: the device '%s': a profile applies to ONNX models only; "
		                    "this file's costs are in it",
		                    where, k->name);
	if (!k->times)
		return SC_OK;
	double *w = sc_malloc_n((size_t)(g->n > 0 ? g->n : 1), sizeof *w);
	if (!w)
		return sc_error_nomem(err, "a device's op times");
	/* the graph's work with the ops no accelerator may run (msr-fiddle's
	 * supportedOnFpga 0, DOT accel_ok=false) left out, as on its own kind */
	for (int v = 0; v < g->n; v++)
		w[v] = sc_graph_accel_ok(g, v) ? g->work[v] : NAN;
	snprintf(model, size, "the file's work");
	*added = true;
	return sc_graph_add_kind(g, k->name, w, NAN, NAN, err);
}

/* Whether op v is named by entry: its name, or its type (names->op_type). */
static bool refused(const sc_graph *g, const sc_times_names *names, int v, const char *entry)
{
	const char *type = names && names->op_type ? names->op_type(names->ctx, v) : NULL;
	return strcmp(g->op_name[v], entry) == 0 || (type && strcmp(type, entry) == 0);
}

/* The ops kind k refuses may not run on it: NAN in its table; for the
 * graph's own device, not on an accelerator (g->accel_ok, which only the
 * kind without a table reads: fleet.h); for the CPU, no CPU time.  An entry
 * that names no op nor op type is an error (a misspelt name would refuse
 * nothing). */
static sc_status refuse_ops(sc_graph *g, const sc_load_kind *k, const sc_times_names *names,
                            sc_error *err)
{
	int t = sc_graph_find_kind(g, k->name);
	bool own = strcmp(k->name, sc_graph_work_kind(g)) == 0, cpu = strcmp(k->name, "cpu") == 0;
	if (!own && !cpu && t < 0)
		return SC_OK; /* no times at all: the fleet says so */
	if (own && !g->accel_ok) {
		g->accel_ok = sc_malloc_n((size_t)(g->n > 0 ? g->n : 1), sizeof *g->accel_ok);
		if (!g->accel_ok)
			return sc_error_nomem(err, "the ops a device refuses");
		for (int v = 0; v < g->n; v++)
			g->accel_ok[v] = true;
	}
	for (const char *e = k->refuse; *e; e += strlen(e) + 1) {
		int hits = 0;
		for (int v = 0; v < g->n; v++) {
			if (!refused(g, names, v, e))
				continue;
			hits++;
			if (own && g->accel_ok[v]) {
				g->accel_ok[v] = false;
				g->accel_refused++;
			} else if (cpu && g->cpu_ok) {
				g->cpu_ok[v] = false;
			} else if (!own && !cpu) {
				g->kind_work[t][v] = NAN;
			}
		}
		if (hits == 0) {
			char where[1280];
			kind_where(g, k, where, sizeof where);
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: the device '%s' refuses '%s', which names no op%s of "
			        "the graph",
			        where, k->name, e, names && names->op_type ? " or op type" : "");
		}
	}
	return SC_OK;
}

sc_status sc_load_kinds(sc_graph *g, const sc_load_opts *opts, const sc_times_names *names,
                        const char *own_model, sc_load_model_fn add_model, void *ctx, sc_error *err)
{
	char where[1280];
	const char *own = opts->times;
	for (int i = 0; i < opts->nkinds; i++) {
		const sc_load_kind *k = &opts->kinds[i];
		if (strcmp(k->name, sc_graph_work_kind(g)) != 0)
			continue;
		kind_where(g, k, where, sizeof where);
		if (k->profile && strcmp(k->profile, k->name) != 0)
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: the device '%s' is the one the graph's work is for: "
			        "its profile is --device's, not '%s'",
			        where, k->name, k->profile);
		if (k->times && own)
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: two files of measured times for the device '%s', "
			                    "the graph's own (--times FILE and %s)",
			                    where, k->name, k->times);
		own = k->times ? k->times : own;
	}
	sc_status st = SC_OK;
	if (own)
		st = sc_times_load(g, NULL, own, names, own_model, opts->times_report, err);
	for (int i = 0; i < opts->nkinds && st == SC_OK; i++) {
		const sc_load_kind *k = &opts->kinds[i];
		char model[160];
		bool added;
		if (strcmp(k->name, sc_graph_work_kind(g)) == 0)
			continue;
		if (strcmp(k->name, "cpu") == 0) {
			kind_where(g, k, where, sizeof where);
			if (k->times || k->profile)
				st = sc_error_set(
				        err, SC_ERR_INPUT,
				        "%s: the CPU's op times are the file's (cpu_work, "
				        "cpuLatency): no %s for the device 'cpu'",
				        where, k->times ? "measured times" : "profile");
			continue;
		}
		st = kind_base(g, k, add_model, ctx, model, sizeof model, &added, err);
		if (st != SC_OK || !model[0])
			continue;
		if (k->times) {
			st = sc_times_load(g, k->name, k->times, names, model, NULL, err);
			/* the devices file that named the times is at fault too */
			if (st != SC_OK && k->from) {
				char msg[sizeof err->msg];
				snprintf(msg, sizeof msg, "%s", err->msg);
				sc_error_set(err, st, "%s: device '%s': %s", k->from, k->name, msg);
			}
		} else if (added) {
			/* "the h100 model" said briefly: "h100 model" */
			st = sc_times_describe_kind(g, k->name, model,
			                            strncmp(model, "the ", 4) ? model : model + 4,
			                            err);
		}
	}
	/* last: a refused op stays refused whatever time a file gives it */
	for (int i = 0; i < opts->nkinds && st == SC_OK; i++)
		if (opts->kinds[i].refuse)
			st = refuse_ops(g, &opts->kinds[i], names, err);
	return st;
}

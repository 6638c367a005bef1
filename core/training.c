/*
 * training.c - the training graph of a forward graph.  See training.h.
 */
#define _POSIX_C_SOURCE 200809L

#include "training.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activations.h"
#include "mem.h"

static const char *const optimizer_names[] = {"adam", "momentum", "sgd"};

const char *sc_optimizer_name(sc_optimizer o)
{
	return optimizer_names[o];
}

bool sc_optimizer_parse(const char *text, sc_optimizer *out)
{
	for (int i = 0; i < 3; i++) {
		size_t j = 0;
		while (text[j] && tolower((unsigned char)text[j]) == optimizer_names[i][j])
			j++;
		if (!text[j] && !optimizer_names[i][j]) {
			*out = (sc_optimizer)i;
			return true;
		}
	}
	return false;
}

double sc_optimizer_bytes(sc_optimizer o, int param_bytes)
{
	double p = param_bytes > 0 ? param_bytes : 4;
	double master = p < 4 ? 4 : 0;
	double state = o == SC_OPT_ADAM ? 8 : o == SC_OPT_MOMENTUM ? 4 : 0;
	return (master + state) / p;
}

double sc_train_backward_factor(sc_op_kind k)
{
	switch (k) {
	case SC_OPK_CONV:
	case SC_OPK_DWCONV:
	case SC_OPK_MATMUL:
	case SC_OPK_NORM: return 2;
	case SC_OPK_VIEW: return 0;
	default: return 1;
	}
}

/* v's group in the training graph: its own, or "<name>.w". */
static void group_of(const sc_graph *fw, int v, char *group, size_t size)
{
	if (fw->group[v] >= 0)
		snprintf(group, size, "%s", fw->group_name[fw->group[v]]);
	else
		snprintf(group, size, "%s.w", fw->op_name[v]);
}

static double factor(const sc_train_spec *spec, int v)
{
	return spec && spec->bw_factor ? spec->bw_factor[v] : 2;
}

/* The ops, with their CPU times, and the edges of the training graph. */
static bool add_ops(sc_builder *b, const sc_graph *fw, const sc_train_spec *spec, sc_error *err)
{
	int n = fw->n;
	char name[600], group[600];
	bool ok = true;
	/* forward ops 0..n-1 as they are, then backward ops n..2n-1 */
	for (int v = 0; v < n && ok; v++) {
		group_of(fw, v, group, sizeof group);
		ok = sc_builder_add_op(b, fw->op_name[v], fw->work[v], fw->param[v], fw->out[v],
		                       group, err) == v;
	}
	for (int v = 0; v < n && ok; v++) {
		group_of(fw, v, group, sizeof group);
		snprintf(name, sizeof name, "%s.grad", fw->op_name[v]);
		ok = sc_builder_add_op(b, name, factor(spec, v) * fw->work[v], 0, fw->out[v], group,
		                       err) == n + v &&
		     sc_builder_set_backward(b, n + v, err) == SC_OK;
	}
	for (int v = 0; v < n && ok && fw->cpu_ok; v++)
		for (int pass = 0; pass < 2 && ok; pass++)
			ok = sc_builder_set_devices(b, pass * n + v,
			                            (pass ? factor(spec, v) : 1) * fw->cpu_work[v],
			                            fw->cpu_ok[v], sc_graph_accel_ok(fw, v),
			                            err) == SC_OK;
	for (int v = 0; v < n && ok && !fw->cpu_ok && fw->accel_ok; v++)
		for (int pass = 0; pass < 2 && ok; pass++)
			ok = sc_builder_set_devices(b, pass * n + v, 0, false, fw->accel_ok[v],
			                            err) == SC_OK;
	/* the loss gradient: an orphan (no group) fed by every forward sink */
	int loss = ok ? sc_builder_add_op(b, "loss.grad", 0, 0, 0, NULL, err) : -1;
	ok = ok && loss >= 0 && sc_builder_set_backward(b, loss, err) == SC_OK;
	for (int u = 0; u < n && ok; u++) {
		if (sc_graph_outdeg(fw, u) == 0)
			ok = sc_builder_add_edge(b, u, loss, err) == SC_OK &&
			     sc_builder_add_edge(b, loss, n + u, err) == SC_OK;
		for (int i = fw->succ_off[u]; i < fw->succ_off[u + 1] && ok; i++) {
			int v = fw->succ[i];
			/* forward u -> v; the gradient flows back v' -> u', and v's
			 * backward reads v's input, u's activation, kept from the
			 * forward pass */
			ok = sc_builder_add_edge(b, u, v, err) == SC_OK &&
			     sc_builder_add_edge(b, n + v, n + u, err) == SC_OK &&
			     sc_builder_add_edge(b, u, n + v, err) == SC_OK;
		}
	}
	return ok;
}

/* fw's device kinds, each backward time the factor times the forward's. */
static bool add_kinds(sc_graph *g, const sc_graph *fw, const sc_train_spec *spec, sc_error *err)
{
	int n = fw->n;
	for (int i = 0; i < fw->nkinds; i++) {
		double *w = sc_malloc_n((size_t)g->n, sizeof *w);
		if (!w) {
			sc_error_nomem(err, "the training graph");
			return false;
		}
		for (int v = 0; v < n; v++) {
			double t = fw->kind_work[i][v];
			w[v] = t;
			w[n + v] = t == t ? factor(spec, v) * t : NAN;
		}
		w[2 * n] = 0; /* the loss gradient */
		if (sc_graph_add_kind(g, fw->kind_name[i], w, fw->kind_memory[i],
		                      fw->kind_bandwidth[i], err) != SC_OK)
			return false;
	}
	return true;
}

/* What fw says of its costs and activations, carried over. */
static bool carry(sc_graph *g, const sc_graph *fw, const sc_train_spec *spec, sc_error *err)
{
	g->time_unit = fw->time_unit;
	g->work_kind = fw->work_kind ? strdup(fw->work_kind) : NULL;
	g->cost_origin = fw->cost_origin ? strdup(fw->cost_origin) : NULL;
	g->cost_short = fw->cost_short ? strdup(fw->cost_short) : NULL;
	if ((fw->work_kind && !g->work_kind) || (fw->cost_origin && !g->cost_origin) ||
	    (fw->cost_short && !g->cost_short)) {
		sc_error_nomem(err, "the training graph");
		return false;
	}
	if (!add_kinds(g, fw, spec, err))
		return false;
	if (!spec)
		return true;
	sc_acts *a = sc_acts_new(g, fw->acts && fw->acts->peak, err);
	if (!a)
		return false;
	g->acts = a;
	a->grads = 1;
	a->optimizer = sc_optimizer_bytes(spec->optimizer, spec->param_bytes);
	snprintf(a->optimizer_name, sizeof a->optimizer_name, "%s",
	         sc_optimizer_name(spec->optimizer));
	if (!fw->acts)
		return true;
	/* the forward ops keep their indices: their saves as they are */
	int *off = sc_calloc_n((size_t)g->n + 1, sizeof *off);
	if (!off) {
		sc_error_nomem(err, "the training graph");
		return false;
	}
	for (int v = 0; v <= g->n; v++)
		off[v] = fw->acts->save_off[v < fw->n ? v : fw->n];
	double *own = sc_calloc_n((size_t)g->n, sizeof *own);
	bool ok = own != NULL;
	for (int v = 0; ok && v < fw->n; v++)
		own[v] = fw->acts->save_own[v];
	ok = ok ? sc_acts_set_saves(a, g, off, fw->acts->save, own, err) == SC_OK
	        : sc_error_nomem(err, "the training graph") == SC_OK;
	free(off);
	free(own);
	return ok;
}

sc_graph *sc_graph_training(const sc_graph *fw, const sc_train_spec *spec, sc_error *err)
{
	if (fw->backward) {
		sc_error_set(err, SC_ERR_INPUT, "%s is a training graph already", fw->name);
		return NULL;
	}
	sc_builder *b = sc_builder_new();
	if (!b) {
		sc_error_nomem(err, "the training graph");
		return NULL;
	}
	sc_graph *g = NULL;
	if (add_ops(b, fw, spec, err)) {
		char name[600];
		sc_builder_set_settings(b, &fw->settings);
		snprintf(name, sizeof name, "%s-training", fw->name);
		g = sc_builder_finish(b, fw->source && *fw->source ? fw->source : name, name, err);
	}
	sc_builder_free(b);
	if (g && !carry(g, fw, spec, err)) {
		sc_graph_free(g);
		g = NULL;
	}
	return g;
}

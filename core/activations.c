/*
 * activations.c - a stage's stash and working peak.  See activations.h.
 *
 * The peak is a sweep over the stage's forward ops in program order: each
 * tensor adds its bytes at the position it becomes live and takes them
 * away after the position it dies (a difference array over positions), and
 * the peak is the largest prefix sum.
 */
#include "activations.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

sc_acts *sc_acts_new(const sc_graph *g, bool peak, sc_error *err)
{
	sc_acts *a = calloc(1, sizeof *a);
	if (a) {
		a->save_off = sc_calloc_n((size_t)g->n + 1, sizeof *a->save_off);
		a->save = sc_calloc_n(1, sizeof *a->save);
		a->save_own = sc_calloc_n((size_t)g->n, sizeof *a->save_own);
		a->order = sc_malloc_n((size_t)g->n, sizeof *a->order);
	}
	bool nomem = false;
	if (a && a->save_off && a->save && a->save_own && a->order) {
		sc_graph_program_order(g, a->order, &nomem);
		if (!nomem) {
			a->peak = peak;
			return a;
		}
	}
	sc_acts_free(a);
	sc_error_nomem(err, "the activation sizes");
	return NULL;
}

sc_status sc_acts_set_saves(sc_acts *a, const sc_graph *g, const int *off, const int *save,
                            const double *own, sc_error *err)
{
	int total = off ? off[g->n] : 0;
	for (int v = 0; v < g->n; v++) {
		double b = own ? own[v] : 0;
		if (!(b >= 0 && isfinite(b)))
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: op '%s' saves %g bytes for its backward pass",
			                    g->source, g->op_name[v], b);
		for (int i = off ? off[v] : 0; off && i < off[v + 1]; i++)
			if (save[i] < 0 || save[i] >= g->n)
				return sc_error_set(
				        err, SC_ERR_INPUT,
				        "%s: op '%s' saves the tensor of op %d, not an op",
				        g->source, g->op_name[v], save[i]);
	}
	int *nsave = sc_malloc_n((size_t)total, sizeof *nsave);
	if (!nsave)
		return sc_error_nomem(err, "the activation sizes");
	free(a->save);
	a->save = nsave;
	for (int v = 0; v <= g->n; v++)
		a->save_off[v] = off ? off[v] : 0;
	for (int i = 0; i < total; i++)
		a->save[i] = save[i];
	for (int v = 0; v < g->n; v++)
		a->save_own[v] = own ? own[v] : 0;
	return SC_OK;
}

void sc_acts_free(sc_acts *a)
{
	if (!a)
		return;
	free(a->save_off);
	free(a->save);
	free(a->save_own);
	free(a->order);
	free(a);
}

int sc_acts_in_flight(const sc_graph *g, const sc_settings *set, int k, int s)
{
	if (!sc_graph_is_training(g))
		return 1;
	int m = set->microbatches > 0 ? set->microbatches : k;
	if (set->schedule == SC_SCHEDULE_GPIPE)
		return m;
	return k - s < m ? k - s : m;
}

struct sc_acts_work {
	int stamp;
	int *mark;     /* per op: the stamp of the sweep that saw its tensor */
	int *last;     /* per op: the last position in the stage reading its tensor */
	int *ext;      /* the tensors from other stages the stage reads */
	double *delta; /* per position (n + 1): bytes that become live, less those that die */
};

sc_acts_work *sc_acts_work_new(const sc_graph *g)
{
	sc_acts_work *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	size_t n = (size_t)g->n;
	w->mark = sc_calloc_n(n, sizeof *w->mark);
	w->last = sc_calloc_n(n, sizeof *w->last);
	w->ext = sc_calloc_n(n, sizeof *w->ext);
	w->delta = sc_calloc_n(n + 1, sizeof *w->delta);
	if (!w->mark || !w->last || !w->ext || !w->delta) {
		sc_acts_work_free(w);
		return NULL;
	}
	return w;
}

void sc_acts_work_free(sc_acts_work *w)
{
	if (!w)
		return;
	free(w->mark);
	free(w->last);
	free(w->ext);
	free(w->delta);
	free(w);
}

static int next_stamp(sc_acts_work *w, int n)
{
	if (++w->stamp == 0x7fffffff) {
		for (int v = 0; v < n; v++)
			w->mark[v] = 0;
		w->stamp = 1;
	}
	return w->stamp;
}

static inline bool forward_op(const sc_graph *g, int v)
{
	return !g->backward || !g->backward[v];
}

/* The bytes saved for the backward pass by ops[0..n): each tensor once. */
static double stage_stash(const sc_graph *g, sc_acts_work *w, const int *ops, int n)
{
	const sc_acts *a = g->acts;
	int stamp = next_stamp(w, g->n);
	double stash = 0;
	for (int i = 0; i < n; i++) {
		int v = ops[i];
		stash += a->save_own[v];
		for (int j = a->save_off[v]; j < a->save_off[v + 1]; j++) {
			int t = a->save[j];
			if (w->mark[t] != stamp) {
				w->mark[t] = stamp;
				stash += g->out[t];
			}
		}
	}
	return stash;
}

/* The working peak of ops[0..n), the forward ops of stage s in program
 * order. */
static double stage_peak(const sc_graph *g, sc_acts_work *w, const int *stage, int s,
                         const int *ops, int n)
{
	int stamp = next_stamp(w, g->n), next = 0;
	double *delta = w->delta;
	for (int i = 0; i <= n; i++)
		delta[i] = 0;
	/* the last reader in the stage of every tensor it reads */
	for (int i = 0; i < n; i++) {
		int v = ops[i];
		for (int e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			int u = g->pred[e];
			if (w->mark[u] != stamp) {
				w->mark[u] = stamp;
				if (stage[u] != s)
					w->ext[next++] = u;
			}
			w->last[u] = i;
		}
	}
	/* from an earlier stage: live from the start to its last reader */
	for (int i = 0; i < next; i++) {
		int u = w->ext[i];
		delta[0] += g->out[u];
		delta[w->last[u] + 1] -= g->out[u];
	}
	/* made here: from its op to its last reader here, or to the end when
	 * a later stage (or nobody: the model's output) reads it */
	for (int i = 0; i < n; i++) {
		int v = ops[i], die = i;
		bool sent = true;
		for (int e = g->succ_off[v]; e < g->succ_off[v + 1]; e++) {
			int x = g->succ[e];
			if (!forward_op(g, x))
				continue;
			sent = false;
			if (stage[x] != s) {
				sent = true;
				break;
			}
		}
		if (sent)
			die = n - 1;
		else if (w->mark[v] == stamp)
			die = w->last[v];
		delta[i] += g->out[v];
		delta[die + 1] -= g->out[v];
	}
	double live = 0, peak = 0;
	for (int i = 0; i < n; i++) {
		live += delta[i];
		if (live > peak)
			peak = live;
	}
	return peak;
}

void sc_acts_stage(const sc_graph *g, sc_acts_work *w, const int *stage, int s, const int *ops,
                   int n, double *stash, double *peak)
{
	*stash = *peak = 0;
	if (!g->acts || n == 0)
		return;
	if (sc_graph_is_training(g))
		*stash = stage_stash(g, w, ops, n);
	if (g->acts->peak)
		*peak = stage_peak(g, w, stage, s, ops, n);
}

void sc_acts_by_stage(const sc_graph *g, const int *stage, int k, const bool *want, int *off,
                      int *out)
{
	const int *order = g->acts->order;
	for (int s = 0; s <= k; s++)
		off[s] = 0;
	for (int i = 0; i < g->n; i++) {
		int v = order[i];
		if (forward_op(g, v) && (!want || want[stage[v]]))
			off[stage[v] + 1]++;
	}
	for (int s = 0; s < k; s++)
		off[s + 1] += off[s];
	/* fill from each stage's start, then shift the starts back */
	for (int i = 0; i < g->n; i++) {
		int v = order[i];
		if (forward_op(g, v) && (!want || want[stage[v]]))
			out[off[stage[v]]++] = v;
	}
	for (int s = k; s > 0; s--)
		off[s] = off[s - 1];
	off[0] = 0;
}

sc_mem_parts sc_acts_parts(const sc_graph *g, const sc_settings *set, int k, int s, double param,
                           double stash, double peak)
{
	sc_mem_parts p = {.params = param, .stash = stash, .working_peak = peak};
	p.in_flight = sc_acts_in_flight(g, set, k, s);
	if (g->acts) {
		p.grads = param * g->acts->grads;
		p.optimizer = param * g->acts->optimizer;
	}
	p.total = p.params + p.grads + p.optimizer + p.stash * p.in_flight + p.working_peak;
	return p;
}

double sc_acts_most(const sc_graph *g, const sc_settings *set, int k)
{
	double param = 0, saved = 0, all = 0;
	for (int v = 0; v < g->n; v++) {
		param += g->param[v];
		all += g->out[v];
	}
	int fl = 1;
	if (g->acts && sc_graph_is_training(g)) {
		for (int v = 0; v < g->n; v++)
			saved += g->acts->save_own[v];
		for (int i = 0; i < g->acts->save_off[g->n]; i++)
			saved += g->out[g->acts->save[i]];
		fl = sc_acts_in_flight(g, set, k, 0);
	}
	return param * sc_acts_param_factor(g) + saved * fl + (g->acts && g->acts->peak ? all : 0);
}

/*
 * quotient.c - the stage graph of a partition.  See quotient.h.
 *
 * The costs come from sc_costs_eval, so the picture and the stage table
 * never disagree.  The edges are found in one pass over the ops: for op v in
 * stage s, the distinct stages t != s among v's successors each receive
 * out(v) once (a stamp array of k entries finds the distinct ones), giving a
 * list of at most m (s, t, bytes) triples that is sorted and merged.  A
 * training graph's triples also carry the bytes made by backward ops, merged
 * alongside, and the GPipe terms come from sc_costs_gpipe.  With CPU
 * stages the costs are the devices' (sc_costs_set_kinds) and the edges
 * stay as they are: a tensor crossing into a CPU stage still crosses.
 */
#include "quotient.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

static int cmp_qedge(const void *a, const void *b)
{
	const sc_qedge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return 0;
}

/* Fills q->edges from the partition; returns false when out of memory. */
static bool find_edges(sc_quotient *q, const sc_graph *g, const int *stage)
{
	int *mark = malloc((size_t)q->k * sizeof *mark);
	sc_qedge *e = sc_malloc_n((size_t)g->m, sizeof *e);
	if (!mark || !e) {
		free(mark);
		free(e);
		return false;
	}
	for (int s = 0; s < q->k; s++)
		mark[s] = -1;
	int ne = 0;
	for (int v = 0; v < g->n; v++) {
		int s = stage[v];
		for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++) {
			int t = stage[g->succ[i]];
			if (t == s || mark[t] == v)
				continue;
			/* the tensor of v crosses into t once, however many ops of
			 * t read it (000 Figure 2, the tensor cut property) */
			mark[t] = v;
			bool bw = g->backward && g->backward[v];
			e[ne++] = (sc_qedge){.from = s,
			                     .to = t,
			                     .volume = g->out[v],
			                     .volume_bw = bw ? g->out[v] : 0};
		}
	}
	free(mark);
	qsort(e, (size_t)ne, sizeof *e, cmp_qedge);
	int w = 0;
	for (int i = 0; i < ne; i++) {
		if (w > 0 && e[w - 1].from == e[i].from && e[w - 1].to == e[i].to) {
			e[w - 1].volume += e[i].volume;
			e[w - 1].volume_bw += e[i].volume_bw;
		} else
			e[w++] = e[i];
	}
	q->nedges = w;
	q->edges = e;
	return true;
}

sc_quotient *sc_quotient_new(const sc_graph *g, const sc_settings *set, const int *stage,
                             sc_error *err)
{
	return sc_quotient_new_kinds(g, set, stage, NULL, err);
}

sc_quotient *sc_quotient_new_kinds(const sc_graph *g, const sc_settings *set, const int *stage,
                                   const int *kind, sc_error *err)
{
	if (set->k < 1) {
		sc_error_set(err, SC_ERR_INPUT, "k must be at least 1 (got %d)", set->k);
		return NULL;
	}
	for (int v = 0; v < g->n; v++)
		if (stage[v] < 0 || stage[v] >= set->k) {
			sc_error_set(err, SC_ERR_INPUT, "op '%s' is in stage %d, outside 1..%d",
			             g->op_name[v], stage[v] + 1, set->k);
			return NULL;
		}
	sc_costs *c = sc_costs_new(g, set, err);
	if (!c)
		return NULL;
	sc_costs_set_kinds(c, kind);
	sc_costs_eval(c, stage);
	sc_quotient *q = calloc(1, sizeof *q);
	if (q) {
		q->k = set->k;
		q->st = malloc((size_t)set->k * sizeof *q->st);
	}
	if (!q || !q->st || !find_edges(q, g, stage)) {
		sc_quotient_free(q);
		sc_costs_free(c);
		sc_error_nomem(err, "the quotient graph");
		return NULL;
	}
	for (int s = 0; s < q->k; s++) {
		q->st[s] = c->st[s];
		q->cpus += c->st[s].cpu;
	}
	q->devices = sc_costs_names_devices(c, q->k);
	q->nkinds = c->fleet.n;
	for (int d = 0; d < c->fleet.n; d++) {
		q->kind_memory[d] = c->fleet.kind[d].memory; /* (a CPU's: INFINITY) */
		snprintf(q->kind_name[d], SC_KIND_NAME, "%s",
		         set->fleet             ? c->fleet.kind[d].name
		         : c->fleet.kind[d].cpu ? "cpu"
		                                : "accel");
	}
	q->bottleneck_cost = sc_costs_bottleneck(c, &q->bottleneck);
	q->training = sc_graph_is_training(g);
	q->ops = g->n;
	q->backward_ops = g->backward_ops;
	q->orphans = g->orphans;
	q->schedule = set->schedule;
	q->memory = set->memory;
	q->policy = set->policy;
	q->gpipe_fw_at = q->gpipe_bw_at = 0;
	q->objective = q->bottleneck_cost;
	if (q->training) {
		sc_costs_gpipe(c, &q->gpipe_fw_at, &q->gpipe_bw_at);
		/* sc_costs_gpipe's own sums start from 0, as these do */
		q->gpipe_fw = fmax(0, c->st[q->gpipe_fw_at].cost_fw);
		q->gpipe_bw = fmax(0, c->st[q->gpipe_bw_at].cost_bw);
		if (q->schedule == SC_SCHEDULE_GPIPE)
			q->objective = q->gpipe_fw + q->gpipe_bw;
	}
	sc_costs_free(c);
	return q;
}

bool sc_quotient_at_bottleneck(const sc_quotient *q, int s)
{
	return s == q->bottleneck || sc_cost_at_bottleneck(q->st[s].cost, q->bottleneck_cost);
}

int sc_quotient_empty(const sc_quotient *q)
{
	int n = 0;
	for (int s = 0; s < q->k; s++)
		n += q->st[s].ops == 0;
	return n;
}

bool sc_quotient_hides_empty(const sc_quotient *q)
{
	return sc_quotient_empty(q) > SC_QUOTIENT_EMPTY_SHOWN;
}

char *sc_quotient_bottleneck_stages(const sc_quotient *q, char *buf, size_t size)
{
	int n = 0;
	for (int s = 0; s < q->k; s++)
		n += sc_quotient_at_bottleneck(q, s);
	size_t at = (size_t)snprintf(buf, size, "stage%s", n > 1 ? "s" : "");
	int shown = 0;
	for (int s = 0; s < q->k && at < size; s++) {
		if (!sc_quotient_at_bottleneck(q, s))
			continue;
		if (shown == 8) {
			snprintf(buf + at, size - at, ", ...");
			break;
		}
		at += (size_t)snprintf(buf + at, size - at, "%s %d", shown ? "," : "", s + 1);
		shown++;
	}
	return buf;
}

const char *sc_quotient_device(const sc_quotient *q, int s)
{
	if (!q->devices)
		return NULL;
	return q->st[s].cpu ? "CPU" : q->kind_name[q->st[s].kind];
}

double sc_quotient_memory(const sc_quotient *q, int s)
{
	return q->kind_memory[q->st[s].kind];
}

char *sc_quotient_memory_limits(const sc_quotient *q, char *buf, size_t size)
{
	bool used[SC_KINDS_MAX] = {false};
	double one = NAN;
	bool same = true;
	for (int s = 0; s < q->k; s++) {
		double m = sc_quotient_memory(q, s);
		if (!isfinite(m))
			continue;
		used[q->st[s].kind] = true;
		same = same && (one != one || one == m);
		one = m;
	}
	char m[32];
	if (one != one)
		snprintf(buf, size, "%s", "");
	else if (same)
		snprintf(buf, size, "%s per stage", sc_quotient_fmt_bytes(one, m, sizeof m));
	else {
		size_t at = (size_t)snprintf(buf, size, "per stage");
		for (int d = 0; d < q->nkinds && at < size; d++)
			if (used[d])
				at += (size_t)snprintf(
				        buf + at, size - at, "%s %s %s", at > 9 ? "," : "",
				        q->kind_name[d],
				        sc_quotient_fmt_bytes(q->kind_memory[d], m, sizeof m));
	}
	return buf;
}

char *sc_quotient_devices(const sc_quotient *q, char *buf, size_t size)
{
	snprintf(buf, size, "%s", "");
	if (!q->devices)
		return buf;
	int count[SC_KINDS_MAX] = {0};
	for (int s = 0; s < q->k; s++)
		count[q->st[s].kind]++;
	size_t at = 0;
	for (int d = 0; d < q->nkinds && at < size; d++) {
		if (count[d] == 0)
			continue;
		/* 001's two devices by what they are, a fleet's kinds by name */
		const char *name = strcmp(q->kind_name[d], "accel") == 0 ? "accelerator"
		                   : strcmp(q->kind_name[d], "cpu") == 0 ? "CPU"
		                                                         : q->kind_name[d];
		at += (size_t)snprintf(buf + at, size - at, "%s%d %s stage%s", at ? ", " : "",
		                       count[d], name, count[d] == 1 ? "" : "s");
	}
	return buf;
}

void sc_quotient_free(sc_quotient *q)
{
	if (!q)
		return;
	free(q->st);
	free(q->edges);
	free(q);
}

const char *sc_quotient_schedule_name(sc_schedule s)
{
	return s == SC_SCHEDULE_GPIPE ? "GPipe" : "1F1B";
}

char *sc_quotient_edge_label(const sc_quotient *q, const sc_qedge *e, const char *sep, char *buf,
                             size_t size)
{
	if (!q->training)
		return sc_quotient_fmt_bytes(e->volume, buf, size);
	/* the forward part by difference: exact, the sums hold whole tensors */
	double fw = e->volume - e->volume_bw;
	if (fw < 0)
		fw = 0;
	char a[32], b[32];
	sc_quotient_fmt_bytes(fw, a, sizeof a);
	sc_quotient_fmt_bytes(e->volume_bw, b, sizeof b);
	if (fw > 0 && e->volume_bw > 0)
		snprintf(buf, size, "fw %s%sbw %s", a, sep, b);
	else if (e->volume_bw > 0)
		snprintf(buf, size, "bw %s", b);
	else
		snprintf(buf, size, fw > 0 ? "fw %s" : "%s", a);
	return buf;
}

char *sc_quotient_fmt(double x, char *buf, size_t size)
{
	double a = fabs(x);
	if (isnan(x))
		snprintf(buf, size, "nan");
	else if (isinf(x))
		snprintf(buf, size, x > 0 ? "inf" : "-inf");
	else if (x == 0)
		snprintf(buf, size, "0");
	else if (a >= 1000 && a < 1e6)
		snprintf(buf, size, "%.0f", x); /* %.4g would switch to 1.234e+04 */
	else if (a >= 1e-3 && a < 1000)
		snprintf(buf, size, "%.4g", x);
	else {
		/* 1.23e9 rather than printf's 1.23e+09 */
		int e = (int)floor(log10(a));
		double m = x / pow(10, e);
		char mant[32];
		snprintf(mant, sizeof mant, "%.3g", m);
		if (fabs(atof(mant)) >= 10) {
			e++;
			snprintf(mant, sizeof mant, "%.3g", x / pow(10, e));
		}
		snprintf(buf, size, "%se%d", mant, e);
	}
	return buf;
}

char *sc_quotient_fmt_bytes(double bytes, char *buf, size_t size)
{
	static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
	const int nunits = (int)(sizeof unit / sizeof unit[0]);
	double a = bytes;
	int u = 0;
	if (!isfinite(bytes) || bytes < 999.5) {
		char num[32];
		snprintf(buf, size, "%s B", sc_quotient_fmt(bytes, num, sizeof num));
		return buf;
	}
	while (a >= 999.5 && u < nunits - 1) {
		a /= 1000;
		u++;
	}
	snprintf(buf, size, "%.3g %s", a, unit[u]);
	return buf;
}

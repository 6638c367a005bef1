/*
 * cost.c - stage costs, whole and incremental.  See cost.h.
 *
 * The io terms are kept in bytes and converted to time when a stage's cost
 * is refreshed, so a move only touches byte counters: the tensor of v itself
 * and the tensors v reads (its predecessors' outputs).  For each such tensor
 * the contribution before the move is subtracted and the one after is added;
 * the distinct consumer stages of a tensor are found with a stamp array.
 */
#include "cost.h"

#include <math.h>
#include <stdlib.h>

sc_costs *sc_costs_new(const sc_graph *g, const sc_settings *set, sc_error *err)
{
	if (set->k < 1) {
		sc_error_set(err, SC_ERR_INPUT, "k must be at least 1 (got %d)", set->k);
		return NULL;
	}
	sc_costs *c = calloc(1, sizeof *c);
	if (c) {
		c->st = calloc((size_t)set->k, sizeof *c->st);
		c->mark = calloc((size_t)set->k, sizeof *c->mark);
		c->cpu = calloc((size_t)set->k, sizeof *c->cpu);
	}
	if (!c || !c->st || !c->mark || !c->cpu) {
		sc_costs_free(c);
		sc_error_nomem(err, "stage costs");
		return NULL;
	}
	c->g = g;
	c->set = *set;
	c->k = set->k;
	return c;
}

void sc_costs_free(sc_costs *c)
{
	if (!c)
		return;
	free(c->st);
	free(c->mark);
	free(c->cpu);
	free(c);
}

void sc_costs_set_devices(sc_costs *c, const bool *cpu)
{
	for (int s = 0; s < c->k; s++)
		c->cpu[s] = cpu && cpu[s];
}

bool sc_costs_has_cpu(const sc_costs *c)
{
	for (int s = 0; s < c->k; s++)
		if (c->cpu[s])
			return true;
	return false;
}

static void refresh(const sc_costs *c, sc_stage_cost *s)
{
	s->cpu = c->cpu[s - c->st];
	if (s->cpu) {
		/* 001 section 3: a CPU stage pays its ops' CPU times only */
		s->io_in = s->io_out = s->overflow = 0;
		s->over_memory = false;
		s->no_device = s->no_cpu;
		s->cost = s->cpu_work;
		s->cost_bw = s->cpu_work_bw;
		s->cost_fw = s->cost - s->cost_bw;
		return;
	}
	s->no_device = s->no_accel;
	double B = c->set.bandwidth;
	double M = c->set.memory;
	s->io_in = s->in_bytes / B;
	s->io_out = s->out_bytes / B;
	s->over_memory = s->param > M;
	/* 000 eq. 2 with peak(S) = 0; the hard policy forbids instead of charging */
	s->overflow = (s->over_memory && c->set.policy == SC_MEM_OVERFLOW) ? (s->param - M) / B : 0;
	s->cost = s->io_in + s->work + s->io_out + s->overflow;
	s->cost_bw = (s->in_bytes_bw + s->out_bytes_bw) / B + s->work_bw;
	s->cost_fw = s->cost - s->cost_bw;
}

static int next_stamp(sc_costs *c)
{
	if (++c->stamp == 0x7fffffff) {
		for (int i = 0; i < c->k; i++)
			c->mark[i] = 0;
		c->stamp = 1;
	}
	return c->stamp;
}

/* Adds sign * (contribution of tensor u) to the byte counters: out(u) into
 * in_bytes of every distinct consumer stage other than u's own, and into
 * out_bytes of u's stage if there is any such consumer. */
static void tensor_apply(sc_costs *c, const int *stage, int u, double sign)
{
	const sc_graph *g = c->g;
	double b = g->out[u];
	if (b == 0)
		return;
	int p = stage[u];
	int stamp = next_stamp(c);
	bool leaves = false;
	bool bw = g->backward && g->backward[u];
	for (int i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
		int s = stage[g->succ[i]];
		if (s != p && c->mark[s] != stamp) {
			c->mark[s] = stamp;
			c->st[s].in_bytes += sign * b;
			if (bw)
				c->st[s].in_bytes_bw += sign * b;
			leaves = true;
		}
	}
	if (leaves) {
		c->st[p].out_bytes += sign * b;
		if (bw)
			c->st[p].out_bytes_bw += sign * b;
	}
}

/* The backward part of op v's work (0 for a forward op). */
static double work_bw(const sc_graph *g, int v)
{
	return g->backward && g->backward[v] ? g->work[v] : 0;
}

/* Adds sign times op v's device totals to stage s. */
static void device_apply(const sc_graph *g, sc_stage_cost *s, int v, int sign)
{
	if (!g->cpu_work && !g->accel_ok) {
		s->no_cpu += sign;
		return;
	}
	double cw = sc_graph_cpu_work(g, v);
	s->cpu_work += sign * cw;
	if (g->backward && g->backward[v])
		s->cpu_work_bw += sign * cw;
	s->no_cpu += sign * !sc_graph_cpu_ok(g, v);
	s->no_accel += sign * !sc_graph_accel_ok(g, v);
}

void sc_costs_eval(sc_costs *c, const int *stage)
{
	const sc_graph *g = c->g;
	for (int s = 0; s < c->k; s++)
		c->st[s] = (sc_stage_cost){0};
	for (int v = 0; v < g->n; v++) {
		sc_stage_cost *s = &c->st[stage[v]];
		s->ops++;
		s->work += g->work[v];
		s->work_bw += work_bw(g, v);
		s->param += g->param[v];
		device_apply(g, s, v, 1);
		tensor_apply(c, stage, v, 1.0);
	}
	for (int s = 0; s < c->k; s++)
		refresh(c, &c->st[s]);
}

void sc_costs_move(sc_costs *c, int *stage, int v, int to)
{
	const sc_graph *g = c->g;
	int from = stage[v];
	if (from == to)
		return;
	/* take out every tensor whose contribution depends on stage[v] */
	tensor_apply(c, stage, v, -1.0);
	for (int i = g->pred_off[v]; i < g->pred_off[v + 1]; i++)
		tensor_apply(c, stage, g->pred[i], -1.0);
	sc_stage_cost *a = &c->st[from], *b = &c->st[to];
	a->ops--;
	a->work -= g->work[v];
	a->work_bw -= work_bw(g, v);
	a->param -= g->param[v];
	device_apply(g, a, v, -1);
	b->ops++;
	b->work += g->work[v];
	b->work_bw += work_bw(g, v);
	b->param += g->param[v];
	device_apply(g, b, v, 1);
	stage[v] = to;
	tensor_apply(c, stage, v, 1.0);
	for (int i = g->pred_off[v]; i < g->pred_off[v + 1]; i++)
		tensor_apply(c, stage, g->pred[i], 1.0);
	/* Subtraction can leave -1e-17 where 0 belongs; an empty stage is exactly 0. */
	if (a->ops == 0)
		*a = (sc_stage_cost){0};
	/* The touched stages are v's old and new stage and the stages of its
	 * neighbours and of its predecessors' consumers; refreshing all k is O(k)
	 * and simpler than tracking them. */
	for (int s = 0; s < c->k; s++)
		refresh(c, &c->st[s]);
}

double sc_costs_bottleneck(const sc_costs *c, int *which)
{
	double best = -1;
	int at = 0;
	for (int s = 0; s < c->k; s++)
		if (c->st[s].cost > best) {
			best = c->st[s].cost;
			at = s;
		}
	if (which)
		*which = at;
	return best < 0 ? 0 : best;
}

bool sc_cost_at_bottleneck(double cost, double bottleneck)
{
	return bottleneck > 0 && cost >= bottleneck * (1 - 1e-9);
}

bool sc_costs_feasible(const sc_costs *c)
{
	for (int s = 0; s < c->k; s++)
		if ((c->set.policy == SC_MEM_HARD && c->st[s].over_memory) ||
		    c->st[s].no_device > 0)
			return false;
	return true;
}

double sc_costs_gpipe(const sc_costs *c, int *fw_at, int *bw_at)
{
	double fw = 0, bw = 0;
	int fa = 0, ba = 0;
	for (int s = 0; s < c->k; s++) {
		if (c->st[s].cost_fw > fw) {
			fw = c->st[s].cost_fw;
			fa = s;
		}
		if (c->st[s].cost_bw > bw) {
			bw = c->st[s].cost_bw;
			ba = s;
		}
	}
	if (fw_at)
		*fw_at = fa;
	if (bw_at)
		*bw_at = ba;
	return fw + bw;
}

double sc_costs_objective(const sc_costs *c)
{
	if (!sc_costs_feasible(c))
		return INFINITY;
	if (c->set.schedule == SC_SCHEDULE_GPIPE && c->g->backward)
		return sc_costs_gpipe(c, NULL, NULL);
	return sc_costs_bottleneck(c, NULL);
}

double sc_cost_of_set(const sc_graph *g, const sc_settings *set, const bool *in_set)
{
	double work = 0, param = 0, in_b = 0, out_b = 0;
	for (int u = 0; u < g->n; u++) {
		if (in_set[u]) {
			work += g->work[u];
			param += g->param[u];
		}
		/* does tensor u cross into or out of the set? */
		bool crosses = false;
		for (int i = g->succ_off[u]; i < g->succ_off[u + 1] && !crosses; i++)
			crosses = in_set[g->succ[i]] != in_set[u];
		if (crosses) {
			if (in_set[u])
				out_b += g->out[u];
			else
				in_b += g->out[u];
		}
	}
	double B = set->bandwidth, M = set->memory;
	double over = (param > M && set->policy == SC_MEM_OVERFLOW) ? (param - M) / B : 0;
	return in_b / B + work + out_b / B + over;
}

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

#include "activations.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The kinds of c: set->fleet's, or the graph's work kind and, always at
 * index 1, "cpu" (so a partition file's CPU stages cost as CPUs whatever
 * set->cpus says). */
static bool costs_fleet(const sc_graph *g, const sc_settings *set, sc_fleet *f, sc_error *err)
{
	if (set->fleet)
		return sc_fleet_resolve(g, set, f, err);
	sc_settings one = *set;
	one.cpus = 0;
	if (!sc_fleet_resolve(g, &one, f, err))
		return false;
	f->kind[1] = (sc_kind){.name = "cpu",
	                       .count = set->cpus > 0 ? set->cpus : 0,
	                       .cpu = true,
	                       .bandwidth = set->bandwidth,
	                       .memory = INFINITY};
	f->n = 2;
	return true;
}

sc_costs *sc_costs_new(const sc_graph *g, const sc_settings *set, sc_error *err)
{
	if (set->k < 1) {
		sc_error_set(err, SC_ERR_INPUT, "k must be at least 1 (got %d)", set->k);
		return NULL;
	}
	sc_costs *c = calloc(1, sizeof *c);
	if (!c) {
		sc_error_nomem(err, "stage costs");
		return NULL;
	}
	if (!costs_fleet(g, set, &c->fleet, err)) {
		free(c);
		return NULL;
	}
	size_t k = (size_t)set->k, nk = (size_t)c->fleet.n;
	/* the per-kind sums exist when a stage may ever be of a kind with
	 * times of its own or ops it refuses; they are kept only while some
	 * stage is (c->fast, set with the kinds) */
	bool kinds = set->fleet || g->cpu_work || g->accel_ok;
	c->fast = !set->fleet && !g->accel_ok;
	c->one_link = sc_fleet_one_link(&c->fleet);
	c->st = calloc(k, sizeof *c->st);
	c->mark = calloc(k, sizeof *c->mark);
	c->kind = calloc(k, sizeof *c->kind);
	c->touched = calloc(k, sizeof *c->touched);
	c->tmark = calloc(k, sizeof *c->tmark);
	bool ok = c->st && c->mark && c->kind && c->touched && c->tmark;
	if (ok && kinds) {
		c->kw = calloc(k * nk * 2, sizeof *c->kw);
		c->kbad = calloc(k * nk, sizeof *c->kbad);
		ok = c->kw && c->kbad;
	}
	if (ok && g->acts) {
		c->aw = sc_acts_work_new(g);
		c->mem_off = calloc(k + 1, sizeof *c->mem_off);
		c->mem_ops = calloc((size_t)g->n + 1, sizeof *c->mem_ops);
		c->want = calloc(k, sizeof *c->want);
		ok = c->aw && c->mem_off && c->mem_ops && c->want;
	}
	if (ok && !c->one_link) {
		c->link_in = calloc(k * 2, sizeof *c->link_in);
		c->link_out = calloc(k * 2, sizeof *c->link_out);
		ok = c->link_in && c->link_out;
	}
	if (!ok) {
		sc_costs_free(c);
		sc_error_nomem(err, "stage costs");
		return NULL;
	}
	c->g = g;
	c->set = *set;
	c->k = set->k;
	return c;
}

void sc_costs_objective_only(sc_costs *c)
{
	if (!c->g->acts)
		return;
	double most = sc_acts_most(c->g, &c->set, c->k);
	for (int d = 0; d < c->fleet.n; d++)
		if (!c->fleet.kind[d].cpu && most > c->fleet.kind[d].memory)
			return;
	c->mem_skip = true;
}

void sc_costs_free(sc_costs *c)
{
	if (!c)
		return;
	free(c->st);
	free(c->mark);
	free(c->kind);
	free(c->touched);
	free(c->tmark);
	free(c->kw);
	free(c->kbad);
	free(c->link_in);
	free(c->link_out);
	sc_acts_work_free(c->aw);
	free(c->mem_off);
	free(c->mem_ops);
	free(c->want);
	free(c);
}

/* Whether the graph's own sums serve: no fleet, every op allowed on kind
 * 0, and every stage of kind 0 or of a kind that runs no op (a CPU on a
 * graph without CPU times, whose stages refuse every op). */
static void set_fast(sc_costs *c)
{
	bool other = false;
	for (int s = 0; s < c->k && !other; s++)
		other = c->kind[s] != 0;
	c->fast = !c->set.fleet && !c->g->accel_ok && (!other || !c->g->cpu_work);
}

void sc_costs_set_kinds(sc_costs *c, const int *kind)
{
	for (int s = 0; s < c->k; s++)
		c->kind[s] = kind && kind[s] >= 0 && kind[s] < c->fleet.n ? kind[s] : 0;
	set_fast(c);
}

bool sc_costs_has_cpu(const sc_costs *c)
{
	for (int s = 0; s < c->k; s++)
		if (c->fleet.kind[c->kind[s]].cpu)
			return true;
	return false;
}

bool sc_costs_has_kinds(const sc_costs *c)
{
	for (int s = 0; s < c->k; s++)
		if (c->kind[s] != 0)
			return true;
	return false;
}

bool sc_costs_names_devices(const sc_costs *c, int k)
{
	return c && c->k == k &&
	       ((c->set.fleet && !sc_fleet_plain(&c->fleet)) || sc_costs_has_kinds(c));
}

const char *sc_costs_device_name(const sc_costs *c, int s)
{
	const sc_kind *d = &c->fleet.kind[c->kind[s]];
	return c->set.fleet ? d->name : d->cpu ? "cpu" : "accel";
}

double sc_costs_stage_memory(const sc_costs *c, int s)
{
	return c->fleet.kind[c->kind[s]].memory;
}

sc_mem_parts sc_costs_memory_parts(const sc_costs *c, int s)
{
	const sc_stage_cost *st = &c->st[s];
	return sc_acts_parts(c->g, &c->set, c->k, s, st->param, st->stash, st->peak);
}

const char *sc_mem_parts_largest(const sc_mem_parts *p)
{
	const char *name[] = {"params", "grads", "optimizer", "stash", "working_peak"};
	double part[] = {p->params, p->grads, p->optimizer, p->stash * p->in_flight,
	                 p->working_peak};
	int at = 0;
	for (int i = 1; i < 5; i++)
		if (part[i] > part[at])
			at = i;
	return name[at];
}

double sc_costs_kind_work(const sc_costs *c, int s, int d)
{
	if (c->fast)
		return d == 0 ? c->st[s].work : 0;
	return c->kw[((size_t)s * (size_t)c->fleet.n + (size_t)d) * 2];
}

double sc_costs_cost_on(const sc_costs *c, int s, int d)
{
	const sc_stage_cost *st = &c->st[s];
	const sc_kind *kd = &c->fleet.kind[d];
	double w;
	int bad;
	if (c->fast) {
		w = d == 0 ? st->work : 0;
		bad = d == 0 ? 0 : st->ops;
	} else {
		size_t at = (size_t)s * (size_t)c->fleet.n + (size_t)d;
		w = c->kw[2 * at];
		bad = c->kbad[at];
	}
	if (bad > 0)
		return INFINITY;
	if (kd->cpu)
		return w;
	double B = kd->bandwidth, M = kd->memory, over = 0;
	if (st->need > M) {
		if (c->set.policy == SC_MEM_HARD)
			return INFINITY;
		over = (st->need - M) / B;
	}
	return w + (st->in_bytes + st->out_bytes) / B + over;
}

/* Sets stage si's memory need from its sums, stash and peak (stages_memory). */
static inline void stage_need(const sc_costs *c, sc_stage_cost *s, int si)
{
	if (!c->g->acts) {
		s->need = s->param;
		s->in_flight = 1;
		return;
	}
	sc_mem_parts p = sc_acts_parts(c->g, &c->set, c->k, si, s->param, s->stash, s->peak);
	s->in_flight = p.in_flight;
	s->need = p.total;
}

/* Computes the stash and working peak of the stages c->want says (all
 * when want is NULL) under stage[]. */
static void stages_memory(sc_costs *c, const int *stage, const bool *want)
{
	const sc_graph *g = c->g;
	sc_acts_by_stage(g, stage, c->k, want, c->mem_off, c->mem_ops);
	for (int s = 0; s < c->k; s++)
		if (!want || want[s]) {
			int a = c->mem_off[s], n = c->mem_off[s + 1] - a;
			sc_acts_stage(g, c->aw, stage, s, c->mem_ops + a, n, &c->st[s].stash,
			              &c->st[s].peak);
		}
}

/* A stage of kind 0 in the plain model (fast): the graph's sums, the
 * settings' link and memory. */
static inline void refresh_plain(const sc_costs *c, sc_stage_cost *s, int si)
{
	stage_need(c, s, si);
	s->kind = 0;
	s->cpu = false;
	s->no_device = 0;
	double B = c->set.bandwidth;
	double M = c->set.memory;
	s->io_in = s->in_bytes / B;
	s->io_out = s->out_bytes / B;
	s->over_memory = s->need > M;
	/* 000 eq. 2; the hard policy forbids instead of charging */
	s->overflow = (s->over_memory && c->set.policy == SC_MEM_OVERFLOW) ? (s->need - M) / B : 0;
	s->cost = s->io_in + s->work + s->io_out + s->overflow;
	s->cost_bw = (s->in_bytes_bw + s->out_bytes_bw) / B + s->work_bw;
	s->cost_fw = s->cost - s->cost_bw;
}

static void refresh(const sc_costs *c, int si)
{
	sc_stage_cost *s = &c->st[si];
	int d = c->kind[si];
	if (c->fast && d == 0) {
		refresh_plain(c, s, si);
		return;
	}
	stage_need(c, s, si);
	const sc_kind *kd = &c->fleet.kind[d];
	s->kind = d;
	s->cpu = kd->cpu;
	if (c->fast) {
		s->no_device = d != 0 ? s->ops : 0;
	} else {
		size_t at = (size_t)si * (size_t)c->fleet.n + (size_t)d;
		s->work = c->kw[2 * at];
		s->work_bw = c->kw[2 * at + 1];
		s->no_device = c->kbad[at];
	}
	if (kd->cpu) {
		/* 001 section 3: a CPU stage pays its ops' CPU times only (none
		 * when fast: the graph has no CPU times) */
		s->io_in = s->io_out = s->overflow = 0;
		s->over_memory = false;
		s->cost = c->fast ? 0 : s->work;
		s->cost_bw = c->fast ? 0 : s->work_bw;
		s->cost_fw = s->cost - s->cost_bw;
		return;
	}
	double B = kd->bandwidth;
	double M = kd->memory;
	double io_bw;
	if (c->one_link) {
		s->io_in = s->in_bytes / B;
		s->io_out = s->out_bytes / B;
		io_bw = (s->in_bytes_bw + s->out_bytes_bw) / B;
	} else {
		/* each transfer over the slower of its two links */
		s->io_in = c->link_in[2 * si];
		s->io_out = c->link_out[2 * si];
		io_bw = c->link_in[2 * si + 1] + c->link_out[2 * si + 1];
	}
	s->over_memory = s->need > M;
	/* 000 eq. 2; the hard policy forbids instead of charging */
	s->overflow = (s->over_memory && c->set.policy == SC_MEM_OVERFLOW) ? (s->need - M) / B : 0;
	s->cost = s->io_in + s->work + s->io_out + s->overflow;
	s->cost_bw = io_bw + s->work_bw;
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

/* Notes that stage s's sums changed in this move (sc_costs_move refreshes
 * those stages alone). */
static inline void touch(sc_costs *c, int s)
{
	if (c->tmark[s] != c->tstamp) {
		c->tmark[s] = c->tstamp;
		c->touched[c->ntouched++] = s;
	}
}

/* The link of stage s's kind. */
static inline double link_of(const sc_costs *c, int s)
{
	return c->fleet.kind[c->kind[s]].bandwidth;
}

/* Adds sign * (contribution of tensor u) to the byte counters: out(u) into
 * in_bytes of every distinct consumer stage other than u's own, and into
 * out_bytes of u's stage if there is any such consumer; with links of
 * several speeds, their times too: into each consumer stage over the
 * slower of its link and the producer's, out of the producer's stage once,
 * over the slowest link it crosses. */
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
	if (c->one_link) {
		for (int i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			int s = stage[g->succ[i]];
			if (s != p && c->mark[s] != stamp) {
				c->mark[s] = stamp;
				c->st[s].in_bytes += sign * b;
				if (bw)
					c->st[s].in_bytes_bw += sign * b;
				touch(c, s);
				leaves = true;
			}
		}
		if (leaves) {
			c->st[p].out_bytes += sign * b;
			if (bw)
				c->st[p].out_bytes_bw += sign * b;
			touch(c, p);
		}
		return;
	}
	double Bp = link_of(c, p), slowest = Bp;
	for (int i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
		int s = stage[g->succ[i]];
		if (s != p && c->mark[s] != stamp) {
			c->mark[s] = stamp;
			c->st[s].in_bytes += sign * b;
			double Bs = link_of(c, s), t = sign * b / fmin(Bs, Bp);
			c->link_in[2 * s] += t;
			if (bw) {
				c->st[s].in_bytes_bw += sign * b;
				c->link_in[2 * s + 1] += t;
			}
			slowest = fmin(slowest, Bs);
			touch(c, s);
			leaves = true;
		}
	}
	if (leaves) {
		touch(c, p);
		c->st[p].out_bytes += sign * b;
		c->link_out[2 * p] += sign * b / slowest;
		if (bw) {
			c->st[p].out_bytes_bw += sign * b;
			c->link_out[2 * p + 1] += sign * b / slowest;
		}
	}
}

/* The backward part of op v's work (0 for a forward op). */
static double work_bw(const sc_graph *g, int v)
{
	return g->backward && g->backward[v] ? g->work[v] : 0;
}

/* Adds sign times op v's work and device totals to stage s: the graph's
 * work alone when fast, else its time on every kind. */
static void work_apply(sc_costs *c, int s, int v, int sign)
{
	const sc_graph *g = c->g;
	sc_stage_cost *st = &c->st[s];
	st->ops += sign;
	st->param += sign * g->param[v];
	if (c->fast) {
		st->work += sign * g->work[v];
		st->work_bw += sign * work_bw(g, v);
		return;
	}
	bool back = g->backward && g->backward[v];
	size_t nk = (size_t)c->fleet.n;
	double *kw = c->kw + (size_t)s * nk * 2;
	int *bad = c->kbad + (size_t)s * nk;
	for (size_t d = 0; d < nk; d++) {
		const sc_kind *kd = &c->fleet.kind[d];
		double w = sign * sc_kind_work(kd, g, v);
		kw[2 * d] += w;
		if (back)
			kw[2 * d + 1] += w;
		bad[d] += sign * !sc_kind_ok(kd, g, v);
	}
}

/* Zeroes stage s (an empty stage is exactly 0: subtraction can leave
 * -1e-17 where 0 belongs). */
static void stage_clear(sc_costs *c, int s)
{
	c->st[s] = (sc_stage_cost){0};
	size_t nk = (size_t)c->fleet.n;
	if (c->kw) {
		for (size_t d = 0; d < 2 * nk; d++)
			c->kw[(size_t)s * nk * 2 + d] = 0;
		for (size_t d = 0; d < nk; d++)
			c->kbad[(size_t)s * nk + d] = 0;
	}
	if (c->link_in)
		c->link_in[2 * s] = c->link_in[2 * s + 1] = c->link_out[2 * s] =
		        c->link_out[2 * s + 1] = 0;
}

void sc_costs_eval(sc_costs *c, const int *stage)
{
	const sc_graph *g = c->g;
	c->ntouched = 0;
	for (int s = 0; s < c->k; s++)
		stage_clear(c, s);
	for (int v = 0; v < g->n; v++) {
		work_apply(c, stage[v], v, 1);
		tensor_apply(c, stage, v, 1.0);
	}
	if (g->acts && !c->mem_skip)
		stages_memory(c, stage, NULL);
	for (int s = 0; s < c->k; s++)
		refresh(c, s);
	c->ntouched = 0; /* (tensor_apply noted stages: none is pending) */
}

void sc_costs_move(sc_costs *c, int *stage, int v, int to)
{
	const sc_graph *g = c->g;
	int from = stage[v];
	if (from == to)
		return;
	if (++c->tstamp == 0x7fffffff) {
		for (int i = 0; i < c->k; i++)
			c->tmark[i] = 0;
		c->tstamp = 1;
	}
	c->ntouched = 0;
	touch(c, from);
	touch(c, to);
	/* take out every tensor whose contribution depends on stage[v] */
	tensor_apply(c, stage, v, -1.0);
	for (int i = g->pred_off[v]; i < g->pred_off[v + 1]; i++)
		tensor_apply(c, stage, g->pred[i], -1.0);
	work_apply(c, from, v, -1);
	work_apply(c, to, v, 1);
	stage[v] = to;
	tensor_apply(c, stage, v, 1.0);
	for (int i = g->pred_off[v]; i < g->pred_off[v + 1]; i++)
		tensor_apply(c, stage, g->pred[i], 1.0);
	if (c->st[from].ops == 0)
		stage_clear(c, from);
	if (g->acts && !c->mem_skip) {
		c->want[from] = c->want[to] = true;
		stages_memory(c, stage, c->want);
		c->want[from] = c->want[to] = false;
	}
	/* the touched stages: v's old and new stage and the stages of its
	 * neighbours and of its predecessors' consumers */
	for (int i = 0; i < c->ntouched; i++)
		refresh(c, c->touched[i]);
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

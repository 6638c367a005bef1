/*
 * mip_model_cpu.c - the bottleneck and guess rungs with CPU stages (001
 * section 3; the exact rung with them is mip_model_kinds.c's, for any
 * fleet).  See mip_model.h; the notation is mip.c's (blocks b, Y(U, b),
 * x(U, b) = Y(U, b) - Y(U, b-1), costs divided by scale).
 *
 * With up to L CPU stages beside the k accelerator stages, a unit U in
 * block b sits on an accelerator or on a CPU.  Its accelerator share is
 * xa(U, b) and its CPU share xc(U, b) = x(U, b) - xa(U, b): a continuous
 * column xa for a unit either device may hold (0 <= xa <= x), x itself
 * for a unit only an accelerator may hold, 0 for one only a CPU may hold.
 * What an accelerator stage pays (work, io, memory) counts xa; what a CPU
 * stage pays counts xc; CPU stages pay no io and have no memory limit.  A
 * tensor U -> V counts into block b when V's accelerator share is in b
 * and U is not (c >= xa(V, b) - x(U, b)), out of it when U's accelerator
 * share is in b and V is not (c >= xa(U, b) - x(V, b)): a stage on a CPU
 * reads and writes nothing, an accelerator stage reads and writes what it
 * exchanges with any other stage, CPU stages included (cost.h).
 *
 *   bottleneck three blocks, the middle one the accelerator stage of most
 *             work, the outer ones every other stage: the k - 1 other
 *             accelerators and the L CPUs, in whatever order.  Rows:
 *             z >= the middle stage's cost (io and overflow exact, as
 *             without CPUs); (k - 1) z >= the other accelerators' work
 *             and their convex overflow bound; L z >= the CPU time of the
 *             outer blocks' CPU shares; the middle's work W1 times k - 1
 *             at least the other accelerators' work, and W1 >= h >= w(U)
 *             times U's accelerator share outside the middle (the
 *             middle holds the most work of any accelerator stage); z at
 *             least each unit's CPU time times its CPU share; the hard
 *             limit on the middle and, summed, on the others.
 *   guess j   the same where the middle is the j-th accelerator stage in
 *             pipeline order: block 0 holds j - 1 accelerator stages and
 *             block 2 k - j, each with its own cost row (as without CPUs:
 *             s z >= the block's accelerator work, the tensors crossing
 *             its border with an accelerator end inside it, and its
 *             convex overflow), W1 times s at least the block's
 *             accelerator work, and both blocks share the L CPUs.
 *
 * Why the two relaxations bound the optimum: take any partition with
 * bottleneck B, let S be its accelerator stage of most work and j its
 * position among the accelerator stages, and put every stage before S in
 * block 0 and every stage after it in block 2.  Its units' blocks and
 * devices, with z = B, meet every row: S costs at most B; the s
 * accelerator stages of an outer block cost at most s B together, which
 * is at least their work, their overflows (whose sum is at least the
 * convex bound) and each tensor crossing the block's border with an
 * accelerator end inside it (the stage at that end pays it); the CPU
 * stages hold at most L B of CPU time, each at most B; and S holds at
 * least as much work as any other accelerator stage, hence at least their
 * average and at least any unit on one of them.  So the model's optimum
 * is at most B, for the guess model at S's position j (the rung takes the
 * least over j).  The guess model's rows add up to the bottleneck
 * model's, so the bottleneck rung's value bounds every LB_j from below,
 * as the ladder assumes.  Without CPU stages (set->cpus 0) mip_model.c
 * builds the models of the paper instead.  On a fleet of other kinds
 * mip.c relaxes every kind but the CPU to one accelerator (relax_fleet:
 * each unit's least time on them in u->work, m->aok which may hold it),
 * and the argument above holds for that problem, whose optimum is below
 * the fleet's.
 */
#include "mip_model.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/mem.h"
#include "simple.h"

#define INF_ROW INFINITY /* a row bound that is none (mip_model.c maps it to CBC's) */

/* What the builders share. */
typedef struct cpu_ctx {
	sc_mip_model *m;
	const sc_units *u;
	double scale;
	double *cpu;             /* per unit: its CPU time */
	bool *aok, *cok;         /* per unit: an accelerator, a CPU may hold it */
	bool *blk_acc, *blk_cpu; /* per block: may hold accelerator, CPU stages */
	int *xa;                 /* unit U, block b: xa column, or -1 */
} cpu_ctx;

/* Per unit: CPU time, and which devices may hold it (each of its ops). */
static bool unit_devices(cpu_ctx *c)
{
	const sc_units *u = c->u;
	const sc_graph *g = u->g;
	c->cpu = sc_calloc_n((size_t)u->n, sizeof *c->cpu);
	c->aok = sc_calloc_n((size_t)u->n, sizeof *c->aok);
	c->cok = sc_calloc_n((size_t)u->n, sizeof *c->cok);
	if (!c->cpu || !c->aok || !c->cok)
		return false;
	for (int U = 0; U < u->n; U++) {
		c->aok[U] = c->cok[U] = true;
		for (int i = u->ops_off[U]; i < u->ops_off[U + 1]; i++) {
			int v = u->ops[i];
			c->cpu[U] += sc_graph_cpu_work(g, v);
			c->aok[U] = c->aok[U] && sc_graph_accel_ok(g, v);
			c->cok[U] = c->cok[U] && sc_graph_cpu_ok(g, v);
		}
		if (c->m->aok)
			c->aok[U] = c->m->aok[U];
	}
	return true;
}

static void ctx_free(cpu_ctx *c)
{
	free(c->cpu);
	free(c->aok);
	free(c->cok);
	free(c->xa);
	free(c->blk_acc);
	free(c->blk_cpu);
}

/* Whether U's accelerator share in b is a column (both devices possible
 * there), x(U, b) itself, or 0. */
static bool acc_part(const cpu_ctx *c, int U, int b)
{
	return c->aok[U] && c->blk_acc[b];
}

static bool cpu_part(const cpu_ctx *c, int U, int b)
{
	return c->cok[U] && c->blk_cpu[b];
}

/* Adds coef * xa(U, b). */
static void add_xa(cpu_ctx *c, int U, int b, double coef)
{
	if (!acc_part(c, U, b))
		return;
	if (cpu_part(c, U, b)) {
		int col = c->xa[U * c->m->K + b];
		if (col >= 0)
			sc_mip_row_add(c->m, col, coef);
		return;
	}
	sc_mip_row_x(c->m, U, b, coef);
}

/* Adds coef * xc(U, b) = coef * (x(U, b) - xa(U, b)). */
static void add_xc(cpu_ctx *c, int U, int b, double coef)
{
	if (!cpu_part(c, U, b))
		return;
	sc_mip_row_x(c->m, U, b, coef);
	if (acc_part(c, U, b)) {
		int col = c->xa[U * c->m->K + b];
		if (col >= 0)
			sc_mip_row_add(c->m, col, -coef);
	}
}

/* The columns xa of the units either device may hold in a block that may
 * hold both, inside the unit's window, with xa <= x; and x(U, b) = 0 for
 * a unit no device of block b may hold. */
static void share_columns(cpu_ctx *c)
{
	sc_mip_model *m = c->m;
	const sc_units *u = c->u;
	for (int U = 0; U < u->n; U++)
		for (int b = 0; b < m->K; b++) {
			c->xa[U * m->K + b] = -1;
			if (b < m->lo[U] || b > m->hi[U])
				continue;
			if (!acc_part(c, U, b) && !cpu_part(c, U, b)) {
				sc_mip_row_begin(m);
				sc_mip_row_x(m, U, b, 1);
				sc_mip_row_end(m, -INF_ROW, 0);
				continue;
			}
			if (!acc_part(c, U, b) || !cpu_part(c, U, b))
				continue;
			int col = sc_mip_col(m, 0, 1, 0, false);
			c->xa[U * m->K + b] = col;
			sc_mip_row_begin(m);
			sc_mip_row_add(m, col, 1);
			sc_mip_row_x(m, U, b, -1);
			sc_mip_row_end(m, -INF_ROW, 0);
		}
}

/* The accelerator cost of block b, holding `stages` accelerator stages:
 * its cut columns and their rows, its memory rows (the hard limit on
 * stages * M, or the convex overflow) and the row stages * z >= work +
 * cut tensors + overflow.  Returns false when out of memory. */
static bool accel_block(cpu_ctx *c, const sc_settings *set, const sc_mip_tensors *t, int b,
                        double stages, int zcol)
{
	sc_mip_model *m = c->m;
	const sc_units *u = c->u;
	int n = u->n, K = m->K;
	double B = set->bandwidth, M = set->memory, scale = c->scale;
	bool hard = set->policy == SC_MEM_HARD && isfinite(M);
	bool over = set->policy == SC_MEM_OVERFLOW && isfinite(M);
	double param = 0;
	for (int U = 0; U < n; U++)
		if (acc_part(c, U, b))
			param += u->param[U];
	int cbase = m->ncols;
	for (int i = 0; i < t->n; i++)
		sc_mip_col(m, 0, 1, 0, false);
	for (int i = 0; i < t->n; i++) {
		int U = t->src[i], col = cbase + i;
		for (int e = t->cons_off[i]; e < t->cons_off[i + 1]; e++) {
			int V = t->cons[e];
			/* as mip_model.c: rows the order makes void are left out */
			bool first = t->order[e] & SC_MIP_SRC_FIRST;
			bool last = t->order[e] & SC_MIP_SRC_LAST;
			if (!(first && b == 0) && !(last && b == K - 1) && acc_part(c, V, b)) {
				/* into b: c >= xa(V, b) - x(U, b) */
				sc_mip_row_begin(m);
				sc_mip_row_add(m, col, 1);
				add_xa(c, V, b, -1);
				sc_mip_row_x(m, U, b, 1);
				sc_mip_row_merge(m);
				sc_mip_row_end(m, 0, INF_ROW);
			}
			if (!(first && b == K - 1) && !(last && b == 0) && acc_part(c, U, b)) {
				/* out of b: c >= xa(U, b) - x(V, b) */
				sc_mip_row_begin(m);
				sc_mip_row_add(m, col, 1);
				add_xa(c, U, b, -1);
				sc_mip_row_x(m, V, b, 1);
				sc_mip_row_merge(m);
				sc_mip_row_end(m, 0, INF_ROW);
			}
		}
	}
	double capb = stages * M;
	int ocol = -1;
	if (over && param > capb) {
		ocol = sc_mip_col(m, 0, DBL_MAX, 0, false);
		sc_mip_row_begin(m);
		sc_mip_row_add(m, ocol, 1);
		for (int U = 0; U < n; U++)
			add_xa(c, U, b, -u->param[U] / B / scale);
		sc_mip_row_end(m, -capb / B / scale, INF_ROW);
	}
	if (hard && param > capb) {
		sc_mip_row_begin(m);
		for (int U = 0; U < n; U++)
			add_xa(c, U, b, u->param[U] / (M > 0 ? M : 1));
		sc_mip_row_end(m, -INF_ROW, capb / (M > 0 ? M : 1));
	}
	sc_mip_row_begin(m);
	sc_mip_row_add(m, zcol, stages);
	for (int U = 0; U < n; U++)
		add_xa(c, U, b, -u->work[U] / scale);
	for (int i = 0; i < t->n; i++)
		sc_mip_row_add(m, cbase + i, -t->size[i]);
	if (ocol >= 0)
		sc_mip_row_add(m, ocol, -1);
	sc_mip_row_end(m, 0, INF_ROW);
	return !m->nomem;
}

/* The bottleneck and guess models with CPU stages (above). */
static bool build_three(cpu_ctx *c, const sc_settings *set, const sc_mip_params *p,
                        const sc_mip_tensors *t, int *zcol)
{
	sc_mip_model *m = c->m;
	const sc_units *u = c->u;
	int n = u->n, k = p->k, L = set->cpus;
	bool guess = p->rung == SC_RUNG_GUESS;
	double scale = c->scale, B = set->bandwidth, M = set->memory;
	/* accelerator stages in blocks 0 and 2; the bottleneck model knows
	 * only their sum, k - 1 */
	int s0 = guess ? p->guess - 1 : k - 1, s2 = guess ? k - p->guess : k - 1;
	for (int U = 0; U < n; U++) {
		m->lo[U] = 0;
		m->hi[U] = 2;
	}
	c->blk_acc[0] = s0 > 0;
	c->blk_acc[1] = true;
	c->blk_acc[2] = s2 > 0;
	c->blk_cpu[0] = c->blk_cpu[2] = true;
	c->blk_cpu[1] = false;
	double zlo = p->lower > 0 ? p->lower * (1 - 1e-6) / scale : 0;
	double zup = isfinite(p->upper) ? p->upper * (1 + 1e-9) / scale : DBL_MAX;
	if (zup < zlo)
		zup = zlo;
	*zcol = sc_mip_col(m, zlo, zup, 1, false);
	sc_mip_y_columns(m);
	share_columns(c);
	if (m->nomem)
		return false;
	/* the middle stage, an accelerator; in the guess model each outer
	 * block's accelerator stages too */
	if (!accel_block(c, set, t, 1, 1, *zcol))
		return false;
	if (guess && s0 > 0 && !accel_block(c, set, t, 0, s0, *zcol))
		return false;
	if (guess && s2 > 0 && !accel_block(c, set, t, 2, s2, *zcol))
		return false;
	double total_param = 0;
	for (int U = 0; U < n; U++)
		total_param += u->param[U];
	if (!guess && k > 1) {
		/* the other k - 1 accelerators: their work and convex overflow */
		bool hard = set->policy == SC_MEM_HARD && isfinite(M);
		bool over = set->policy == SC_MEM_OVERFLOW && isfinite(M);
		double cap = (k - 1) * M;
		int ocol = -1;
		if (over && total_param > cap) {
			ocol = sc_mip_col(m, 0, DBL_MAX, 0, false);
			sc_mip_row_begin(m);
			sc_mip_row_add(m, ocol, 1);
			for (int U = 0; U < n; U++) {
				add_xa(c, U, 0, -u->param[U] / B / scale);
				add_xa(c, U, 2, -u->param[U] / B / scale);
			}
			sc_mip_row_merge(m);
			sc_mip_row_end(m, -cap / B / scale, INF_ROW);
		}
		if (hard && total_param > cap) {
			sc_mip_row_begin(m);
			for (int U = 0; U < n; U++) {
				add_xa(c, U, 0, u->param[U] / (M > 0 ? M : 1));
				add_xa(c, U, 2, u->param[U] / (M > 0 ? M : 1));
			}
			sc_mip_row_merge(m);
			sc_mip_row_end(m, -INF_ROW, cap / (M > 0 ? M : 1));
		}
		sc_mip_row_begin(m);
		sc_mip_row_add(m, *zcol, k - 1);
		for (int U = 0; U < n; U++) {
			add_xa(c, U, 0, -u->work[U] / scale);
			add_xa(c, U, 2, -u->work[U] / scale);
		}
		if (ocol >= 0)
			sc_mip_row_add(m, ocol, -1);
		sc_mip_row_merge(m);
		sc_mip_row_end(m, 0, INF_ROW);
	}
	/* the L CPU stages hold the outer blocks' CPU shares, each unit's
	 * whole on one of them */
	sc_mip_row_begin(m);
	sc_mip_row_add(m, *zcol, L);
	for (int U = 0; U < n; U++) {
		add_xc(c, U, 0, -c->cpu[U] / scale);
		add_xc(c, U, 2, -c->cpu[U] / scale);
	}
	sc_mip_row_merge(m);
	sc_mip_row_end(m, 0, INF_ROW);
	for (int U = 0; U < n; U++) {
		if (!cpu_part(c, U, 0) || c->cpu[U] / scale <= zlo)
			continue; /* the floor of z covers it */
		sc_mip_row_begin(m);
		sc_mip_row_add(m, *zcol, 1);
		add_xc(c, U, 0, -c->cpu[U] / scale);
		add_xc(c, U, 2, -c->cpu[U] / scale);
		sc_mip_row_merge(m);
		sc_mip_row_end(m, 0, INF_ROW);
	}
	/* the middle holds the most work of any accelerator stage: W1 times
	 * the stages of a block at least the block's accelerator work, and W1
	 * >= h >= each unit's work times its accelerator share outside it */
	for (int b = 0; b < 3; b += 2) {
		int s = guess ? (b == 0 ? s0 : s2) : k - 1;
		if (s <= 0 || (!guess && b == 2))
			continue;
		sc_mip_row_begin(m);
		for (int U = 0; U < n; U++) {
			sc_mip_row_x(m, U, 1, s * u->work[U] / scale);
			add_xa(c, U, b, -u->work[U] / scale);
			if (!guess)
				add_xa(c, U, 2, -u->work[U] / scale);
		}
		sc_mip_row_merge(m);
		sc_mip_row_end(m, 0, INF_ROW);
	}
	if (s0 > 0 || s2 > 0) {
		int hcol = sc_mip_col(m, 0, DBL_MAX, 0, false);
		for (int U = 0; U < n; U++) {
			if (u->work[U] <= 0 || (!acc_part(c, U, 0) && !acc_part(c, U, 2)))
				continue;
			sc_mip_row_begin(m);
			sc_mip_row_add(m, hcol, 1);
			add_xa(c, U, 0, -u->work[U] / scale);
			add_xa(c, U, 2, -u->work[U] / scale);
			sc_mip_row_merge(m);
			sc_mip_row_end(m, 0, INF_ROW);
		}
		sc_mip_row_begin(m);
		sc_mip_row_add(m, hcol, -1);
		for (int U = 0; U < n; U++)
			sc_mip_row_x(m, U, 1, u->work[U] / scale);
		sc_mip_row_merge(m);
		sc_mip_row_end(m, 0, INF_ROW);
	}
	sc_mip_precedence(m);
	return !m->nomem;
}

bool sc_mip_model_build_cpu(sc_mip_model *m, const sc_settings *set, const sc_mip_params *p,
                            const sc_mip_tensors *t, double scale, int *zcol)
{
	cpu_ctx c = {.m = m, .u = m->u, .scale = scale};
	c.blk_acc = sc_calloc_n((size_t)m->K, sizeof *c.blk_acc);
	c.blk_cpu = sc_calloc_n((size_t)m->K, sizeof *c.blk_cpu);
	c.xa = sc_malloc_n((size_t)m->u->n * (size_t)m->K, sizeof *c.xa);
	bool ok = c.blk_acc && c.blk_cpu && c.xa && unit_devices(&c);
	if (ok)
		ok = build_three(&c, set, p, t, zcol);
	ctx_free(&c);
	return ok && !m->nomem;
}

double sc_mip_unit_simple_bound_cpus(const sc_units *u, int k, int cpus)
{
	sc_simple_item *it = sc_malloc_n((size_t)u->n, sizeof *it);
	if (!it)
		return NAN;
	for (int U = 0; U < u->n; U++) {
		it[U] = (sc_simple_item){.accel = u->work[U], .accel_ok = true, .cpu_ok = true};
		for (int i = u->ops_off[U]; i < u->ops_off[U + 1]; i++) {
			int v = u->ops[i];
			it[U].cpu += sc_graph_cpu_work(u->g, v);
			it[U].accel_ok = it[U].accel_ok && sc_graph_accel_ok(u->g, v);
			it[U].cpu_ok = it[U].cpu_ok && sc_graph_cpu_ok(u->g, v);
		}
	}
	double b = sc_bound_simple_items(it, u->n, k, cpus);
	free(it);
	return b;
}

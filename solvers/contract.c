/*
 * contract.c - safe contractions of the unit DAG.  See contract.h.
 *
 * The model (DESIGN.md section 1): f(S) = io_in(S) + work(S) + io_out(S) +
 * overflow(S), each tensor counted once per stage that reads it from
 * outside and once in its producer's io_out however many stages read it;
 * stages in pipeline order, stage(a) <= stage(b) for every edge.  Each rule
 * moves a whole unit X of zero work into the stage t of a neighbour unit T
 * from its stage s, and shows that no stage's cost rises and that the
 * partition stays valid; so from an optimal partition we get an optimal
 * one with X beside T, and joining X to T keeps the optimum.  Applied again
 * and again on the contracted graph the argument composes (each move keeps
 * the earlier joins, since it moves a whole unit).
 *
 * Parameters.  X's bytes move from s to t.  If param(X) = 0 nothing
 * changes; if the whole graph's parameters are <= M no stage is ever over
 * M, so overflow stays 0 and the hard limit never binds.  Otherwise the
 * move could push t over M (more overflow, or infeasible under the hard
 * policy), and no rule applies.  Work: X has none, so only io is left.
 *
 * INTO_SUCC: X's external successors all in W, in(X) <= out(X); t =
 * stage(W) >= s.  Valid: X's predecessors sit at stages <= s <= t and its
 * successors in W at t.  Stage t: every tensor of X read outside X is read
 * in W, so io_in(t) counted all of out(X) and now counts none of it; it
 * may now count tensors read by X from outside t, at most in(X); io_out(t)
 * gains nothing (X's tensors are read in X or W only, and no op of t feeds
 * X, since X's predecessors are at stages <= s < t).  Change <= in(X) -
 * out(X) <= 0.  Stage s: io_out(s) loses out(X) (read in W, outside s) and
 * may gain the tensors of ops of s read by X, at most in(X); io_in(s) only
 * loses.  Change <= 0.  Any other stage r: its ops feeding X fed a stage
 * other than r before and after (io_out unchanged); X's tensors are read
 * only in W (io_in unchanged).
 *
 * INTO_PRED: X's external predecessors all in U, out(X) = 0 (every tensor
 * of X read outside X has 0 bytes: a sink, or zero-byte outputs); t =
 * stage(U) <= s.  Valid: predecessors in U at t, successors at >= s >= t.
 * X's tensors cost nothing wherever they cross.  Stage t: U's tensors read
 * by X no longer leave t for X (io_out only drops); no new input (X reads
 * only from U).  Stage s: io_in only drops.  Other stages: unchanged.
 *
 * CHAIN: X's external predecessors all in U, U's external successors all
 * in X, out(X) <= in(X); then in(X) is exactly U's outgoing tensors.  t =
 * stage(U) <= s.  Valid as for INTO_PRED.  Stage t: io_out(t) counted all
 * of in(X) (read by X, outside t) and now none (U's tensors are read in U
 * or X only); it may gain X's tensors, at most out(X); io_in(t) gains
 * nothing.  Change <= out(X) - in(X) <= 0.  Stage s: io_in(s) loses in(X)
 * (U is outside s) and may gain X's tensors read in s, at most out(X);
 * io_out(s) only loses.  Change <= 0.  Other stages r: X's tensors read in
 * r come from outside r before and after; ops of r feed X only if in U.
 *
 * ISOLATED: X has no edges; it adds no io anywhere and no order
 * constraint; any stage will do.
 *
 * Training graphs.  The order arcs (graph.h) are not the edges there: an
 * edge into the backward pass orders nothing but still carries its io.
 * The proofs above use the two apart, which is why the rules ask for
 * both: validity only reads the arcs (X's arc successors all in W, so t =
 * stage(W) >= s and X's arc predecessors sit at <= s; X's arc
 * predecessors all in U, so t = stage(U) <= s and its arc successors sit
 * at >= s), and the costs only read the edges, never the order of s and t
 * (in INTO_SUCC an op of t that feeds X was io out of t before the move,
 * and after it may stop being so).  A unit X with no arc at all is valid
 * in any stage, so its target may come from the edges alone.  f(S) is one
 * sum over both passes (the 1F1B objective), so each stage's not rising
 * is enough; under GPipe a move could shift io from one pass to the other
 * and raise the larger forward or backward cost, and no rule applies.
 *
 * No join creates a cycle: with all of X's arc successors in W, a path W
 * -> ... -> X would close a cycle X -> W -> ... -> X in the unit DAG
 * already; likewise for predecessors; a unit with no arcs closes none.
 */
#include "contract.h"

#include "units.h"

#include <stdlib.h>

#include "core/activations.h"

const char *sc_contract_rule_name(int rule)
{
	static const char *const names[SC_CONTRACT_NRULES] = {
	        [SC_CONTRACT_INTO_SUCC] = "into-successor",
	        [SC_CONTRACT_INTO_PRED] = "into-predecessor",
	        [SC_CONTRACT_CHAIN] = "chain",
	        [SC_CONTRACT_ISOLATED] = "isolated",
	};
	return rule >= 0 && rule < SC_CONTRACT_NRULES ? names[rule] : "?";
}

/* Notes that unit x has a neighbour y over the io edges: nb[x] is -1 with
 * none yet, the one unit while there is one, MANY past that. */
enum { NONE = -1, MANY = -2 };
static void note(int *nb, int x, int y)
{
	if (nb[x] == NONE)
		nb[x] = y;
	else if (nb[x] != y)
		nb[x] = MANY;
}

/* The rule that joins unit x, with its target in *target, or -1.  ord_pred
 * and ord_succ: x's only order-arc neighbour on that side (NONE, MANY);
 * io_pred and io_succ: the same over the io edges. */
static int pick_rule(const sc_units *u, int x, const int *io_pred, const int *io_succ,
                     const double *in, const double *out, int *target)
{
	int npred = u->pred_off[x + 1] - u->pred_off[x];
	int nsucc = u->succ_off[x + 1] - u->succ_off[x];
	bool free_of_order = npred == 0 && nsucc == 0;
	/* the stage X may move to: its only order successor (or, free of the
	 * order, its only io successor) and its only order predecessor */
	int w = nsucc == 1 ? u->succ[u->succ_off[x]] : free_of_order ? io_succ[x] : NONE;
	int p = npred == 1 ? u->pred[u->pred_off[x]] : free_of_order ? io_pred[x] : NONE;
	bool reads_only_p = p >= 0 && (io_pred[x] == NONE || io_pred[x] == p);
	*target = -1;
	if (w >= 0 && (io_succ[x] == NONE || io_succ[x] == w) && in[x] <= out[x]) {
		*target = w;
		return SC_CONTRACT_INTO_SUCC;
	}
	if (reads_only_p && out[x] == 0) {
		*target = p;
		return SC_CONTRACT_INTO_PRED;
	}
	if (reads_only_p && out[x] <= in[x] && io_succ[p] == x) {
		*target = p;
		return SC_CONTRACT_CHAIN;
	}
	if (free_of_order && io_pred[x] == NONE && io_succ[x] == NONE)
		return SC_CONTRACT_ISOLATED;
	return -1;
}

/* With CPU stages (units.h, cpus): whether unit x costs no CPU time and
 * either device may hold each of its ops.  Then every rule stays safe: an
 * accelerator stage's cost is the same function of the partition with or
 * without CPU stages (its io counts tensors to and from any other stage),
 * so the proofs below bound it as before; a CPU stage's cost changes only
 * by the CPU time of the ops that join or leave it, 0 here; and X may go
 * to whichever device its target's stage is.  A unit with CPU time, or
 * one device may not hold, is left alone (moving it onto a CPU stage
 * would add its time, or break its device). */
static bool device_free(const sc_units *u, int x)
{
	const sc_graph *g = u->g;
	for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
		int o = u->ops[i];
		if (!sc_graph_cpu_ok(g, o) || !sc_graph_accel_ok(g, o) ||
		    sc_graph_cpu_work(g, o) != 0)
			return false;
	}
	return true;
}

int sc_contract_round(const sc_units *u, double memory, int *into, sc_contract_stats *st)
{
	const sc_graph *g = u->g;
	int n = u->n;
	size_t nn = (size_t)(n > 0 ? n : 1);
	double *in = calloc(nn, sizeof *in), *out = calloc(nn, sizeof *out);
	int *stamp = malloc(nn * sizeof *stamp);
	int *io_pred = malloc(nn * sizeof *io_pred), *io_succ = malloc(nn * sizeof *io_succ);
	bool *touched = calloc(nn, sizeof *touched);
	int joins = -1;
	if (!in || !out || !stamp || !io_pred || !io_succ || !touched)
		goto done;
	double total_param = 0;
	for (int v = 0; v < g->n; v++)
		total_param += g->param[v] * sc_acts_param_factor(g);
	bool params_free = total_param <= memory;
	for (int x = 0; x < n; x++) {
		stamp[x] = -1;
		into[x] = -1;
		io_pred[x] = io_succ[x] = NONE;
	}
	/* in(X): each tensor once per reading unit; out(X): once per tensor;
	 * the io neighbours over the edges (the order arcs on an inference
	 * graph, more than them on a training graph) */
	for (int a = 0; a < g->n; a++) {
		int ua = u->unit_of[a];
		bool crosses = false;
		for (int i = g->succ_off[a]; i < g->succ_off[a + 1]; i++) {
			int ub = u->unit_of[g->succ[i]];
			if (ub == ua || stamp[ub] == a)
				continue;
			stamp[ub] = a;
			in[ub] += g->out[a];
			note(io_succ, ua, ub);
			note(io_pred, ub, ua);
			crosses = true;
		}
		if (crosses)
			out[ua] += g->out[a];
	}
	joins = 0;
	for (int x = 0; x < n; x++) {
		if (touched[x] || u->work[x] != 0 || !(u->param[x] == 0 || params_free) ||
		    (u->cpus && !device_free(u, x)))
			continue;
		int target;
		int rule = pick_rule(u, x, io_pred, io_succ, in, out, &target);
		if (rule == SC_CONTRACT_ISOLATED)
			for (int y = 0; y < n && target < 0; y++)
				if (y != x && !touched[y])
					target = y;
		if (rule < 0 || target < 0 || touched[target])
			continue;
		touched[x] = touched[target] = true;
		into[x] = target;
		st->by_rule[rule]++;
		joins++;
	}
done:
	free(in);
	free(out);
	free(stamp);
	free(io_pred);
	free(io_succ);
	free(touched);
	return joins;
}

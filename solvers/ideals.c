/*
 * ideals.c - the exact dynamic program over ideals (001 section 5.1.1).
 *
 * An ideal is a set of units closed under predecessors.  In a valid
 * partition in pipeline order the first j stages form an ideal I_j, and
 * stage j is I_j \ I_{j-1}; so
 *
 *     dp[j][J] = min over ideals I subset of J of max(dp[j-1][I], f(J \ I))
 *
 * with dp[0][empty] = 0 is the optimum for the ops in J in j stages, and
 * dp[k][all] the optimum.  This is exact for the model, groups and the hard
 * memory limit included (units keep groups whole, f is the op-level cost).
 *
 * Ideals are enumerated breadth first from the empty set (so by size, and a
 * subset always comes before its supersets), as bitsets with a hash table
 * for duplicates, and counted against a limit first.  For a pair I subset J
 * the cost of S = J \ I needs no pass over S:
 *     work, param:  differences of the ideals' totals;
 *     io out(S):    ops of S with a successor outside J, i.e. the frontier
 *                   of J (ops of J with a successor outside J) minus I;
 *     io in(S):     ops of I with a successor in S, i.e. ops of I's
 *                   frontier with a successor in J \ I.
 * Pairs are pruned by work: the ideals are sorted by work, and only I with
 * work(J) - work(I) <= UB are tried, where UB is the cost of a partition a
 * quick search found (optimum <= UB, so pruning keeps an optimal chain).
 * Trivial ops are merged into their neighbours first (units.h), which
 * shrinks the number of ideals without changing the optimum.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "core/mem.h"
#include "search_impl.h"

typedef uint64_t word;

typedef struct ideal_set {
	int words; /* per bitset */
	long count, cap;
	word *bits;  /* count x words */
	long *table; /* hash table of ideal indices, -1 empty */
	long tcap;
} ideal_set;

static uint64_t hash_bits(const word *b, int words)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < words; i++) {
		h ^= b[i] + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
		h *= 0xff51afd7ed558ccdULL;
	}
	return h ^ (h >> 33);
}

static void ideal_set_free(ideal_set *s)
{
	free(s->bits);
	free(s->table);
}

static bool table_grow(ideal_set *s)
{
	long cap = s->tcap ? s->tcap * 2 : 1024;
	long *t = malloc((size_t)cap * sizeof *t);
	if (!t)
		return false;
	for (long i = 0; i < cap; i++)
		t[i] = -1;
	for (long id = 0; id < s->count; id++) {
		uint64_t h = hash_bits(s->bits + id * s->words, s->words);
		long at = (long)(h & (uint64_t)(cap - 1));
		while (t[at] >= 0)
			at = (at + 1) & (cap - 1);
		t[at] = id;
	}
	free(s->table);
	s->table = t;
	s->tcap = cap;
	return true;
}

/* Adds bitset b unless present.  Returns its index, or -1 on out of memory. */
static long ideal_add(ideal_set *s, const word *b)
{
	if (2 * (s->count + 1) > s->tcap && !table_grow(s))
		return -1;
	uint64_t h = hash_bits(b, s->words);
	long at = (long)(h & (uint64_t)(s->tcap - 1));
	while (s->table[at] >= 0) {
		long id = s->table[at];
		if (memcmp(s->bits + id * s->words, b, (size_t)s->words * sizeof *b) == 0)
			return id;
		at = (at + 1) & (s->tcap - 1);
	}
	if (s->count == s->cap) {
		long cap = s->cap ? 2 * s->cap : 1024;
		word *nb = realloc(s->bits, (size_t)cap * (size_t)s->words * sizeof *nb);
		if (!nb)
			return -1;
		s->bits = nb;
		s->cap = cap;
	}
	memcpy(s->bits + s->count * s->words, b, (size_t)s->words * sizeof *b);
	s->table[at] = s->count;
	return s->count++;
}

static inline bool has(const word *b, int x)
{
	return (b[x >> 6] >> (x & 63)) & 1;
}

/* Enumerates the ideals of u, stopping past limit.  Returns the count (limit
 * + 1 when there are more), or -1 when out of memory. */
static long enumerate(const sc_units *u, long limit, ideal_set *s)
{
	memset(s, 0, sizeof *s);
	s->words = (u->n + 63) / 64;
	if (s->words == 0)
		s->words = 1;
	word *b = calloc((size_t)s->words, sizeof *b);
	if (!b || ideal_add(s, b) < 0) {
		free(b);
		return -1;
	}
	for (long id = 0; id < s->count; id++) {
		for (int x = 0; x < u->n; x++) {
			const word *cur = s->bits + id * s->words;
			if (has(cur, x))
				continue;
			bool ready = true;
			for (int i = u->pred_off[x]; i < u->pred_off[x + 1] && ready; i++)
				ready = has(cur, u->pred[i]);
			if (!ready)
				continue;
			memcpy(b, cur, (size_t)s->words * sizeof *b);
			b[x >> 6] |= (word)1 << (x & 63);
			if (ideal_add(s, b) < 0) {
				free(b);
				return -1;
			}
			if (s->count > limit) {
				free(b);
				return limit + 1;
			}
		}
	}
	free(b);
	return s->count;
}

long sc_ideals_count(const sc_units *u, long limit)
{
	ideal_set s;
	long n = enumerate(u, limit, &s);
	ideal_set_free(&s);
	return n;
}

/* ---- the exact method --------------------------------------------------- */

typedef struct exact_state {
	ideal_set ideals;
	long count;
	double *work, *param;   /* per ideal */
	int *front_off, *front; /* per ideal: ops of the ideal with a successor outside */
	long *by_work;          /* ideal indices sorted by work */
	long *rank_of;          /* ideal -> position in by_work */
	double *dp;             /* (k + 1) x count */
	long *arg;              /* (k + 1) x count: I of the last stage (J itself: empty) */
	double ub;
	long next_j; /* next ideal (in size order) to fill */
	int *unit_stage;
} exact_state;

static void exact_free(exact_state *e)
{
	if (!e)
		return;
	ideal_set_free(&e->ideals);
	free(e->work);
	free(e->param);
	free(e->front_off);
	free(e->front);
	free(e->by_work);
	free(e->rank_of);
	free(e->dp);
	free(e->arg);
	free(e->unit_stage);
	free(e);
}

static void exact_fini(sc_search *s)
{
	exact_free(s->state);
	s->state = NULL;
}

typedef struct work_id {
	double work;
	long id;
} work_id;

static int cmp_work(const void *a, const void *b)
{
	const work_id *x = a, *y = b;
	if (x->work != y->work)
		return x->work < y->work ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* A quick upper bound: DPL and a few random orders, sliced. */
static double quick_upper_bound(sc_search *s, int *unit_stage)
{
	int n = s->units->n;
	int *order = sc_malloc_n((size_t)n, sizeof *order);
	double *prio = sc_malloc_n((size_t)n, sizeof *prio);
	double ub = INFINITY;
	if (!order || !prio) {
		free(order);
		free(prio);
		return ub;
	}
	sc_order_dfs(s->orderer, order);
	double v = sc_slice(s->slicer, order, INFINITY, unit_stage);
	s->evals++;
	if (v < ub) {
		ub = v;
		sc_search_offer(s, unit_stage, v);
	}
	for (int t = 0; t < 20; t++) {
		for (int i = 0; i < n; i++)
			prio[i] = sc_rng_uniform(&s->rng);
		sc_order_kahn(s->orderer, prio, order);
		v = sc_slice(s->slicer, order, ub, unit_stage);
		s->evals++;
		if (v < ub) {
			ub = v;
			sc_search_offer(s, unit_stage, v);
		}
	}
	free(order);
	free(prio);
	/* the re-evaluated best is the bound (slicing sums in another order) */
	return s->have_best ? fmax(ub, s->best) : ub;
}

static sc_status exact_init(sc_search *s, sc_error *err)
{
	const sc_units *u = s->units;
	const sc_graph *g = s->g;
	exact_state *e = calloc(1, sizeof *e);
	if (!e)
		return sc_error_nomem(err, "the exact search");
	s->state = e;
	long count = enumerate(u, s->p.ideal_limit, &e->ideals);
	if (count < 0)
		return sc_error_nomem(err, "the ideals");
	if (count > s->p.ideal_limit)
		return sc_error_set(
		        err, SC_ERR_LIMIT,
		        "the exact DP needs more than %ld ideals (the graph is too wide); "
		        "raise --ideal-limit or use another method",
		        s->p.ideal_limit);
	e->count = count;
	int k = s->set.k;
	size_t nc = (size_t)count;
	e->work = calloc(nc, sizeof *e->work);
	e->param = calloc(nc, sizeof *e->param);
	e->front_off = malloc((nc + 1) * sizeof *e->front_off);
	e->by_work = malloc(nc * sizeof *e->by_work);
	e->rank_of = malloc(nc * sizeof *e->rank_of);
	e->dp = malloc((size_t)(k + 1) * nc * sizeof *e->dp);
	e->arg = malloc((size_t)(k + 1) * nc * sizeof *e->arg);
	e->unit_stage = sc_malloc_n((size_t)u->n, sizeof *e->unit_stage);
	if (!e->work || !e->param || !e->front_off || !e->by_work || !e->rank_of || !e->dp ||
	    !e->arg || !e->unit_stage)
		return sc_error_nomem(err, "the exact DP tables");
	/* totals and frontiers */
	long fcap = 1024, fn = 0;
	e->front = malloc((size_t)fcap * sizeof *e->front);
	if (!e->front)
		return sc_error_nomem(err, "the exact DP tables");
	int words = e->ideals.words;
	for (long id = 0; id < count; id++) {
		const word *b = e->ideals.bits + id * words;
		e->front_off[id] = (int)fn;
		for (int x = 0; x < u->n; x++) {
			if (!has(b, x))
				continue;
			e->work[id] += u->work[x];
			e->param[id] += u->param[x];
			for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
				int op = u->ops[i];
				bool leaves = false;
				for (int j = g->succ_off[op]; j < g->succ_off[op + 1] && !leaves;
				     j++)
					leaves = !has(b, u->unit_of[g->succ[j]]);
				if (!leaves || g->out[op] == 0)
					continue;
				if (fn == fcap) {
					fcap *= 2;
					int *nf = realloc(e->front, (size_t)fcap * sizeof *nf);
					if (!nf)
						return sc_error_nomem(err, "the exact DP tables");
					e->front = nf;
				}
				e->front[fn++] = op;
			}
		}
		if (fn > 0x7fffffff)
			return sc_error_set(err, SC_ERR_LIMIT,
			                    "the exact DP's frontier lists are too large");
	}
	e->front_off[count] = (int)fn;
	work_id *pairs = malloc(nc * sizeof *pairs);
	if (!pairs)
		return sc_error_nomem(err, "the exact DP tables");
	for (long i = 0; i < count; i++)
		pairs[i] = (work_id){e->work[i], i};
	qsort(pairs, nc, sizeof *pairs, cmp_work);
	for (long i = 0; i < count; i++) {
		e->by_work[i] = pairs[i].id;
		e->rank_of[pairs[i].id] = i;
	}
	free(pairs);
	for (size_t i = 0; i < (size_t)(k + 1) * nc; i++)
		e->dp[i] = INFINITY;
	e->dp[0] = 0; /* dp[j][empty] = 0 for every j; ideal 0 is the empty set */
	for (int j = 1; j <= k; j++) {
		e->dp[(size_t)j * nc] = 0;
		e->arg[(size_t)j * nc] = 0;
	}
	e->ub = quick_upper_bound(s, e->unit_stage);
	e->next_j = 1;
	return SC_OK;
}

/* The cost of J \ I (I a subset of J), or INFINITY under the hard limit. */
static double pair_cost(const sc_search *s, const exact_state *e, long I, long J)
{
	const sc_graph *g = s->g;
	const sc_units *u = s->units;
	int words = e->ideals.words;
	const word *bi = e->ideals.bits + I * words, *bj = e->ideals.bits + J * words;
	double param = e->param[J] - e->param[I];
	double M = s->set.memory, B = s->set.bandwidth, over = 0;
	if (param > M * (1 + 1e-15)) {
		if (s->set.policy == SC_MEM_HARD)
			return INFINITY;
		over = (param - M) / B;
	}
	double io = 0;
	for (int i = e->front_off[J]; i < e->front_off[J + 1]; i++) {
		int op = e->front[i];
		if (!has(bi, u->unit_of[op]))
			io += g->out[op];
	}
	for (int i = e->front_off[I]; i < e->front_off[I + 1]; i++) {
		int op = e->front[i];
		for (int j = g->succ_off[op]; j < g->succ_off[op + 1]; j++) {
			int x = u->unit_of[g->succ[j]];
			if (has(bj, x) && !has(bi, x)) {
				io += g->out[op];
				break;
			}
		}
	}
	return io / B + (e->work[J] - e->work[I]) + over;
}

static bool subset(const word *a, const word *b, int words)
{
	for (int i = 0; i < words; i++)
		if (a[i] & ~b[i])
			return false;
	return true;
}

/* Follows the chain of ideals back from the full set; a stage whose arg
 * is J itself is empty. */
static void reconstruct(sc_search *s, exact_state *e)
{
	size_t nc = (size_t)e->count;
	int words = e->ideals.words;
	long J = e->count - 1; /* breadth first: the full set is the last ideal */
	for (int x = 0; x < s->units->n; x++)
		e->unit_stage[x] = 0;
	for (int j = s->set.k; j >= 1 && J != 0; j--) {
		long I = e->arg[(size_t)j * nc + (size_t)J];
		if (I == J)
			continue;
		const word *bi = e->ideals.bits + I * words, *bj = e->ideals.bits + J * words;
		for (int x = 0; x < s->units->n; x++)
			if (has(bj, x) && !has(bi, x))
				e->unit_stage[x] = j - 1;
		J = I;
	}
}

static bool exact_step(sc_search *s)
{
	exact_state *e = s->state;
	int k = s->set.k, words = e->ideals.words;
	size_t nc = (size_t)e->count;
	double until = sc_clock_now() + 0.02;
	double ub = e->ub * (1 + 1e-12);
	while (e->next_j < e->count) {
		if (sc_search_should_stop(s, 0))
			return false; /* not finished: the quick bound's partition stands */
		long J = e->next_j++;
		const word *bj = e->ideals.bits + J * words;
		double wj = e->work[J];
		/* candidates I: work(J) - work(I) <= ub, scanning down from J's rank */
		for (long r = e->rank_of[J]; r >= 0; r--) {
			long I = e->by_work[r];
			if (wj - e->work[I] > ub)
				break;
			if (I >= J || !subset(e->ideals.bits + I * words, bj, words))
				continue;
			double c = pair_cost(s, e, I, J);
			s->evals++;
			if (c > ub)
				continue;
			for (int j = 1; j <= k; j++) {
				double before = e->dp[(size_t)(j - 1) * nc + (size_t)I];
				double v = before > c ? before : c;
				double *cell = &e->dp[(size_t)j * nc + (size_t)J];
				if (v < *cell) {
					*cell = v;
					e->arg[(size_t)j * nc + (size_t)J] = I;
				}
			}
		}
		/* ties in work: ideals of equal work ranked above J are candidates too */
		for (long r = e->rank_of[J] + 1; r < e->count && e->work[e->by_work[r]] == wj;
		     r++) {
			long I = e->by_work[r];
			if (I >= J || !subset(e->ideals.bits + I * words, bj, words))
				continue;
			double c = pair_cost(s, e, I, J);
			s->evals++;
			if (c > ub)
				continue;
			for (int j = 1; j <= k; j++) {
				double before = e->dp[(size_t)(j - 1) * nc + (size_t)I];
				double v = before > c ? before : c;
				double *cell = &e->dp[(size_t)j * nc + (size_t)J];
				if (v < *cell) {
					*cell = v;
					e->arg[(size_t)j * nc + (size_t)J] = I;
				}
			}
		}
		/* an empty stage j: as good as j - 1 stages */
		for (int j = 1; j <= k; j++)
			if (e->dp[(size_t)(j - 1) * nc + (size_t)J] <=
			    e->dp[(size_t)j * nc + (size_t)J]) {
				e->dp[(size_t)j * nc + (size_t)J] =
				        e->dp[(size_t)(j - 1) * nc + (size_t)J];
				e->arg[(size_t)j * nc + (size_t)J] = J;
			}
		if (sc_clock_now() >= until)
			return true;
	}
	double opt = e->dp[(size_t)k * nc + nc - 1];
	if (isfinite(opt)) {
		reconstruct(s, e);
		/* the DP's own partition replaces the quick one even on a tie */
		s->have_best = false;
		sc_search_offer(s, e->unit_stage, opt);
	}
	/* finite or not, the DP has settled it: no partition beats this one, and
	 * INFINITY means none is feasible */
	s->optimal = true;
	return false;
}

const sc_method sc_method_exact = {
        .name = "exact",
        .help = "the exact DP over ideals (paper 001); refuses past --ideal-limit ideals",
        .merge_trivial = true,
        .refines_itself = true,
        .init = exact_init,
        .step = exact_step,
        .fini = exact_fini,
};

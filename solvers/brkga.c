/*
 * brkga.c - the biased random-key genetic algorithm (000 section 4.2,
 * Goncalves and Resende 2011) and the methods built on it.
 *
 * A chromosome is a vector of keys in [0, 1), one per unit, decoded by
 * Kahn's algorithm with the keys as priorities.  `brkga` scores the order by
 * SliceGraph (000 Alg. 2); `mla` and `mla-weighted` score it by the linear
 * arrangement cost, the sum over edges of the distance in the order (000
 * App. C.1), unweighted or weighted by the tensor's io time, and slice the
 * best order found (on a training graph the order is the units', the
 * distances those of the real edges).  Each generation keeps the elite,
 * adds fresh mutants, and fills the rest by crossover of an elite and a
 * non-elite parent, taking each key from the elite parent with probability
 * `bias`.
 *
 * Slicing takes a cutoff: a chromosome that cannot beat the worst elite of
 * the previous generation need not be scored exactly, which lets SliceGraph
 * stop early.  Elites are carried over without being decoded again.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "search_impl.h"

typedef enum { FIT_SLICE, FIT_MLA, FIT_MLA_WEIGHTED } fitness_kind;

typedef struct brkga_state {
	fitness_kind kind;
	int pop, gens, n_elite, n_mutant, nu;
	int gen;       /* current generation, from 0 */
	int next_eval; /* next chromosome to decode in this generation */
	double *keys;  /* pop x nu */
	double *spare; /* pop x nu, the next generation */
	double *fit;   /* pop */
	double *spare_fit;
	int *rank;  /* chromosome indices by fitness */
	int *order; /* scratch */
	int *unit_stage;
	int *best_order; /* MLA: the best arrangement so far */
	double best_mla;
	bool best_mla_sliced;
	double cutoff;
} brkga_state;

static void brkga_free_state(brkga_state *st)
{
	if (!st)
		return;
	free(st->keys);
	free(st->spare);
	free(st->fit);
	free(st->spare_fit);
	free(st->rank);
	free(st->order);
	free(st->unit_stage);
	free(st->best_order);
	free(st);
}

static void brkga_fini(sc_search *s)
{
	brkga_free_state(s->state);
	s->state = NULL;
}

static sc_status brkga_init_kind(sc_search *s, fitness_kind kind, sc_error *err)
{
	brkga_state *st = calloc(1, sizeof *st);
	if (!st)
		return sc_error_nomem(err, "the genetic search");
	long budget = s->p.evals > 0 ? s->p.evals : 10000;
	int pop = s->p.population;
	if (pop <= 0)
		pop = (int)lround(sqrt((double)budget));
	if (pop < 2)
		pop = 2;
	int gens = s->p.generations > 0 ? s->p.generations : (int)(budget / pop);
	if (gens < 1)
		gens = 1;
	st->kind = kind;
	st->pop = pop;
	st->gens = gens;
	st->n_elite = (int)lround(s->p.elite * pop);
	if (st->n_elite < 1)
		st->n_elite = 1;
	st->n_mutant = (int)lround(s->p.mutants * pop);
	if (st->n_elite + st->n_mutant >= pop)
		st->n_mutant = pop - st->n_elite - 1 > 0 ? pop - st->n_elite - 1 : 0;
	st->nu = s->units->n;
	st->cutoff = INFINITY;
	st->best_mla = INFINITY;
	size_t nu = (size_t)st->nu, np = (size_t)pop;
	st->keys = sc_malloc_n(np * nu, sizeof *st->keys);
	st->spare = sc_malloc_n(np * nu, sizeof *st->spare);
	st->fit = malloc(np * sizeof *st->fit);
	st->spare_fit = malloc(np * sizeof *st->spare_fit);
	st->rank = malloc(np * sizeof *st->rank);
	st->order = sc_malloc_n(nu, sizeof *st->order);
	st->unit_stage = sc_malloc_n(nu, sizeof *st->unit_stage);
	st->best_order = sc_malloc_n(nu, sizeof *st->best_order);
	if (!st->keys || !st->spare || !st->fit || !st->spare_fit || !st->rank || !st->order ||
	    !st->unit_stage || !st->best_order) {
		brkga_free_state(st);
		return sc_error_nomem(err, "the genetic search");
	}
	for (size_t i = 0; i < np * (size_t)st->nu; i++)
		st->keys[i] = sc_rng_uniform(&s->rng);
	s->state = st;
	return SC_OK;
}

static sc_status init_slice(sc_search *s, sc_error *err)
{
	return brkga_init_kind(s, FIT_SLICE, err);
}
static sc_status init_mla(sc_search *s, sc_error *err)
{
	return brkga_init_kind(s, FIT_MLA, err);
}
static sc_status init_mla_weighted(sc_search *s, sc_error *err)
{
	return brkga_init_kind(s, FIT_MLA_WEIGHTED, err);
}

/* The linear arrangement cost of the order in st->order: the distance in
 * the order summed over the edges (the real edges, which carry the io: on
 * a training graph an edge into the backward pass may run against the
 * order, so the distance is taken either way). */
static double arrangement(const sc_search *s, const brkga_state *st, int *pos)
{
	const sc_graph *g = s->g;
	const sc_units *u = s->units;
	for (int p = 0; p < u->n; p++)
		pos[st->order[p]] = p;
	double h = 0;
	for (int a = 0; a < g->n; a++) {
		int pa = pos[u->unit_of[a]];
		for (int i = g->succ_off[a]; i < g->succ_off[a + 1]; i++) {
			int pb = pos[u->unit_of[g->succ[i]]];
			if (pb != pa) {
				double w = st->kind == FIT_MLA ? 1 : g->out[a] / s->set.bandwidth;
				h += w * (pb > pa ? pb - pa : pa - pb);
			}
		}
	}
	return h;
}

static double decode(sc_search *s, brkga_state *st, const double *keys)
{
	sc_order_kahn(s->orderer, keys, st->order);
	s->evals++;
	if (st->kind == FIT_SLICE) {
		double v = sc_slice(s->slicer, st->order, st->cutoff, st->unit_stage);
		if (isnan(v))
			return INFINITY; /* stopped: the search ends at its next check */
		if (v < s->best)
			sc_search_offer(s, st->unit_stage, sc_search_slicer_kinds(s), v);
		else if (isinf(v))
			sc_search_offer_unsliceable(s, st->order, st->unit_stage);
		return v;
	}
	/* unit_stage doubles as the position scratch for the arrangement */
	double h = arrangement(s, st, st->unit_stage);
	if (h < st->best_mla) {
		st->best_mla = h;
		memcpy(st->best_order, st->order, (size_t)st->nu * sizeof *st->order);
		st->best_mla_sliced = false;
	}
	return h;
}

/* Sorts rank[0..n) by fit (then index), by insertion: populations are a
 * few hundred at most, and this keeps the search free of shared state. */
static void sort_by_fitness(int *rank, int n, const double *fit)
{
	for (int i = 1; i < n; i++) {
		int r = rank[i], j = i;
		while (j > 0 && (fit[rank[j - 1]] > fit[r] ||
		                 (fit[rank[j - 1]] == fit[r] && rank[j - 1] > r))) {
			rank[j] = rank[j - 1];
			j--;
		}
		rank[j] = r;
	}
}

/* The stop poll while slicing the best arrangement: only a cancel or an
 * interruption, not the time limit, since this slicing is what the time
 * was spent for (one slicing of a 100 000-op graph is well under a
 * second). */
static bool cancelled(void *ctx)
{
	sc_search *s = ctx;
	return atomic_load(&s->cancel) || (s->p.interrupted && s->p.interrupted()) ||
	       (s->p.stop && s->p.stop(s->p.stop_ctx));
}

/* Slices the best arrangement (MLA) once per improvement. */
static void slice_best_arrangement(sc_search *s, brkga_state *st)
{
	if (st->kind == FIT_SLICE || st->best_mla_sliced || isinf(st->best_mla))
		return;
	sc_slicer_set_stop(s->slicer, cancelled, s);
	double v = sc_slice(s->slicer, st->best_order, INFINITY, st->unit_stage);
	sc_slicer_set_stop(s->slicer, sc_search_slicer_stop, s);
	if (isnan(v))
		return; /* stopped */
	if (isinf(v))
		sc_search_offer_unsliceable(s, st->best_order, st->unit_stage);
	else
		sc_search_offer(s, st->unit_stage, sc_search_slicer_kinds(s), v);
	st->best_mla_sliced = true;
}

static void next_generation(sc_search *s, brkga_state *st)
{
	int pop = st->pop, nu = st->nu;
	for (int i = 0; i < pop; i++)
		st->rank[i] = i;
	sort_by_fitness(st->rank, pop, st->fit);
	st->cutoff = st->fit[st->rank[st->n_elite - 1]];
	for (int e = 0; e < st->n_elite; e++) {
		memcpy(st->spare + (size_t)e * nu, st->keys + (size_t)st->rank[e] * nu,
		       (size_t)nu * sizeof *st->keys);
		st->spare_fit[e] = st->fit[st->rank[e]];
	}
	int c = st->n_elite;
	for (int m = 0; m < st->n_mutant; m++, c++)
		for (int i = 0; i < nu; i++)
			st->spare[(size_t)c * nu + i] = sc_rng_uniform(&s->rng);
	for (; c < pop; c++) {
		const double *elite =
		        st->keys + (size_t)st->rank[sc_rng_below(&s->rng, st->n_elite)] * nu;
		const double *other =
		        st->keys +
		        (size_t)st->rank[st->n_elite + sc_rng_below(&s->rng, pop - st->n_elite)] *
		                nu;
		double *child = st->spare + (size_t)c * nu;
		for (int i = 0; i < nu; i++)
			child[i] = sc_rng_uniform(&s->rng) < s->p.bias ? elite[i] : other[i];
	}
	double *t = st->keys;
	st->keys = st->spare;
	st->spare = t;
	t = st->fit;
	st->fit = st->spare_fit;
	st->spare_fit = t;
	st->gen++;
	st->next_eval = st->n_elite;
}

static bool brkga_step(sc_search *s)
{
	brkga_state *st = s->state;
	double until = sc_clock_now() + 0.02;
	for (;;) {
		if (sc_search_should_stop(s, 0)) {
			slice_best_arrangement(s, st);
			return false;
		}
		if (st->next_eval < st->pop) {
			double *keys = st->keys + (size_t)st->next_eval * st->nu;
			st->fit[st->next_eval] = decode(s, st, keys);
			st->next_eval++;
		} else {
			slice_best_arrangement(s, st);
			if (st->gen + 1 >= st->gens)
				return false;
			next_generation(s, st);
		}
		if (sc_clock_now() >= until)
			return true;
	}
}

const sc_method sc_method_brkga = {
        .name = "brkga",
        .help = "BRKGA over Kahn priorities, each order sliced (--evals 10000 = 100 x 100)",
        .init = init_slice,
        .step = brkga_step,
        .fini = brkga_fini,
};
const sc_method sc_method_mla = {
        .name = "mla",
        .help = "BRKGA on the linear arrangement cost, then the best order sliced",
        .init = init_mla,
        .step = brkga_step,
        .fini = brkga_fini,
};
const sc_method sc_method_mla_weighted = {
        .name = "mla-weighted",
        .help = "as mla, with each edge weighted by its tensor's io time",
        .init = init_mla_weighted,
        .step = brkga_step,
        .fini = brkga_fini,
};

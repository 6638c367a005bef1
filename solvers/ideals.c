/*
 * ideals.c - the exact dynamic program over ideals (001 section 5.1.1).
 *
 * Longer than 600 lines: the ideal table, the stepwise DP and the exact
 * method share one representation of ideals (bitsets, frontiers, rows),
 * which splitting the file would have to expose.
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
 * The units are contracted first (contract.h), which keeps the optimum and
 * shrinks the number of ideals.
 *
 * Lazily, in layers.  Ideals are enumerated breadth first from the empty
 * set, so by size (units), as bitsets with a hash table; a step either
 * expands the next ideal or fills the DP row of the next ideal J, which
 * can be done as soon as every ideal smaller than J has been expanded (the
 * expansion has reached the ideals of J's size).  So the DP runs beside
 * the enumeration, a long run reports ideals enumerated and layers (sizes)
 * done, and time limits and cancelling hold between steps.
 *
 * The sub-ideals I of J are found without scanning the others: J \ I is an
 * up-set F of J, and listing F's units in decreasing number (units are
 * numbered topologically) each unit's successors inside J come before it,
 * so a depth-first search that adds units of J in decreasing number, each
 * once all its successors in J are in F, lists every F exactly once.  Each
 * step removes a maximal unit x from the current sub-ideal I, and the
 * index of I minus x comes from I's downward edges, recorded when I minus
 * x was expanded into I (no hashing).  Work
 * only grows along a branch, so a branch stops when work(F) exceeds the
 * bound UB, the cost of a partition a quick search found (optimum <= UB):
 * pairs and states that cost more than UB are dropped, which keeps an
 * optimal chain (every state on it costs at most the optimum).  The cost of S = J \ I needs no pass
 * over S: work, param:  differences of the ideals' totals; io out(S):    ops of S with a successor
 * outside J, i.e. the frontier of J (ops of J with a successor outside J) minus I; io in(S): ops of
 * I with a successor in S, i.e. ops of I's frontier with a successor in J \ I.
 *
 * The limit on the ideals is set by memory (a quarter of the machine's,
 * at most 8 GiB, divided by the bytes one ideal takes at this k) unless
 * --ideal-limit gives a count.
 */
#include "ideals.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Adds bitset b unless present.  Returns its index, or -1 on out of memory;
 * *added says whether it is new. */
static long ideal_add(ideal_set *s, const word *b, bool *added)
{
	*added = false;
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
	*added = true;
	return s->count++;
}

static inline bool has(const word *b, int x)
{
	return (b[x >> 6] >> (x & 63)) & 1;
}

/* ---- the DP ------------------------------------------------------------- */

struct sc_dp {
	const sc_units *u;
	const sc_graph *g;
	sc_settings set;
	int k;
	long limit;
	double ub; /* INFINITY: no pruning */
	ideal_set ideals;
	long cap;  /* of the per-ideal arrays below */
	int *size; /* units in the ideal */
	double *work, *param;
	long *front_off; /* count + 1 entries: ops of the ideal with a successor outside */
	int *front;
	long fn, fcap;
	double *dp;    /* count x (k + 1) */
	long *arg;     /* count x (k + 1): I of the last stage (J itself: empty) */
	long expanded; /* next ideal to expand */
	long next_j;   /* next ideal whose row to fill */
	bool enumerated;
	long evals;
	word *scratch, *fbits;
	/* the Hasse edges downwards: for ideal I, the list from down_head[I]
	 * through down_next holds each maximal unit x of I with the index of
	 * I minus x (recorded when that one was expanded) */
	long *down_head, *down_next, *down_to;
	int *down_x;
	long ndown, down_cap;
	/* the same edges copied together when an ideal's row is filled (all of
	 * them are known by then), so that the search reads them in one place:
	 * ideal I's are near[near_off[I] .. near_off[I] + near_len[I]) */
	long *near_off, *near_to;
	int *near_len, *near_x;
	long nnear, near_cap;
	word *cand;   /* candidate sets of the search for up-sets, a level each */
	int *rem;     /* per unit: its successors in J not yet in the up-set */
	int *readers; /* per op: edges from it into the stage being grown */
	double total_work;
	int jlo, jhi; /* the rows of the ideal being filled that can still matter */
};

void sc_dp_free(sc_dp *d)
{
	if (!d)
		return;
	ideal_set_free(&d->ideals);
	free(d->size);
	free(d->work);
	free(d->param);
	free(d->front_off);
	free(d->front);
	free(d->dp);
	free(d->arg);
	free(d->scratch);
	free(d->fbits);
	free(d->down_head);
	free(d->down_next);
	free(d->down_to);
	free(d->down_x);
	free(d->near_off);
	free(d->near_len);
	free(d->near_to);
	free(d->near_x);
	free(d->cand);
	free(d->rem);
	free(d->readers);
	free(d);
}

size_t sc_dp_bytes_per_ideal(const sc_units *u, int k)
{
	size_t words = (size_t)(u->n + 63) / 64;
	if (words == 0)
		words = 1;
	/* bits, hash slots at load 1/2, size, work, param, front_off, rows, a
	 * frontier of a few ops and a few downward edges (head, next, to, x) */
	return words * sizeof(word) + 2 * sizeof(long) + sizeof(int) + 2 * sizeof(double) +
	       sizeof(long) + (size_t)(k + 1) * (sizeof(double) + sizeof(long)) + 8 * sizeof(int) +
	       sizeof(long) + 4 * (2 * sizeof(long) + sizeof(int));
}

long sc_dp_memory_limit(const sc_units *u, int k)
{
	double budget = 2.0 * 1024 * 1024 * 1024;
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages > 0 && page > 0)
		budget = fmin((double)pages * (double)page / 4, 8.0 * 1024 * 1024 * 1024);
	double n = budget / (double)sc_dp_bytes_per_ideal(u, k);
	return n > 1e12 ? (long)1e12 : (long)n;
}

/* Grows the per-ideal arrays to hold at least need ideals. */
static bool dp_reserve(sc_dp *d, long need)
{
	if (need <= d->cap)
		return true;
	long cap = d->cap ? d->cap : 1024;
	while (cap < need)
		cap *= 2;
	size_t c = (size_t)cap, row = (size_t)(d->k + 1);
	int *size = realloc(d->size, c * sizeof *size);
	if (size)
		d->size = size;
	double *work = realloc(d->work, c * sizeof *work);
	if (work)
		d->work = work;
	double *param = realloc(d->param, c * sizeof *param);
	if (param)
		d->param = param;
	long *fo = realloc(d->front_off, (c + 1) * sizeof *fo);
	if (fo)
		d->front_off = fo;
	double *dp = realloc(d->dp, c * row * sizeof *dp);
	if (dp)
		d->dp = dp;
	long *arg = realloc(d->arg, c * row * sizeof *arg);
	if (arg)
		d->arg = arg;
	long *dh = realloc(d->down_head, c * sizeof *dh);
	if (dh)
		d->down_head = dh;
	long *no = realloc(d->near_off, c * sizeof *no);
	if (no)
		d->near_off = no;
	int *nl = realloc(d->near_len, c * sizeof *nl);
	if (nl)
		d->near_len = nl;
	if (!size || !work || !param || !fo || !dp || !arg || !dh || !no || !nl)
		return false;
	d->cap = cap;
	return true;
}

/* Totals, frontier and an empty DP row for the new ideal id (of size sz). */
static bool dp_describe(sc_dp *d, long id, int sz)
{
	const sc_units *u = d->u;
	const sc_graph *g = d->g;
	if (!dp_reserve(d, id + 1))
		return false;
	const word *b = d->ideals.bits + id * d->ideals.words;
	d->size[id] = sz;
	d->down_head[id] = -1;
	d->near_off[id] = 0;
	d->near_len[id] = 0;
	d->work[id] = d->param[id] = 0;
	d->front_off[id] = d->fn;
	for (int x = 0; x < u->n; x++) {
		if (!has(b, x))
			continue;
		d->work[id] += u->work[x];
		d->param[id] += u->param[x];
		for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
			int op = u->ops[i];
			bool leaves = false;
			for (int j = g->succ_off[op]; j < g->succ_off[op + 1] && !leaves; j++)
				leaves = !has(b, u->unit_of[g->succ[j]]);
			if (!leaves || g->out[op] == 0)
				continue;
			if (d->fn == d->fcap) {
				long fcap = d->fcap ? 2 * d->fcap : 1024;
				int *nf = realloc(d->front, (size_t)fcap * sizeof *nf);
				if (!nf)
					return false;
				d->front = nf;
				d->fcap = fcap;
			}
			d->front[d->fn++] = op;
		}
	}
	d->front_off[id + 1] = d->fn;
	size_t row = (size_t)(d->k + 1);
	for (size_t j = 0; j < row; j++) {
		d->dp[(size_t)id * row + j] = id == 0 ? 0 : INFINITY;
		d->arg[(size_t)id * row + j] = id;
	}
	return true;
}

sc_dp *sc_dp_new(const sc_units *u, const sc_settings *set, int k, long limit, sc_error *err)
{
	sc_dp *d = calloc(1, sizeof *d);
	if (!d) {
		sc_error_nomem(err, "the exact DP");
		return NULL;
	}
	d->u = u;
	d->g = u->g;
	d->set = *set;
	d->k = k;
	d->limit = limit > 0 ? limit : sc_dp_memory_limit(u, k);
	d->ub = INFINITY;
	for (int x = 0; x < u->n; x++)
		d->total_work += u->work[x];
	d->ideals.words = (u->n + 63) / 64;
	if (d->ideals.words == 0)
		d->ideals.words = 1;
	size_t w = (size_t)d->ideals.words;
	d->scratch = calloc(w, sizeof(word));
	d->fbits = calloc(w, sizeof(word));
	/* each level of the search holds at most the units not yet in F, so
	 * n + (n - 1) + ... + 1 entries */
	size_t n = (size_t)u->n;
	d->cand = sc_malloc_n((n + 2) * w, sizeof *d->cand);
	d->rem = sc_malloc_n(n + 1, sizeof *d->rem);
	d->readers = calloc((size_t)d->g->n + 1, sizeof *d->readers);
	bool added;
	if (!d->scratch || !d->cand || !d->rem || !d->readers ||
	    ideal_add(&d->ideals, d->scratch, &added) < 0 || !dp_describe(d, 0, 0)) {
		sc_dp_free(d);
		sc_error_nomem(err, "the exact DP");
		return NULL;
	}
	return d;
}

void sc_dp_set_bound(sc_dp *d, double ub)
{
	d->ub = ub;
}

/* Records that ideal to minus its maximal unit x is ideal from. */
static bool dp_link(sc_dp *d, long to, int x, long from)
{
	if (d->ndown == d->down_cap) {
		long cap = d->down_cap ? 2 * d->down_cap : 4096;
		long *nx = realloc(d->down_next, (size_t)cap * sizeof *nx);
		if (nx)
			d->down_next = nx;
		long *nt = realloc(d->down_to, (size_t)cap * sizeof *nt);
		if (nt)
			d->down_to = nt;
		int *nu = realloc(d->down_x, (size_t)cap * sizeof *nu);
		if (nu)
			d->down_x = nu;
		if (!nx || !nt || !nu)
			return false;
		d->down_cap = cap;
	}
	long e = d->ndown++;
	d->down_x[e] = x;
	d->down_to[e] = from;
	d->down_next[e] = d->down_head[to];
	d->down_head[to] = e;
	return true;
}

/* Copies ideal J's downward edges together (near_*).  False when out of
 * memory. */
static bool dp_gather(sc_dp *d, long J)
{
	int len = 0;
	for (long e = d->down_head[J]; e >= 0; e = d->down_next[e])
		len++;
	if (d->nnear + len > d->near_cap) {
		long cap = d->near_cap ? 2 * d->near_cap : 4096;
		while (cap < d->nnear + len)
			cap *= 2;
		long *nt = realloc(d->near_to, (size_t)cap * sizeof *nt);
		if (nt)
			d->near_to = nt;
		int *nx = realloc(d->near_x, (size_t)cap * sizeof *nx);
		if (nx)
			d->near_x = nx;
		if (!nt || !nx)
			return false;
		d->near_cap = cap;
	}
	d->near_off[J] = d->nnear;
	d->near_len[J] = len;
	for (long e = d->down_head[J]; e >= 0; e = d->down_next[e]) {
		d->near_x[d->nnear] = d->down_x[e];
		d->near_to[d->nnear++] = d->down_to[e];
	}
	return true;
}

/* Ideal I (filled, so gathered) minus its maximal unit x. */
static long dp_down(const sc_dp *d, long I, int x)
{
	const int *xs = d->near_x + d->near_off[I];
	for (int i = 0; i < d->near_len[I]; i++)
		if (xs[i] == x)
			return d->near_to[d->near_off[I] + i];
	return -1;
}

/* Expands ideal d->expanded: adds every ideal one unit larger. */
static sc_status dp_expand(sc_dp *d, sc_error *err)
{
	const sc_units *u = d->u;
	int words = d->ideals.words;
	long id = d->expanded++;
	for (int x = 0; x < u->n; x++) {
		const word *cur = d->ideals.bits + id * words;
		if (has(cur, x))
			continue;
		bool ready = true;
		for (int i = u->pred_off[x]; i < u->pred_off[x + 1] && ready; i++)
			ready = has(cur, u->pred[i]);
		if (!ready)
			continue;
		memcpy(d->scratch, cur, (size_t)words * sizeof(word));
		d->scratch[x >> 6] |= (word)1 << (x & 63);
		bool added;
		long nid = ideal_add(&d->ideals, d->scratch, &added);
		if (nid < 0 || (added && !dp_describe(d, nid, d->size[id] + 1)) ||
		    !dp_link(d, nid, x, id))
			return sc_error_nomem(err, "the ideals");
		if (d->ideals.count > d->limit)
			return sc_error_set(err, SC_ERR_LIMIT,
			                    "the exact DP needs more than %ld ideals (the graph is "
			                    "too wide for the memory); raise --ideal-limit or use "
			                    "another method",
			                    d->limit);
	}
	if (d->expanded == d->ideals.count)
		d->enumerated = true;
	return SC_OK;
}

/* Relaxes dp[.][J] with the stage J \ I of cost c. */
static void dp_relax(sc_dp *d, long J, long I, double c, double bound)
{
	size_t row = (size_t)(d->k + 1);
	const double *prev = d->dp + (size_t)I * row;
	double *cell = d->dp + (size_t)J * row;
	long *arg = d->arg + (size_t)J * row;
	for (int j = d->jlo; j <= d->jhi; j++) {
		double v = prev[j - 1] > c ? prev[j - 1] : c;
		if (v < cell[j] && v <= bound) {
			cell[j] = v;
			arg[j] = I;
		}
	}
}

/* The stage S = F being grown by the search, its costs kept as it grows. */
typedef struct stage_acc {
	double work, param;
	double in, out; /* bytes: tensors read from outside S; S's tensors read outside J */
} stage_acc;

/* Adds unit x to S (x's successors in J already in S, its predecessors
 * not).  d->readers[op] counts the edges from op into S; a tensor enters
 * S's io in when its first reader joins, and leaves it when its producer
 * joins.  A tensor of S is read outside S only outside J (F is an up-set
 * of J), so io out only grows. */
static void acc_add(sc_dp *d, const word *bj, stage_acc *a, int x)
{
	const sc_units *u = d->u;
	const sc_graph *g = d->g;
	a->work += u->work[x];
	a->param += u->param[x];
	for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
		int o = u->ops[i];
		if (d->readers[o] > 0)
			a->in -= g->out[o];
		for (int j = g->succ_off[o]; j < g->succ_off[o + 1]; j++)
			if (!has(bj, u->unit_of[g->succ[j]])) {
				a->out += g->out[o];
				break;
			}
		for (int j = g->pred_off[o]; j < g->pred_off[o + 1]; j++) {
			int p = g->pred[j];
			if (u->unit_of[p] != x && d->readers[p]++ == 0)
				a->in += g->out[p];
		}
	}
}

/* Undoes acc_add's counts (the caller restores the sums). */
static void acc_remove(sc_dp *d, int x)
{
	const sc_units *u = d->u;
	const sc_graph *g = d->g;
	for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
		int o = u->ops[i];
		for (int j = g->pred_off[o]; j < g->pred_off[o + 1]; j++) {
			int p = g->pred[j];
			if (u->unit_of[p] != x)
				d->readers[p]--;
		}
	}
}

/* Lists the up-sets F of J, units added in decreasing number, whose cost
 * bound (work + io out + overflow, which only grow with F) is within bound,
 * relaxing J with each.  cand (a bitset) holds the units that may come
 * next: in J \ F, below the last one added, with all their successors in J
 * already in F (d->rem[y] counts y's successors in J not yet in F).  After
 * adding x, those are the candidates below x and x's predecessors whose
 * count fell to 0; the next level's set is built in pool. */
static void dp_filters(sc_dp *d, long J, long I, const word *bj, const word *cand,
                       const stage_acc *acc, double bound, word *pool)
{
	const sc_units *u = d->u;
	int words = d->ideals.words;
	double M = d->set.memory, B = d->set.bandwidth;
	/* under the hard policy a stage over the memory stays over it as it
	 * grows, like its work over the bound */
	double pmax = d->set.policy == SC_MEM_HARD ? M * (1 + 1e-15) : INFINITY;
	size_t row = (size_t)(d->k + 1);
	for (int wi = words - 1; wi >= 0; wi--) {
		word bits = cand[wi];
		while (bits) {
			int bit = 63 - __builtin_clzll(bits);
			bits &= ~((word)1 << bit);
			int x = wi * 64 + bit;
			if (acc->work + u->work[x] > bound || acc->param + u->param[x] > pmax)
				continue;
			/* x has no successor left in I: it is maximal there */
			long child = dp_down(d, I, x);
			if (child < 0)
				continue; /* cannot happen */
			stage_acc a = *acc;
			acc_add(d, bj, &a, x);
			double over = a.param > M * (1 + 1e-15) ? (a.param - M) / B : 0;
			double lower = a.work + a.out / B + over;
			if (lower > bound) {
				acc_remove(d, x);
				continue;
			}
			/* rows are non-increasing in j: prev[jhi - 1] is the best state
			 * of I that can still matter; past the bound, no stage helps */
			if (d->dp[(size_t)child * row + (size_t)d->jhi - 1] <= bound) {
				double cost = lower + a.in / B;
				d->evals++;
				if (cost <= bound)
					dp_relax(d, J, child, cost, bound);
			}
			/* the next candidates: those below x, and x's predecessors in J
			 * that now have all their successors in J inside F */
			for (int q = 0; q < words; q++)
				pool[q] = q < wi ? cand[q] : q == wi ? bits : 0;
			for (int i = u->pred_off[x]; i < u->pred_off[x + 1]; i++) {
				int y = u->pred[i];
				if (has(bj, y) && --d->rem[y] == 0)
					pool[y >> 6] |= (word)1 << (y & 63);
			}
			dp_filters(d, J, child, bj, pool, &a, bound, pool + words);
			for (int i = u->pred_off[x]; i < u->pred_off[x + 1]; i++) {
				int y = u->pred[i];
				if (has(bj, y))
					d->rem[y]++;
			}
			acc_remove(d, x);
		}
	}
}

static bool dp_fill(sc_dp *d, long J)
{
	if (!dp_gather(d, J))
		return false;
	const sc_units *u = d->u;
	int words = d->ideals.words;
	const word *bj = d->ideals.bits + J * words;
	double bound = d->ub * (1 + 1e-12);
	/* J's first j stages matter only when their work fits j stages of the
	 * bound and the rest fits the other k - j (every stage costs at least
	 * its work); the others stay infinite, dropped */
	d->jlo = 1;
	d->jhi = d->k;
	if (isfinite(bound)) {
		double wj = d->work[J], b = bound * (1 + 1e-9);
		while (d->jlo <= d->k && wj > d->jlo * b)
			d->jlo++;
		while (d->jhi >= 1 && d->total_work - wj > (d->k - d->jhi) * b)
			d->jhi--;
	}
	/* the first candidates: J's maximal units; rem counts successors in J */
	word *cand = d->cand;
	memset(cand, 0, (size_t)words * sizeof(word));
	for (int x = 0; x < u->n; x++) {
		if (!has(bj, x))
			continue;
		int rem = 0;
		for (int i = u->succ_off[x]; i < u->succ_off[x + 1]; i++)
			rem += has(bj, u->succ[i]);
		d->rem[x] = rem;
		if (rem == 0)
			cand[x >> 6] |= (word)1 << (x & 63);
	}
	stage_acc acc = {0, 0, 0, 0};
	if (d->jlo <= d->jhi)
		dp_filters(d, J, J, bj, cand, &acc, bound, cand + words);
	/* an empty stage j: as good as j - 1 stages */
	size_t row = (size_t)(d->k + 1);
	double *cell = d->dp + (size_t)J * row;
	long *arg = d->arg + (size_t)J * row;
	for (int j = 1; j <= d->k; j++)
		if (cell[j - 1] <= cell[j]) {
			cell[j] = cell[j - 1];
			arg[j] = J;
		}
	return true;
}

/* True when every ideal smaller than J exists and has been expanded, so
 * that the downward edges of J and of all its sub-ideals are known. */
static bool dp_ready(const sc_dp *d, long J)
{
	return d->enumerated || d->size[d->expanded] >= d->size[J];
}

int sc_dp_step(sc_dp *d, double until, sc_error *err)
{
	do {
		if (d->next_j < d->ideals.count && d->next_j > 0 && dp_ready(d, d->next_j)) {
			if (!dp_fill(d, d->next_j++)) {
				sc_error_nomem(err, "the exact DP's edges");
				return -1;
			}
		} else if (d->next_j == 0) {
			d->next_j = 1; /* the empty set's row is dp_describe's */
		} else if (!d->enumerated) {
			if (dp_expand(d, err) != SC_OK)
				return -1;
		} else {
			return 0;
		}
	} while (sc_clock_now() < until);
	return 1;
}

void sc_dp_progress(const sc_dp *d, sc_dp_progress_info *p)
{
	p->ideals = d->ideals.count;
	p->ideals_done = d->next_j;
	p->layers = d->u->n + 1;
	p->layers_done = d->next_j < d->ideals.count ? d->size[d->next_j]
	                 : d->enumerated             ? d->u->n + 1
	                                             : d->size[d->next_j - 1];
	p->evals = d->evals;
}

double sc_dp_result(const sc_dp *d, int *unit_stage)
{
	size_t row = (size_t)(d->k + 1);
	long J = d->ideals.count - 1; /* breadth first: the full set is the last ideal */
	double opt = d->dp[(size_t)J * row + (size_t)d->k];
	if (!unit_stage || !isfinite(opt))
		return opt;
	int words = d->ideals.words;
	for (int x = 0; x < d->u->n; x++)
		unit_stage[x] = 0;
	for (int j = d->k; j >= 1 && J != 0; j--) {
		long I = d->arg[(size_t)J * row + (size_t)j];
		if (I == J)
			continue;
		const word *bi = d->ideals.bits + I * words, *bj = d->ideals.bits + J * words;
		for (int x = 0; x < d->u->n; x++)
			if (has(bj, x) && !has(bi, x))
				unit_stage[x] = j - 1;
		J = I;
	}
	return opt;
}

long sc_ideals_count(const sc_units *u, long limit)
{
	sc_settings set;
	sc_settings_init(&set);
	sc_dp *d = sc_dp_new(u, &set, 1, limit, NULL);
	if (!d)
		return -1;
	long count = -1;
	while (!d->enumerated) {
		sc_error err;
		if (dp_expand(d, &err) != SC_OK) {
			count = err.code == SC_ERR_LIMIT ? limit + 1 : -1;
			break;
		}
	}
	if (d->enumerated)
		count = d->ideals.count;
	sc_dp_free(d);
	return count;
}

/* ---- the exact method --------------------------------------------------- */

typedef struct exact_state {
	sc_dp *dp;
	int *unit_stage;
} exact_state;

static void exact_fini(sc_search *s)
{
	exact_state *e = s->state;
	if (e) {
		sc_dp_free(e->dp);
		free(e->unit_stage);
		free(e);
	}
	s->state = NULL;
}

/* A quick upper bound: DPL and a few random orders, sliced (each costs a
 * SliceGraph evaluation; the bound only prunes, so a few are enough). */
#define QUICK_ORDERS 4
#define SMALL_IDEALS 500

static double quick_upper_bound(sc_search *s, int *unit_stage, int orders)
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
	for (int t = 0; t < orders; t++) {
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

static void exact_publish(sc_search *s)
{
	exact_state *e = s->state;
	sc_dp_progress_info p;
	sc_dp_progress(e->dp, &p);
	pthread_mutex_lock(&s->lock);
	s->snapshot.ideals = p.ideals;
	s->snapshot.ideals_done = p.ideals_done;
	s->snapshot.layers_done = p.layers_done;
	s->snapshot.layers = p.layers;
	pthread_mutex_unlock(&s->lock);
}

static sc_status exact_init(sc_search *s, sc_error *err)
{
	exact_state *e = calloc(1, sizeof *e);
	if (!e)
		return sc_error_nomem(err, "the exact search");
	s->state = e;
	e->unit_stage = sc_malloc_n((size_t)s->units->n, sizeof *e->unit_stage);
	if (!e->unit_stage)
		return sc_error_nomem(err, "the exact search");
	e->dp = sc_dp_new(s->units, &s->set, s->set.k, s->p.ideal_limit, err);
	if (!e->dp)
		return err ? err->code : SC_ERR_NOMEM;
	/* a first slice of the enumeration here, so that a graph far past a
	 * small limit is refused at once */
	double until = sc_clock_now() + 0.05;
	while (!e->dp->enumerated && sc_clock_now() < until)
		if (dp_expand(e->dp, err) != SC_OK)
			return err ? err->code : SC_ERR_LIMIT;
	/* a DP over few ideals is quick without a tight bound: DPL's will do */
	bool small = e->dp->enumerated && e->dp->ideals.count <= SMALL_IDEALS;
	double ub = quick_upper_bound(s, e->unit_stage, small ? 0 : QUICK_ORDERS);
	sc_dp_set_bound(e->dp, ub);
	exact_publish(s);
	return SC_OK;
}

static bool exact_step(sc_search *s)
{
	exact_state *e = s->state;
	if (sc_search_should_stop(s, 0))
		return false; /* not finished: the quick bound's partition stands */
	sc_error err;
	long before = e->dp->evals;
	int more = sc_dp_step(e->dp, sc_clock_now() + 0.02, &err);
	s->evals += e->dp->evals - before;
	exact_publish(s);
	if (more < 0) {
		sc_search_fail(s, &err);
		return false;
	}
	if (more > 0)
		return true;
	double opt = sc_dp_result(e->dp, e->unit_stage);
	if (isfinite(opt)) {
		/* the DP's own partition replaces the quick one even on a tie */
		s->have_best = false;
		sc_search_offer(s, e->unit_stage, opt);
	}
	/* finite or not, the DP has settled it: no partition beats this one;
	 * INFINITY means none is feasible, or (pruned by the quick bound, by
	 * rounding only) that the quick partition is optimal */
	s->optimal = true;
	return false;
}

const sc_method sc_method_exact = {
        .name = "exact",
        .help = "the exact DP over ideals (paper 001); refuses past the ideals memory holds "
                "(or --ideal-limit)",
        .merge_trivial = true,
        .refines_itself = true,
        .init = exact_init,
        .step = exact_step,
        .fini = exact_fini,
};

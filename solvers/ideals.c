/*
 * ideals.c - the exact dynamic program over ideals (001 section 5.1.1).
 *
 * Longer than 600 lines: the ideal table, the stepwise DP (with its
 * variants for the GPipe schedule and for CPU stages) and the exact method share one
 * representation of ideals (bitsets, buckets, rows, fronts) and the
 * search over the stages after an ideal, which splitting the file would
 * have to expose.
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
 * Forwards, lazily, in layers.  The DP pushes: an ideal I whose row is
 * final sends every stage S that can follow it (I + S an ideal) to
 * I + S.  Ideals are made only when some stage reaches them (bitsets in a
 * hash table) and kept in a bucket per size; the layers (sizes) are
 * processed in order, so every ideal's row is final before it pushes, a
 * long run reports ideals made and layers done, and time limits and
 * cancelling hold between steps.
 *
 * The stages after I are listed without repeats by a depth-first search
 * that adds units in increasing number (units are numbered topologically),
 * each once all its predecessors are in I or S.  Its cost is kept as S
 * grows: work and parameters add up; a tensor enters io in when its first
 * reader joins; a tensor of S is io out until all its readers have joined.
 * Work, io in and overflow only grow, so a branch stops once they pass the
 * bound UB, the cost of a partition a quick search found (optimum <= UB).
 *
 * Training graphs (graph.h): the units and ideals follow the order arcs,
 * but the io follows the real edges, which also run from S to I (a forward
 * op of S read by a backward op of an earlier stage) and from ops after
 * I + S into S.  So a tensor read by S may later stop being an input (its
 * producer joins S), and one of S may be read by I.  The stage keeps one
 * count per op, the edges from it into S (acc_add_training); its cost is
 * exact at every step, but io in no longer only grows.  What does only
 * grow is the io between S and I (I never changes while S grows), so the
 * branch bound there is work + that io + overflow.
 * States above UB are dropped, an ideal pushes only from its rows that are
 * within UB and whose remaining work fits the stages left (every stage
 * costs at least its work), which keeps an optimal chain (every state on
 * it costs at most the optimum); without a bound (UB infinite) every
 * ideal is made and the DP is the plain one.  With a bound, the stage
 * search also stops a branch whose ideals cannot hold the work the
 * stages after them leave ("the reach of a branch": the units it passed
 * over shut out their descendants), and walks through, without making,
 * an I + S that no row within UB would take.
 *
 * The exact method first bounds the optimum from below (sc_dp_floor: per
 * unit, the least cost of any stage that holds it, by a small branch and
 * bound over the units around it, closed under the order as a stage of
 * ideals is): when its quick partition meets that floor it is optimal and
 * no DP runs, which on the msr-fiddle operator graphs settles most rows
 * (their optimum is the stage an unavoidable heavy op needs).
 *
 * The limit on the ideals is set by memory (a quarter of the machine's,
 * at most 8 GiB, divided by the bytes one ideal takes at this k) unless
 * --ideal-limit gives a count.  The method `best` takes the DP when the
 * ideals also fit the time (sc_dp_best_limit).
 *
 * Under the GPipe schedule of a training graph the objective is the
 * largest forward cost plus the largest backward cost, and each ideal
 * keeps a Pareto front of those two maxima (and the stages used) instead
 * of a row: see "the DP under the GPipe schedule" below.  That is a path
 * of its own (gp_push, gp_grow, with devices gp_grow_kinds), taken only
 * then; the bottleneck DP runs as before.
 */
#include "ideals.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cost.h"
#include "core/fleet.h"
#include "core/mem.h"
#include "search_impl.h"

typedef uint64_t word;

/* How many new ideals between two calls of a DP's stop callback. */
enum { STOP_POLL = 4096 };

typedef struct ideal_set {
	int words; /* per bitset */
	long count, cap;
	word *bits;     /* count x words */
	uint64_t *hash; /* count: each ideal's hash_bits, kept for probing and growing */
	long *table;    /* hash table of ideal indices, -1 empty */
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
	free(s->hash);
	free(s->table);
}

/* a == b over words words: a loop, since a few words are the common case
 * and a call to memcmp costs more than comparing them */
static inline bool same_bits(const word *a, const word *b, int words)
{
	for (int i = 0; i < words; i++)
		if (a[i] != b[i])
			return false;
	return true;
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
		long at = (long)(s->hash[id] & (uint64_t)(cap - 1));
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
		if (s->hash[id] == h && same_bits(s->bits + id * s->words, b, s->words))
			return id;
		at = (at + 1) & (s->tcap - 1);
	}
	if (s->count == s->cap) {
		long cap = s->cap ? 2 * s->cap : 1024;
		word *nb = realloc(s->bits, (size_t)cap * (size_t)s->words * sizeof *nb);
		if (!nb)
			return -1;
		s->bits = nb;
		uint64_t *nh = realloc(s->hash, (size_t)cap * sizeof *nh);
		if (!nh)
			return -1;
		s->hash = nh;
		s->cap = cap;
	}
	memcpy(s->bits + s->count * s->words, b, (size_t)s->words * sizeof *b);
	s->hash[s->count] = h;
	s->table[at] = s->count;
	*added = true;
	return s->count++;
}

static inline bool has(const word *b, int x)
{
	return (b[x >> 6] >> (x & 63)) & 1;
}

/* ---- the DP ------------------------------------------------------------- */

/* Under GPipe (see "the DP under the GPipe schedule"): one Pareto pair of
 * an ideal J, j stages in pipeline order covering J with largest forward
 * cost f and largest backward cost b, the last of them J \ from, after the
 * pair `at` of ideal from (the empty ideal's own pair: from 0, at -1). */
typedef struct gp_pair {
	double f, b;
	long from;
	int at, j;
} gp_pair;

/* An ideal's pairs, none dominating another (fewer stages, no larger f
 * and b); cut, when the ideal pushes, to those a stage can follow. */
typedef struct gp_front {
	gp_pair *p;
	int n, cap;
} gp_front;

/* A level of the stage search (dp_grow, gp_grow): the candidates it walks
 * (cand, from word wi on, bits the rest of that word), the next level's
 * pool, the ideal I + S so far (J; -1 when no stage reaches it within the
 * bound, so that it was not made: its size, least time and parameters
 * beside it) and the unit x it added last.  S's
 * accumulated costs sit beside it, in d->accs, each search its own kind. */
typedef struct grow_frame {
	const word *cand;
	word *pool;
	long J;
	double work, param;
	int size;
	int wi;
	word bits;
	int x;
	bool counted; /* x's io was counted (acc_add: see dp_grow_kinds) */
	int last;     /* the candidate tried last at this level, or -1 */
} grow_frame;

struct sc_dp {
	const sc_units *u;
	const sc_graph *g;
	sc_settings set;
	int k;
	long limit;
	bool limit_given; /* limit is a count asked for, not the memory budget's */
	double ub;        /* INFINITY: no pruning */
	/* polled every STOP_POLL new stages within a step (sc_dp_set_stop) */
	bool (*stop)(void *ctx);
	void *stop_ctx;
	unsigned polls;
	bool stopped;
	bool balance; /* rows hold sums of squared stage costs (sc_dp_set_balance) */
	double total_work;
	ideal_set ideals;
	long cap;  /* of the per-ideal arrays below */
	int *size; /* units in the ideal */
	double *work, *param;
	long *next;   /* the next ideal of the same size (a bucket per size), or -1 */
	double *dp;   /* count x (k + 1) */
	long *arg;    /* count x (k + 1): I of the last stage (J itself: empty) */
	long *bucket; /* per size: the first ideal of that size, or -1 */
	int layer;    /* the size being processed */
	long at;      /* the next ideal of that size to push from, or -1 */
	long done;    /* ideals pushed from */
	long full;    /* the index of the full set, or -1 */
	long evals;
	bool finished;
	/* the search over stages from one ideal I */
	word *jbits;        /* I plus the stage so far */
	word *cand;         /* candidate sets, a level each */
	grow_frame *frames; /* the stage search's stack, a level per unit
	                     * of S (dp_grow, gp_grow: no recursion as
	                     * deep as a stage is long; a 27 000-unit
	                     * chain overflowed) */
	void *accs;         /* each level's accumulated costs (stage_acc,
	                     * or gp_acc under GPipe) */
	int *rem;           /* per unit outside I and the stage: predecessors not yet in */
	int *readers;       /* per op: edges from it into the stage (tensors read by it);
	                     * training: every op's, in the stage or not */
	int *inside;        /* per op of the stage: edges from it to other units of the stage */
	int *outdeg;        /* per op: edges from it to other units */
	int jlo_i, jhi_i;   /* I's rows that can still lead somewhere */
	double *suffix;     /* per unit y: the least times of the units >= y outside I */
	/* what a branch of the stage search can still reach (see "the reach
	 * of a branch"): per unit the least time of its descendants, itself
	 * included (NULL past DESC_UNITS_MAX units: the suffix alone), and
	 * per level the most of that over the units the branch passed over */
	double *desc_w, *excl_w;
	bool reach_tried; /* reach_setup ran (at the first push with a bound) */
	double need;      /* the work I + S must reach for a row to take it (-INFINITY: none) */
	int *pinned;      /* the pinned units (units.h), npinned of them */
	int npinned;
	bool training; /* io may flow against the order (see the top) */
	/* the GPipe schedule of a training graph: fronts instead of rows */
	bool gpipe;
	gp_front *front;        /* per ideal (dp and arg stay NULL) */
	double *work_bw;        /* per ideal: the work of its backward ops */
	double *unit_pass;      /* per unit: the work of its forward, backward ops */
	double total_pass[2];   /* forward, backward work of the graph */
	double floor[2];        /* what every partition's largest fw, bw reach */
	long pairs, pair_limit; /* pair slots allocated, and the most allowed */
	int front_max;          /* the largest front made */
	/* Devices (see "Devices" below): D kinds (0: the plain DP of the
	 * graph's work kind); each ideal's row holds prod (cnt[e] + 1) cells,
	 * cell (j_0, .., j_D-1) at sum j_e stride[e] (rw of them; keff = rw -
	 * 1 sizes the memory as a DP of keff stages would) */
	int D, rw, keff;
	sc_fleet fleet;
	bool relaxed; /* links differ: the DP's value is a lower bound (sc_dp_relaxed) */
	/* activation memory held exactly (see "Memory" below): scratch for a
	 * stage's ops in program order, their stamp per op (ops of the stage
	 * hold mem_stamp), each op's place in the program order, and the
	 * stage's memory need per row j (k + 1) */
	bool mem_exact;
	sc_acts_work *mem_work;
	int *mem_ops, *mem_in, *mem_pos, mem_stamp;
	double *mem_cost;
	int cnt[SC_KINDS_MAX], stride[SC_KINDS_MAX];
	double *lw;   /* per unit: the least time it adds to any stage (u->work when D = 0) */
	double *uw;   /* per unit and kind: its time there, INFINITY where it may not run */
	double *uwb;  /* under GPipe, per unit and kind: the backward part of uw */
	double *kacc; /* the stage search's per-kind times, D per level */
	/* per cell: the stages left to fill, and as bits the kinds with a
	 * stage still free (room) and with one used (used); the cells of the
	 * pushing ideal a stage can follow, nlive of them */
	int *cell_left;
	unsigned char *cell_room, *cell_used;
	int *live_at, nlive;
	/* per kind: the most least-time work (lw) one of its stages within
	 * the bound can hold (kind_capacity), and per cell the sum over the
	 * stages it has left; made at the first push, the bound known */
	double kcap[SC_KINDS_MAX];
	double need_k[SC_KINDS_MAX]; /* d->need per kind of the next stage */
	double *cell_cap;
	bool caps_made;
};

void sc_dp_free(sc_dp *d)
{
	if (!d)
		return;
	free(d->pinned);
	sc_acts_work_free(d->mem_work);
	free(d->mem_ops);
	free(d->mem_in);
	free(d->mem_pos);
	free(d->mem_cost);
	if (d->front)
		for (long id = 0; id < d->ideals.count; id++)
			free(d->front[id].p);
	free(d->front);
	free(d->work_bw);
	free(d->unit_pass);
	ideal_set_free(&d->ideals);
	free(d->size);
	free(d->work);
	free(d->param);
	free(d->next);
	free(d->dp);
	free(d->arg);
	free(d->bucket);
	free(d->jbits);
	free(d->cand);
	free(d->frames);
	free(d->accs);
	free(d->rem);
	free(d->suffix);
	free(d->desc_w);
	free(d->excl_w);
	free(d->readers);
	free(d->inside);
	free(d->outdeg);
	if (d->lw != d->u->work)
		free(d->lw);
	free(d->uw);
	free(d->uwb);
	free(d->kacc);
	free(d->cell_left);
	free(d->cell_cap);
	free(d->cell_room);
	free(d->cell_used);
	free(d->live_at);
	free(d);
}

size_t sc_dp_bytes_per_ideal(const sc_units *u, int k)
{
	size_t words = (size_t)(u->n + 63) / 64;
	if (words == 0)
		words = 1;
	/* bits, hash, hash slots at load 1/2, size, work, param, next, rows;
	 * twice, since every array doubles when it grows */
	size_t one = words * sizeof(word) + sizeof(uint64_t) + 2 * sizeof(long) + sizeof(int) +
	             2 * sizeof(double) + sizeof(long) +
	             (size_t)(k + 1) * (sizeof(double) + sizeof(long));
	return 2 * one;
}

double sc_dp_memory_budget(void)
{
	double budget = 2.0 * 1024 * 1024 * 1024;
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages > 0 && page > 0)
		budget = fmin((double)pages * (double)page / 4, 8.0 * 1024 * 1024 * 1024);
	return budget;
}

/* The ideals bytes hold at k stages. */
static long ideals_in(double bytes, const sc_units *u, int k)
{
	double n = bytes / (double)sc_dp_bytes_per_ideal(u, k);
	return n > 1e12 ? (long)1e12 : n < 1 ? 1 : (long)n;
}

long sc_dp_memory_limit(const sc_units *u, int k)
{
	return ideals_in(sc_dp_memory_budget(), u, k);
}

/* Grows the per-ideal arrays to hold at least need ideals: the rows, or
 * under GPipe the fronts. */
static bool dp_reserve(sc_dp *d, long need)
{
	if (need <= d->cap)
		return true;
	long cap = d->cap ? d->cap : 1024;
	while (cap < need)
		cap *= 2;
	size_t c = (size_t)cap, row = (size_t)d->rw;
	int *size = realloc(d->size, c * sizeof *size);
	if (size)
		d->size = size;
	double *work = realloc(d->work, c * sizeof *work);
	if (work)
		d->work = work;
	double *param = realloc(d->param, c * sizeof *param);
	if (param)
		d->param = param;
	long *next = realloc(d->next, c * sizeof *next);
	if (next)
		d->next = next;
	bool rows;
	if (d->gpipe) {
		gp_front *front = realloc(d->front, c * sizeof *front);
		if (front) {
			/* zeroed, so that sc_dp_free frees only what was made */
			memset(front + d->cap, 0, (c - (size_t)d->cap) * sizeof *front);
			d->front = front;
		}
		double *work_bw = realloc(d->work_bw, c * sizeof *work_bw);
		if (work_bw)
			d->work_bw = work_bw;
		rows = front && work_bw;
	} else {
		double *dp = realloc(d->dp, c * row * sizeof *dp);
		if (dp)
			d->dp = dp;
		long *arg = realloc(d->arg, c * row * sizeof *arg);
		if (arg)
			d->arg = arg;
		rows = dp && arg;
	}
	if (!size || !work || !param || !next || !rows)
		return false;
	d->cap = cap;
	return true;
}

static int gp_insert(sc_dp *d, long J, double f, double b, int j, long from, int at, sc_error *err);

/* Asks the stop callback every STOP_POLL calls: false (err set, the DP
 * stopped for good) once it says stop. */
static bool dp_poll(sc_dp *d, sc_error *err)
{
	if (d->stop && ++d->polls % STOP_POLL == 0 && d->stop(d->stop_ctx)) {
		d->stopped = true;
		sc_error_set(err, SC_ERR_LIMIT, "the exact DP was stopped");
		return false;
	}
	return true;
}

/* The ideal with bits b (of size sz, work w of which wb backward, param p),
 * made when new (an empty row or front, in its size's bucket).  Its index,
 * or -1 with err set. */
static long dp_ideal(sc_dp *d, const word *b, int sz, double w, double wb, double p, sc_error *err)
{
	bool added;
	long id = ideal_add(&d->ideals, b, &added);
	if (id < 0 || (added && !dp_reserve(d, id + 1))) {
		sc_error_nomem(err, "the ideals");
		return -1;
	}
	if (!added)
		return id;
	/* one push can make millions of ideals: the caller's stop (time, ^C)
	 * is asked here, between two of them, and ends the step */
	if (!dp_poll(d, err))
		return -1;
	if (d->ideals.count > d->limit) {
		sc_error_set(
		        err, SC_ERR_LIMIT,
		        "the exact DP needs more than %ld ideals (the graph is too wide for the "
		        "memory); raise --ideal-limit or use another method",
		        d->limit);
		return -1;
	}
	d->size[id] = sz;
	d->work[id] = w;
	d->param[id] = p;
	d->next[id] = d->bucket[sz];
	d->bucket[sz] = id;
	if (sz == d->u->n)
		d->full = id;
	if (d->gpipe) {
		d->work_bw[id] = wb;
		/* the empty ideal: no stage yet, and the maxima start at what
		 * every partition reaches (see the GPipe section) */
		if (id == 0 && gp_insert(d, 0, d->floor[0], d->floor[1], 0, 0, -1, err) < 0)
			return -1;
		return id;
	}
	size_t row = (size_t)d->rw;
	for (size_t j = 0; j < row; j++) {
		d->dp[(size_t)id * row + j] = id == 0 ? 0 : INFINITY;
		d->arg[(size_t)id * row + j] = id;
	}
	return id;
}

static size_t grow_acc_size(void);

long sc_dp_best_limit(const sc_units *u, const sc_settings *set, double time_limit)
{
	/* a row of prod (count + 1) cells takes what one of that many
	 * stages does */
	long cells = 1;
	if (set->fleet)
		for (int e = 0; e < set->fleet->n; e++)
			cells *= set->fleet->kind[e].count + 1;
	else
		cells = (long)(set->k + 1) * (set->cpus > 0 ? set->cpus + 1 : 1);
	long memory = sc_dp_memory_limit(u, (int)(cells > INT_MAX ? INT_MAX : cells - 1));
	if (sc_graph_is_training(u->g) && set->schedule == SC_SCHEDULE_GPIPE)
		memory = memory / 2 > 0 ? memory / 2 : 1;
	/* counting the ideals to choose holds them all: no more than a
	 * command's own budget, 10 KiB per op and at least 1 GiB
	 * (stagecut(1), Memory), whatever the time allows (at 10^5 ops and
	 * -t 150 the count alone took 1.67 GB) */
	double command = fmax((double)(1 << 30), 10240.0 * u->g->n);
	long counted = ideals_in(command, u, (int)(cells > INT_MAX ? INT_MAX : cells - 1));
	if (counted < memory)
		memory = counted;
	double seconds = time_limit > 0 ? time_limit : SC_BEST_DP_SECONDS;
	double in_time = fmax(1, seconds / SC_DP_SECONDS_PER_IDEAL);
	return in_time < (double)memory ? (long)in_time : memory;
}

/* Devices (fleet.h; 001 sections 3 and 4 for CPU stages).  Each ideal's
 * row holds dp[I][j_0 .. j_D-1], the optimum for I on at most j_e stages
 * of kind e; a stage S after I relaxes, for every kind e that may hold it,
 * the cell with one more stage of kind e by S's cost there (its ops' times
 * on e, and but on a CPU its io over e's link and its overflow against
 * e's memory), and an empty stage settles a cell from the cells with one
 * stage fewer.  arg holds I D + e: the last stage is S = J \ I on kind e
 * (I = J: an empty one).  The stage search goes on while some kind can
 * still hold S within the bound: each kind's time only grows with S, and
 * so do the io in and the overflow; a kind dies for good once S holds an
 * op it may not run or breaks its hard memory limit.  The pruning by the
 * work left uses, per unit, the least time it can add to a stage on any
 * kind, against the stages left of all kinds.  Pins hold as without
 * devices (pin_range): a cell's stages used, whatever their kinds, are the
 * j of its ideal, so a cell outside the ideal's pin range stays empty.
 * Under the GPipe schedule a triple's j is a cell, one triple dominating
 * another only with no more stages of any kind (gp_grow_kinds).  When the
 * kinds that pay io have
 * links of different speeds, a transfer goes at the slower of its two
 * links, which depends on the neighbours' kinds: the DP then charges each
 * stage's io over its own link, never more than the truth, and its value
 * is a lower bound (a relaxation), its partition's true cost an upper
 * bound. */
static bool dp_kinds_setup(sc_dp *d, const sc_settings *set, int k, sc_error *err)
{
	const sc_units *u = d->u;
	const sc_graph *g = d->g;
	if (!sc_fleet_resolve(g, set, &d->fleet, err))
		return false;
	if (!set->fleet)
		d->fleet.kind[0].count = k;
	/* links of several speeds: each stage's io over its own link, a
	 * lower bound on the slower of each transfer's two (fleet.h) */
	d->relaxed = !sc_fleet_one_link(&d->fleet);
	int D = d->D = d->fleet.n;
	long rw = 1;
	for (int e = D - 1; e >= 0; e--) {
		d->cnt[e] = d->fleet.kind[e].count;
		d->stride[e] = (int)rw;
		rw *= d->cnt[e] + 1;
		if (rw > (1L << 20)) {
			sc_error_set(err, SC_ERR_INPUT,
			             "the exact DP takes at most 2^20 mixes of device counts");
			return false;
		}
	}
	d->rw = (int)rw;
	d->keff = d->rw - 1;
	size_t n = (size_t)(u->n > 0 ? u->n : 1);
	d->lw = sc_malloc_n(n, sizeof *d->lw);
	d->uw = sc_malloc_n(n * (size_t)D, sizeof *d->uw);
	/* per level and kind: the time, or under GPipe its two passes */
	d->kacc = sc_calloc_n((n + 2) * (size_t)D * 2, sizeof *d->kacc);
	d->uwb = d->gpipe ? sc_malloc_n(n * (size_t)D, sizeof *d->uwb) : NULL;
	d->cell_left = sc_malloc_n((size_t)d->rw, sizeof *d->cell_left);
	d->cell_cap = sc_malloc_n((size_t)d->rw, sizeof *d->cell_cap);
	d->cell_room = sc_malloc_n((size_t)d->rw, sizeof *d->cell_room);
	d->cell_used = sc_malloc_n((size_t)d->rw, sizeof *d->cell_used);
	d->live_at = sc_malloc_n((size_t)d->rw, sizeof *d->live_at);
	if (!d->lw || !d->uw || !d->kacc || !d->cell_left || !d->cell_cap || !d->cell_room ||
	    !d->cell_used || !d->live_at || (d->gpipe && !d->uwb)) {
		sc_error_nomem(err, "the exact DP");
		return false;
	}
	for (int at = 0; at < d->rw; at++) {
		int left = 0;
		unsigned room = 0, used = 0;
		for (int e = 0; e < D; e++) {
			int j = at / d->stride[e] % (d->cnt[e] + 1);
			left += d->cnt[e] - j;
			room |= (unsigned)(j < d->cnt[e]) << e;
			used |= (unsigned)(j > 0) << e;
		}
		d->cell_left[at] = left;
		d->cell_room[at] = (unsigned char)room;
		d->cell_used[at] = (unsigned char)used;
	}
	for (int x = 0; x < u->n; x++) {
		double lw = INFINITY;
		for (int e = 0; e < D; e++) {
			const sc_kind *ke = &d->fleet.kind[e];
			double t = 0, tb = 0;
			for (int i = u->ops_off[x]; i < u->ops_off[x + 1] && isfinite(t); i++) {
				int o = u->ops[i];
				double w = sc_kind_work(ke, g, o);
				t = sc_kind_ok(ke, g, o) ? t + w : INFINITY;
				tb += d->training && g->backward[o] ? w : 0;
			}
			d->uw[(size_t)x * D + e] = t;
			if (d->uwb)
				d->uwb[(size_t)x * D + e] = isfinite(t) ? tb : INFINITY;
			lw = fmin(lw, t);
		}
		/* a unit no kind may hold: no partition holds it, and the
		 * stage search finds none */
		d->lw[x] = isfinite(lw) ? lw : 0;
	}
	return true;
}

/* The reach of a branch.  The stage search adds units in increasing
 * number, so a unit below the last one added that is not in I + S never
 * joins this branch, nor does any of its descendants.  So the branch's
 * ideals hold at most all the work but the descendants of any unit it
 * passed over (the largest such set is what the search keeps per level),
 * which is often far below the suffix's bound (the units above the last
 * added): on a graph that is mostly a chain a skipped unit shuts out most
 * of what follows, and the branches that cannot reach the work the stages
 * after them leave (d->need) stop at once instead of walking every ideal
 * short of it (on the CPU rows of 001 section 3 at two accelerators: 3
 * to 4 times fewer stages costed).  Per unit, the least time of its
 * descendants comes from bitsets of a block of DESC_BLOCK units at a
 * time, made at the first push with a bound (without one no branch
 * stops for its reach), up to DESC_UNITS_MAX units: past them (the
 * bits' weights take units^2 / 2 steps on a chain), or when memory is
 * short, the suffix alone. */
enum { DESC_UNITS_MAX = 4096, DESC_BLOCK = 4096 };

static void reach_setup(sc_dp *d)
{
	const sc_units *u = d->u;
	d->reach_tried = true;
	if (u->n > DESC_UNITS_MAX)
		return;
	size_t n = (size_t)(u->n > 0 ? u->n : 1), w = DESC_BLOCK / 64;
	double *desc_w = sc_calloc_n(n, sizeof *desc_w);
	d->excl_w = sc_malloc_n(n + 2, sizeof *d->excl_w);
	word *bits = sc_malloc_n(n * w, sizeof *bits);
	if (!desc_w || !d->excl_w || !bits) {
		/* the suffix alone bounds the branches then */
		free(desc_w);
		free(bits);
		return;
	}
	/* the descendants of each unit among units [b0, b0 + DESC_BLOCK) */
	for (int b0 = 0; b0 < u->n; b0 += DESC_BLOCK) {
		for (int x = u->n - 1; x >= 0; x--) {
			word *bx = bits + (size_t)x * w;
			memset(bx, 0, w * sizeof *bx);
			if (x >= b0 && x < b0 + DESC_BLOCK)
				bx[(x - b0) >> 6] |= (word)1 << ((x - b0) & 63);
			for (int i = u->succ_off[x]; i < u->succ_off[x + 1]; i++) {
				const word *by = bits + (size_t)u->succ[i] * w;
				for (size_t q = 0; q < w; q++)
					bx[q] |= by[q];
			}
			double add = 0;
			for (size_t q = 0; q < w; q++)
				for (word nb = bx[q]; nb; nb &= nb - 1)
					add += d->lw[b0 + (int)q * 64 + __builtin_ctzll(nb)];
			desc_w[x] += add;
		}
	}
	free(bits);
	d->desc_w = desc_w;
}

/* Candidate c is passed over at level lvl. */
static inline void reach_skip(sc_dp *d, int lvl, int c)
{
	if (d->desc_w[c] > d->excl_w[lvl])
		d->excl_w[lvl] = d->desc_w[c];
}

/* The most least time any ideal of the branch that takes candidate x at
 * level lvl (from I + S = Jf) can hold. */
static inline double reach_of(const sc_dp *d, const grow_frame *fr, int lvl, int x)
{
	double r = fr->work + d->suffix[x];
	if (d->desc_w) {
		double e = d->total_work - d->excl_w[lvl];
		r = e < r ? e : r;
	}
	return r;
}

/* Whether a stage's memory could pass a limit by more than the units'
 * param says: the graph holds stash or a working peak (activations.h),
 * which the DP does not model, and some device has a finite memory.  The
 * DP then solves a relaxation (sc_dp_relaxed). */
static bool acts_may_bind(const sc_graph *g, const sc_settings *set, int k)
{
	if (!g->acts || (!g->acts->peak && !sc_graph_is_training(g)))
		return false;
	/* what no stage can exceed: every parameter's share, every saved
	 * tensor for the most micro-batches any stage holds, every tensor
	 * live at once */
	double need = sc_acts_most(g, set, k);
	sc_fleet f;
	sc_error e;
	if (!sc_fleet_resolve(g, set, &f, &e))
		return need > set->memory;
	for (int i = 0; i < f.n; i++)
		if (!f.kind[i].cpu && need > f.kind[i].memory)
			return true;
	return false;
}

/*
 * Memory.  A stage's memory (activations.h) is its units' param (their
 * parameters with gradients and optimizer state: it adds up) plus its
 * stash times the micro-batches in flight at its place, plus its working
 * peak.  When that could pass a limit (acts_may_bind), the plain DP of
 * the 1F1B schedule or of inference holds it exactly: each stage S = J \ I
 * it relaxes gets its stash and peak from its ops in program order, and
 * each row j its need and so its overflow or its refusal under the hard
 * policy (dp_relax; with devices each kind's memory and link in each
 * place, dp_relax_kinds); the param part alone prunes the stage search, a
 * lower bound of the need that only grows with S.  Under GPipe the DP
 * charges the param part alone: a relaxation (sc_dp_relaxed).
 */
static bool mem_setup(sc_dp *d)
{
	const sc_graph *g = d->g;
	if (d->gpipe) {
		d->relaxed = true;
		return true;
	}
	d->mem_exact = true;
	d->mem_work = sc_acts_work_new(g);
	d->mem_ops = sc_malloc_n((size_t)g->n + 1, sizeof *d->mem_ops);
	d->mem_in = sc_calloc_n((size_t)g->n + 1, sizeof *d->mem_in);
	d->mem_pos = sc_malloc_n((size_t)g->n + 1, sizeof *d->mem_pos);
	d->mem_cost = sc_malloc_n((size_t)d->k + 2, sizeof *d->mem_cost);
	if (!d->mem_work || !d->mem_ops || !d->mem_in || !d->mem_pos || !d->mem_cost)
		return false;
	for (int i = 0; i < g->n; i++)
		d->mem_pos[g->acts->order[i]] = i;
	return true;
}

static const sc_dp *pos_ctx;
static int by_program_order(const void *a, const void *b)
{
	int x = pos_ctx->mem_pos[*(const int *)a], y = pos_ctx->mem_pos[*(const int *)b];
	return (x > y) - (x < y);
}

/* A stage of cost base without overflow that holds need bytes on a device
 * of memory M and link B: base, its overflow added, or INFINITY under the
 * hard policy. */
static inline double need_cost(const sc_dp *d, double base, double need, double M, double B)
{
	if (need <= M * (1 + 1e-15))
		return base;
	return d->set.policy == SC_MEM_HARD ? INFINITY : base + (need - M) / B;
}

/* The stash and working peak of the stage J \ I. */
static void mem_stage(sc_dp *d, long I, long J, double *stash, double *peak)
{
	const sc_graph *g = d->g;
	const word *bi = d->ideals.bits + I * d->ideals.words;
	const word *bj = d->ideals.bits + J * d->ideals.words;
	if (++d->mem_stamp == 0x7fffffff) {
		for (int v = 0; v < g->n; v++)
			d->mem_in[v] = 0;
		d->mem_stamp = 1;
	}
	int m = 0;
	for (int x = 0; x < d->u->n; x++) {
		if (!has(bj, x) || has(bi, x))
			continue;
		for (int i = d->u->ops_off[x]; i < d->u->ops_off[x + 1]; i++) {
			int v = d->u->ops[i];
			d->mem_in[v] = d->mem_stamp;
			if (!g->backward || !g->backward[v])
				d->mem_ops[m++] = v;
		}
	}
	/* in program order: a sort of the stage's ops when they are few, else
	 * one pass over the program order */
	if ((double)m * (m > 1 ? log2(m) : 1) * 4 < g->n) {
		pos_ctx = d;
		qsort(d->mem_ops, (size_t)m, sizeof *d->mem_ops, by_program_order);
	} else {
		m = 0;
		for (int i = 0; i < g->n; i++) {
			int v = g->acts->order[i];
			if (d->mem_in[v] == d->mem_stamp && (!g->backward || !g->backward[v]))
				d->mem_ops[m++] = v;
		}
	}
	sc_acts_stage(g, d->mem_work, d->mem_in, d->mem_stamp, d->mem_ops, m, stash, peak);
}

/* The cost of the stage J \ I in each row j (d->mem_cost[j]): base (its
 * cost without overflow) plus the overflow of its need there, INFINITY
 * where it breaks the hard limit; param is its units' param. */
static void mem_costs(sc_dp *d, long I, long J, double base, double param)
{
	const sc_graph *g = d->g;
	double stash, peak;
	mem_stage(d, I, J, &stash, &peak);
	double M = d->set.memory, B = d->set.bandwidth;
	for (int j = 1; j <= d->k; j++) {
		double need = param + stash * sc_acts_in_flight(g, &d->set, d->k, j - 1) + peak;
		d->mem_cost[j] = need_cost(d, base, need, M, B);
	}
}

/* Under GPipe with devices: each unit's least forward and backward time
 * over the kinds (unit_pass), and its least time lw their sum, which
 * every stage holding it pays at least (the two least times may come
 * from two kinds: a lower bound, as the pruning wants). */
static void gp_kinds_passes(sc_dp *d)
{
	int D = d->D;
	for (int x = 0; x < d->u->n; x++) {
		double f = INFINITY, b = INFINITY;
		for (int e = 0; e < D; e++) {
			size_t at = (size_t)x * D + e;
			if (!isfinite(d->uw[at]))
				continue;
			f = fmin(f, d->uw[at] - d->uwb[at]);
			b = fmin(b, d->uwb[at]);
		}
		/* a unit no kind may hold: as lw (dp_kinds_setup) */
		d->unit_pass[2 * x] = isfinite(f) ? f : 0;
		d->unit_pass[2 * x + 1] = isfinite(b) ? b : 0;
		d->lw[x] = d->unit_pass[2 * x] + d->unit_pass[2 * x + 1];
	}
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
	d->rw = k + 1;
	d->keff = k;
	d->lw = u->work;
	d->training = sc_graph_is_training(u->g);
	d->gpipe = d->training && set->schedule == SC_SCHEDULE_GPIPE;
	if (set->fleet || set->cpus > 0) {
		if (!dp_kinds_setup(d, set, k, err)) {
			sc_dp_free(d);
			return NULL;
		}
	}
	if (acts_may_bind(d->g, set, k) && !mem_setup(d)) {
		sc_dp_free(d);
		sc_error_nomem(err, "the exact DP");
		return NULL;
	}
	d->limit = limit > 0 ? limit : sc_dp_memory_limit(u, d->keff);
	d->limit_given = limit > 0;
	d->ub = INFINITY;
	d->full = -1;
	if (d->gpipe) {
		/* the memory budget split evenly between the ideals and the pairs */
		double budget = sc_dp_memory_budget() / 2;
		if (limit <= 0)
			d->limit = d->limit / 2 > 0 ? d->limit / 2 : 1;
		d->pair_limit = (long)fmin(budget / sizeof(gp_pair), 1e12);
		d->unit_pass = calloc(2 * (size_t)(u->n > 0 ? u->n : 1), sizeof *d->unit_pass);
		if (!d->unit_pass) {
			sc_dp_free(d);
			sc_error_nomem(err, "the exact DP");
			return NULL;
		}
		if (d->D > 0)
			gp_kinds_passes(d);
		else
			for (int x = 0; x < u->n; x++)
				for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
					int o = u->ops[i], pass = d->g->backward[o];
					d->unit_pass[2 * x + pass] += d->g->work[o];
				}
		for (int x = 0; x < u->n; x++)
			for (int pass = 0; pass < 2; pass++)
				d->total_pass[pass] += d->unit_pass[2 * x + pass];
		/* a stage costs at least its work in either pass: some stage has
		 * a K-th of each pass's work, and every unit's stage its work
		 * (with devices, its least over the kinds) */
		int K = d->D > 0 ? d->cell_left[0] : k;
		for (int pass = 0; pass < 2; pass++) {
			d->floor[pass] = d->total_pass[pass] / K;
			for (int x = 0; x < u->n; x++)
				d->floor[pass] = fmax(d->floor[pass], d->unit_pass[2 * x + pass]);
		}
	}
	for (int x = 0; x < u->n; x++)
		d->total_work += d->lw[x];
	if (u->pin) {
		d->pinned = sc_malloc_n((size_t)(u->n > 0 ? u->n : 1), sizeof *d->pinned);
		if (!d->pinned) {
			sc_dp_free(d);
			sc_error_nomem(err, "the exact DP");
			return NULL;
		}
		for (int x = 0; x < u->n; x++)
			if (u->pin[x] >= 0)
				d->pinned[d->npinned++] = x;
	}
	d->ideals.words = (u->n + 63) / 64;
	if (d->ideals.words == 0)
		d->ideals.words = 1;
	size_t w = (size_t)d->ideals.words, n = (size_t)u->n, ops = (size_t)d->g->n + 1;
	d->bucket = sc_malloc_n(n + 1, sizeof *d->bucket);
	d->jbits = calloc(w, sizeof(word));
	d->cand = sc_malloc_n((n + 2) * w, sizeof *d->cand);
	d->frames = sc_malloc_n(n + 2, sizeof *d->frames);
	d->accs = sc_malloc_n(n + 2, grow_acc_size());
	d->rem = sc_malloc_n(n + 1, sizeof *d->rem);
	d->suffix = sc_calloc_n(n + 2, sizeof *d->suffix);
	d->readers = calloc(ops, sizeof *d->readers);
	d->inside = calloc(ops, sizeof *d->inside);
	d->outdeg = calloc(ops, sizeof *d->outdeg);
	if (!d->bucket || !d->jbits || !d->cand || !d->frames || !d->accs || !d->rem ||
	    !d->suffix || !d->readers || !d->inside || !d->outdeg) {
		sc_dp_free(d);
		sc_error_nomem(err, "the exact DP");
		return NULL;
	}
	for (size_t s = 0; s <= n; s++)
		d->bucket[s] = -1;
	for (int o = 0; o < d->g->n; o++)
		for (int i = d->g->succ_off[o]; i < d->g->succ_off[o + 1]; i++)
			d->outdeg[o] += u->unit_of[d->g->succ[i]] != u->unit_of[o];
	if (dp_ideal(d, d->jbits, 0, 0, 0, 0, err) < 0) {
		sc_dp_free(d);
		return NULL;
	}
	d->at = 0;
	return d;
}

void sc_dp_set_bound(sc_dp *d, double ub, bool strict)
{
	/* strict: a relative 1e-12 below ub, so that the partition of cost ub
	 * itself (its stages summed in another order) is not found again */
	d->ub = strict ? ub * (1 - 1e-12) : ub * (1 + 1e-12);
}

void sc_dp_set_stop(sc_dp *d, bool (*stop)(void *ctx), void *ctx)
{
	d->stop = stop;
	d->stop_ctx = ctx;
}

bool sc_dp_stopped(const sc_dp *d)
{
	return d->stopped;
}

void sc_dp_set_memory(sc_dp *d, double bytes)
{
	if (d->limit_given || !(bytes > 0))
		return;
	/* under GPipe, half for the ideals and half for the pairs, as in
	 * sc_dp_new */
	d->limit = ideals_in(d->gpipe ? bytes / 2 : bytes, d->u, d->keff);
	if (d->gpipe)
		d->pair_limit = (long)fmax(1, fmin(bytes / 2 / sizeof(gp_pair), 1e12));
}

void sc_dp_set_balance(sc_dp *d, double cap)
{
	if (d->gpipe)
		return;
	d->balance = true;
	d->ub = cap * (1 + 1e-12);
}

void sc_dp_set_pair_limit(sc_dp *d, long pairs)
{
	if (d->gpipe)
		d->pair_limit = pairs;
}

/* The stage S being grown from ideal I, its costs kept as it grows. */
typedef struct stage_acc {
	double work, param;
	double in, out; /* bytes: tensors read by S from outside; S's tensors read outside S */
	double fixed;   /* training: bytes of the tensors between S and I (they stay io) */
} stage_acc;

/* Adds unit x (all its predecessors in I or S) to S.  A tensor enters io in
 * when its first reader joins S (its producer is in I: io in only grows);
 * x's tensors read by other units are io out until all those readers have
 * joined (d->inside counts them). */
static inline __attribute__((always_inline)) void acc_add(sc_dp *d, stage_acc *a, int x)
{
	const sc_units *u = d->u;
	const sc_graph *g = d->g;
	a->work += u->work[x];
	a->param += u->param[x];
	for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
		int o = u->ops[i];
		if (d->outdeg[o] > 0)
			a->out += g->out[o];
		for (int j = g->pred_off[o]; j < g->pred_off[o + 1]; j++) {
			int p = g->pred[j], up = u->unit_of[p];
			if (up == x)
				continue;
			if (d->rem[up] == -1) {
				/* p is in S: one more of its readers inside */
				if (++d->inside[p] == d->outdeg[p])
					a->out -= g->out[p];
			} else if (d->readers[p]++ == 0) {
				a->in += g->out[p];
			}
		}
	}
}

/* acc_add on a training graph, where x's ops may have readers in I or in
 * S already and predecessors after I + S (see the top).  d->readers[p]
 * counts the edges from p into S (other units than p's) for every op p;
 * d->rem tells where a unit is (-2 in I, -1 in S, >= 0 outside).  The
 * caller has not yet marked x as in S. */
static void acc_add_training(sc_dp *d, stage_acc *a, int x)
{
	const sc_units *u = d->u;
	const sc_graph *g = d->g;
	int *cnt = d->readers;
	a->work += u->work[x];
	a->param += u->param[x];
	for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
		int o = u->ops[i];
		double b = g->out[o];
		/* o's tensor: an input of S until now, if S read it; io out from
		 * now on unless S holds all its readers */
		if (cnt[o] > 0)
			a->in -= b;
		if (cnt[o] < d->outdeg[o]) {
			a->out += b;
			for (int j = g->succ_off[o]; j < g->succ_off[o + 1]; j++)
				if (d->rem[u->unit_of[g->succ[j]]] == -2) {
					a->fixed += b; /* read in I: io out for good */
					break;
				}
		}
		for (int j = g->pred_off[o]; j < g->pred_off[o + 1]; j++) {
			int p = g->pred[j], up = u->unit_of[p];
			if (up == x)
				continue;
			int c = ++cnt[p];
			if (d->rem[up] == -1) {
				if (c == d->outdeg[p])
					a->out -= g->out[p]; /* its last reader joined */
			} else if (c == 1) {
				a->in += g->out[p];
				if (d->rem[up] == -2)
					a->fixed += g->out[p]; /* from I: io in for good */
			}
		}
	}
}

/* Undoes acc_add's or acc_add_training's counts (the caller restores the
 * sums). */
static void acc_remove(sc_dp *d, int x)
{
	const sc_units *u = d->u;
	const sc_graph *g = d->g;
	for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
		int o = u->ops[i];
		for (int j = g->pred_off[o]; j < g->pred_off[o + 1]; j++) {
			int p = g->pred[j], up = u->unit_of[p];
			if (up == x)
				continue;
			if (d->rem[up] == -1 && !d->training)
				d->inside[p]--;
			else
				d->readers[p]--;
		}
	}
}

/* Pins: the numbers of stages j that ideal J can be the first j stages
 * of, [*a, *b]: past every unit it holds pinned (j > pin) and short of
 * every one it lacks (j <= pin); [0, k] without pins. */
static void pin_range(const sc_dp *d, long J, int *a, int *b)
{
	*a = 0;
	*b = d->D > 0 ? d->cell_left[0] : d->k; /* the stages: with devices, every kind's */
	const word *bits = d->ideals.bits + J * d->ideals.words;
	for (int i = 0; i < d->npinned; i++) {
		int x = d->pinned[i], q = d->u->pin[x];
		if (has(bits, x)) {
			if (q + 1 > *a)
				*a = q + 1;
		} else if (q < *b) {
			*b = q;
		}
	}
}

/* Relaxes J's rows with the stage J \ I of cost c (in row j cj[j] when
 * cj is not NULL: the cost with its memory there, mem_costs). */
static void dp_relax(sc_dp *d, long I, long J, double c, const double *cj, double bound)
{
	int pa, pb;
	pin_range(d, J, &pa, &pb);
	size_t row = (size_t)(d->k + 1);
	const double *prev = d->dp + (size_t)I * row;
	double *cell = d->dp + (size_t)J * row;
	long *arg = d->arg + (size_t)J * row;
	/* the rest after J must fit the stages left (each costs at least its
	 * work) */
	double b = bound * (1 + 1e-9), rest = d->total_work - d->work[J];
	/* (work sums in another order: a full J may leave a rounding's rest) */
	double eps = 1e-9 * d->total_work;
	for (int j = d->jlo_i + 1; j <= d->jhi_i + 1 && j <= d->k; j++) {
		if ((isfinite(bound) && rest > (d->k - j) * b + eps) || j < pa || j > pb)
			continue;
		if (cj && !((c = cj[j]) < INFINITY))
			continue;
		double v = d->balance ? prev[j - 1] + c * c : prev[j - 1] > c ? prev[j - 1] : c;
		/* on a tie the later push, from the larger I, wins: the last
		 * stage as small as it can be, as the published DP reports */
		if (v <= cell[j] && (d->balance || v <= bound)) {
			cell[j] = v;
			arg[j] = I;
		}
	}
}

/* dp_relax with devices: J's cells from I's live ones, by the stage J \ I
 * on each kind e at cost c[e] (INFINITY where it cannot go). */
/* A stage's memory for dp_relax_kinds: its units' param, stash and
 * working peak (activations.h), held exactly (d->mem_exact). */
typedef struct stage_mem {
	double param, stash, peak;
} stage_mem;

/* The cost of a stage of cost c (its overflow from param alone) on kind
 * e in place j (1-based) of K, with its whole memory m: INFINITY where it
 * breaks e's hard limit. */
static double kind_mem_cost(const sc_dp *d, const stage_mem *m, int e, int j, int K, double c)
{
	const sc_kind *ke = &d->fleet.kind[e];
	if (ke->cpu || !isfinite(c))
		return c;
	double M = ke->memory, B = ke->bandwidth, lim = M * (1 + 1e-15);
	double base = m->param > lim ? c - (m->param - M) / B : c;
	double need = m->param + m->stash * sc_acts_in_flight(d->g, &d->set, K, j - 1) + m->peak;
	return need_cost(d, base, need, M, B);
}

static void dp_relax_kinds(sc_dp *d, long I, long J, const double *c, const stage_mem *m,
                           double bound)
{
	int D = d->D;
	size_t row = (size_t)d->rw;
	const double *prev = d->dp + (size_t)I * row;
	double *cell = d->dp + (size_t)J * row;
	long *arg = d->arg + (size_t)J * row;
	double rest = d->total_work - d->work[J];
	double eps = 1e-9 * d->total_work;
	bool bounded = isfinite(bound);
	unsigned kinds = 0; /* the kinds that may hold the stage */
	for (int e = 0; e < D; e++)
		kinds |= (unsigned)isfinite(c[e]) << e;
	/* pins: J is the first j stages for j in [pa, pb] only, whatever
	 * their kinds (a cell's j is its stages used, K - cell_left) */
	int pa = 0, K = d->cell_left[0], pb = K;
	if (d->npinned)
		pin_range(d, J, &pa, &pb);
	for (int i = 0; i < d->nlive; i++) {
		int at = d->live_at[i];
		/* the next stage is this cell's stage j + 1 */
		int j = K - d->cell_left[at] + 1;
		if (j < pa || j > pb)
			continue;
		/* the rest after J must fit the stages left after this one of
		 * kind e, each holding at most its kind's capacity */
		double p = prev[at];
		for (unsigned room = d->cell_room[at] & kinds; room; room &= room - 1) {
			int e = __builtin_ctz(room), to = at + d->stride[e];
			if (bounded && rest > d->cell_cap[at] - d->kcap[e] + eps)
				continue;
			double ce = m ? kind_mem_cost(d, m, e, j, K, c[e]) : c[e];
			if (!(ce < INFINITY))
				continue;
			double v = d->balance ? p + ce * ce : p > ce ? p : ce;
			if (v <= cell[to] && (d->balance || v <= bound)) {
				cell[to] = v;
				arg[to] = I * D + e;
			}
		}
	}
}

/* The stage search's steps, shared by dp_grow and gp_grow: unit x joins
 * the stage S (jbits; rem -1 marks S) ... */
static inline void stage_take(sc_dp *d, int x)
{
	d->jbits[x >> 6] |= (word)1 << (x & 63);
	d->rem[x] = -1; /* in S */
}

/* ... the next candidates into pool: those of cand after x (bits holds the
 * rest of word wi), and x's successors whose predecessors are now all in
 * I or S ... */
static inline void stage_next(sc_dp *d, int x, int wi, word bits, const word *cand, word *pool)
{
	const sc_units *u = d->u;
	int words = d->ideals.words;
	for (int q = 0; q < words; q++)
		pool[q] = q > wi ? cand[q] : q == wi ? bits : 0;
	for (int i = u->succ_off[x]; i < u->succ_off[x + 1]; i++) {
		int y = u->succ[i];
		if (--d->rem[y] == 0)
			pool[y >> 6] |= (word)1 << (y & 63);
	}
}

/* ... and x leaves S again (undoing stage_next when it ran) and its
 * accumulated io (when counted). */
static inline void stage_untake(sc_dp *d, int x, bool next_ran, bool counted)
{
	const sc_units *u = d->u;
	if (next_ran)
		for (int i = u->succ_off[x]; i < u->succ_off[x + 1]; i++)
			d->rem[u->succ[i]]++;
	d->rem[x] = 0;
	d->jbits[x >> 6] &= ~((word)1 << (x & 63));
	if (counted)
		acc_remove(d, x);
}

/* Level 0 of a walk: the candidates cand, the pool after them, ideal J;
 * nothing shut out yet. */
static void walk_start(sc_dp *d, grow_frame *f, const word *cand, word *pool, long J)
{
	f[0] = (grow_frame){.cand = cand,
	                    .pool = pool,
	                    .J = J,
	                    .work = d->work[J],
	                    .param = d->param[J],
	                    .size = d->size[J],
	                    .bits = cand[0],
	                    .x = -1,
	                    .last = -1};
	if (d->desc_w)
		d->excl_w[0] = 0;
}

/* The next unit to try at the deepest level *depth (removed from its
 * candidates), or -1 when the walk is over: a level with none left is
 * done, and the unit that opened it leaves S. */
static int walk_next(sc_dp *d, grow_frame *f, int *depth)
{
	int words = d->ideals.words;
	while (*depth >= 0) {
		grow_frame *fr = &f[*depth];
		/* the one tried before is passed over from now on */
		if (fr->last >= 0 && d->desc_w)
			reach_skip(d, *depth, fr->last);
		fr->last = -1;
		while (fr->wi < words) {
			if (fr->bits) {
				int bit = __builtin_ctzll(fr->bits);
				fr->bits &= fr->bits - 1;
				fr->last = fr->wi * 64 + bit;
				return fr->last;
			}
			if (++fr->wi < words)
				fr->bits = fr->cand[fr->wi];
		}
		if (--*depth >= 0)
			stage_untake(d, f[*depth].x, true, f[*depth].counted);
	}
	return -1;
}

/* Unit x, taken into S as ideal J2, opens the next level, which walks the
 * candidates after it (stage_next); *depth moves down to it. */
static void walk_push(sc_dp *d, grow_frame *f, int *depth, int x, long J2)
{
	grow_frame *fr = &f[*depth];
	int words = d->ideals.words;
	stage_next(d, x, fr->wi, fr->bits, fr->cand, fr->pool);
	fr->x = x;
	fr->counted = true;
	f[++*depth] = (grow_frame){.cand = fr->pool,
	                           .pool = fr->pool + words,
	                           .J = J2,
	                           .work = fr->work + d->lw[x],
	                           .param = fr->param + d->u->param[x],
	                           .size = fr->size + 1,
	                           .bits = fr->pool[0],
	                           .x = -1,
	                           .last = -1};
	if (d->desc_w)
		d->excl_w[*depth] = d->excl_w[*depth - 1];
}

/* On an error at level depth: the units of the levels above it leave S,
 * as the recursion's returns did. */
static void walk_unwind(sc_dp *d, const grow_frame *f, int depth)
{
	while (--depth >= 0)
		stage_untake(d, f[depth].x, true, f[depth].counted);
}

/* Unit x joins S (stage_take), the stage S costed (counted among the
 * evaluations), and I + S, grown from level depth, becomes an ideal of
 * the DP when make says a stage within the bound can reach it (else *J2
 * is -1: an ideal no stage relaxes would only take memory and a push
 * that finds no row to push from; the walk goes on through it all the
 * same).  0, or -1 with err set once the units of the walk's levels have
 * left S (walk_unwind).  The step dp_grow and dp_grow_kinds share. */
static inline int stage_ideal(sc_dp *d, const grow_frame *f, int depth, int x, bool make, long *J2,
                              sc_error *err)
{
	const grow_frame *fr = &f[depth];
	stage_take(d, x);
	d->evals++;
	*J2 = -1;
	bool ok = make ? (*J2 = dp_ideal(d, d->jbits, fr->size + 1, fr->work + d->lw[x], 0,
	                                 fr->param + d->u->param[x], err)) >= 0
	               : dp_poll(d, err);
	if (ok)
		return 0;
	walk_unwind(d, f, depth);
	return -1;
}

/* Grows the stage S from ideal I by units in increasing number, each once
 * its predecessors are all in I or S (so every stage after I is listed
 * once), while its lower bound (work + io in + overflow, which only grow)
 * is within bound, relaxing each I + S.  cand holds the units that may come
 * next (ready, above the last one added); pool is the next level's.  A
 * depth-first search on d->frames, a level per unit of S. */
static int dp_grow(sc_dp *d, long I, long J, const word *cand, const stage_acc *acc, double bound,
                   word *pool, sc_error *err)
{
	const sc_units *u = d->u;
	double M = d->set.memory, B = d->set.bandwidth;
	double pmax = d->set.policy == SC_MEM_HARD ? M * (1 + 1e-15) : INFINITY;
	grow_frame *f = d->frames;
	stage_acc *accs = d->accs;
	walk_start(d, f, cand, pool, J);
	accs[0] = *acc;
	int depth = 0, x;
	while ((x = walk_next(d, f, &depth)) >= 0) {
		const stage_acc *fa = &accs[depth];
		if (fa->work + u->work[x] > bound || fa->param + u->param[x] > pmax)
			continue;
		/* the units S can still take are numbered from x on: when all of
		 * them leave too much work for the stages left, no I + S of this
		 * branch takes a row (dp_relax) */
		if (reach_of(d, &f[depth], depth, x) < d->need)
			continue;
		stage_acc a = *fa;
		double lower, cost;
		double over;
		if (d->training) {
			acc_add_training(d, &a, x);
			over = a.param > M * (1 + 1e-15) ? (a.param - M) / B : 0;
			/* in and out: sums with subtractions; clamp rounding residue */
			double io = a.in + a.out;
			lower = a.work + a.fixed / B + over;
			cost = a.work + (io > 0 ? io : 0) / B + over;
		} else {
			acc_add(d, &a, x);
			over = a.param > M * (1 + 1e-15) ? (a.param - M) / B : 0;
			lower = a.work + a.in / B + over;
			cost = lower + a.out / B;
		}
		if (lower > bound) {
			acc_remove(d, x);
			continue;
		}
		/* a row takes I + S only when it leaves the stages after it
		 * no more than they hold (dp_relax) */
		bool make = cost <= bound && f[depth].work + u->work[x] >= d->need;
		long J2;
		if (stage_ideal(d, f, depth, x, make, &J2, err) < 0)
			return -1;
		if (J2 >= 0 && d->mem_exact) {
			mem_costs(d, I, J2, cost - over, a.param);
			dp_relax(d, I, J2, cost, d->mem_cost, bound);
		} else if (J2 >= 0) {
			dp_relax(d, I, J2, cost, NULL, bound);
		}
		walk_push(d, f, &depth, x, J2);
		accs[depth] = a;
	}
	return 0;
}

/* dp_grow with devices: S grows while some kind can hold it within the
 * bound (see "Devices"); d->kacc holds each level's time per kind. */
static int dp_grow_kinds(sc_dp *d, long I, long J, const word *cand, const stage_acc *acc,
                         double bound, word *pool, sc_error *err)
{
	const sc_units *u = d->u;
	int D = d->D;
	bool hard = d->set.policy == SC_MEM_HARD;
	grow_frame *f = d->frames;
	stage_acc *accs = d->accs;
	walk_start(d, f, cand, pool, J);
	accs[0] = *acc;
	for (int e = 0; e < D; e++)
		d->kacc[e] = 0;
	int depth = 0, x;
	while ((x = walk_next(d, f, &depth)) >= 0) {
		const stage_acc *fa = &accs[depth];
		const double *fk = d->kacc + (size_t)depth * D;
		/* the times of S + x, written where the next level reads them */
		double *kw = d->kacc + (size_t)(depth + 1) * D, c[SC_KINDS_MAX];
		/* as in dp_grow: S cannot grow enough for any live cell */
		double reach = reach_of(d, &f[depth], depth, x);
		if (reach < d->need)
			continue;
		bool any = false, io = false;
		double param = fa->param + u->param[x];
		for (int e = 0; e < D; e++) {
			const sc_kind *ke = &d->fleet.kind[e];
			kw[e] = fk[e] + d->uw[(size_t)x * D + e];
			/* and per kind: S on e can still leave the stages after
			 * it no more than they hold */
			bool alive = kw[e] <= bound && reach >= d->need_k[e] &&
			             (ke->cpu || !hard || param <= ke->memory * (1 + 1e-15));
			c[e] = alive ? kw[e] : INFINITY;
			any |= alive;
			io |= alive && !ke->cpu;
		}
		if (!any)
			continue;
		stage_acc a = *fa;
		double in = 0, out = 0, fixed = 0;
		if (!io) {
			/* only CPU kinds can hold S, which pay no io, and no
			 * other kind comes back deeper in this branch (each
			 * test above only gets harder as S grows): the io is
			 * not counted below this level */
			a.work += u->work[x];
			a.param += u->param[x];
		} else if (d->training) {
			acc_add_training(d, &a, x);
			double both = a.in + a.out;
			in = a.fixed;
			out = (both > 0 ? both : 0) - a.fixed;
			fixed = a.fixed;
		} else {
			acc_add(d, &a, x);
			in = a.in;
			out = a.out;
			fixed = a.in;
		}
		any = false;
		for (int e = 0; e < D; e++) {
			const sc_kind *ke = &d->fleet.kind[e];
			if (!isfinite(c[e]) || ke->cpu) {
				any |= isfinite(c[e]);
				continue;
			}
			double B = ke->bandwidth, M = ke->memory;
			double over = a.param > M * (1 + 1e-15) ? (a.param - M) / B : 0;
			double lower = kw[e] + fixed / B + over;
			c[e] = lower <= bound ? kw[e] + (in + out) / B + over : INFINITY;
			any |= isfinite(c[e]);
		}
		if (!any) {
			if (io)
				acc_remove(d, x);
			continue;
		}
		/* a cell takes I + S on kind e only when it leaves the
		 * stages after it no more than they hold (dp_relax_kinds) */
		bool make = false;
		double w2 = f[depth].work + d->lw[x];
		for (int e = 0; e < D; e++) {
			if (c[e] > bound)
				c[e] = INFINITY;
			make |= isfinite(c[e]) && w2 >= d->need_k[e];
		}
		long J2;
		if (stage_ideal(d, f, depth, x, make, &J2, err) < 0)
			return -1;
		if (J2 >= 0 && d->mem_exact) {
			stage_mem sm = {.param = a.param};
			mem_stage(d, I, J2, &sm.stash, &sm.peak);
			dp_relax_kinds(d, I, J2, c, &sm, bound);
		} else if (J2 >= 0) {
			dp_relax_kinds(d, I, J2, c, NULL, bound);
		}
		walk_push(d, f, &depth, x, J2);
		f[depth - 1].counted = io;
		accs[depth] = a;
	}
	return 0;
}

/* Prepares the search over the stages after ideal I: jbits = I, d->rem
 * says where each unit is (-2 in I; outside, its predecessors not in I),
 * and d->cand's first level holds the units ready to join. */
static void stage_start(sc_dp *d, long I)
{
	const sc_units *u = d->u;
	int words = d->ideals.words;
	const word *bi = d->ideals.bits + I * words;
	memcpy(d->jbits, bi, (size_t)words * sizeof(word));
	word *cand = d->cand;
	memset(cand, 0, (size_t)words * sizeof(word));
	d->suffix[u->n] = 0;
	for (int x = u->n - 1; x >= 0; x--)
		d->suffix[x] = d->suffix[x + 1] + (has(bi, x) ? 0 : d->lw[x]);
	for (int x = 0; x < u->n; x++) {
		if (has(bi, x)) {
			d->rem[x] = -2; /* in I; -1 marks the units of S */
			continue;
		}
		int rem = 0;
		for (int i = u->pred_off[x]; i < u->pred_off[x + 1]; i++)
			rem += !has(bi, u->pred[i]);
		d->rem[x] = rem;
		if (rem == 0)
			cand[x >> 6] |= (word)1 << (x & 63);
	}
}

/* Settles ideal I's row (an empty stage is as good as one stage less) and
 * pushes every stage that can follow it.  0, or -1 with err set. */
/* qsort: pairs (ratio, unit) by ratio, largest first */
static int by_ratio_desc(const void *a, const void *b)
{
	const double *x = a, *y = b;
	return (x[0] < y[0]) - (x[0] > y[0]);
}

/* The capacities of the kinds' stages within bound: how much least time
 * (d->lw, what the pruning by the work left counts) one stage of kind e
 * can hold.  An accelerator's stage costs at least its units' times
 * there, each at least its lw: bound (with the pruning's slack).  A CPU
 * stage costs the sum of its units' CPU times, which may be far larger
 * than their lw: at most the fractional knapsack of lw over CPU time with
 * room bound (the units by lw per CPU second, the last one cut), never
 * more than bound since lw is at most the CPU time.  Without this a CPU
 * stage counted as bound and the pruning by the work left saw one stage
 * more than the accelerators can fill (001 section 3's CPU rows). */
static void kind_capacities(sc_dp *d, double bound)
{
	double b = bound * (1 + 1e-9);
	int n = d->u->n, D = d->D;
	double *r = isfinite(bound) ? sc_malloc_n((size_t)(n > 0 ? n : 1) * 2, sizeof *r) : NULL;
	for (int e = 0; e < D; e++) {
		d->kcap[e] = b;
		if (!r || !d->fleet.kind[e].cpu)
			continue;
		int m = 0;
		for (int x = 0; x < n; x++) {
			double t = d->uw[(size_t)x * D + e];
			if (isfinite(t) && d->lw[x] > 0) {
				r[2 * m] = t > 0 ? d->lw[x] / t : INFINITY;
				r[2 * m + 1] = x;
				m++;
			}
		}
		qsort(r, (size_t)m, 2 * sizeof *r, by_ratio_desc);
		double room = b, held = 0;
		for (int i = 0; i < m && room > 0; i++) {
			int x = (int)r[2 * i + 1];
			double t = d->uw[(size_t)x * D + e];
			double f = t <= room ? 1 : room / t;
			held += f * d->lw[x];
			room -= f * t;
		}
		/* (rounding: a little over, never under) */
		d->kcap[e] = fmin(b, held * (1 + 1e-9));
	}
	free(r);
	for (int at = 0; at < d->rw; at++) {
		double c = 0;
		for (int e = 0; e < D; e++)
			c += (d->cnt[e] - at / d->stride[e] % (d->cnt[e] + 1)) * d->kcap[e];
		d->cell_cap[at] = isfinite(bound) ? c : INFINITY;
	}
	d->caps_made = true;
}

/* dp_push with devices: settles I's cells (an empty stage of any kind),
 * marks the live ones and pushes.  0, or -1 with err set. */
static int dp_push_kinds(sc_dp *d, long I, sc_error *err)
{
	int words = d->ideals.words, D = d->D;
	size_t row = (size_t)d->rw;
	double *cell = d->dp + (size_t)I * row;
	long *arg = d->arg + (size_t)I * row;
	double bound = d->ub;
	double rest = d->total_work - d->work[I];
	if (!d->caps_made)
		kind_capacities(d, bound);
	if (!d->reach_tried && isfinite(bound))
		reach_setup(d);
	d->nlive = 0;
	/* per kind of the next stage: the most work a live cell's stages after
	 * it hold */
	double most[SC_KINDS_MAX];
	for (int e = 0; e < D; e++)
		most[e] = -INFINITY;
	/* pins, as dp_push: I is the first j stages for j in [pa, pb] only
	 * (the empty ideal's cells start at 0) */
	int pa = 0, K = d->cell_left[0], pb = K;
	if (d->npinned)
		pin_range(d, I, &pa, &pb);
	/* cells in increasing index: every cell with one stage fewer comes first */
	for (int at = 0; at < d->rw; at++) {
		int j = K - d->cell_left[at];
		if (j < pa || j > pb) {
			cell[at] = INFINITY;
			continue;
		}
		for (unsigned used = d->cell_used[at]; used; used &= used - 1) {
			int e = __builtin_ctz(used);
			if (cell[at - d->stride[e]] <= cell[at]) {
				cell[at] = cell[at - d->stride[e]];
				arg[at] = I * D + e;
			}
		}
		int left = d->cell_left[at];
		bool live = left > 0 && (d->balance ? !isinf(cell[at]) : cell[at] <= bound);
		if (live && isfinite(bound))
			live = !(rest > d->cell_cap[at] + 1e-9 * d->total_work);
		if (live) {
			d->live_at[d->nlive++] = at;
			for (unsigned room = d->cell_room[at]; room; room &= room - 1) {
				int e = __builtin_ctz(room);
				double after = d->cell_cap[at] - d->kcap[e];
				most[e] = after > most[e] ? after : most[e];
			}
		}
	}
	if (I == d->full || d->nlive == 0)
		return 0;
	/* what I + S must reach for a live cell to take it (dp_relax_kinds'
	 * test, its slack twice over) */
	d->need = INFINITY;
	for (int e = 0; e < D; e++) {
		d->need_k[e] = isfinite(bound) ? d->total_work - most[e] - 3e-9 * d->total_work
		                               : -INFINITY;
		d->need = fmin(d->need, d->need_k[e]);
	}
	stage_start(d, I);
	stage_acc acc = {0};
	return dp_grow_kinds(d, I, I, d->cand, &acc, bound, d->cand + words, err);
}

static int dp_push(sc_dp *d, long I, sc_error *err)
{
	if (d->D > 0)
		return dp_push_kinds(d, I, err);
	int words = d->ideals.words;
	size_t row = (size_t)(d->k + 1);
	double *cell = d->dp + (size_t)I * row;
	long *arg = d->arg + (size_t)I * row;
	int pa, pb;
	pin_range(d, I, &pa, &pb);
	for (int j = 0; j <= d->k; j++)
		if (j < pa || j > pb)
			cell[j] = INFINITY; /* (the empty ideal's rows start at 0) */
	for (int j = pa + 1; j <= pb; j++)
		if (cell[j - 1] <= cell[j]) {
			cell[j] = cell[j - 1];
			arg[j] = I;
		}
	if (I == d->full)
		return 0;
	double bound = d->ub;
	/* the rows of I a stage can follow: within the bound, and with the rest
	 * fitting the stages left after the next */
	d->jlo_i = 0;
	while (d->jlo_i < d->k && (d->balance ? isinf(cell[d->jlo_i]) : cell[d->jlo_i] > bound))
		d->jlo_i++;
	d->jhi_i = d->k - 1;
	if (isfinite(bound)) {
		double b = bound * (1 + 1e-9), rest = d->total_work - d->work[I];
		while (d->jhi_i >= 0 && rest > (d->k - d->jhi_i) * b + 1e-9 * d->total_work)
			d->jhi_i--;
	}
	if (d->jlo_i > d->jhi_i)
		return 0;
	/* I + S must leave the stages after it at most their bound each, from
	 * I's first live row on (dp_relax's test, with its rounding's slack
	 * twice over: the sums here run in another order) */
	d->need = -INFINITY;
	if (isfinite(bound) && !d->npinned)
		d->need = d->total_work - (d->k - d->jlo_i - 1) * bound * (1 + 1e-9) -
		          3e-9 * d->total_work;
	if (!d->reach_tried && d->need > -INFINITY)
		reach_setup(d);
	stage_start(d, I);
	stage_acc acc = {0};
	return dp_grow(d, I, I, d->cand, &acc, bound, d->cand + words, err);
}

/* ---- the DP under the GPipe schedule ------------------------------------ */

/*
 * Under GPipe the objective of a partition is max_s fw(s) + max_s bw(s)
 * (cost.h), which one number per (ideal, stages) cannot carry: a prefix
 * with the smaller forward maximum may have the larger backward one.  So
 * each ideal J keeps the Pareto front of the triples (f, b, j) its
 * prefixes reach: j stages cover J, f is their largest forward cost, b
 * their largest backward one.  A stage S = J' \ J of costs (fs, bs) takes
 * (f, b, j) to (max(f, fs), max(b, bs), j + 1) at J'; the objective of a
 * whole chain is f + b at the full ideal, and both are monotone in f, b
 * and j (fewer stages leave more to the rest, empty stages being free),
 * so a triple that another of the same ideal dominates (no larger f, b
 * and j) never leads to a better partition and is dropped.  The answer is
 * the least f + b at the full ideal.
 *
 * The empty ideal's triple is not (0, 0, 0) but (LF, LB, 0), LF and LB
 * being what every partition's maxima reach: a stage costs at least its
 * work in either pass, so the largest forward cost is at least the
 * forward work of every unit and a k-th of all of it (LB likewise).  A
 * chain's f + b is unchanged (its maxima are at least LF and LB anyway),
 * but stages lighter than the floors no longer split the fronts.
 *
 * Pruning by UB, the objective of a partition a quick search found (the
 * strict bound of sc_dp_set_bound): a triple is dropped when
 * max(f, Wf / r) + max(b, Wb / r) exceeds UB, Wf and Wb being the forward
 * and backward work after J and r = k - j the stages left (each of them
 * costs at least its work in either pass), and r = 0 with work left
 * dropping it too.  When an ideal pushes, its front is cut to the triples
 * that pass this test with j < k.  The stage S grows as in the bottleneck
 * DP, its forward and backward costs split by the pass of each tensor's
 * producer (cost.h); its work, its io with I and its overflow only grow
 * per pass, so a branch stops once no triple of I can take it within UB.
 * Every triple on an optimal chain below UB passes every test, or one
 * that dominates it does, so the optimum is kept.
 *
 * The fronts take memory beyond the ideals: the budget (a quarter of the
 * machine's) is split evenly between the two, and past its share of pairs
 * the DP stops with SC_ERR_LIMIT as it does past its ideals.
 */

/* The stage S being grown from ideal I under GPipe, by pass (0 forward, 1
 * backward: the pass of the op that does the work or produces the tensor). */
typedef struct gp_acc {
	double work[2], param;
	double io[2];    /* bytes in and out of S (sums with subtractions) */
	double fixed[2]; /* bytes between S and I (they stay io) */
} gp_acc;

/* fmax without its NaN handling, which costs a call in the hot loops */
static inline double dmax(double a, double b)
{
	return a > b ? a : b;
}

/* acc_add_training with the costs split by pass (inlined into both stage
 * searches under GPipe, as it was into the one before devices). */
static inline __attribute__((always_inline)) void acc_add_gpipe(sc_dp *d, gp_acc *a, int x)
{
	const sc_units *u = d->u;
	const sc_graph *g = d->g;
	int *cnt = d->readers;
	a->work[0] += d->unit_pass[2 * x];
	a->work[1] += d->unit_pass[2 * x + 1];
	a->param += u->param[x];
	for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
		int o = u->ops[i], po = g->backward[o];
		double b = g->out[o];
		if (cnt[o] > 0)
			a->io[po] -= b; /* no longer an input */
		if (cnt[o] < d->outdeg[o]) {
			a->io[po] += b;
			for (int j = g->succ_off[o]; j < g->succ_off[o + 1]; j++)
				if (d->rem[u->unit_of[g->succ[j]]] == -2) {
					a->fixed[po] += b;
					break;
				}
		}
		for (int j = g->pred_off[o]; j < g->pred_off[o + 1]; j++) {
			int p = g->pred[j], up = u->unit_of[p], pp = g->backward[p];
			if (up == x)
				continue;
			int c = ++cnt[p];
			if (d->rem[up] == -1) {
				if (c == d->outdeg[p])
					a->io[pp] -= g->out[p];
			} else if (c == 1) {
				a->io[pp] += g->out[p];
				if (d->rem[up] == -2)
					a->fixed[pp] += g->out[p];
			}
		}
	}
}

/* The forward and backward work after ideal J, less a rounding margin
 * (never above the true rest). */
static void gp_rest(const sc_dp *d, long J, double *rf, double *rb)
{
	double eps = 1e-9 * d->total_work;
	*rf = dmax(0, d->total_pass[0] - (d->work[J] - d->work_bw[J]) - eps);
	*rb = dmax(0, d->total_pass[1] - d->work_bw[J] - eps);
}

/* With devices a triple's j is a cell (see "Devices"): its stages of each
 * kind.  The stages a triple has left ... */
static inline int gp_left(const sc_dp *d, int j)
{
	return d->D > 0 ? d->cell_left[j] : d->k - j;
}

/* ... and with devices whether cell j holds no more stages than cell j2
 * of every kind (without, j <= j2: gp_insert). */
static inline bool gp_fewer(const sc_dp *d, int j, int j2)
{
	for (int e = 0; e < d->D; e++)
		if (j / d->stride[e] % (d->cnt[e] + 1) > j2 / d->stride[e] % (d->cnt[e] + 1))
			return false;
	return true;
}

/* Whether the triple (f, b, j) of an ideal whose rest is (rf, rb) can
 * still lead within the bound (see above). */
static inline bool gp_within(const sc_dp *d, double f, double b, int j, double rf, double rb)
{
	int left = gp_left(d, j);
	if (left == 0)
		return rf + rb <= 0 && f + b <= d->ub;
	return dmax(f, rf / left) + dmax(b, rb / left) <= d->ub;
}

/* Adds (f, b, j) from pair at of ideal from to J's front unless a triple
 * there dominates it, dropping those it dominates.  0, or -1 with err set
 * past the pair limit or out of memory. */
static int gp_insert(sc_dp *d, long J, double f, double b, int j, long from, int at, sc_error *err)
{
	gp_front *fr = &d->front[J];
	bool kinds = d->D > 0;
	/* (a loop per case: this scan is the DP's hottest under GPipe) */
	for (int i = 0; !kinds && i < fr->n; i++)
		if (fr->p[i].f <= f && fr->p[i].b <= b && fr->p[i].j <= j)
			return 0;
	for (int i = 0; kinds && i < fr->n; i++)
		if (fr->p[i].f <= f && fr->p[i].b <= b && gp_fewer(d, fr->p[i].j, j))
			return 0;
	int n = 0;
	for (int i = 0; i < fr->n; i++) {
		const gp_pair *e = &fr->p[i];
		if (!(f <= e->f && b <= e->b && (kinds ? gp_fewer(d, j, e->j) : j <= e->j)))
			fr->p[n++] = *e;
	}
	fr->n = n;
	if (fr->n == fr->cap) {
		int cap = fr->cap ? 2 * fr->cap : 4;
		if (d->pairs + (cap - fr->cap) > d->pair_limit) {
			sc_error_set(err, SC_ERR_LIMIT,
			             "the exact DP under GPipe needs more than %ld Pareto pairs "
			             "(the graph is too wide for the memory); use another method",
			             d->pair_limit);
			return -1;
		}
		gp_pair *p = realloc(fr->p, (size_t)cap * sizeof *p);
		if (!p) {
			sc_error_nomem(err, "the Pareto fronts");
			return -1;
		}
		d->pairs += cap - fr->cap;
		fr->p = p;
		fr->cap = cap;
	}
	fr->p[fr->n++] = (gp_pair){.f = f, .b = b, .from = from, .at = at, .j = j};
	if (fr->n > d->front_max)
		d->front_max = fr->n;
	return 0;
}

/* Relaxes J's front with the stage J \ I of forward cost f and backward
 * cost b, after each triple of I's (cut) front.  0, or -1 with err set. */
static int gp_relax(sc_dp *d, long I, long J, double f, double b, sc_error *err)
{
	const gp_front *fi = &d->front[I];
	double rf, rb;
	gp_rest(d, J, &rf, &rb);
	for (int i = 0; i < fi->n; i++) {
		const gp_pair *e = &fi->p[i];
		double f2 = dmax(e->f, f), b2 = dmax(e->b, b);
		if (f2 + b2 > d->ub || !gp_within(d, f2, b2, e->j + 1, rf, rb))
			continue;
		if (gp_insert(d, J, f2, b2, e->j + 1, I, i, err) < 0)
			return -1;
	}
	return 0;
}

/* Whether some triple of I's cut front can take a stage whose forward and
 * backward costs are at least lf and lb within the bound. */
static bool gp_reachable(const sc_dp *d, long I, double lf, double lb)
{
	if (lf + lb > d->ub)
		return false;
	const gp_front *fi = &d->front[I];
	for (int i = 0; i < fi->n; i++)
		if (dmax(fi->p[i].f, lf) + dmax(fi->p[i].b, lb) <= d->ub)
			return true;
	return false;
}

/* dp_grow under GPipe: grows S from I by units in increasing number while
 * some triple of I can take it (its forward and backward lower bounds only
 * grow), relaxing each I + S; a depth-first search on d->frames. */
static int gp_grow(sc_dp *d, long I, long J, const word *cand, const gp_acc *acc, word *pool,
                   sc_error *err)
{
	const sc_units *u = d->u;
	double M = d->set.memory, B = d->set.bandwidth, bound = d->ub;
	double pmax = d->set.policy == SC_MEM_HARD ? M * (1 + 1e-15) : INFINITY;
	grow_frame *f = d->frames;
	gp_acc *accs = d->accs;
	walk_start(d, f, cand, pool, J);
	accs[0] = *acc;
	int depth = 0, x;
	while ((x = walk_next(d, f, &depth)) >= 0) {
		const gp_acc *fa = &accs[depth];
		long Jf = f[depth].J;
		if (fa->work[0] + fa->work[1] + u->work[x] > bound ||
		    fa->param + u->param[x] > pmax)
			continue;
		gp_acc a = *fa;
		acc_add_gpipe(d, &a, x);
		/* the overflow fetches the weights: the forward pass (cost.h) */
		double over = a.param > M * (1 + 1e-15) ? (a.param - M) / B : 0;
		double lf = a.work[0] + a.fixed[0] / B + over, lb = a.work[1] + a.fixed[1] / B;
		if (!gp_reachable(d, I, lf, lb)) {
			acc_remove(d, x);
			continue;
		}
		stage_take(d, x);
		long J2 = dp_ideal(d, d->jbits, d->size[Jf] + 1, d->work[Jf] + u->work[x],
		                   d->work_bw[Jf] + d->unit_pass[2 * x + 1],
		                   d->param[Jf] + u->param[x], err);
		int st = J2 < 0 ? -1 : 0;
		if (st == 0) {
			d->evals++;
			/* clamp the rounding residue of the sums */
			double fw = a.work[0] + dmax(a.io[0], 0) / B + over;
			double bw = a.work[1] + dmax(a.io[1], 0) / B;
			if (fw + bw <= bound)
				st = gp_relax(d, I, J2, fw, bw, err);
		}
		if (st < 0) {
			/* x leaves S too, as the recursion did */
			stage_untake(d, x, false, true);
			walk_unwind(d, f, depth);
			return -1;
		}
		walk_push(d, f, &depth, x, J2);
		accs[depth] = a;
	}
	return 0;
}

/* gp_relax with devices: the stage J \ I on kind e costs (f[e], b[e])
 * (INFINITY where it cannot go), after each triple of I's front with a
 * stage of kind e left.  0, or -1 with err set. */
static int gp_relax_kinds(sc_dp *d, long I, long J, const double *f, const double *b, sc_error *err)
{
	const gp_front *fi = &d->front[I];
	double rf, rb;
	gp_rest(d, J, &rf, &rb);
	unsigned kinds = 0;
	for (int e = 0; e < d->D; e++)
		kinds |= (unsigned)isfinite(f[e]) << e;
	for (int i = 0; i < fi->n; i++) {
		const gp_pair *p = &fi->p[i];
		for (unsigned room = d->cell_room[p->j] & kinds; room; room &= room - 1) {
			int e = __builtin_ctz(room), to = p->j + d->stride[e];
			double f2 = dmax(p->f, f[e]), b2 = dmax(p->b, b[e]);
			if (f2 + b2 > d->ub || !gp_within(d, f2, b2, to, rf, rb))
				continue;
			if (gp_insert(d, J, f2, b2, to, I, i, err) < 0)
				return -1;
		}
	}
	return 0;
}

/* Whether some triple of I's front with a stage of kind e left can take a
 * stage of kind e whose costs are at least lf and lb within the bound. */
static bool gp_reachable_kind(const sc_dp *d, long I, int e, double lf, double lb)
{
	if (lf + lb > d->ub)
		return false;
	const gp_front *fi = &d->front[I];
	for (int i = 0; i < fi->n; i++)
		if ((d->cell_room[fi->p[i].j] >> e & 1) &&
		    dmax(fi->p[i].f, lf) + dmax(fi->p[i].b, lb) <= d->ub)
			return true;
	return false;
}

/* gp_grow with devices: S grows while some kind can still hold it after
 * some triple of I within the bound; per kind, its two passes' times
 * (d->kacc, two per kind and level), its io over its link and its
 * overflow against its memory (a CPU: its times alone), each lower
 * bound only growing with S as in gp_grow. */
static int gp_grow_kinds(sc_dp *d, long I, long J, const word *cand, const gp_acc *acc, word *pool,
                         sc_error *err)
{
	const sc_units *u = d->u;
	int D = d->D;
	bool hard = d->set.policy == SC_MEM_HARD;
	grow_frame *f = d->frames;
	gp_acc *accs = d->accs;
	walk_start(d, f, cand, pool, J);
	accs[0] = *acc;
	for (int e = 0; e < 2 * D; e++)
		d->kacc[e] = 0;
	int depth = 0, x;
	while ((x = walk_next(d, f, &depth)) >= 0) {
		const double *fk = d->kacc + (size_t)depth * 2 * D;
		double *kw = d->kacc + (size_t)(depth + 1) * 2 * D;
		long Jf = f[depth].J;
		gp_acc a = accs[depth];
		acc_add_gpipe(d, &a, x);
		double fw[SC_KINDS_MAX], bw[SC_KINDS_MAX];
		bool any = false;
		for (int e = 0; e < D; e++) {
			const sc_kind *ke = &d->fleet.kind[e];
			size_t at = (size_t)x * D + e;
			kw[2 * e] = fk[2 * e] + d->uw[at] - d->uwb[at];
			kw[2 * e + 1] = fk[2 * e + 1] + d->uwb[at];
			fw[e] = bw[e] = INFINITY;
			if (!isfinite(d->uw[at]) || !isfinite(kw[2 * e]))
				continue;
			double lf = kw[2 * e], lb = kw[2 * e + 1], over = 0, B = ke->bandwidth;
			if (!ke->cpu) {
				double M = ke->memory;
				if (a.param > M * (1 + 1e-15)) {
					if (hard)
						continue;
					/* the overflow fetches the weights: the forward pass */
					over = (a.param - M) / B;
				}
				lf += a.fixed[0] / B + over;
				lb += a.fixed[1] / B;
			}
			if (!gp_reachable_kind(d, I, e, lf, lb))
				continue;
			any = true;
			fw[e] = ke->cpu ? lf : kw[2 * e] + dmax(a.io[0], 0) / B + over;
			bw[e] = ke->cpu ? lb : kw[2 * e + 1] + dmax(a.io[1], 0) / B;
		}
		if (!any) {
			acc_remove(d, x);
			continue;
		}
		stage_take(d, x);
		long J2 = dp_ideal(d, d->jbits, d->size[Jf] + 1, d->work[Jf] + d->lw[x],
		                   d->work_bw[Jf] + d->unit_pass[2 * x + 1],
		                   d->param[Jf] + u->param[x], err);
		int st = J2 < 0 ? -1 : 0;
		if (st == 0) {
			d->evals++;
			st = gp_relax_kinds(d, I, J2, fw, bw, err);
		}
		if (st < 0) {
			stage_untake(d, x, false, true);
			walk_unwind(d, f, depth);
			return -1;
		}
		walk_push(d, f, &depth, x, J2);
		accs[depth] = a;
	}
	return 0;
}

/* The bytes of a level's accumulated costs in either stage search. */
static size_t grow_acc_size(void)
{
	return sizeof(stage_acc) > sizeof(gp_acc) ? sizeof(stage_acc) : sizeof(gp_acc);
}

/* Cuts ideal I's front to the triples a stage can follow (fewer than k
 * stages, within the bound with the rest) and pushes every stage that can
 * follow one.  0, or -1 with err set. */
static int gp_push(sc_dp *d, long I, sc_error *err)
{
	if (I == d->full)
		return 0;
	gp_front *fr = &d->front[I];
	double rf, rb;
	gp_rest(d, I, &rf, &rb);
	int n = 0;
	for (int i = 0; i < fr->n; i++) {
		const gp_pair *e = &fr->p[i];
		if (gp_left(d, e->j) > 0 && gp_within(d, e->f, e->b, e->j, rf, rb))
			fr->p[n++] = *e;
	}
	/* nothing points into the front yet: give back what the cut freed */
	if (n < fr->cap) {
		gp_pair *p = n ? realloc(fr->p, (size_t)n * sizeof *p) : NULL;
		if (p || n == 0) {
			if (n == 0)
				free(fr->p);
			fr->p = p;
			d->pairs -= fr->cap - n;
			fr->cap = n;
		}
	}
	fr->n = n;
	if (n == 0)
		return 0;
	stage_start(d, I);
	gp_acc acc = {{0, 0}, 0, {0, 0}, {0, 0}};
	if (d->D > 0)
		return gp_grow_kinds(d, I, I, d->cand, &acc, d->cand + d->ideals.words, err);
	return gp_grow(d, I, I, d->cand, &acc, d->cand + d->ideals.words, err);
}

/* sc_dp_result_kinds under GPipe: the chain's stages first, then (with
 * devices) the stages it left empty, the kinds left over. */
static double gp_result(const sc_dp *d, int *unit_stage, int *stage_kind)
{
	long J = d->full;
	if (J < 0)
		return INFINITY;
	const gp_front *fr = &d->front[J];
	int best = -1;
	for (int i = 0; i < fr->n; i++)
		if (best < 0 || fr->p[i].f + fr->p[i].b < fr->p[best].f + fr->p[best].b)
			best = i;
	if (best < 0)
		return INFINITY;
	gp_pair p = fr->p[best];
	double opt = p.f + p.b;
	int words = d->ideals.words, D = d->D, K = D > 0 ? d->cell_left[0] : d->k;
	/* the stages of each kind the chain leaves empty, after it */
	for (int e = D - 1, s = K - 1; stage_kind && e >= 0; e--)
		for (int n = d->cnt[e] - p.j / d->stride[e] % (d->cnt[e] + 1); n > 0; n--)
			stage_kind[s--] = e;
	for (int x = 0; unit_stage && x < d->u->n; x++)
		unit_stage[x] = 0;
	while (p.j > 0) {
		long I = p.from;
		gp_pair q = d->front[I].p[p.at];
		int pos = K - gp_left(d, p.j) - 1; /* the last stage of p's chain */
		const word *bi = d->ideals.bits + I * words, *bj = d->ideals.bits + J * words;
		for (int x = 0; unit_stage && x < d->u->n; x++)
			if (has(bj, x) && !has(bi, x))
				unit_stage[x] = pos;
		for (int e = 0; stage_kind && e < D; e++)
			if (p.j - q.j == d->stride[e])
				stage_kind[pos] = e;
		p = q;
		J = I;
	}
	return opt;
}

int sc_dp_step(sc_dp *d, double until, sc_error *err)
{
	if (d->finished)
		return 0;
	if (d->stopped)
		return sc_error_set(err, SC_ERR_LIMIT, "the exact DP was stopped"), -1;
	do {
		while (d->at < 0) {
			if (++d->layer > d->u->n) {
				d->finished = true;
				return 0;
			}
			d->at = d->bucket[d->layer];
		}
		long I = d->at;
		d->at = d->next[I];
		if ((d->gpipe ? gp_push(d, I, err) : dp_push(d, I, err)) < 0)
			return -1;
		d->done++;
	} while (sc_clock_now() < until);
	return 1;
}

void sc_dp_progress(const sc_dp *d, sc_dp_progress_info *p)
{
	p->ideals = d->ideals.count;
	p->ideals_done = d->done;
	p->layers = d->u->n + 1;
	p->layers_done = d->finished ? d->u->n + 1 : d->layer;
	p->evals = d->evals;
	p->pairs = d->pairs;
	p->front_max = d->front_max;
}

/* sc_dp_result with devices: the cells from the last stage back. */
static double dp_result_kinds(const sc_dp *d, int *unit_stage, int *stage_kind)
{
	int D = d->D;
	size_t row = (size_t)d->rw;
	long J = d->full;
	if (J < 0)
		return INFINITY;
	double opt = d->dp[(size_t)J * row + (size_t)d->rw - 1];
	if (!isfinite(opt))
		return opt;
	int words = d->ideals.words;
	if (unit_stage)
		for (int x = 0; x < d->u->n; x++)
			unit_stage[x] = 0;
	int j[SC_KINDS_MAX], pos = -1, at = d->rw - 1;
	for (int e = 0; e < D; e++) {
		j[e] = d->cnt[e];
		pos += d->cnt[e];
	}
	while (J != 0 && pos >= 0) {
		long a = d->arg[(size_t)J * row + (size_t)at];
		long I = a / D;
		int e = (int)(a % D);
		j[e]--;
		at -= d->stride[e];
		if (stage_kind)
			stage_kind[pos] = e;
		const word *bi = d->ideals.bits + I * words, *bj = d->ideals.bits + J * words;
		for (int x = 0; unit_stage && I != J && x < d->u->n; x++)
			if (has(bj, x) && !has(bi, x))
				unit_stage[x] = pos;
		pos--;
		J = I;
	}
	/* the stages before the first op: empty, the kinds left over (the
	 * last kinds last) */
	for (int e = D - 1; e >= 0; e--)
		for (; j[e] > 0 && pos >= 0; j[e]--, pos--) {
			if (stage_kind)
				stage_kind[pos] = e;
		}
	return opt;
}

double sc_dp_result_kinds(const sc_dp *d, int *unit_stage, int *stage_kind)
{
	if (d->gpipe && d->D > 0)
		return gp_result(d, unit_stage, stage_kind);
	if (d->D > 0)
		return dp_result_kinds(d, unit_stage, stage_kind);
	for (int s = 0; stage_kind && s < d->k; s++)
		stage_kind[s] = 0;
	return sc_dp_result(d, unit_stage);
}

/* The floor of a stage (see sc_dp_floor): the least cost of any stage
 * holding unit x, bounded by a small branch and bound over the stages
 * around x.  A node holds the units S that the stage contains (x first),
 * the units E it does not, and the tensors F of S it sends out.  Its
 * bound: the work and overflow of S; for the tensors S reads, per unit p
 * producing some, their io when p is in E, else the less of their io and
 * p's work (p in the stage too); the io of the tensors in F or read by a
 * unit of E; and for the one other tensor of S that adds the most, the
 * less of its io and its readers' work.  Every stage holding S and none
 * of E costs at least that: the units each pay once (the real edges form
 * a DAG, and a tensor read by a producer of S adds nothing, to stay sure
 * of it) and the tensors are distinct.  A node branches on the producer,
 * or the tensor, that adds the most: p in S or in E, the tensor's readers
 * in S or the tensor in F.  The floor of x is the least bound of the
 * leaves (FLOOR_DEPTH levels down); the search stops as soon as some node
 * is at most `enough` (the floor of x cannot raise the graph's then). */
enum { FLOOR_DEPTH = 12 };
/* The work (units and edges visited) the floors of a graph may take in
 * all: a few tens of ms at most (measured: 0.8M instructions on a 12 + 12
 * layer encoder-decoder of 4 631 ONNX nodes, where most units stop
 * early); past it each search stops where it is, its node's bound
 * standing. */
#define FLOOR_BUDGET 20000000L

typedef struct floor_ctx {
	const sc_dp *d;
	int *S, ns;  /* the units of S, x first */
	int *queue;  /* per unit: the closure's search */
	int *dmark;  /* per unit: stamp of the closure that reached it from S */
	int *state;  /* per unit: 1 in S, 2 in E, else 0 */
	bool *sent;  /* per op: its tensor is in F */
	int *umark;  /* per unit: stamp of the node that summed its bytes */
	int *omark;  /* per op: stamp of the node that counted its tensor */
	int *rmark;  /* per unit: stamp of the tensor whose readers it joined */
	double *sum; /* per unit: bytes S reads from it */
	int stamp, rstamp;
	double enough;
	long budget; /* work left (FLOOR_BUDGET) */
	int kind;    /* with devices, the stage's kind; else -1 */
	double B, M; /* its link and memory (a CPU: no io, no memory limit) */
} floor_ctx;

/* Unit x's time on the stage's kind (INFINITY where it may not run). */
static inline double floor_work(const floor_ctx *c, int x)
{
	return c->kind < 0 ? c->d->u->work[x] : c->d->uw[(size_t)x * c->d->D + c->kind];
}

/* The bound of the node, and its branch: *p a producer unit (>= 0) or *o
 * an op whose tensor (>= 0), else both -1. */
static double floor_bound(floor_ctx *c, int *bp, int *bo)
{
	const sc_dp *d = c->d;
	const sc_units *u = d->u;
	const sc_graph *g = d->g;
	double B = c->B, M = c->M;
	int st = ++c->stamp;
	double work = 0, param = 0, fixed = 0, in = 0, out = 0, best_in = 0;
	*bp = *bo = -1;
	for (int k = 0; k < c->ns; k++) {
		int x = c->S[k];
		c->budget -= 3 * (u->ops_off[x + 1] - u->ops_off[x]);
		work += floor_work(c, x);
		param += u->param[x];
		for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++)
			for (int j = g->pred_off[u->ops[i]]; j < g->pred_off[u->ops[i] + 1]; j++) {
				int p = g->pred[j], up = u->unit_of[p];
				if (c->state[up] == 1 || c->omark[p] == st)
					continue;
				c->omark[p] = st;
				if (c->umark[up] != st) {
					c->umark[up] = st;
					c->sum[up] = 0;
				}
				c->sum[up] += g->out[p];
			}
	}
	/* the producers: each once (its sum then cleared to -1) */
	for (int k = 0; k < c->ns; k++) {
		int x = c->S[k];
		for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++)
			for (int j = g->pred_off[u->ops[i]]; j < g->pred_off[u->ops[i] + 1]; j++) {
				int up = u->unit_of[g->pred[j]];
				if (c->state[up] == 1 || c->sum[up] < 0)
					continue;
				double io = c->sum[up] / B;
				c->sum[up] = -1;
				if (c->state[up] == 2) {
					fixed += io;
				} else {
					double v = fmin(io, floor_work(c, up));
					in += v;
					if (v > best_in) {
						best_in = v;
						*bp = up;
					}
				}
			}
	}
	/* the tensors of S read outside it */
	int out_op = -1;
	for (int k = 0; k < c->ns; k++) {
		int x = c->S[k];
		for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
			int o = u->ops[i];
			double readers = 0;
			bool outside = false, forced = c->sent[o], shared = false;
			int rs = ++c->rstamp;
			for (int j = g->succ_off[o]; j < g->succ_off[o + 1]; j++) {
				int r = u->unit_of[g->succ[j]];
				if (c->state[r] == 1 || c->rmark[r] == rs)
					continue;
				c->rmark[r] = rs;
				outside = true;
				forced |= c->state[r] == 2;
				shared |= c->umark[r] == st;
				readers += floor_work(c, r);
			}
			if (!outside)
				continue;
			if (forced) {
				fixed += g->out[o] / B;
			} else if (!shared) {
				double v = fmin(g->out[o] / B, readers);
				if (v > out) {
					out = v;
					out_op = o;
				}
			}
		}
	}
	if (out > best_in) {
		*bp = -1;
		*bo = out_op;
	}
	double over = param > M && d->set.policy != SC_MEM_HARD ? (param - M) / B : 0;
	return work + over + fixed + in + out;
}
/* Closes S under the order: a stage J \ I of ideals holds every unit on
 * a path between two of its units, so the units that are both below and
 * above some unit of S join it.  False when one of them is in E (no stage
 * holds S without it).  The units added are S's last, from c->ns on. */
static bool floor_close(floor_ctx *c)
{
	const sc_units *u = c->d->u;
	int st = ++c->stamp, n = 0;
	/* below S: forwards from it */
	for (int k = 0; k < c->ns; k++) {
		c->dmark[c->S[k]] = st;
		c->queue[n++] = c->S[k];
	}
	for (int h = 0; h < n; h++)
		for (int i = u->succ_off[c->queue[h]]; i < u->succ_off[c->queue[h] + 1];
		     i++, c->budget--)
			if (c->dmark[u->succ[i]] != st) {
				c->dmark[u->succ[i]] = st;
				c->queue[n++] = u->succ[i];
			}
	/* above S and below it: backwards from S through the marked units */
	int at = ++c->stamp;
	n = 0;
	for (int k = 0; k < c->ns; k++) {
		c->dmark[c->S[k]] = at;
		c->queue[n++] = c->S[k];
	}
	for (int h = 0; h < n; h++)
		for (int i = u->pred_off[c->queue[h]]; i < u->pred_off[c->queue[h] + 1]; i++) {
			int y = u->pred[i];
			if (c->dmark[y] != st)
				continue; /* not below S, or seen */
			c->dmark[y] = at;
			c->queue[n++] = y;
			if (c->state[y] == 2)
				return false;
			if (c->state[y] == 0) {
				c->state[y] = 1;
				c->S[c->ns++] = y;
			}
		}
	return true;
}

/* The least bound of the leaves under the node (see floor_ctx), or a
 * bound at most c->enough as soon as one is found. */
static double floor_search(floor_ctx *c, int depth)
{
	int p, o;
	double v = floor_bound(c, &p, &o);
	if (v <= c->enough || depth == FLOOR_DEPTH || (p < 0 && o < 0) || c->budget <= 0)
		return v;
	const sc_units *u = c->d->u;
	const sc_graph *g = c->d->g;
	/* the units join S (p, or o's readers outside S), and those the
	 * order puts between them */
	int ns = c->ns;
	if (p >= 0) {
		c->state[p] = 1;
		c->S[c->ns++] = p;
	} else {
		for (int j = g->succ_off[o]; j < g->succ_off[o + 1]; j++) {
			int r = u->unit_of[g->succ[j]];
			if (c->state[r] == 0) {
				c->state[r] = 1;
				c->S[c->ns++] = r;
			}
		}
	}
	double best = floor_close(c) ? floor_search(c, depth + 1) : INFINITY;
	while (c->ns > ns)
		c->state[c->S[--c->ns]] = 0;
	if (best <= c->enough)
		return best;
	/* or they do not: p in E, or o's tensor sent out */
	if (p >= 0)
		c->state[p] = 2;
	else
		c->sent[o] = true;
	best = fmin(best, floor_search(c, depth + 1));
	if (p >= 0)
		c->state[p] = 0;
	else
		c->sent[o] = false;
	/* the node's own bound holds too: its leaves' can only be higher,
	 * but a branch cut short above may have returned less */
	return fmax(best, v);
}

double sc_dp_floor(const sc_dp *d)
{
	if (d->gpipe)
		return d->floor[0] + d->floor[1];
	/* every stage costs at least its work (each unit's least time over
	 * the kinds that may hold it): some stage holds the heaviest unit,
	 * and some stage a share of the total */
	const sc_units *u = d->u;
	double heaviest = 0;
	for (int x = 0; x < u->n; x++)
		heaviest = fmax(heaviest, d->lw[x]);
	double floor = fmax(heaviest, d->total_work / sc_dp_stages(d));
	size_t n = (size_t)(u->n > 0 ? u->n : 1), ops = (size_t)d->g->n + 1;
	floor_ctx c = {.d = d, .budget = FLOOR_BUDGET, .kind = -1};
	c.state = sc_calloc_n(n, sizeof *c.state);
	c.umark = sc_calloc_n(n, sizeof *c.umark);
	c.rmark = sc_calloc_n(n, sizeof *c.rmark);
	c.sum = sc_calloc_n(n, sizeof *c.sum);
	c.omark = sc_calloc_n(ops, sizeof *c.omark);
	c.sent = sc_calloc_n(ops, sizeof *c.sent);
	c.S = sc_malloc_n(n, sizeof *c.S);
	c.queue = sc_malloc_n(n, sizeof *c.queue);
	c.dmark = sc_calloc_n(n, sizeof *c.dmark);
	if (c.state && c.umark && c.rmark && c.sum && c.omark && c.sent && c.S && c.queue &&
	    c.dmark)
		for (int x = 0; x < u->n; x++) {
			/* the least over the kinds that may hold x's stage; a search
			 * stops once it is at most the floor so far (no help) */
			double least = INFINITY;
			for (int e = 0; e < (d->D > 0 ? d->D : 1) && least > floor; e++) {
				const sc_kind *ke = d->D > 0 ? &d->fleet.kind[e] : NULL;
				c.kind = ke ? e : -1;
				c.B = !ke ? d->set.bandwidth : ke->cpu ? INFINITY : ke->bandwidth;
				c.M = !ke ? d->set.memory : ke->cpu ? INFINITY : ke->memory;
				if (!(c.B > 0) || !isfinite(floor_work(&c, x)))
					continue; /* (no link: no floor but the work's) */
				c.enough = floor;
				c.S[0] = x;
				c.ns = 1;
				c.state[x] = 1;
				least = fmin(least, floor_search(&c, 0));
				c.state[x] = 0;
			}
			if (isfinite(least))
				floor = fmax(floor, least);
		}
	/* (out of memory: the work's floor, still a floor) */
	free(c.state);
	free(c.umark);
	free(c.rmark);
	free(c.sum);
	free(c.omark);
	free(c.sent);
	free(c.S);
	free(c.queue);
	free(c.dmark);
	return floor;
}

bool sc_dp_relaxed(const sc_dp *d)
{
	return d->relaxed;
}

int sc_dp_stages(const sc_dp *d)
{
	if (d->D == 0)
		return d->k;
	int n = 0;
	for (int e = 0; e < d->D; e++)
		n += d->cnt[e];
	return n;
}

double sc_dp_result(const sc_dp *d, int *unit_stage)
{
	if (d->gpipe)
		return gp_result(d, unit_stage, NULL);
	if (d->D > 0)
		return dp_result_kinds(d, unit_stage, NULL);
	size_t row = (size_t)(d->k + 1);
	long J = d->full;
	if (J < 0)
		return INFINITY;
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
	return sc_ideals_count_until(u, limit, NULL, NULL);
}

long sc_ideals_count_until(const sc_units *u, long limit, bool (*stop)(void *ctx), void *ctx)
{
	/* breadth first from the empty set, each ideal grown by a ready unit */
	ideal_set s = {.words = (u->n + 63) / 64};
	if (s.words == 0)
		s.words = 1;
	word *b = calloc((size_t)s.words, sizeof *b);
	bool added;
	long count = -1;
	if (!b || ideal_add(&s, b, &added) < 0)
		goto out;
	for (long id = 0; id < s.count; id++) {
		/* a wide graph's count runs for minutes: a signal or the time
		 * limit ends it (every 4096 ideals, well under a millisecond) */
		if (stop && (id & 4095) == 0 && stop(ctx)) {
			count = -2;
			goto out;
		}
		for (int x = 0; x < u->n; x++) {
			const word *cur = s.bits + id * s.words;
			if (has(cur, x))
				continue;
			bool ready = true;
			for (int i = u->pred_off[x]; i < u->pred_off[x + 1] && ready; i++)
				ready = has(cur, u->pred[i]);
			if (!ready)
				continue;
			memcpy(b, cur, (size_t)s.words * sizeof *b);
			b[x >> 6] |= (word)1 << (x & 63);
			if (ideal_add(&s, b, &added) < 0)
				goto out;
			if (s.count > limit) {
				count = limit + 1;
				goto out;
			}
		}
	}
	count = s.count;
out:
	free(b);
	ideal_set_free(&s);
	return count;
}

/* ---- the exact method --------------------------------------------------- */

typedef struct exact_state {
	sc_dp *dp;
	int *unit_stage;
	int *kind;     /* the kinds of the DP's stages */
	bool at_floor; /* the quick partition reaches the floor: optimal */
} exact_state;

static void exact_fini(sc_search *s)
{
	exact_state *e = s->state;
	if (e) {
		sc_dp_free(e->dp);
		free(e->unit_stage);
		free(e->kind);
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
		sc_search_offer(s, unit_stage, sc_search_slicer_kinds(s), v);
	}
	for (int t = 0; t < orders; t++) {
		for (int i = 0; i < n; i++)
			prio[i] = sc_rng_uniform(&s->rng);
		sc_order_kahn(s->orderer, prio, order);
		v = sc_slice(s->slicer, order, ub, unit_stage);
		s->evals++;
		if (v < ub) {
			ub = v;
			sc_search_offer(s, unit_stage, sc_search_slicer_kinds(s), v);
		}
	}
	free(order);
	free(prio);
	/* the re-evaluated best is the bound (slicing sums in another order);
	 * with a fleet the slicer's split is of one kind, and only what the
	 * framework kept, its kinds placed, is a partition of the fleet */
	if (s->assign)
		return s->have_best ? s->best : INFINITY;
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
	/* a partition at the floor needs no DP: no layers to show */
	s->snapshot.layers_done = e->at_floor ? 0 : p.layers_done;
	s->snapshot.layers = e->at_floor ? 0 : p.layers;
	s->snapshot.pairs = p.pairs;
	s->snapshot.front_max = p.front_max;
	pthread_mutex_unlock(&s->lock);
}

/* The search's time limit and stop hold inside the DP's steps too, and
 * its memory is the one the caller gave (params.dp_memory). */
static void dp_setup(sc_search *s, sc_dp *d)
{
	sc_dp_set_stop(d, sc_search_slicer_stop, s);
	sc_dp_set_memory(d, s->p.dp_memory);
}

static sc_status exact_init(sc_search *s, sc_error *err)
{
	exact_state *e = calloc(1, sizeof *e);
	if (!e)
		return sc_error_nomem(err, "the exact search");
	s->state = e;
	e->unit_stage = sc_malloc_n((size_t)s->units->n, sizeof *e->unit_stage);
	e->kind = sc_calloc_n((size_t)s->K, sizeof *e->kind);
	if (!e->unit_stage || !e->kind)
		return sc_error_nomem(err, "the exact search");
	/* its fronts have no empty stage between two full ones, which a pin
	 * may need */
	if (s->units->pin && sc_graph_is_training(s->g) && s->set.schedule == SC_SCHEDULE_GPIPE)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "the exact DP takes no pinned ops under the GPipe schedule; "
		                    "use another method, or the 1F1B schedule");
	e->dp = sc_dp_new(s->units, &s->set, s->set.k, s->p.ideal_limit, err);
	if (!e->dp)
		return err ? err->code : SC_ERR_NOMEM;
	dp_setup(s, e->dp);
	/* a limit given by count refuses a graph with more ideals at once */
	if (s->p.ideal_limit > 0) {
		long count = sc_ideals_count(s->units, s->p.ideal_limit);
		if (count < 0)
			return sc_error_nomem(err, "the ideals");
		if (count > s->p.ideal_limit)
			return sc_error_set(err, SC_ERR_LIMIT,
			                    "the exact DP needs more than %ld ideals (the graph is "
			                    "too wide); raise --ideal-limit or use another method",
			                    s->p.ideal_limit);
	}
	/* a DP over few ideals is quick without a tight bound: DPL's will do */
	long few = sc_ideals_count(s->units, SMALL_IDEALS);
	bool small = few >= 0 && few <= SMALL_IDEALS;
	double ub = quick_upper_bound(s, e->unit_stage, small ? 0 : QUICK_ORDERS);
	/* A quick partition at the floor (every partition's objective
	 * reaches it, sc_dp_floor) is optimal as it stands, and no DP runs.
	 * Otherwise it costs ub: only a better one is worth finding, and
	 * when none is, it is optimal. */
	if (ub <= sc_dp_floor(e->dp) * (1 + 1e-12))
		e->at_floor = true;
	else
		sc_dp_set_bound(e->dp, ub, true);
	exact_publish(s);
	return SC_OK;
}

static bool exact_step(sc_search *s)
{
	exact_state *e = s->state;
	if (e->at_floor) {
		/* the quick partition meets the floor: nothing is below it */
		s->optimal = true;
		s->lower = s->best;
		return false;
	}
	if (sc_search_should_stop(s, 0))
		return false; /* not finished: the quick bound's partition stands */
	sc_error err;
	long before = e->dp->evals;
	int more = sc_dp_step(e->dp, sc_clock_now() + 0.02, &err);
	s->evals += e->dp->evals - before;
	exact_publish(s);
	if (more < 0) {
		/* stopped within a step (time up, ^C): as above, not a failure */
		if (!sc_dp_stopped(e->dp))
			sc_search_fail(s, &err);
		return false;
	}
	if (more > 0)
		return true;
	double opt = sc_dp_result_kinds(e->dp, e->unit_stage, e->kind);
	if (sc_dp_relaxed(e->dp)) {
		/* a relaxation: opt bounds every partition from below; its own
		 * partition costs what the cost model says, and is optimal when
		 * that meets the bound (or when nothing beat the quick bound);
		 * under GPipe too (each stage's two passes over its own link) */
		if (isfinite(opt))
			sc_search_offer(s, e->unit_stage, e->kind, opt);
		s->lower = isfinite(opt) ? fmin(opt, s->best) : s->best;
		s->optimal = !isfinite(opt) || s->best <= opt * (1 + 1e-9);
		return false;
	}
	if (s->set.schedule == SC_SCHEDULE_GPIPE && sc_graph_is_training(s->g)) {
		/* the DP looked only below the quick partition's objective: what
		 * it found is optimal, and when it found nothing the quick
		 * partition is (or no partition fits) */
		if (isfinite(opt))
			sc_search_offer(s, e->unit_stage, e->kind, opt);
		s->optimal = true;
		s->lower = isfinite(opt) ? fmin(opt, s->best) : s->best;
		return false;
	}
	if (isfinite(opt)) {
		/* the DP's own partition replaces the quick one even on a tie */
		s->have_best = false;
		sc_search_offer(s, e->unit_stage, e->kind, opt);
	}
	/* finite or not, the DP has settled the bottleneck: no partition beats
	 * this one; INFINITY means none is feasible, or (pruned by the quick
	 * bound, by rounding only) that the quick partition is optimal */
	s->optimal = true;
	s->lower = isfinite(opt) ? opt : s->best;
	/* the framework's balancing (refine.c) then evens out the other
	 * stages, keeping the bottleneck: by local moves, not a second DP for
	 * the least sum of squares (sc_dp_set_balance), which took as long as
	 * this one again */
	return false;
}

const sc_method sc_method_exact = {
        .name = "exact",
        .help = "the exact DP over ideals (paper 001), none when a quick split meets its floor; "
                "refuses past the ideals memory holds (or --ideal-limit)",
        .merge_trivial = true,
        .refines_itself = true,
        .init = exact_init,
        .step = exact_step,
        .fini = exact_fini,
};

/*
 * ladder.h - the ladder of lower bounds (DESIGN.md section 4) on the engine.
 *
 * A ladder computes the requested rungs for one problem (graph, settings
 * with k) as jobs of an sc_engine: simple at once, then the bottleneck MIP,
 * the k guess MIPs (added as slots free up, each told the best valid lower
 * bound on its own optimum known by then) and last the exact MIP, started
 * from the best known partition with every other rung's value as a lower
 * bound on its objective.
 *
 * Each rung always has a valid value: the best bound proven so far (for
 * guess, the minimum over its k solves of their bounds so far, counting
 * solves not yet run at the bottleneck rung's value, or the simple bound,
 * which bound them from below).  Values are capped at the known upper bound,
 * which any lower bound may be.
 *
 * Time limits: the time limit T holds for each MIP rung as a whole, from the
 * moment its first solve runs: guess's k solves share it (each is given
 * the time left shared over the rounds still to run, at least a second but
 * never past the rung's deadline; solves not started by then keep the floor
 * above), and a rung still running a second after its deadline has its
 * solves killed and is reported stopped with the bound proven so far.
 *
 * Stages that stay empty: a partition has at most as many non-empty stages
 * as the graph has units (ops outside groups plus groups), and renumbering
 * the non-empty stages in order keeps every edge's order, each stage's cost
 * and the memory rule, so the optimum with k stages is the optimum with
 * min(k, units) stages.  The ladder works with that many (sc_stages_useful)
 * and reports it (sc_ladder_stages); the other stages are empty.
 *
 * Stop at proof (params.stop_at_proof): once the upper bound is proven
 * optimal (a rung's value reaches it, the exact MIP solves to optimality, or
 * the caller says the exact DP proved it), the rungs still running or
 * waiting are stopped and reported as SC_RS_UNNEEDED with what proved it;
 * their values are the bounds they had proven (still valid).  In that mode
 * the exact MIP, the strongest certificate, starts first, warm-started,
 * beside the bottleneck MIP; the guess solves follow as slots free up.
 * Without it (the testbed, the workbench) every rung runs, the exact MIP
 * last with the others' values as its floor.
 *
 * Training graphs and the GPipe schedule (without devices: with them see
 * below): the MIP rungs model the
 * schedule's objective (mip.h): under GPipe the bottleneck and guess MIPs
 * bound max FW + max BW, and the exact MIP's optimum is the GPipe optimum,
 * so its solving to optimality proves the upper bound as under 1F1B.  The
 * simple bound stays a bound on the bottleneck, which the GPipe objective
 * never falls below.  The upper bound is always the objective of the
 * partition it belongs to (the caller's, or the exact MIP's partition,
 * whose objective the ladder computes).
 *
 * Proofs and CBC's tolerances: CBC proves its bounds only up to its
 * floating point (mip.c: its gaps and cutoff increment are 1e-9 of the
 * simple bound, its LP tolerances move values by about 1e-9 relative, and
 * partitions that tie to within a few 1e-6 can still be misjudged), so the
 * exact MIP solved to optimality proves its partition optimal within
 * SC_LADDER_REL_TOL relative, not exactly.  The upper bound counts as
 * proven when a value reaches it within that tolerance;
 * sc_ladder_proof_tolerance says whether the proof is exact.
 *
 * CPU stages (set->cpus = L > 0; 001 section 3): beside the k
 * accelerator stages up to L CPU stages, in any order among them; a CPU
 * stage costs its ops' CPU times, pays no io and has no memory limit.  The
 * ladder then bounds the optimum over those partitions (the exact DP with
 * CPU stages, cpu_exact.h, is its oracle in the tests), L reduced like k
 * to the stages that can be non-empty.  Why each rung stays a lower bound:
 *   simple      the fractional split of simple.h (sc_bound_simple_cpus):
 *               the least B at which the work fits k * B on the
 *               accelerators and L * B on the CPUs, each indivisible item
 *               on a device it may use; every partition's own split is one
 *               of those at its bottleneck, and communication and memory
 *               only add.
 *   bottleneck  the three-block MIP around the accelerator stage of most
 *               work, the other stages relaxed to capacities (k - 1 of
 *               accelerator work, L of CPU time); every partition gives a
 *               solution at its own bottleneck (mip_model_cpu.c).
 *   guess       the same with that stage the j-th accelerator stage, its
 *               outer blocks holding j - 1 and k - j accelerators (and
 *               sharing the CPUs); the least over j = 1..k bounds every
 *               partition, whose own j is among them.
 *   exact       the MIP of 000 Figure 3 over k + L stages, each with a
 *               kind binary (mip_model_kinds.c): its optimum is the
 *               optimum with CPU stages (without the pins, which it does
 *               not model: then it is a relaxation and its partition is
 *               not taken).
 *   cover       skipped (SC_RS_SKIPPED, no value, the reason in its
 *               message): its set cover counts k sets of one device; with
 *               CPUs it would need a second budget of L CPU sets and a
 *               second pricing problem, which it does not have.
 * A start partition then names its stages' kinds (params.start_kind) and
 * the best partition comes with them (sc_ladder_upper_kinds).
 *
 * Other device kinds (set->fleet, fleet.h, beyond the graph's own device
 * and CPUs, which are k and L kind for kind): the simple rung is
 * sc_bound_simple_kinds, the exact rung the MIP over the fleet's stages
 * (mip_model_kinds.c; a lower bound, and no longer the optimum, when the
 * kinds' links differ); bottleneck and guess are the CPU relaxations
 * above with every kind but the CPU taken as one accelerator, each unit
 * at its least time on those kinds, links at the fastest and memory at
 * the largest of theirs (mip.c, relax_fleet: every partition on the
 * fleet is one of that problem, no stage dearer), the guess positions
 * those stages that are not CPUs (skipped, with the reason, on a fleet of
 * CPUs alone); cover is skipped, with its reason.  set->fleet must
 * outlive the ladder.
 *
 * Devices under the GPipe schedule: every MIP rung models the bottleneck
 * then (mip.c), which the GPipe objective never falls below (cost.h), so
 * each value is still a lower bound on the GPipe optimum, but the exact
 * rung's optimum is no longer that optimum: it proves the upper bound
 * only when its value reaches it, as any rung does, and its partition is
 * weighed by its GPipe objective (objective_of).
 *
 * The rungs, their names and what a proof by each is called are one table,
 * rungs.def (mip.h).
 *
 * Drive it by calling sc_engine_poll and then sc_ladder_update.
 */
#ifndef SC_LADDER_H
#define SC_LADDER_H

#include <stdbool.h>

#include "jobs.h"
#include "mip.h"

/* How close a lower bound must come to the upper bound to prove it
 * optimal: within this much, relative (see above).  The text is for
 * reports: "optimal within 1e-6 relative". */
#define SC_LADDER_REL_TOL 1e-6
#define SC_LADDER_REL_TOL_TEXT "1e-6"

typedef enum sc_rung_state {
	SC_RS_OFF, /* not requested */
	SC_RS_WAITING,
	SC_RS_RUNNING,
	SC_RS_DONE,    /* solved to optimality: the rung's exact value */
	SC_RS_STOPPED, /* stopped by its time limit: a valid, weaker value */
	SC_RS_FAILED,  /* message says why; the value is what was proven before */
	SC_RS_CANCELLED,
	SC_RS_UNNEEDED, /* stopped: the upper bound was proven optimal (stop at proof) */
	SC_RS_SKIPPED,  /* not run: no version for these settings; value NAN, message why */
} sc_rung_state;

/* Why the cover rung is skipped with CPU stages (its message). */
#define SC_LADDER_COVER_CPU_REASON                                                                 \
	"skipped: the cover relaxation has no CPU version (its set cover counts k sets of one "    \
	"device; CPU stages would need a second budget and pricing)"

/* What a rung stopped before it started says (its value is the floor it
 * would have started from). */
#define SC_LADDER_NOT_STARTED_REASON                                                               \
	"not started: the run's time ran out first; the value is the floor it would have "         \
	"started from"

/* Why the cover rung is skipped on other device kinds. */
#define SC_LADDER_COVER_KINDS_REASON                                                               \
	"skipped: the cover relaxation counts k sets of one device; it has no version for "        \
	"device kinds"

/* Why the bottleneck and guess rungs are skipped on a fleet of CPUs alone. */
#define SC_LADDER_CPUS_ONLY_REASON                                                                 \
	"skipped: this relaxation's middle block is a stage that is not a CPU, and the fleet has " \
	"none"

/* "off", "waiting", "running", "done", "stopped", "failed", "cancelled",
 * "unneeded", "skipped". */
const char *sc_rung_state_name(sc_rung_state s);

typedef struct sc_rung_info {
	sc_rung rung;
	sc_rung_state state;
	double value;          /* valid lower bound so far; NAN when SKIPPED */
	double seconds;        /* wall time since the rung started */
	bool paused;           /* RUNNING, its solves paused for the user's job (jobs.h) */
	int parts, parts_done; /* guess: k solves (k of sc_ladder_stages) and how many finished */
	char message[256];     /* FAILED: why; UNNEEDED: what proved the upper bound optimal */
} sc_rung_info;

typedef struct sc_ladder_params {
	unsigned rungs;    /* bit (1u << sc_rung) per requested rung */
	double time_limit; /* seconds per MIP rung; <= 0 means none */
	/* the clock (sc_clock_now) past which no MIP rung runs, whatever its
	 * own limit: rungs not started by then stop at the floor they have,
	 * rungs running are stopped a grace second after it; 0 means none */
	double deadline;
	double upper;     /* objective (sc_costs_objective) of start, or INFINITY */
	const int *start; /* that partition (op stages, 0-based), or NULL */
	/* on devices (set->cpus > 0 or set->fleet): start's kinds, an index
	 * into the fleet per stage (set->k + set->cpus, or the fleet's
	 * stages); NULL: the fleet's order (accelerators, then CPUs) */
	const int *start_kind;
	bool stop_at_proof; /* stop the other rungs once upper is proven optimal */
	bool upper_optimal; /* upper is already proven optimal (the exact DP) */
} sc_ladder_params;

typedef struct sc_ladder sc_ladder;

/* Starts a ladder for g under set (set->k accelerator stages, and up to
 * set->cpus CPU stages, or set->fleet).  g must outlive it; the rest is
 * copied.  NULL with err set on bad parameters (k < 1) or no memory.  A start that does not fit the
 * stages (more stages of a device than set says) is not used. */
sc_ladder *sc_ladder_new(sc_engine *e, const sc_graph *g, const sc_settings *set,
                         const sc_ladder_params *p, sc_error *err);

/* Cancels the ladder's jobs (they finish as cancelled), has the engine
 * release each once it has ended (sc_engine_discard), and frees the ladder.
 * The engine must still exist. */
void sc_ladder_free(sc_ladder *l);

/* Takes in what the engine reported and starts the next rungs.  Returns
 * true when anything changed. */
bool sc_ladder_update(sc_ladder *l);

/* True when every requested rung has finished. */
bool sc_ladder_done(const sc_ladder *l);

/* The state of rung r. */
void sc_ladder_info(const sc_ladder *l, sc_rung r, sc_rung_info *out);

/* The number of stages the ladder works with: min(k, units), see above. */
int sc_ladder_stages(const sc_ladder *l);

/* The number of CPU stages it works with: min(cpus, units), 0 without. */
int sc_ladder_cpus(const sc_ladder *l);

/* The stages of its partitions: sc_ladder_stages, on devices the fleet's
 * (k + cpus of those worked with, or the fleet's counts). */
int sc_ladder_stages_all(const sc_ladder *l);

/* Whether the upper bound (sc_ladder_upper) is proven optimal: by a rung's
 * value within SC_LADDER_REL_TOL of it (the exact MIP's when it solves to
 * optimality), or by the caller (params.upper_optimal).  When it is and by
 * is not NULL, *by names the proof (a rung's sc_rung_proof, "the exact
 * MIP", or "the exact DP"; static text). */
bool sc_ladder_proven(const sc_ladder *l, const char **by);

/* How exact that proof is: 0 when the upper bound is proven optimal
 * exactly (by the exact DP, by the simple bound, which needs no solver, or
 * when nothing fits), SC_LADDER_REL_TOL when a MIP rung proved it, which
 * holds within that relative tolerance (no partition better by more than
 * it exists), NAN when it is not proven. */
double sc_ladder_proof_tolerance(const sc_ladder *l);

/* The guess rung's solve j (1..sc_ladder_stages): its state and value so far. */
void sc_ladder_guess_part(const sc_ladder *l, int j, sc_rung_state *state, double *value);

/* The best lower bound over all rungs. */
double sc_ladder_lower(const sc_ladder *l);

/* The best upper bound: the one given, or better when the exact MIP found a
 * partition with a lower objective (then copied into stage when not NULL);
 * either way the objective of the partition copied. */
double sc_ladder_upper(const sc_ladder *l, int *stage);

/* sc_ladder_upper on devices: kind (may be NULL) receives the partition's
 * kinds, sc_ladder_stages_all entries (an index into the fleet each); both
 * are left as they were when there is no partition. */
double sc_ladder_upper_kinds(const sc_ladder *l, int *stage, int *kind);

/* What every user of a ladder seeded with a partition does once it ran
 * (bounds, solve's proof, the workbench): takes the exact MIP's partition
 * back when it is better than upper, the objective of the partition the
 * ladder was seeded with.  Copies it into stage and, when kind is not
 * NULL, its kinds (sc_ladder_upper_kinds) -- with kinds only a partition
 * of K stages (K <= 0: any number, into *nstages when not NULL: the ladder
 * may work with fewer stages than asked when they are more than the ops
 * can fill).  Returns the better objective, or upper when the ladder found
 * none; stage and kind are then left as they were. */
double sc_ladder_take_upper(const sc_ladder *l, double upper, int K, int *stage, int *kind,
                            int *nstages);

/* Cancels every running or waiting rung. */
void sc_ladder_cancel(sc_ladder *l);

/* Called about every 100 ms while work runs; returns true to stop it.
 * ctx is the caller's. */
typedef bool sc_stop_fn(void *ctx);

/* Drives e until every rung of l is done: polls the engine (waiting at most
 * 100 ms a turn) and updates l.  stop (may be NULL) is called once every
 * turn, also after it first returned true (a caller may draw progress in
 * it); that first time the ladder is cancelled, and the loop goes on until
 * the cancelled rungs have finished.  Never prints.  Used by the
 * testbed (testbed.c) and by `stagecut bounds`. */
void sc_ladder_wait(sc_engine *e, sc_ladder *l, sc_stop_fn *stop, void *ctx);

/* How records (and `bounds --json`) name a rung's state: optimal,
 * time_limit, cancelled, error, stopped_at_proof, else sc_rung_state_name's.
 * Static text. */
const char *sc_rung_report_name(sc_rung_state s);

#endif

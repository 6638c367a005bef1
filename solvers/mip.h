/*
 * mip.h - the MIP rungs of the lower-bound ladder (000 section 3), with CBC.
 *
 * Three models, all on the units of units.h (groups contracted, so a group
 * can never be split), all with the hard memory limit as a constraint and
 * the overflow term as a variable (exact for one stage, and for a superblock
 * of s stages the convex bound max(0, param - s*M)/B, which the sum of its
 * stages' overflows never falls below), so every value is a valid lower
 * bound on the optimum of the whole model of DESIGN.md section 1:
 *
 *   bottleneck  three superblocks; the middle one does at least the simple
 *               bound's work; minimise its cost (000 section 3.2).
 *   guess j     the same, where the middle block is stage j of k and the
 *               superblocks' costs, averaged over their j-1 and k-j stages,
 *               also bound the objective (000 section 3.3).  The ladder's
 *               value is the minimum over j = 1..k.
 *   exact       the MIP of 000 Figure 3 in the y variables only, with the
 *               best known partition as MIP start and cutoff, the other
 *               rungs' values as a lower bound on the objective, and every
 *               unit's stage window narrowed by the work of its ancestors
 *               and descendants (no stage may exceed the known bottleneck).
 *
 * Training graphs (graph.h): the precedence rows follow the order arcs (the
 * units' DAG), and a tensor may cross a block boundary either way (a stage
 * may read from a later one), so the cut rows count it into and out of
 * every block where the order does not rule that out.  Under the 1F1B
 * schedule each model bounds the bottleneck and the exact model's optimum
 * is the 1F1B optimum.  Under GPipe (set->schedule) each block's cost row
 * splits by pass, as cost.h splits a stage's cost: F >= its forward work,
 * the cut tensors forward ops produce and its overflow; Bw >= its backward
 * work and the cut tensors backward ops produce (each tensor belongs to
 * its producer's pass, so the two rows partition the terms of the one);
 * the objective is z >= F + Bw, with F and Bw at least their pass's simple
 * bound.  The exact model's optimum is then the GPipe optimum, and the
 * relaxations bound it (a superblock's part of a pass bounds the sum of
 * its stages').  Inference graphs have one pass and are unaffected.
 *
 * Devices (fleet.h: set->fleet, or set->cpus = L >= 1 CPU stages of 001
 * section 3): the exact model gets a block per stage of the fleet, each
 * with a kind binary (mip_model_kinds.c), and its optimum is the optimum
 * on the fleet when the kinds that pay io share one link (a lower bound
 * when they differ).  The bottleneck and guess models take CPU stages
 * beside the graph's own device (mip_model_cpu.c: the accelerator stage
 * of most work in the middle block and the CPU stages' time in a row of
 * their own); on other kinds the same models bound a relaxation, every
 * kind but the CPU one accelerator at each unit's least time on them, the
 * fastest link and the largest memory (mip.c, relax_fleet; SC_ERR_INPUT
 * on a fleet of CPUs alone), the guess positions 1 .. the stages that are
 * not CPUs.  Pins are not modelled on devices (a relaxation); the cover
 * rung does not take devices (SC_ERR_INPUT).  Under GPipe every model on
 * devices is the bottleneck's (the 1F1B objective), which the GPipe
 * objective never falls below (cost.h): a lower bound on it, the exact
 * model's optimum included.
 *
 * sc_mip_solve runs one model in the calling process; CBC is neither
 * thread-safe nor interruptible, so the engine (jobs.h) calls it in a child
 * process.  Nothing here prints: CBC's own log is switched off.
 *
 * Progress: CBC 2.10's C interface offers a message callback
 * (Cbc_registerCallBack) that receives each log message's numbers; the node
 * log (CBC0010: nodes, best solution, best possible) and new-solution
 * messages (CBC0012, CBC0004...) give the proven bound and the incumbent
 * while the solve runs.  They are passed on through sc_mip_progress_fn.
 */
#ifndef SC_MIP_H
#define SC_MIP_H

#include <stdbool.h>

#include "core/graph.h"

/* The rungs of the ladder, in ladder order: one table, rungs.def, gives
 * each its constant, names, proof and help. */
typedef enum sc_rung {
#define SC_RUNG(e, name, proof, label, help) SC_RUNG_##e,
#include "rungs.def"
	SC_RUNG_COUNT,
} sc_rung;

/* Every rung, as a bit set (1u << sc_rung). */
#define SC_RUNGS_ALL ((1u << SC_RUNG_COUNT) - 1)

/* The rung's name ("simple", "bottleneck", "guess", "exact", "cover"), what
 * a proof by it is called ("the exact MIP"), how reports name it as a
 * source ("exact MIP") and its help line; rungs.def has them all.  Static
 * text; "?" for a value that is no rung. */
const char *sc_rung_name(sc_rung r);
const char *sc_rung_proof(sc_rung r);
const char *sc_rung_label(sc_rung r);
const char *sc_rung_help(sc_rung r);
/* Parses a rung name; false when unknown. */
bool sc_rung_parse(const char *name, sc_rung *out);

typedef struct sc_mip_params {
	sc_rung rung;      /* BOTTLENECK, GUESS or EXACT */
	int k;             /* stages, >= 1 */
	int guess;         /* GUESS: the middle block's position, 1..k */
	double time_limit; /* seconds of wall time; <= 0 means none */
	double lower;      /* a valid lower bound on this model's optimum, or 0 */
	double upper;      /* a known partition's objective (under set's
	                    * schedule) or more, or INFINITY */
	const int *start;  /* EXACT: that partition's op stages (0-based), or NULL */
	/* EXACT on devices (set->cpus > 0 or set->fleet): start's kinds, an
	 * index into the fleet (fleet.h) per stage; NULL: start's stages in
	 * the fleet's order (0..k-1 the accelerators, then the CPUs) */
	const int *start_kind;
	bool plain; /* the groups only, without the safe contractions
	             * (contract.h): a check of them */
} sc_mip_params;

typedef enum sc_mip_status {
	SC_MIP_OPTIMAL,    /* solved; bound is the model's optimum */
	SC_MIP_TIME_LIMIT, /* stopped by the time limit; bound is still valid */
	SC_MIP_INFEASIBLE, /* no solution: the optimum is infinite */
} sc_mip_status;

typedef struct sc_mip_result {
	sc_mip_status status;
	double bound;     /* proven lower bound on the model's optimum */
	double incumbent; /* best solution's value, INFINITY when none */
	long nodes;       /* branch-and-bound nodes */
	double seconds;
	int rows, cols; /* size of the model CBC was given */
	int *stages;    /* EXACT: the incumbent's op stages (0-based), malloc'd; or NULL */
	/* EXACT on devices: the incumbent's kind per stage (an index into the
	 * fleet), malloc'd; else NULL */
	int *stage_kind;
	int kstages; /* stage_kind's length: the fleet's stages */
} sc_mip_result;

/* Called while CBC runs with its current proven bound and incumbent (in the
 * graph's time units; INFINITY when none), nodes and seconds. */
typedef void (*sc_mip_progress_fn)(void *ud, double bound, double incumbent, long nodes,
                                   double seconds);

/* Builds and solves one model of g under set (set->memory, set->policy,
 * set->bandwidth, set->cpus and set->fleet are honoured; p->k stages of
 * the graph's device, with a fleet its stages, sc_fleet_stages).
 * Returns SC_OK with *res filled (free res->stages and res->stage_kind),
 * or an error (SC_ERR_INPUT for bad parameters, SC_ERR_NOMEM,
 * SC_ERR_INTERNAL when CBC fails). */
sc_status sc_mip_solve(const sc_graph *g, const sc_settings *set, const sc_mip_params *p,
                       sc_mip_progress_fn fn, void *ud, sc_mip_result *res, sc_error *err);

#endif

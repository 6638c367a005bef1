/*
 * contract.h - safe contractions of the unit DAG (units.h) before the exact
 * DP and the searches.
 *
 * A contraction joins a unit X into a neighbouring unit T, so that every
 * partition considered keeps X and T in one stage.  Each rule below is
 * safe: from any valid partition it builds one with X in T's stage whose
 * every stage costs no more (DESIGN.md section 1), so some optimal
 * partition survives the contraction and the optimum is unchanged.  The
 * proofs are in contract.c; every rule joins only a unit X of zero work
 * whose parameter bytes cannot matter: param(X) = 0, or the graph's total
 * parameters fit the memory of one stage (then no stage is ever over the
 * limit, under either policy).
 *
 * With in(X) the bytes of the distinct tensors from outside X read by X,
 * and out(X) the bytes of the tensors of X read outside X; X's
 * predecessors and successors are those over the order arcs (units.h) and,
 * where the rule says so, over the edges (the io):
 *   SC_CONTRACT_INTO_SUCC   X's successors all lie in one unit W, over the
 *                           arcs and over the edges, and in(X) <= out(X):
 *                           X joins W (a zero-work source with one
 *                           successor is the classic case);
 *   SC_CONTRACT_INTO_PRED   X's predecessors all lie in one unit U, over
 *                           the arcs and over the edges, and out(X) = 0: X
 *                           joins U (a zero-work sink with one predecessor
 *                           is the classic case);
 *   SC_CONTRACT_CHAIN       the same, U's successors over the edges all lie
 *                           in X, and out(X) <= in(X): X joins U (a
 *                           zero-work link of a chain);
 *   SC_CONTRACT_ISOLATED    X has no arc and no edge: it joins the first
 *                           unit.
 * On an inference graph the arcs are the edges.  On a training graph they
 * differ (an edge into the backward pass orders nothing), and a unit X
 * with no arc at all may join the one unit its edges reach, as above.
 * Under the GPipe schedule of a training graph no rule applies (units.h):
 * the proofs bound a stage's whole cost, not its cost in each pass.
 */
#ifndef SC_CONTRACT_H
#define SC_CONTRACT_H

#include <stdbool.h>

#include "core/graph.h"

struct sc_units;

enum {
	SC_CONTRACT_INTO_SUCC,
	SC_CONTRACT_INTO_PRED,
	SC_CONTRACT_CHAIN,
	SC_CONTRACT_ISOLATED,
	SC_CONTRACT_NRULES
};

/* What a contraction did: units before (groups and cycles only) and after,
 * and the joins made by each rule. */
typedef struct sc_contract_stats {
	int units_before;
	int units_after;
	int rounds;
	int by_rule[SC_CONTRACT_NRULES];
} sc_contract_stats;

/* The rule's name for reports ("into-successor", ...). */
const char *sc_contract_rule_name(int rule);

/* One round of contraction on u (memory: the fast memory per stage, which
 * decides whether parameter bytes can matter).  For each unit x writes into
 * into[x] the unit it joins, or -1.  The joins of one round touch disjoint
 * pairs of units, so each rule still holds after the others are made (the
 * proofs in contract.c only look at X, its target and, for a chain, the
 * target's successors).  Adds the joins to st->by_rule.  Returns the
 * number of joins, or -1 when out of memory.  Thread-safe on distinct
 * outputs. */
int sc_contract_round(const struct sc_units *u, double memory, int *into, sc_contract_stats *st);

#endif

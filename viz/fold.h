/*
 * fold.h - where the ops of the full picture go (DESIGN.md section 7).
 *
 * A real model is a long thin chain (ResNet-50: 122 ops on a path of 118),
 * which dot draws as a strip tens of thousands of pixels long.  The full
 * picture folds that chain like a newspaper column: the flow runs top to
 * bottom in columns read left to right (or, for a graph wider than it is
 * deep, left to right in rows read top to bottom), with as many columns as
 * make the picture about as wide as a screen.
 *
 * The fold is computed here, without Graphviz, so that it can be tested on
 * its own: every op gets a level along the flow, stage by stage (the ops of
 * stage s on levels after every level of stage s - 1, each op one level
 * below its deepest predecessor in its own stage), and the levels are cut
 * into columns of about equal length, a cut moved to a stage boundary when
 * one is near.  Since levels follow the stages, a stage never comes before
 * an earlier one along the flow.  Pure functions; a fold is a plain value.
 */
#ifndef SC_FOLD_H
#define SC_FOLD_H

#include <stdbool.h>

#include "core/graph.h"

typedef struct sc_fold {
	int n, k;         /* ops, stages (1 without a partition) */
	int *level;       /* op -> its level along the flow */
	int levels;       /* levels in all */
	int *stage_start; /* k + 1 entries: stage s holds levels [s], [s + 1]) */
	int widest;       /* the most ops on one level */
	int columns;      /* after sc_fold_cut; 1 before */
	int *col_start;   /* columns + 1 entries: column c holds levels
	                   * [col_start[c], col_start[c + 1]) */
	bool across;      /* the flow runs left to right (rows, not columns) */
} sc_fold;

/* The levels of g's ops under stage[0..n) (0-based, below k; NULL: one
 * stage, k must be 1).  With box (op -> the box drawn for it, below n;
 * may be NULL: a box per op), an edge inside a box takes no level, so
 * that a box of many ops takes about one level.  A stage without ops takes one level (its "no ops"
 * placeholder) unless skip_empty.  The flow runs down (across false) when
 * there are at least as many levels as ops on the widest level, else
 * across.  Starts with one column.  Returns a new fold (sc_fold_free) or
 * NULL with err set (SC_ERR_NOMEM). */
sc_fold *sc_fold_new(const sc_graph *g, const int *stage, int k, bool skip_empty, const int *box,
                     sc_error *err);

/* Cuts f's levels into columns (clamped to 1..levels) of about equal
 * length: the cut before column c is at c * levels / columns, moved to the
 * nearest stage boundary within a quarter of a column.  Returns the number
 * of columns made (cuts that fall together are made once). */
int sc_fold_cut(sc_fold *f, int columns);

/* The column of level l (0 <= l < f->levels). */
int sc_fold_column(const sc_fold *f, int l);

/* The width over height of f's picture as cut, roughly: across[l] and
 * along[l] are level l's extent across the flow (its boxes side by side)
 * and along it (its tallest box), in points; starts_stage[l] says a stage
 * (a heading and a divider) starts at level l. */
double sc_fold_aspect(const sc_fold *f, const double *across, const double *along,
                      const bool *starts_stage);

/* Cuts f into the columns (at most 400) whose sc_fold_aspect is nearest
 * aim (on a log scale); returns their number. */
int sc_fold_best(sc_fold *f, const double *across, const double *along, const bool *starts_stage,
                 double aim);

/* Cuts f's levels into pages of at most max_units drawn units each, for a
 * picture too large for one screen (full.h).  count[l] is the number of
 * units on level l, cross[l] the edges that pass between levels before l
 * and levels from l on (cross[0] unused).  Takes the fewest pages that
 * hold every level (a level of more than max_units is a page of its own),
 * and among cuts into that many the ones that cut fewest edges, each page
 * near an equal share.  Returns the number of pages and sets *start to a
 * malloc'd array of pages + 1 levels (page i holds levels [start[i],
 * start[i + 1])); 1 page when max_units <= 0 or everything fits; -1 when
 * out of memory. */
int sc_fold_pages(const sc_fold *f, const int *count, const int *cross, int max_units, int **start);

/* What sc_fold_pages minimises, page by page: the edges cut at the page's
 * start, plus 8 times the square of its size's relative distance from an
 * equal share (a page half as large again costs as much as two cuts). */
double sc_fold_page_cost(int units, double share, int cut);

/* The fold of f's levels [lo, hi) alone, renumbered from 0: an op on
 * another level gets level -1, each stage keeps its levels within the
 * window (none when it has none there), and the flow keeps f's direction.
 * One column.  NULL with err set when out of memory. */
sc_fold *sc_fold_window(const sc_fold *f, int lo, int hi, sc_error *err);

/* Frees f.  sc_fold_free(NULL) does nothing. */
void sc_fold_free(sc_fold *f);

#endif

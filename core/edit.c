/*
 * edit.c - the editable partition.  See edit.h.
 *
 * The history is two growable arrays: entries (label and a slice of the
 * change array) and changes ((op, from, to) triples).  Entries before the
 * cursor can be undone, entries from it on redone; since they are stored in
 * order, dropping the redo entries only shortens both arrays.  An edit first
 * makes room (the only step that can fail), then drops the redo entries,
 * records its triples and applies them, so a failed edit changes nothing.
 *
 * Applying an entry moves each op with sc_costs_move.  An entry that changes
 * a large share of the ops (a search's result, a long drag of dependents, or
 * undoing one) is applied by writing the stages and evaluating once instead,
 * which is then cheaper; sc_editor_move itself is always incremental, so a
 * key press never costs O(n).
 *
 * Devices (CPU stages): the editor keeps a flag per stage; an entry that
 * changes them (sc_editor_set_devices) holds the old and the new flags and
 * is always applied by one whole evaluation, since every stage's cost may
 * change with its device.
 *
 * The saved state is remembered as a cursor position; an edit that drops it
 * from the redo list makes it unreachable (-1).
 */
#define _POSIX_C_SOURCE 200809L
#include "edit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition.h"

typedef struct sc_edit_change {
	int op, from, to;
} sc_edit_change;

typedef struct sc_edit_entry {
	size_t first; /* its changes: change[first .. first + count) */
	int count;
	char *label;
	int *dev; /* NULL, or 2k kinds: the stages' kinds before, then after */
} sc_edit_entry;

struct sc_editor {
	const sc_graph *g;
	int k;
	int *stage;
	sc_costs *costs;
	sc_edit_entry *entry;
	int nentry, entry_cap;
	int cursor; /* entries [0, cursor) can be undone, [cursor, nentry) redone */
	sc_edit_change *change;
	size_t nchange, change_cap;
	int *kind;    /* k: each stage's kind, an index into costs->fleet */
	bool devices; /* the devices are checked (made with them, or set) */
	int saved;    /* the cursor of the saved state, or -1 when it is gone */
	/* scratch for move_with_dependents: ops found, and stamps marking them */
	int *queue;
	unsigned *mark;
	unsigned stamp;
};

/* snprintf into why when the caller gave room for it. */
static void say(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t size, const char *fmt, ...)
{
	if (!why || size == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

/* A malloc'd formatted string, or NULL when out of memory. */
static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
		return NULL;
	char *s = malloc((size_t)len + 1);
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	va_end(ap);
	return s;
}

sc_editor *sc_editor_new(const sc_graph *g, const sc_settings *set, const int *stage, sc_error *err)
{
	return sc_editor_new_kinds(g, set, stage, NULL, err);
}

sc_editor *sc_editor_new_kinds(const sc_graph *g, const sc_settings *set, const int *stage,
                               const int *kind, sc_error *err)
{
	if (set->k < 1) {
		sc_error_set(err, SC_ERR_INPUT, "k must be at least 1 (got %d)", set->k);
		return NULL;
	}
	size_t n = g->n > 0 ? (size_t)g->n : 1;
	sc_editor *ed = calloc(1, sizeof *ed);
	if (ed) {
		ed->stage = malloc(n * sizeof *ed->stage);
		ed->queue = malloc(n * sizeof *ed->queue);
		ed->mark = calloc(n, sizeof *ed->mark);
		ed->kind = calloc((size_t)set->k, sizeof *ed->kind);
		ed->costs = sc_costs_new(g, set, err);
	}
	if (!ed || !ed->stage || !ed->queue || !ed->mark || !ed->kind || !ed->costs) {
		bool nomem = !ed || ed->costs;
		sc_editor_free(ed);
		if (nomem)
			sc_error_nomem(err, "the partition editor");
		return NULL;
	}
	sc_violation viol;
	/* without devices none is checked, as before CPU stages */
	if (kind ? !sc_part_check_kinds(g, stage, set->k, &ed->costs->fleet, kind, &viol)
	         : !sc_part_check(g, stage, set->k, &viol)) {
		char what[SC_PART_WHY_SIZE];
		sc_part_describe(g, stage, &viol, what, sizeof what);
		sc_error_set(err, SC_ERR_INPUT, "cannot edit an invalid partition: %s", what);
		sc_editor_free(ed);
		return NULL;
	}
	ed->g = g;
	ed->k = set->k;
	memcpy(ed->stage, stage, (size_t)g->n * sizeof *stage);
	if (kind) {
		memcpy(ed->kind, kind, (size_t)set->k * sizeof *kind);
		ed->devices = true;
		sc_costs_set_kinds(ed->costs, ed->kind);
	}
	sc_costs_eval(ed->costs, ed->stage);
	ed->saved = 0;
	return ed;
}

void sc_editor_free(sc_editor *ed)
{
	if (!ed)
		return;
	for (int i = 0; i < ed->nentry; i++) {
		free(ed->entry[i].label);
		free(ed->entry[i].dev);
	}
	free(ed->entry);
	free(ed->kind);
	free(ed->change);
	free(ed->stage);
	free(ed->queue);
	free(ed->mark);
	sc_costs_free(ed->costs);
	free(ed);
}

const int *sc_editor_stages(const sc_editor *ed)
{
	return ed->stage;
}

const int *sc_editor_kinds(const sc_editor *ed)
{
	for (int s = 0; s < ed->k; s++)
		if (ed->kind[s] != 0)
			return ed->kind;
	return NULL;
}

const sc_costs *sc_editor_costs(const sc_editor *ed)
{
	return ed->costs;
}

void sc_editor_range(const sc_editor *ed, int v, int *lo, int *hi)
{
	/* the partition is always valid, which is all sc_part_legal_range needs */
	sc_part_legal_range(ed->g, ed->stage, ed->k, v, lo, hi);
}

/* ---- history ---- */

/* The changes of the undo entries, which an edit keeps. */
static size_t kept_changes(const sc_editor *ed)
{
	if (ed->cursor == 0)
		return 0;
	const sc_edit_entry *e = &ed->entry[ed->cursor - 1];
	return e->first + (size_t)e->count;
}

/* Makes room for one more entry of count changes after the undo entries.
 * Nothing is dropped yet, so a failure leaves the history as it was. */
static bool reserve(sc_editor *ed, int count)
{
	if (ed->cursor + 1 > ed->entry_cap) {
		int cap = ed->entry_cap ? 2 * ed->entry_cap : 16;
		sc_edit_entry *e = realloc(ed->entry, (size_t)cap * sizeof *e);
		if (!e)
			return false;
		ed->entry = e;
		ed->entry_cap = cap;
	}
	size_t need = kept_changes(ed) + (size_t)count;
	if (need > ed->change_cap) {
		size_t cap = ed->change_cap ? 2 * ed->change_cap : 64;
		if (cap < need)
			cap = need;
		sc_edit_change *c = realloc(ed->change, cap * sizeof *c);
		if (!c)
			return false;
		ed->change = c;
		ed->change_cap = cap;
	}
	return true;
}

/* Drops the redo entries and opens a new entry labelled label (owned from
 * now on); reserve() must have succeeded.  The caller appends its changes
 * with record() and then calls apply(). */
static sc_edit_entry *open_entry(sc_editor *ed, char *label)
{
	for (int i = ed->cursor; i < ed->nentry; i++) {
		free(ed->entry[i].label);
		free(ed->entry[i].dev);
	}
	ed->nentry = ed->cursor;
	ed->nchange = kept_changes(ed);
	if (ed->saved > ed->cursor)
		ed->saved = -1; /* the saved state was on the redo list */
	sc_edit_entry *e = &ed->entry[ed->nentry++];
	e->first = ed->nchange;
	e->count = 0;
	e->label = label;
	e->dev = NULL;
	return e;
}

static void record(sc_editor *ed, sc_edit_entry *e, int op, int to)
{
	ed->change[ed->nchange++] = (sc_edit_change){op, ed->stage[op], to};
	e->count++;
}

/* Whether evaluating the whole partition is cheaper than count incremental
 * moves: each sc_costs_move refreshes all k stages and walks the op's and
 * its predecessors' edges, one evaluation walks every op and edge once.
 * Small entries always move. */
static bool whole_is_cheaper(const sc_editor *ed, int count)
{
	const sc_graph *g = ed->g;
	if (count < 32 || g->n == 0)
		return false;
	double per_move = ed->k + 1.0 + 2.0 * g->m / g->n;
	return count * per_move >= (double)g->n + g->m;
}

/* Puts every op of e in its `to` stage (forward) or its `from` stage;
 * may_eval allows a whole evaluation when that is cheaper. */
static void apply(sc_editor *ed, const sc_edit_entry *e, bool forward, bool may_eval)
{
	const sc_edit_change *c = ed->change + e->first;
	if (e->dev) {
		memcpy(ed->kind, e->dev + (forward ? ed->k : 0), (size_t)ed->k * sizeof *ed->kind);
		sc_costs_set_kinds(ed->costs, ed->kind);
	}
	if (e->dev || (may_eval && whole_is_cheaper(ed, e->count))) {
		for (int i = 0; i < e->count; i++)
			ed->stage[c[i].op] = forward ? c[i].to : c[i].from;
		sc_costs_eval(ed->costs, ed->stage);
	} else {
		/* an entry names each op once, so the order of the moves does
		 * not matter; sc_costs_move does not need the partition valid in
		 * between */
		for (int i = 0; i < e->count; i++)
			sc_costs_move(ed->costs, ed->stage, c[i].op, forward ? c[i].to : c[i].from);
	}
#ifdef SC_DEBUG
	sc_editor_check(ed);
#endif
}

/* ---- edits ---- */

/* Checks v and to; writes the reason and returns false when out of range. */
static bool check_args(const sc_editor *ed, int v, int to, char *why, size_t size)
{
	if (v < 0 || v >= ed->g->n) {
		say(why, size, "there is no op %d", v);
		return false;
	}
	if (to < 0 || to >= ed->k) {
		say(why, size, "stage %d is outside 1..%d", to + 1, ed->k);
		return false;
	}
	return true;
}

/* Whether op u may go to stage `to` by its device; names why not. */
static bool device_allows(const sc_editor *ed, int u, int to, char *why, size_t size)
{
	const sc_graph *g = ed->g;
	if (!ed->devices)
		return true;
	const sc_kind *d = &ed->costs->fleet.kind[ed->kind[to]];
	if (sc_kind_ok(d, g, u))
		return true;
	if (d->cpu)
		say(why, size, "%s has no CPU time: it may not go to stage %d (CPU)", g->op_name[u],
		    to + 1);
	else if (ed->costs->set.fleet)
		say(why, size, "%s may not run on %s: it may not go to stage %d (%s)",
		    g->op_name[u], d->name, to + 1, d->name);
	else
		say(why, size,
		    "%s may not run on an accelerator: it may not go to stage %d (accelerator)",
		    g->op_name[u], to + 1);
	return false;
}

/* The ops that move with v: its group's, or v alone (in *one). */
static const int *group_of(const sc_graph *g, int v, int *one, int *count)
{
	int gr = g->group[v];
	if (gr < 0) {
		*one = v;
		*count = 1;
		return one;
	}
	*count = sc_graph_group_size(g, gr);
	return g->group_ops + g->group_off[gr];
}

/* Whether edge a -> b keeps its rule with a in stage sa and b in sb. */
static bool edge_ok(const sc_graph *g, int a, int b, int sa, int sb)
{
	sc_edge_rule r = sc_graph_edge_rule(g, a, b);
	return r == SC_RULE_FREE || (r == SC_RULE_FORWARD ? sa <= sb : sb <= sa);
}

/* Names edge a -> b, which breaks its rule with a in stage sa and b in sb. */
static void edge_broken(const sc_graph *g, int a, int b, int sa, int sb, char *why, size_t size)
{
	if (sc_graph_edge_rule(g, a, b) == SC_RULE_FORWARD)
		say(why, size, "edge %s -> %s would go from stage %d back to stage %d",
		    g->op_name[a], g->op_name[b], sa + 1, sb + 1);
	else
		say(why, size,
		    "edge %s -> %s would go from stage %d on to stage %d (an edge between "
		    "backward ops, one of them an orphan, never goes to a later stage)",
		    g->op_name[a], g->op_name[b], sa + 1, sb + 1);
}

/* Finds an edge that would break its rule of the stage order if the ops of
 * v's group moved to `to`; edges inside the group move along and cannot.
 * Returns false and names the first such edge in why, or returns true. */
static bool edges_allow(const sc_editor *ed, const int *ops, int count, int gr, int to, char *why,
                        size_t size)
{
	const sc_graph *g = ed->g;
	for (int j = 0; j < count; j++) {
		int u = ops[j];
		for (int i = g->pred_off[u]; i < g->pred_off[u + 1]; i++) {
			int p = g->pred[i];
			if ((gr < 0 || g->group[p] != gr) && !edge_ok(g, p, u, ed->stage[p], to)) {
				edge_broken(g, p, u, ed->stage[p], to, why, size);
				return false;
			}
		}
		for (int i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			int s = g->succ[i];
			if ((gr < 0 || g->group[s] != gr) && !edge_ok(g, u, s, to, ed->stage[s])) {
				edge_broken(g, u, s, to, ed->stage[s], why, size);
				return false;
			}
		}
	}
	return true;
}

static bool nomem(char *why, size_t size)
{
	say(why, size, "out of memory recording the edit");
	return false;
}

bool sc_editor_move(sc_editor *ed, int v, int to, char *why, size_t size)
{
	const sc_graph *g = ed->g;
	if (!check_args(ed, v, to, why, size))
		return false;
	if (ed->stage[v] == to) {
		say(why, size, "%s is already in stage %d", g->op_name[v], to + 1);
		return true;
	}
	int one, count, gr = g->group[v];
	const int *ops = group_of(g, v, &one, &count);
	for (int j = 0; j < count; j++)
		if (!device_allows(ed, ops[j], to, why, size))
			return false;
	/* the group lies in one stage (the partition is valid) and moves whole,
	 * so it cannot be split; only edges leaving it can break */
	if (!edges_allow(ed, ops, count, gr, to, why, size))
		return false;
	char *label = gr < 0 ? format("move %s to stage %d", g->op_name[v], to + 1)
	                     : format("move group %s (%d op%s) to stage %d", g->group_name[gr],
	                              count, count == 1 ? "" : "s", to + 1);
	if (!label || !reserve(ed, count)) {
		free(label);
		return nomem(why, size);
	}
	sc_edit_entry *e = open_entry(ed, label);
	for (int j = 0; j < count; j++)
		record(ed, e, ops[j], to);
	apply(ed, e, true, false);
	ed->cursor++;
	/* the label is the imperative of the message */
	say(why, size, "moved%s", label + strlen("move"));
	return true;
}

/* Adds x and the rest of its group to the queue unless already there. */
static void enqueue(sc_editor *ed, int x, int *nq)
{
	int one, count;
	const int *ops = group_of(ed->g, x, &one, &count);
	for (int j = 0; j < count; j++)
		if (ed->mark[ops[j]] != ed->stamp) {
			ed->mark[ops[j]] = ed->stamp;
			ed->queue[(*nq)++] = ops[j];
		}
}

/* Collects in ed->queue the ops that must be in stage `to` once v is: v's
 * group, and, following the order arcs in the direction of the move, every op on the
 * wrong side of `to` with its group.  Ops already at `to` or beyond stop the
 * search: the partition is valid, so everything past them is too.  Returns
 * how many. */
static int dependents(sc_editor *ed, int v, int to)
{
	const sc_graph *g = ed->g;
	if (++ed->stamp == 0) {
		memset(ed->mark, 0, (size_t)g->n * sizeof *ed->mark);
		ed->stamp = 1;
	}
	bool later = to > ed->stage[v];
	int nq = 0;
	enqueue(ed, v, &nq);
	for (int q = 0; q < nq; q++) {
		int u = ed->queue[q];
		if (later) {
			for (int i = g->ord_succ_off[u]; i < g->ord_succ_off[u + 1]; i++) {
				int s = g->ord_succ[i];
				if (ed->stage[s] < to && ed->mark[s] != ed->stamp)
					enqueue(ed, s, &nq);
			}
		} else {
			for (int i = g->ord_pred_off[u]; i < g->ord_pred_off[u + 1]; i++) {
				int p = g->ord_pred[i];
				if (ed->stage[p] > to && ed->mark[p] != ed->stamp)
					enqueue(ed, p, &nq);
			}
		}
	}
	return nq;
}

int sc_editor_move_with_dependents(sc_editor *ed, int v, int to, char *why, size_t size)
{
	const sc_graph *g = ed->g;
	if (!check_args(ed, v, to, why, size))
		return -1;
	if (ed->stage[v] == to) {
		say(why, size, "%s is already in stage %d", g->op_name[v], to + 1);
		return 0;
	}
	int count = dependents(ed, v, to);
	for (int j = 0; j < count; j++)
		if (!device_allows(ed, ed->queue[j], to, why, size))
			return -1;
	char *label = format("move %s with dependents to stage %d", g->op_name[v], to + 1);
	if (!label || !reserve(ed, count)) {
		free(label);
		nomem(why, size);
		return -1;
	}
	sc_edit_entry *e = open_entry(ed, label);
	for (int j = 0; j < count; j++)
		record(ed, e, ed->queue[j], to);
	apply(ed, e, true, true);
	ed->cursor++;
	if (count == 1)
		say(why, size, "moved %s to stage %d", g->op_name[v], to + 1);
	else
		say(why, size, "moved %s and %d other op%s to stage %d", g->op_name[v], count - 1,
		    count == 2 ? "" : "s", to + 1);
	return count;
}

bool sc_editor_set(sc_editor *ed, const int *stage, const char *label)
{
	return sc_editor_set_kinds(ed, stage, ed->devices ? ed->kind : NULL, label);
}

bool sc_editor_set_kinds(sc_editor *ed, const int *stage, const int *kind, const char *label)
{
	const sc_graph *g = ed->g;
	for (int s = 0; kind && s < ed->k; s++)
		if (kind[s] < 0 || kind[s] >= ed->costs->fleet.n)
			return false;
	if (ed->devices || kind
	            ? !sc_part_check_kinds(g, stage, ed->k, &ed->costs->fleet, kind, NULL)
	            : !sc_part_check(g, stage, ed->k, NULL))
		return false;
	int count = 0;
	for (int v = 0; v < g->n; v++)
		count += stage[v] != ed->stage[v];
	bool new_dev = false;
	for (int s = 0; s < ed->k; s++)
		new_dev = new_dev || ed->kind[s] != (kind ? kind[s] : 0);
	if (count == 0 && !new_dev) {
		ed->devices = ed->devices || kind;
		return true;
	}
	char *copy = format("%s", label ? label : "set partition");
	int *dev = new_dev ? malloc(2 * (size_t)ed->k * sizeof *dev) : NULL;
	if (!copy || (new_dev && !dev) || !reserve(ed, count)) {
		free(copy);
		free(dev);
		return false;
	}
	for (int s = 0; new_dev && s < ed->k; s++) {
		dev[s] = ed->kind[s];
		dev[ed->k + s] = kind ? kind[s] : 0;
	}
	ed->devices = ed->devices || kind;
	sc_edit_entry *e = open_entry(ed, copy);
	e->dev = dev;
	for (int v = 0; v < g->n; v++)
		if (stage[v] != ed->stage[v])
			record(ed, e, v, stage[v]);
	apply(ed, e, true, true);
	ed->cursor++;
	return true;
}

bool sc_editor_undo(sc_editor *ed)
{
	if (ed->cursor == 0)
		return false;
	apply(ed, &ed->entry[--ed->cursor], false, true);
	return true;
}

bool sc_editor_redo(sc_editor *ed)
{
	if (ed->cursor == ed->nentry)
		return false;
	apply(ed, &ed->entry[ed->cursor++], true, true);
	return true;
}

int sc_editor_undo_count(const sc_editor *ed)
{
	return ed->cursor;
}

int sc_editor_redo_count(const sc_editor *ed)
{
	return ed->nentry - ed->cursor;
}

const char *sc_editor_undo_label(const sc_editor *ed)
{
	return ed->cursor > 0 ? ed->entry[ed->cursor - 1].label : NULL;
}

const char *sc_editor_redo_label(const sc_editor *ed)
{
	return ed->cursor < ed->nentry ? ed->entry[ed->cursor].label : NULL;
}

bool sc_editor_dirty(const sc_editor *ed)
{
	return ed->cursor != ed->saved;
}

void sc_editor_mark_saved(sc_editor *ed)
{
	ed->saved = ed->cursor;
}

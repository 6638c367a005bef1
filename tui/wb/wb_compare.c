/*
 * wb_compare.c - comparing the current partition with another one: the
 * best found, or a partition file (c; in the box, f and b switch).  A modal
 * over the view shows the objectives of both and their difference, per
 * stage both partitions' ops and costs, the difference (other - current)
 * and how many ops move in and out, then every op that sits in another
 * stage in the other partition.  The other partition's costs are computed
 * once, when it is taken (O(n + m)); the current one's are the editor's,
 * so the box follows a search that replaces the current partition.
 *
 * This file also holds wb_browse_action, the browsing actions a view
 * leaves to the global actions (Enter on a stage of the overview, b, c):
 * the dispatcher (wb_keys.c) hands them over in one line.
 *
 * Layer: a modal of layer 4 (wb.h), above the node browser (it opens it on
 * a stage) and wb_draw.c (the box); it calls the state and the prompt.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_compare.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/formats/partition_file.h"
#include "core/partition.h"
#include "tui/ui.h"
#include "tui/wb/wb_draw.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_lineedit.h"
#include "tui/wb/wb_nodes.h"

/* The comparison's own state (its modal's, wb_modal_state), while it is
 * open. */
typedef struct compare {
	int *stage;      /* the other partition, or NULL */
	sc_costs *costs; /* its costs */
	char what[200];  /* what it is ("the best found (dpl)", a file) */
	int top;         /* the first line shown */
} compare;

static compare *cmp_of(const wb *w)
{
	return wb_modal_state(w, &wb_compare_modal);
}

static void forget(wb *w)
{
	compare *cm = cmp_of(w);
	free(cm->stage);
	sc_costs_free(cm->costs);
	cm->stage = NULL;
	cm->costs = NULL;
	cm->top = 0;
}

/* Takes stage (owned from now on) as the other partition and opens the
 * box; false, saying why and freeing stage, when its costs cannot be made. */
static bool take(wb *w, int *stage, const char *what)
{
	compare *cm = cmp_of(w);
	sc_error err;
	sc_settings ps;
	wb_part_settings(w, &ps);
	sc_costs *c = sc_costs_new(w->g, &ps, &err);
	if (!c) {
		free(stage);
		wb_say(w, "not compared: %s", err.msg);
		return false;
	}
	sc_costs_eval(c, stage);
	forget(w);
	cm->stage = stage;
	cm->costs = c;
	snprintf(cm->what, sizeof cm->what, "%s", what);
	if (!wb_modal_open(w, &wb_compare_modal))
		wb_modal_push(w, &wb_compare_modal);
	return true;
}

static unsigned file_answer(wb *w, const char *path, bool ok, int arg)
{
	(void)arg;
	if (!ok)
		return 0;
	int *st = sc_part_new(w->g), k2;
	if (!st) {
		wb_say(w, "not compared: out of memory");
		return 0;
	}
	sc_error err;
	if (sc_part_load(path, w->g, sc_settings_stages(&w->set), &k2, st, NULL, &err) != SC_OK) {
		free(st);
		wb_say(w, "not compared: %s", err.msg);
		return 0;
	}
	char what[200];
	snprintf(what, sizeof what, "%.180s", path);
	take(w, st, what);
	return 0;
}

static unsigned ask_file(wb *w)
{
	return wb_ask(w, "compare with the partition file:", "", 1024, file_answer, 0);
}

static unsigned with_best(wb *w)
{
	if (!w->best_stage || !isfinite(w->best)) {
		wb_say(w, "no best partition found yet: f compares with a file");
		return WB_HANDLED | WB_REDRAW;
	}
	int *st = sc_part_new(w->g);
	if (!st) {
		wb_say(w, "not compared: out of memory");
		return WB_HANDLED | WB_REDRAW;
	}
	memcpy(st, w->best_stage, (size_t)w->g->n * sizeof *st);
	char what[200];
	snprintf(what, sizeof what, "the best found (%s)", w->best_from);
	take(w, st, what);
	return WB_HANDLED | WB_REDRAW;
}

unsigned wb_compare(wb *w)
{
	return w->best_stage && isfinite(w->best) ? with_best(w) : ask_file(w);
}

/* x with its sign ("+2.0000", "-3.0000", "0.0000"). */
static const char *signed_num(double x, char *buf, size_t size)
{
	if (size < 2)
		return buf;
	buf[0] = x > 0 ? '+' : '-';
	bool sign = x != 0;
	ui_num(fabs(x), buf + sign, size - sign);
	return buf;
}

/* Stage s's row of the table into buf: its ops and cost in both
 * partitions, the difference, and how many ops come in and go out.  O(n). */
static void stage_line(const wb *w, int s, int at, int other_at, char *buf, size_t size)
{
	compare *cm = cmp_of(w);
	const sc_stage_cost *now = &w->c->st[s], *oth = &cm->costs->st[s];
	int in = 0, out = 0;
	for (int v = 0; v < w->g->n; v++) {
		in += cm->stage[v] == s && w->stage[v] != s;
		out += w->stage[v] == s && cm->stage[v] != s;
	}
	char a[32], b[32], d[32];
	bool tied = s == at || sc_cost_at_bottleneck(now->cost, w->c->st[at].cost);
	snprintf(buf, size, "%c%c%5d %6d %6d %11s %11s %11s %6d %6d", tied ? '*' : ' ',
	         s == other_at ? 'o' : ' ', s + 1, now->ops, oth->ops,
	         ui_num(now->cost, a, sizeof a), ui_num(oth->cost, b, sizeof b),
	         signed_num(oth->cost - now->cost, d, sizeof d), in, out);
}

static void compare_draw(wb *w, int rows, int cols)
{
	compare *cm = cmp_of(w);
	if (!cm->stage)
		return;
	const sc_graph *g = w->g;
	int k = sc_settings_stages(&w->set);
	int y0 = 4, h = rows - 5, wd = cols;
	if (h < 4)
		return;
	char title[512], keys[128];
	wb_footer(WB_FOOT_COMPARE, "  ", keys, sizeof keys);
	snprintf(title, sizeof title, " compare the current partition with %s   %s", cm->what,
	         keys);
	wb_box(y0, 0, h, wd, title);
	/* the text, scrolled: objectives (2 lines), the table (k + 1), a blank,
	 * then the moved ops (a title and one line each) */
	int at, other_at;
	sc_costs_bottleneck(w->c, &at);
	sc_costs_bottleneck(cm->costs, &other_at);
	double now = sc_costs_objective(w->c), oth = sc_costs_objective(cm->costs);
	int moved = 0;
	for (int v = 0; v < g->n; v++)
		moved += w->stage[v] != cm->stage[v];
	int total = 2 + k + 1 + 1 + 1 + (moved ? moved + 1 : 0);
	int shown = h - 1;
	if (cm->top > total - shown)
		cm->top = total - shown > 0 ? total - shown : 0;
	int line = 0, y = y0 + 1, next = 0; /* next: the next op in name order */
	char buf[512], a[32], b[32], d[32];
	for (; line < total && y < y0 + h; line++) {
		buf[0] = '\0';
		bool bold = false;
		if (line == 0) {
			snprintf(buf, sizeof buf, "objective: current %s, other %s, difference %s",
			         ui_num(now, a, sizeof a), ui_num(oth, b, sizeof b),
			         signed_num(oth - now, d, sizeof d));
			if (isfinite(now) && isfinite(oth) && now > 0) {
				size_t len = strlen(buf);
				snprintf(buf + len, sizeof buf - len, " (%+.2f%%)",
				         100 * (oth - now) / now);
			}
		} else if (line == 1) {
			snprintf(buf, sizeof buf,
			         "* bottleneck now, o in the other; diff = other - now; in, out: "
			         "ops moving");
		} else if (line == 2) {
			snprintf(buf, sizeof buf, "  %5s %6s %6s %11s %11s %11s %6s %6s", "stage",
			         "ops", "other", "cost", "other", "diff", "in", "out");
			bold = true;
		} else if (line < 3 + k) {
			if (line >= cm->top)
				stage_line(w, line - 3, at, other_at, buf, sizeof buf);
		} else if (line == 3 + k) {
			/* blank */
		} else if (line == 4 + k) {
			if (moved)
				snprintf(buf, sizeof buf, "%d op%s: stage now -> in the other",
				         moved, moved == 1 ? " moves" : "s move");
			else
				snprintf(buf, sizeof buf,
				         "no op moves: the partitions are the same");
			bold = true;
		} else {
			/* the next moved op in name order */
			int v = -1;
			while (next < g->n) {
				int u = g->by_name[next++];
				if (w->stage[u] != cm->stage[u]) {
					v = u;
					break;
				}
			}
			if (v >= 0)
				snprintf(buf, sizeof buf, "  %s  %d -> %d", g->op_name[v],
				         w->stage[v] + 1, cm->stage[v] + 1);
		}
		if (line < cm->top)
			continue;
		if (bold)
			attron(A_BOLD);
		mvprintw(y++, 1, "%.*s", wd - 2, buf);
		if (bold)
			attroff(A_BOLD);
	}
}

static unsigned compare_key(wb *w, int ch)
{
	compare *cm = cmp_of(w);
	if (ch == KEY_RESIZE)
		return WB_HANDLED | WB_REDRAW;
	switch (wb_key_action(WB_IN_COMPARE, ch)) {
	case WB_A_CMP_DOWN: cm->top++; break;
	case WB_A_CMP_UP:
		if (cm->top > 0)
			cm->top--;
		break;
	case WB_A_CMP_FILE: return ask_file(w);
	case WB_A_CMP_BEST: return with_best(w);
	case WB_A_CMP_CLOSE:
		wb_modal_close(w, &wb_compare_modal);
		forget(w);
		break;
	default: return WB_HANDLED; /* the box takes every key */
	}
	return WB_HANDLED | WB_REDRAW;
}

static void compare_fini(wb *w, void *state)
{
	(void)w;
	compare *cm = state;
	free(cm->stage);
	sc_costs_free(cm->costs);
}

const wb_modal_ops wb_compare_modal = {.name = "compare",
                                       .draw = compare_draw,
                                       .key = compare_key,
                                       .state_size = sizeof(compare),
                                       .fini = compare_fini};

unsigned wb_browse_action(wb *w, wb_action a)
{
	int at;
	switch (a) {
	case WB_A_OPEN: return wb_nodes_open_stage(w, w->stage_sel);
	case WB_A_BOTTLENECK:
		sc_costs_bottleneck(w->c, &at);
		w->stage_sel = at;
		w->pane = 0;
		wb_say(w, "the bottleneck is stage %d", at + 1);
		return WB_HANDLED | WB_REDRAW;
	case WB_A_COMPARE: return wb_compare(w);
	default: return 0;
	}
}

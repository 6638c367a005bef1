/*
 * wb_detail.c - the node browser's detail pane (tig's split view: the list
 * above, the selected op below, following the selection): the op's stage
 * and legal range with the edge that pins each end of it, and its
 * predecessors and successors with their stages and the tensors that cross.
 *
 * The range is core's (sc_part_legal_range, through the order arcs of
 * core/graph.h: every edge on an inference graph; on a training graph an
 * edge between forward ops, or one between backward ops one of which is an
 * orphan, mirrored); what this file adds is the why: which neighbour's
 * stage is the end, by which edge and which rule (sc_graph_edge_rule).
 * wb_range_pins needs no terminal, so the tests hold it to core's range.
 * A tensor crossing into the op is its predecessor's output; the one
 * crossing out is the op's own, whatever successor reads it.
 *
 * Layer: a service of layer 4 (wb.h) under the node browser, which calls
 * it; it calls the state only.
 */
#define _POSIX_C_SOURCE 200809L
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "core/partition.h"
#include "tui/ui.h"
#include "tui/wb/wb.h"
#include "viz/quotient.h"

/* Whether the graph has the edge a -> b (pred lists are sorted). */
static bool has_edge(const sc_graph *g, int a, int b)
{
	int lo = g->pred_off[b], hi = g->pred_off[b + 1];
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (g->pred[mid] == a)
			return true;
		if (g->pred[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Records in pin the order arc a -> b between an op of the group and its
 * neighbour nb (one of a, b), or counts it when the end is pinned already:
 * the graph edge behind the arc is a -> b itself, or b -> a under the
 * mirror rule. */
static void pin_arc(const sc_graph *g, int a, int b, int nb, wb_pin *pin)
{
	if (pin->by >= 0) {
		pin->more++;
		return;
	}
	pin->by = nb;
	if (has_edge(g, a, b)) {
		pin->from = a;
		pin->to = b;
	} else {
		pin->from = b;
		pin->to = a;
	}
	pin->rule = sc_graph_edge_rule(g, pin->from, pin->to);
}

void wb_range_pins(const sc_graph *g, const int *stage, int k, int v, int *lo, int *hi, wb_pin *plo,
                   wb_pin *phi)
{
	sc_part_legal_range(g, stage, k, v, lo, hi);
	*plo = *phi = (wb_pin){.by = -1, .from = -1, .to = -1};
	int gr = g->group[v], one = v;
	const int *ops = gr >= 0 ? g->group_ops + g->group_off[gr] : &one;
	int count = gr >= 0 ? g->group_off[gr + 1] - g->group_off[gr] : 1;
	for (int j = 0; j < count; j++) {
		int u = ops[j];
		for (int i = g->ord_pred_off[u]; i < g->ord_pred_off[u + 1]; i++) {
			int p = g->ord_pred[i];
			if ((gr < 0 || g->group[p] != gr) && stage[p] == *lo && *lo > 0)
				pin_arc(g, p, u, p, plo);
		}
		for (int i = g->ord_succ_off[u]; i < g->ord_succ_off[u + 1]; i++) {
			int s = g->ord_succ[i];
			if ((gr < 0 || g->group[s] != gr) && stage[s] == *hi && *hi < k - 1)
				pin_arc(g, u, s, s, phi);
		}
	}
}

/* One end's line: "earliest stage 2, held by edge a -> u (and 1 more): an
 * edge never goes to an earlier stage", or the first / last stage. */
static void pin_line(const wb *w, const char *end, int at, const wb_pin *pin, bool first, char *buf,
                     size_t size)
{
	const sc_graph *g = w->g;
	if (pin->by < 0) {
		snprintf(buf, size, "%s stage %d: the %s stage", end, at + 1,
		         first ? "first" : "last");
		return;
	}
	char more[48] = "";
	if (pin->more)
		snprintf(more, sizeof more, " (and %d more)", pin->more);
	snprintf(buf, size, "%s stage %d, held by edge %s -> %s%s: %s", end, at + 1,
	         g->op_name[pin->from], g->op_name[pin->to], more, sc_edge_rule_text(pin->rule));
}

/* A training graph's word for the rule of edge a -> b in the lists. */
static const char *rule_word(const sc_graph *g, int a, int b)
{
	switch (sc_graph_edge_rule(g, a, b)) {
	case SC_RULE_FORWARD: return "fw";
	case SC_RULE_MIRROR: return "mirror";
	default: return "free";
	}
}

/* "lo" or "hi" when edge a -> b (one end v, the other u outside v's
 * group) holds that end of v's range [lo, hi], else "". */
static const char *pin_mark(const wb *w, int v, int u, int a, int b, int lo, int hi)
{
	const sc_graph *g = w->g;
	if (g->group[v] >= 0 && g->group[u] == g->group[v])
		return "";
	sc_edge_rule r = sc_graph_edge_rule(g, a, b);
	if (r == SC_RULE_FREE)
		return "";
	/* the forward rule holds v above its predecessors and below its
	 * successors; the mirror rule the other way round */
	bool below = (r == SC_RULE_FORWARD) == (a == u);
	if (below && w->stage[u] == lo && lo > 0)
		return "lo";
	if (!below && w->stage[u] == hi && hi < w->set.k - 1)
		return "hi";
	return "";
}

/* One column of neighbours from row y, x0, width wd, at most rows rows:
 * a title, then per neighbour its pin mark, stage, tensor and name. */
static void neighbours(const wb *w, int v, bool succ, int y, int x0, int wd, int rows, int lo,
                       int hi)
{
	const sc_graph *g = w->g;
	bool training = sc_graph_is_training(g);
	const int *off = succ ? g->succ_off : g->pred_off, *adj = succ ? g->succ : g->pred;
	int n = off[v + 1] - off[v];
	attron(A_BOLD);
	mvprintw(y, x0, "%-*.*s", wd, wd, "");
	mvprintw(y, x0, "%.*s", wd,
	         succ ? "successors (read its tensor)" : "predecessors (their tensors in)");
	attroff(A_BOLD);
	if (rows < 2)
		return;
	char head[96];
	snprintf(head, sizeof head, "   %5s %10s%s  %s", "stage", "tensor",
	         training ? "  rule  " : "", "op");
	/* the marks say which neighbours hold the range's ends */
	mvprintw(y + 1, x0, "%.*s", wd, head);
	for (int i = 0, r = 2; i < n && r < rows; i++, r++) {
		int u = adj[off[v] + i];
		if (r == rows - 1 && i < n - 1) {
			mvprintw(y + r, x0, "%.*s", wd, "");
			printw("   ... and %d more", n - i);
			break;
		}
		char bytes[32], line[256], rule[16] = "";
		sc_quotient_fmt_bytes(succ ? g->out[v] : g->out[u], bytes, sizeof bytes);
		int a = succ ? v : u, b = succ ? u : v;
		if (training)
			snprintf(rule, sizeof rule, "  %-6s", rule_word(g, a, b));
		snprintf(line, sizeof line, "%-2s %5d %10s%s  %s", pin_mark(w, v, u, a, b, lo, hi),
		         w->stage[u] + 1, bytes, rule, g->op_name[u]);
		mvprintw(y + r, x0, "%.*s", wd, line);
	}
	if (n == 0)
		mvprintw(y + 2, x0, "%.*s", wd, "   none");
}

/* Writes s from row y, on a second row (indented, from a space) when it
 * does not fit one and row y + 1 is at most last; returns the rows used
 * (0 past last). */
static int wrapped(const char *s, int y, int last, int cols)
{
	if (y > last)
		return 0;
	int len = (int)strlen(s), fit = cols - 1;
	if (len <= fit || y + 1 > last) {
		mvprintw(y, 0, "%.*s", fit, s);
		return 1;
	}
	int cut = fit;
	while (cut > 0 && s[cut] != ' ')
		cut--;
	if (cut == 0)
		cut = fit;
	mvprintw(y, 0, "%.*s", cut, s);
	mvprintw(y + 1, 0, "    %.*s", fit - 4, s + cut + (s[cut] == ' '));
	return 2;
}

void wb_detail_draw(wb *w, int v, int y, int h, int cols)
{
	const sc_graph *g = w->g;
	int lo, hi;
	wb_pin plo, phi;
	wb_range_pins(g, w->stage, w->set.k, v, &lo, &hi, &plo, &phi);
	char b1[32], b2[32], b3[32], line[512];
	/* the title bar */
	attron(A_REVERSE);
	mvprintw(y, 0, "%-*s", cols, "");
	if (lo == hi)
		snprintf(line, sizeof line, " %s: stage %d, fixed there (Enter closes)",
		         g->op_name[v], w->stage[v] + 1);
	else
		snprintf(line, sizeof line, " %s: stage %d, may move to %d-%d (Enter closes)",
		         g->op_name[v], w->stage[v] + 1, lo + 1, hi + 1);
	mvprintw(y, 0, "%.*s", cols, line);
	attroff(A_REVERSE);
	if (h < 2)
		return;
	int len = snprintf(line, sizeof line, "work %s  param %s  out %s",
	                   ui_num(g->work[v], b1, sizeof b1), ui_num(g->param[v], b2, sizeof b2),
	                   sc_quotient_fmt_bytes(g->out[v], b3, sizeof b3));
	if (g->group[v] >= 0 && len < (int)sizeof line) {
		int gr = g->group[v];
		int size = g->group_off[gr + 1] - g->group_off[gr];
		len += snprintf(line + len, sizeof line - (size_t)len, "  group %s (%d op%s)",
		                g->group_name[gr], size, size == 1 ? "" : "s");
	}
	if (sc_graph_is_training(g) && len < (int)sizeof line)
		snprintf(line + len, sizeof line - (size_t)len, "  %s pass%s",
		         sc_graph_pass_name(g, v), g->orphan[v] ? ", orphan" : "");
	mvprintw(y + 1, 0, "%.*s", cols - 1, line);
	int row = y + 2;
	pin_line(w, "earliest", lo, &plo, true, line, sizeof line);
	row += wrapped(line, row, y + h - 1, cols);
	pin_line(w, "latest", hi, &phi, false, line, sizeof line);
	row += wrapped(line, row, y + h - 1, cols);
	if (row + 2 > y + h)
		return;
	int half = cols / 2;
	neighbours(w, v, false, row, 0, half - 1, y + h - row, lo, hi);
	neighbours(w, v, true, row, half, cols - half - 1, y + h - row, lo, hi);
}

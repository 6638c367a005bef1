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
#include "tui/wb/wb_detail.h"

#include <curses.h>
#include <langinfo.h>
#include <stdio.h>
#include <string.h>

#include "core/names.h"
#include "core/partition.h"
#include "tui/ui.h"
#include "tui/wb/wb_lineedit.h"
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
static void pin_line(const wb *w, const char *end, int at, const wb_pin *pin, bool first, int fit,
                     char *buf, size_t size)
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
	/* the names fitted to fit cells when fit > 0 */
	char from[512], to[512];
	snprintf(from, sizeof from, "%s", g->op_name[pin->from]);
	snprintf(to, sizeof to, "%s", g->op_name[pin->to]);
	if (fit > 0) {
		sc_names_fit(g->op_name[pin->from], fit, from, sizeof from);
		sc_names_fit(g->op_name[pin->to], fit, to, sizeof to);
	}
	snprintf(buf, size, "%s stage %d, held by edge %s -> %s%s: %s", end, at + 1, from, to, more,
	         sc_edge_rule_text(pin->rule));
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
	if (!below && w->stage[u] == hi && hi < sc_settings_stages(&w->set) - 1)
		return "hi";
	return "";
}

/* The neighbourhood's lines: box-drawing characters where the locale
 * shows them, else ASCII (as wb_popup). */
typedef struct art {
	const char *h, *tee_down, *tee_left, *corner_up_left, *tee_right, *corner_up_right, *arrow;
} art;

static art art_of_locale(void)
{
	if (strcmp(nl_langinfo(CODESET), "UTF-8") == 0)
		return (art){"\u2500", "\u252c", "\u2524", "\u2518", "\u251c", "\u2514", "\u25b6"};
	return (art){"-", "+", "+", "'", "+", "`", ">"};
}

/* One neighbour's line: its pin mark, stage, tensor, rule and name fitted
 * into wd cells (the name with a middle ellipsis). */
static void neighbour_line(const wb *w, int v, int u, bool succ, int lo, int hi, int wd, char *buf,
                           size_t size)
{
	const sc_graph *g = w->g;
	char bytes[32], rule[16] = "", name[512];
	sc_quotient_fmt_bytes(succ ? g->out[v] : g->out[u], bytes, sizeof bytes);
	int a = succ ? v : u, b = succ ? u : v;
	if (sc_graph_is_training(g))
		snprintf(rule, sizeof rule, "  %-6s", rule_word(g, a, b));
	int len = snprintf(buf, size, "%-2s %3d %9s%s  ", pin_mark(w, v, u, a, b, lo, hi),
	                   w->stage[u] + 1, bytes, rule);
	int nw = sc_names_fit(g->op_name[u], wd - len, name, sizeof name);
	snprintf(buf + len, size - (size_t)len, "%s%*s", name,
	         wd - len - nw > 0 ? wd - len - nw : 0, "");
}

/* The neighbourhood from row y, at most rows rows: the predecessors on the
 * left (pin mark, stage, tensor in, name), the op's stage in a box in the
 * middle, the successors on the right, joined by lines: the predecessors
 * fan in to the box on the first row, the successors fan out of it. */
static void neighbourhood(const wb *w, int v, int y, int rows, int cols, int lo, int hi)
{
	const sc_graph *g = w->g;
	bool training = sc_graph_is_training(g);
	int np = sc_graph_indeg(g, v), ns = sc_graph_outdeg(g, v);
	char box[16];
	int bw = snprintf(box, sizeof box, "[%d]", w->stage[v] + 1);
	int mid = 3 + bw + 4, left = (cols - 1 - mid) / 2, right = cols - 1 - mid - left;
	if (left < 12 || rows < 3)
		return;
	attron(A_BOLD);
	mvprintw(y, 0, "%.*s", left, "predecessors (their tensors in)");
	mvprintw(y, left + mid, "%.*s", right, "successors (read its tensor)");
	attroff(A_BOLD);
	char head[96];
	snprintf(head, sizeof head, "  %4s %9s%s  %s", "stage", "tensor",
	         training ? "  rule  " : "", "op");
	/* the marks say which neighbours hold the range's ends */
	mvprintw(y + 1, 0, "%.*s", left, head);
	mvprintw(y + 1, left + mid, "%.*s", right, head);
	art a = art_of_locale();
	int shown = rows - 2;
	/* a last row says how many more there are when they do not fit */
	int sp = np > shown ? shown - 1 : np, ss = ns > shown ? shown - 1 : ns;
	char line[1024];
	for (int r = 0; r < shown; r++) {
		int row = y + 2 + r;
		if (r < sp) {
			neighbour_line(w, v, g->pred[g->pred_off[v] + r], false, lo, hi, left, line,
			               sizeof line);
			mvprintw(row, 0, "%s", line);
		} else if (r == sp && sp < np) {
			mvprintw(row, 0, "   ... and %d more", np - sp);
		}
		if (r < ss) {
			neighbour_line(w, v, g->succ[g->succ_off[v] + r], true, lo, hi, right, line,
			               sizeof line);
			mvprintw(row, left + mid, "%s", line);
		} else if (r == ss && ss < ns) {
			mvprintw(row, left + mid, "   ... and %d more", ns - ss);
		}
		/* the lines: into the box on row 0 from every predecessor shown,
		 * out of it to every successor shown */
		move(row, left);
		if (r < sp || (r == sp && sp < np)) {
			bool last = r == (sp < np ? sp : sp - 1);
			addstr(a.h);
			addstr(r == 0 ? (last ? a.h : a.tee_down)
			       : last ? a.corner_up_left
			              : a.tee_left);
			addstr(r == 0 ? a.arrow : " ");
		} else {
			addstr("   ");
		}
		if (r == 0) {
			attron(A_REVERSE);
			addstr(box);
			attroff(A_REVERSE);
		} else {
			printw("%*s", bw, "");
		}
		if (r < ss || (r == ss && ss < ns)) {
			bool last = r == (ss < ns ? ss : ss - 1);
			addstr(r == 0 ? (last ? a.h : a.tee_down)
			       : last ? a.corner_up_right
			              : a.tee_right);
			addstr(a.h);
			addstr(a.arrow);
			addstr(" ");
		}
	}
	if (np == 0)
		mvprintw(y + 2, 0, "%.*s", left, "   none");
	if (ns == 0)
		mvprintw(y + 2, left + mid, "%.*s", right, "   none");
}

/* Writes s from row y on, at most up to row last, with attr (a reversed
 * row is filled to cols), wrapped at spaces (mid-word when a word is longer
 * than a row), the rows after the first indented by 4; returns the rows
 * used. */
static int wrapped(const char *s, int y, int last, int cols, attr_t attr)
{
	int start[1], len[1], used = 0, width = cols - 1;
	const char *p = s;
	attron(attr);
	if (sc_names_width(s) <= width && y <= last) {
		/* one row (wb_wrap counts bytes, and a name may hold more bytes
		 * than cells) */
		if (attr)
			mvprintw(y, 0, "%-*s", cols, "");
		mvprintw(y, 0, "%s", s);
		attroff(attr);
		return 1;
	}
	while (*p && y + used <= last && width > 4) {
		if (wb_wrap(p, width, start, len, 1) == 0)
			break;
		if (attr)
			mvprintw(y + used, 0, "%-*s", cols, "");
		mvprintw(y + used, used ? 4 : 0, "%.*s", len[0], p + start[0]);
		p += start[0] + len[0];
		while (*p == ' ')
			p++;
		used++;
		width = cols - 5;
	}
	attroff(attr);
	return used;
}

void wb_detail_draw(wb *w, int v, int y, int h, int cols)
{
	const sc_graph *g = w->g;
	int lo, hi, last = y + h - 1;
	wb_pin plo, phi;
	wb_range_pins(g, w->stage, sc_settings_stages(&w->set), v, &lo, &hi, &plo, &phi);
	char b1[32], b2[32], b3[32], line[1536];
	/* the title bar: the name fitted in what the rest leaves (the
	 * selection line above shows it whole), then wrapped if need be */
	char rest[160], name[512];
	if (lo == hi)
		snprintf(rest, sizeof rest, ": stage %d, fixed there (Enter closes)",
		         w->stage[v] + 1);
	else
		snprintf(rest, sizeof rest, ": stage %d, may move to %d-%d (Enter closes)",
		         w->stage[v] + 1, lo + 1, hi + 1);
	int room = cols - 3 - (int)strlen(rest);
	sc_names_fit(g->op_name[v], room > 12 ? room : 12, name, sizeof name);
	snprintf(line, sizeof line, " %s%s", name, rest);
	int row = y + wrapped(line, y, y + 1 < last ? y + 1 : last, cols, A_REVERSE);
	if (row > last)
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
	row += wrapped(line, row, row + 1 < last ? row + 1 : last, cols, 0);
	/* each end's line whole when it takes at most 2 rows, else with the
	 * names fitted to a quarter of the row each */
	for (int end = 0; end < 2; end++) {
		int start[1], len1[1];
		pin_line(w, end ? "latest" : "earliest", end ? hi : lo, end ? &phi : &plo, !end, 0,
		         line, sizeof line);
		if (wb_wrap(line, cols - 5, start, len1, 1) > 2)
			pin_line(w, end ? "latest" : "earliest", end ? hi : lo, end ? &phi : &plo,
			         !end, cols / 4 > 12 ? cols / 4 : 12, line, sizeof line);
		row += wrapped(line, row, row + 1 < last ? row + 1 : last, cols, 0);
	}
	if (row + 2 > y + h)
		return;
	neighbourhood(w, v, row, y + h - row, cols, lo, hi);
}

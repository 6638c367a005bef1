/*
 * full.c - the full graph through libgvc.  See full.h.
 *
 * Nodes are named by op index ("o17"), not by op name, so any name is safe;
 * the name only appears, escaped, in the HTML-like label.  Each stage is a
 * subgraph "cluster_sN" (the prefix makes dot draw it as a box); the stage
 * costs come from the quotient (quotient.h), so the picture, the stage
 * graph and `stagecut eval` agree.
 *
 * Longer than 600 lines: the picture's plan (pieces of stages in columns),
 * its clusters, module boxes, order ties and the fold-and-relayout loop all
 * work on one full_plan and its Graphviz objects; split into files they
 * would pass all of it back and forth.
 */
#define _POSIX_C_SOURCE 200809L
#include "full.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/mem.h"
#include "fold.h"
#include "gv.h"
#include "quotient.h"
#include "boxes.h"

/* stage colours (Tableau 10) for borders, with light tints for the
 * clusters; they repeat after ten stages, with the number to tell them
 * apart */
static const char *const border[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#c9a227",
                                     "#76b7b2", "#e15759", "#9c755f", "#ff9da7", "#79706e"};
static const char *const tint[] = {"#edf2f8", "#fef3e8", "#eef6ed", "#f6f0f5", "#faf6e8",
                                   "#f0f7f7", "#fcedee", "#f4f0ec", "#fff4f5", "#f1f0f0"};
#define NCOLOURS (int)(sizeof border / sizeof border[0])
#define COL_CROSS "#2f3b4a"
#define COL_INSIDE "#a3adba"
#define COL_MODULE "#8d99a8"

static void defaults(Agraph_t *g)
{
	gv_declare_defaults(g);
	agattr(g, AGRAPH, "nodesep", "0.15");
	agattr(g, AGRAPH, "ranksep", "0.25");
	agattr(g, AGRAPH, "labeljust", "c");
	agattr(g, AGRAPH, "newrank", "true");
	/* cluster attributes, declared on the root so subgraphs may set them */
	agattr(g, AGRAPH, "style", "");
	agattr(g, AGRAPH, "fillcolor", "");
	agattr(g, AGRAPH, "color", "");
	agattr(g, AGRAPH, "penwidth", "1");
	agattr(g, AGRAPH, "margin", "");
	agattr(g, AGRAPH, "peripheries", "1");
	agattr(g, AGNODE, "shape", "box");
	agattr(g, AGNODE, "style", "rounded,filled");
	agattr(g, AGNODE, "fillcolor", "white");
	agattr(g, AGNODE, "color", GV_COL_BORDER);
	agattr(g, AGNODE, "margin", "0.06,0.03");
	agattr(g, AGNODE, "height", "0.3");
	agattr(g, AGNODE, "fontsize", "10");
	agattr(g, AGEDGE, "fontsize", "8");
	agattr(g, AGEDGE, "color", COL_INSIDE);
	agattr(g, AGEDGE, "arrowsize", "0.5");
	agattr(g, AGEDGE, "penwidth", "0.8");
}

/* An op's label: its name (in a module's box, the end of it), then work and output size in small
 * print; on a training graph a backward op says so (and whether it is an orphan). */
static void op_label(const sc_graph *g, int v, const char *name, strbuf *b)
{
	char w[32], o[32];
	sb_add_escaped(b, name);
	sb_add(b, "<BR/><FONT POINT-SIZE=\"8\">work %s &#183; out %s</FONT>",
	       sc_quotient_fmt(g->work[v], w, sizeof w),
	       sc_quotient_fmt_bytes(g->out[v], o, sizeof o));
	if (g->backward && g->backward[v])
		sb_add(b, "<BR/><FONT POINT-SIZE=\"8\" COLOR=\"%s\">backward%s</FONT>",
		       GV_COL_BW_EDGE, g->orphan[v] ? ", orphan" : "");
}

/* A stage cluster's heading: number, "bottleneck" when it is, cost (on a
 * training graph with its forward and backward parts). */
static void stage_heading(const sc_quotient *q, int s, strbuf *b)
{
	char c[32];
	const char *dev = sc_quotient_device(q, s);
	sb_add(b, "<B>stage %d%s%s</B>", s + 1, dev ? " &#183; " : "", dev ? dev : "");
	if (s == q->bottleneck)
		sb_add(b, " <FONT COLOR=\"%s\"><B>bottleneck</B></FONT>", GV_COL_BN_TEXT);
	sb_add(b, "<BR/><FONT POINT-SIZE=\"10\">cost %s",
	       sc_quotient_fmt(q->st[s].cost, c, sizeof c));
	if (q->training) {
		/* the cost split by pass */
		char f[32], w[32];
		sb_add(b, " (forward %s + backward %s)",
		       sc_quotient_fmt(q->st[s].cost_fw, f, sizeof f),
		       sc_quotient_fmt(q->st[s].cost_bw, w, sizeof w));
	}
	sb_add(b, " &#183; %d op%s</FONT>", q->st[s].ops, q->st[s].ops == 1 ? "" : "s");
	if (q->st[s].over_memory)
		sb_add(b, "<BR/><FONT COLOR=\"%s\" POINT-SIZE=\"10\"><B>over memory</B></FONT>",
		       GV_COL_WARN);
}

/* Where the picture's parts go.  A piece is the part of one stage in one
 * column (a stage cut by a column break has two, the second headed
 * "continued"); without a partition each column is one piece.  Pieces are
 * numbered in flow order: stage by stage, column by column.  What is drawn
 * are units (boxes.h): ops, or modules collapsed into one box each; a
 * unit goes where its first op along the flow goes. */
typedef struct full_plan {
	const sc_graph *gr;
	const int *stage;     /* NULL without a partition */
	const sc_quotient *q; /* NULL likewise */
	const sc_modules *mods;
	sc_boxes *u;
	int depth; /* modules at this depth are collapsed (0: none) */
	sc_fold *f;
	bool hide;
	int k;
	int npieces;
	int *first_piece;  /* k + 1: stage s's pieces are [first_piece[s], first_piece[s + 1]) */
	int *piece_col;    /* piece -> its column */
	int *piece_of;     /* unit -> its piece */
	Agraph_t **column; /* columns clusters, NULL entries with one column */
	Agraph_t **piece;  /* npieces: the piece's cluster, or its column's */
	Agnode_t **node;   /* units */
	Agnode_t **empty;  /* npieces: an empty stage's placeholder, or NULL */
	/* pages (full.h): f is the window of whole's levels [lo, ...) that
	 * page (1-based) of pages shows; the units on other levels are not
	 * drawn, their edges end at a stub naming their page */
	const sc_fold *whole;
	int lo, page, pages;
	const int *page_start;
} full_plan;

/* Whether unit x is drawn (on this page). */
static bool drawn(const full_plan *p, int x)
{
	return p->f->level[p->u->op[x]] >= 0;
}

/* The page (1-based) unit x is drawn on. */
static int page_of(const full_plan *p, int x)
{
	int l = p->whole ? p->whole->level[p->u->op[x]] : 0, i = 0;
	while (p->whole && i + 1 < p->pages && p->page_start[i + 1] <= l)
		i++;
	return i + 1;
}

/* The stage of unit x (of its first op). */
static int unit_stage(const full_plan *p, int x)
{
	return p->stage ? p->stage[p->u->op[x]] : 0;
}

/* The column of unit x. */
static int unit_column(const full_plan *p, int x)
{
	return sc_fold_column(p->f, p->f->level[p->u->op[x]]);
}

/* Numbers the pieces of p->f's current cut; false when out of memory. */
static bool plan_pieces(full_plan *p)
{
	const sc_fold *f = p->f;
	free(p->first_piece);
	free(p->piece_col);
	p->piece_col = NULL;
	p->first_piece = calloc((size_t)p->k + 1, sizeof *p->first_piece);
	if (!p->first_piece)
		return false;
	for (int s = 0; s < p->k; s++) {
		int a = f->stage_start[s], b = f->stage_start[s + 1];
		int count = b > a ? sc_fold_column(f, b - 1) - sc_fold_column(f, a) + 1 : 0;
		p->first_piece[s + 1] = p->first_piece[s] + count;
	}
	p->npieces = p->first_piece[p->k];
	p->piece_col = sc_calloc_n((size_t)p->npieces + 1, sizeof *p->piece_col);
	if (!p->piece_col)
		return false;
	for (int s = 0; s < p->k; s++)
		for (int i = p->first_piece[s]; i < p->first_piece[s + 1]; i++)
			p->piece_col[i] =
			        sc_fold_column(f, f->stage_start[s]) + i - p->first_piece[s];
	for (int x = 0; x < p->u->n; x++) {
		int s = unit_stage(p, x);
		p->piece_of[x] = !drawn(p, x) ? -1
		                              : p->first_piece[s] + unit_column(p, x) -
		                                        sc_fold_column(f, f->stage_start[s]);
	}
	return true;
}

/* An invisible point that ties the layout together. */
static Agnode_t *tie_node(Agraph_t *home, const char *name)
{
	Agnode_t *n = agnode(home, (char *)name, 1);
	if (n) {
		agsafeset(n, "shape", "point", "");
		agsafeset(n, "style", "invis", "");
		agsafeset(n, "width", "0.01", "");
		agsafeset(n, "height", "0.01", "0.3");
		agset(n, "label", "");
	}
	return n;
}

static bool tie(Agraph_t *g, Agnode_t *a, Agnode_t *b)
{
	Agedge_t *e = agedge(g, a, b, NULL, 1);
	if (e)
		agset(e, "style", "invis");
	return e != NULL;
}

/* Keeps the flow in order.  Each column starts with an invisible head, the
 * heads on one rank in column order (flat edges run left to right), each
 * tied to the first unit of its column.  Between two pieces of one column
 * an invisible divider is tied below the upper piece's last unit, every
 * unit of it that feeds a lower piece, and every unit on its last level
 * that feeds nothing; and above the lower piece's first unit, every unit
 * fed from an upper piece and every unit on its first level fed by
 * nothing: those are the units dot could pull out of their piece, beside
 * the other one.  Every other unit hangs from its neighbours in its
 * piece; tying them all (a Caffe2 graph's hundreds of parameter ops, far
 * from the divider) makes dot take minutes.  (The heads sit in the root
 * graph: dot orders clusters as wholes and ignores flat edges between
 * nodes inside them.) */
enum { IN_ABOVE = 1, OUT_BELOW = 2, IN_ANY = 4, OUT_ANY = 8 };

static sc_status keep_order(Agraph_t *g, full_plan *p, sc_error *err)
{
	const sc_boxes *u = p->u;
	const int *level = p->f->level;
	int C = p->f->columns;
	unsigned char *flag = calloc((size_t)u->n + 1, 1);
	int *first = malloc(((size_t)p->npieces + 1) * sizeof *first),
	    *last = malloc(((size_t)p->npieces + 1) * sizeof *last);
	Agnode_t **head = calloc((size_t)C, sizeof *head), **div = NULL;
	if (!flag || !first || !last || !head ||
	    !(div = calloc((size_t)p->npieces + 1, sizeof *div)))
		goto nomem;
	for (int i = 0; i < u->nedges; i++) {
		int a = u->edge[i].from, b = u->edge[i].to;
		int pa = p->piece_of[a], pb = p->piece_of[b];
		if (pa < 0 || pb < 0)
			continue; /* a stub's edge */
		flag[a] |= OUT_ANY;
		flag[b] |= IN_ANY;
		if (pa < pb && p->piece_col[pa] == p->piece_col[pb]) {
			flag[a] |= OUT_BELOW;
			flag[b] |= IN_ABOVE;
		}
	}
	for (int i = 0; i < p->npieces; i++)
		first[i] = last[i] = -1;
	for (int x = 0; x < u->n; x++) {
		int i = p->piece_of[x], l = level[u->op[x]];
		if (i < 0)
			continue;
		if (first[i] < 0 || l < level[u->op[first[i]]])
			first[i] = x;
		if (last[i] < 0 || l > level[u->op[last[i]]])
			last[i] = x;
	}
	char name[32];
	Agraph_t *heads = C > 1 ? agsubg(g, "heads", 1) : NULL;
	if (C > 1 && !heads)
		goto nomem;
	if (heads) {
		agsafeset(heads, "rank", "same", "");
		agset(heads, "label", "");
	}
	for (int c = 0; C > 1 && c < C; c++) {
		/* made first (make_heads), so that dot's first order, which
		 * follows the nodes from the first made, starts in column order */
		snprintf(name, sizeof name, "head%d", c + 1);
		if (!(head[c] = agnode(g, name, 0)) || !agsubnode(heads, head[c], 1))
			goto nomem;
		if (c > 0 && !tie(g, head[c - 1], head[c]))
			goto nomem;
	}
	/* a divider below every piece followed by another in its column */
	for (int i = 0; i + 1 < p->npieces; i++)
		if (p->piece_col[i] == p->piece_col[i + 1]) {
			snprintf(name, sizeof name, "div%d", i + 1);
			Agraph_t *home = C > 1 ? p->column[p->piece_col[i]] : g;
			if (!(div[i] = tie_node(home, name)))
				goto nomem;
		}
	for (int i = 0; i < p->npieces; i++) {
		bool top = i == 0 || p->piece_col[i - 1] != p->piece_col[i];
		Agnode_t *above = top ? head[p->piece_col[i]] : div[i - 1];
		Agnode_t *a = p->empty[i] ? p->empty[i] : first[i] >= 0 ? p->node[first[i]] : NULL;
		Agnode_t *z = p->empty[i] ? p->empty[i] : last[i] >= 0 ? p->node[last[i]] : NULL;
		if ((above && a && !tie(g, above, a)) || (div[i] && z && !tie(g, z, div[i])))
			goto nomem;
	}
	for (int x = 0; x < u->n; x++) {
		int i = p->piece_of[x];
		if (i < 0)
			continue;
		Agnode_t *above =
		        i > 0 && p->piece_col[i - 1] == p->piece_col[i] ? div[i - 1] : NULL;
		int l = level[u->op[x]];
		bool top = (flag[x] & IN_ABOVE) ||
		           (!(flag[x] & IN_ANY) && l == level[u->op[first[i]]]);
		bool bottom = (flag[x] & OUT_BELOW) ||
		              (!(flag[x] & OUT_ANY) && l == level[u->op[last[i]]]);
		if (above && x != first[i] && top && !tie(g, above, p->node[x]))
			goto nomem;
		if (div[i] && x != last[i] && bottom && !tie(g, p->node[x], div[i]))
			goto nomem;
	}
	free(flag);
	free(first);
	free(last);
	free(head);
	free(div);
	return SC_OK;
nomem:
	free(flag);
	free(first);
	free(last);
	free(head);
	free(div);
	return sc_error_nomem(err, "the Graphviz graph");
}

/* The caption: cap's, with k and the bottleneck, or the graph's size. */
static void caption(Agraph_t *g, const full_plan *p, const sc_caption *cap, char *text, size_t size)
{
	const sc_graph *gr = p->gr;
	const sc_quotient *q = p->q;
	strbuf b = {.s = text, .size = size};
	char line[300], num[32], where[96];
	int len;
	if (q) {
		len = snprintf(line, sizeof line, "%d stage%s, bottleneck %s in %s", q->k,
		               q->k == 1 ? "" : "s",
		               sc_quotient_fmt(q->bottleneck_cost, num, sizeof num),
		               sc_quotient_bottleneck_stages(q, where, sizeof where));
		if (p->hide && len < (int)sizeof line)
			len += snprintf(line + len, sizeof line - (size_t)len,
			                "; %d empty stages not drawn", sc_quotient_empty(q));
		char dev[160];
		if (q->devices && len < (int)sizeof line)
			len += snprintf(line + len, sizeof line - (size_t)len, "; %s%s",
			                sc_quotient_devices(q, dev, sizeof dev),
			                q->cpus > 0 ? " (CPU stages square, dashed, grey)" : "");
	} else {
		double total = 0;
		for (int v = 0; v < gr->n; v++)
			total += gr->work[v];
		len = snprintf(line, sizeof line, "%d op%s, %d edge%s, total work %s", gr->n,
		               gr->n == 1 ? "" : "s", gr->m, gr->m == 1 ? "" : "s",
		               sc_quotient_fmt(total, num, sizeof num));
	}
	if (p->mods->n > 1 && len < (int)sizeof line) {
		if (p->depth > 0 && p->depth <= p->mods->max_depth)
			len += snprintf(line + len, sizeof line - (size_t)len,
			                "; each module at depth %d drawn as one box (%d boxes)",
			                p->depth, p->u->n);
		else
			len += snprintf(line + len, sizeof line - (size_t)len,
			                "; ops boxed by module (%d modules, %d deep)",
			                p->mods->n - 1, p->mods->max_depth);
	}
	if (p->f->columns > 1 && len < (int)sizeof line)
		len += snprintf(line + len, sizeof line - (size_t)len, "; read in %d %s",
		                p->f->columns,
		                p->f->across ? "rows, top to bottom" : "columns, left to right");
	if (p->pages > 1 && len < (int)sizeof line)
		snprintf(line + len, sizeof line - (size_t)len, "; page %d of %d", p->page,
		         p->pages);
	gv_training tr = {.ops = gr->n,
	                  .backward_ops = gr->backward_ops,
	                  .orphans = gr->orphans,
	                  .schedule = q ? q->schedule : gr->settings.schedule,
	                  .q = q,
	                  .legend = true};
	gv_caption(&b, cap, line, sc_graph_is_training(gr) ? &tr : NULL, q ? q->objective : NAN);
	if (!b.full) /* a very long title: keep the picture, drop the caption */
		gv_set_html(g, g, "label", text);
}

/* Makes the column clusters and the pieces' clusters, headed. */
static sc_status make_clusters(Agraph_t *g, full_plan *p, char *text, size_t size, sc_error *err)
{
	const sc_quotient *q = p->q;
	int C = p->f->columns;
	char name[48];
	for (int c = 0; C > 1 && c < C; c++) {
		snprintf(name, sizeof name, "cluster_col%d", c + 1);
		if (!(p->column[c] = agsubg(g, name, 1)))
			return sc_error_nomem(err, "the Graphviz graph");
		agset(p->column[c], "peripheries", "0");
		agset(p->column[c], "label", ""); /* not the caption, which it inherits */
	}
	for (int i = 0; i < p->npieces; i++)
		p->piece[i] = C > 1 ? p->column[p->piece_col[i]] : g;
	for (int s = 0; q && s < q->k; s++)
		for (int i = p->first_piece[s]; i < p->first_piece[s + 1]; i++) {
			int part = i - p->first_piece[s];
			if (part == 0)
				snprintf(name, sizeof name, "cluster_s%d", s + 1);
			else
				snprintf(name, sizeof name, "cluster_s%d_%d", s + 1, part + 1);
			Agraph_t *c = p->piece[i] = agsubg(p->piece[i], name, 1);
			if (!c)
				return sc_error_nomem(err, "the Graphviz graph");
			bool bn = s == q->bottleneck;
			strbuf b = {.s = text, .size = size};
			if (part == 0 && p->whole && p->whole->stage_start[s] < p->lo)
				sb_add(&b, "<B>stage %d</B>, continued from page %d", s + 1,
				       p->page - 1);
			else if (part == 0)
				stage_heading(q, s, &b);
			else
				sb_add(&b, "<B>stage %d</B>, continued", s + 1);
			gv_set_html(c, g, "label", text);
			/* a CPU stage (001 section 3): dashed on warm grey, square */
			bool cpu = q->st[s].cpu;
			agset(c, "style", cpu ? "filled,dashed" : "filled,rounded");
			agset(c, "fillcolor", cpu ? GV_COL_CPU_FILL : (char *)tint[s % NCOLOURS]);
			agset(c, "color",
			      bn    ? GV_COL_BN_BORDER
			      : cpu ? GV_COL_CPU_BORDER
			            : (char *)border[s % NCOLOURS]);
			agset(c, "penwidth", bn ? "3" : "1.2");
			agset(c, "peripheries", "1");
			agset(c, "margin", "10");
			agsafeset(c, "fontsize", "12", "15");
			if (q->st[s].ops == 0) {
				snprintf(name, sizeof name, "empty%d", s + 1);
				if (!(p->empty[i] = agnode(c, name, 1)))
					return sc_error_nomem(err, "the Graphviz graph");
				agset(p->empty[i], "label", "no ops");
				agset(p->empty[i], "style", "dashed,rounded");
			}
		}
	return SC_OK;
}

/* The box of module mod in piece i ("cluster_m<module>_<piece>", inside
 * its parent's), made on first use; the piece's own for the root. */
static Agraph_t *module_cluster(Agraph_t *g, full_plan *p, int mod, int i)
{
	if (mod <= 0)
		return p->piece[i];
	Agraph_t *parent = module_cluster(g, p, p->mods->m[mod].parent, i);
	if (!parent)
		return NULL;
	char name[48];
	snprintf(name, sizeof name, "cluster_m%d_%d", mod, i + 1);
	Agraph_t *c = agsubg(parent, name, 0);
	if (c || !(c = agsubg(parent, name, 1)))
		return c;
	char text[300];
	strbuf b = {.s = text, .size = sizeof text};
	sb_add_escaped(&b, p->mods->m[mod].label);
	if (b.full)
		snprintf(text, sizeof text, "module %d", mod);
	agset(c, "label", text);
	agset(c, "style", "rounded");
	agset(c, "fillcolor", "");
	agset(c, "color", COL_MODULE);
	agset(c, "penwidth", "0.8");
	agset(c, "peripheries", "1");
	agset(c, "margin", "6");
	agsafeset(c, "fontsize", "9", "15");
	agsafeset(c, "labeljust", "l", "c");
	return c;
}

/* A collapsed module's label: its name, ops, work and stages. */
static void module_label(const full_plan *p, int x, strbuf *b)
{
	const sc_boxes *u = p->u;
	char w[32];
	sb_add(b, "<B>");
	sb_add_escaped(b, p->mods->m[u->module[x]].name);
	sb_add(b, "</B><BR/><FONT POINT-SIZE=\"8\">%d op%s &#183; work %s", u->ops[x],
	       u->ops[x] == 1 ? "" : "s", sc_quotient_fmt(u->work[x], w, sizeof w));
	if (p->q && u->lo[x] == u->hi[x])
		sb_add(b, " &#183; stage %d", u->lo[x] + 1);
	else if (p->q) /* this box is its part in one stage */
		sb_add(b, " &#183; stage %d of its stages %d-%d", u->own[x] + 1, u->lo[x] + 1,
		       u->hi[x] + 1);
	sb_add(b, "</FONT>");
}

/* Makes unit x's node in its module's box. */
static Agnode_t *unit_node(Agraph_t *g, full_plan *p, int x, char *text, size_t size)
{
	const sc_graph *gr = p->gr;
	const sc_boxes *u = p->u;
	Agraph_t *home = module_cluster(g, p, u->home[x], p->piece_of[x]);
	int v = u->op[x];
	char name[32];
	if (u->module[x] < 0)
		snprintf(name, sizeof name, "o%d", v);
	else if (u->own[x] == u->lo[x])
		snprintf(name, sizeof name, "m%d", u->module[x]);
	else /* its part in a later stage */
		snprintf(name, sizeof name, "m%d_s%d", u->module[x], u->own[x] + 1);
	Agnode_t *n = home ? agnode(home, name, 1) : NULL;
	if (!n)
		return NULL;
	strbuf b = {.s = text, .size = size};
	if (u->module[x] >= 0)
		module_label(p, x, &b);
	else
		op_label(gr, v, sc_boxes_op_label(gr, p->mods, p->u, v), &b);
	if (b.full) { /* a name of kilobytes: its start will do */
		b = (strbuf){.s = text, .size = size};
		sb_add(&b, "%s", name);
	}
	gv_set_html(n, g, "label", text);
	if (u->module[x] < 0 && sc_boxes_op_label(gr, p->mods, p->u, v) != gr->op_name[v])
		agsafeset(n, "tooltip", gr->op_name[v], ""); /* the whole name, in svg */
	if (u->module[x] >= 0) {
		agsafeset(n, "penwidth", "1.6", "");
		agsafeset(n, "shape", "box3d", "box");
		agsafeset(n, "style", "filled", "rounded,filled");
	}
	if (p->q)
		agset(n, "color", (char *)border[unit_stage(p, x) % NCOLOURS]);
	if (u->module[x] < 0 && gr->backward && gr->backward[v]) {
		/* "class" names the pass in svg output (and is declared only
		 * on training graphs, so inference output keeps its bytes) */
		agsafeset(n, "style", GV_STYLE_BW_OP, "");
		agsafeset(n, "fillcolor", GV_COL_BW_FILL, "");
		agsafeset(n, "class", "backward", "");
	}
	return n;
}

/* The stub standing for page i's units as the tail (in) or head of an
 * edge whose other end is unit x: one per page, direction and column, in
 * x's column, made on first use. */
static Agnode_t *stub(Agraph_t *g, full_plan *p, int i, bool in, int x)
{
	int c = unit_column(p, x);
	char name[48], label[48];
	snprintf(name, sizeof name, "%s_p%d_c%d", in ? "from" : "to", i, c + 1);
	Agnode_t *n = agnode(g, name, 0);
	if (n)
		return n;
	Agraph_t *home = p->f->columns > 1 ? p->column[c] : g;
	snprintf(label, sizeof label, "%s page %d", in ? "from" : "on", i);
	if (!(n = agnode(home, name, 1)))
		return NULL;
	agset(n, "label", label);
	agsafeset(n, "shape", "note", "box");
	agsafeset(n, "style", "dashed", "rounded,filled");
	agsafeset(n, "fontcolor", GV_COL_BORDER, "black");
	return n;
}

/* Draws the edges between units. */
static sc_status unit_edges(Agraph_t *g, full_plan *p, sc_error *err)
{
	const sc_graph *gr = p->gr;
	const sc_boxes *u = p->u;
	for (int i = 0; i < u->nedges; i++) {
		const sc_box_edge *ue = &u->edge[i];
		bool from = drawn(p, ue->from), to = drawn(p, ue->to);
		if (!from && !to)
			continue;
		Agnode_t *a =
		        from ? p->node[ue->from] : stub(g, p, page_of(p, ue->from), true, ue->to);
		Agnode_t *z =
		        to ? p->node[ue->to] : stub(g, p, page_of(p, ue->to), false, ue->from);
		Agedge_t *e = a && z ? agedge(g, a, z, NULL, 1) : NULL;
		if (!e)
			return sc_error_nomem(err, "the Graphviz graph");
		if (!from || !to) /* from or to another page */
			agsafeset(e, "style", "dashed", "");
		int sf = unit_stage(p, ue->from), st = unit_stage(p, ue->to);
		/* an edge to another column, or back to an earlier stage (a
		 * training graph's backward pass), does not rank its ends: the
		 * fold does */
		bool free_edge = from && to &&
		                 (unit_column(p, ue->from) != unit_column(p, ue->to) || st < sf);
		if (free_edge)
			agsafeset(e, "constraint", "false", "true");
		if (p->q && sf != st && ue->bytes == 0) {
			/* an order between stages that moves no data */
			agset(e, "style", "dashed");
		} else if (p->q && sf != st) {
			char bytes[32];
			agset(e, "color", COL_CROSS);
			agset(e, "penwidth", "1.8");
			agset(e, "arrowsize", "0.7");
			/* an edge dot does not rank may join two ops of one rank,
			 * and dot 2.43 frees memory twice laying out a labelled
			 * edge within a rank among clusters: its label is placed
			 * after the layout instead */
			if (from && to) /* a stub's edges are many: their bytes would
			                 * crowd the page */
				agsafeset(e, free_edge ? "xlabel" : "label",
				          sc_quotient_fmt_bytes(ue->bytes, bytes, sizeof bytes),
				          "");
		}
		if (u->module[ue->to] < 0 && gr->backward && gr->backward[ue->head]) {
			/* an edge into the backward pass (from either pass) */
			agsafeset(e, "style", GV_STYLE_BW_EDGE, "");
			agsafeset(e, "color", GV_COL_BW_EDGE, "");
			agsafeset(e, "class", "backward", "");
		}
	}
	return SC_OK;
}

static sc_status build(Agraph_t *g, full_plan *p, const sc_caption *cap, sc_error *err)
{
	defaults(g);
	agattr(g, AGRAPH, "rankdir", p->f->across ? "LR" : "TB");
	char *text = malloc(8192);
	sc_status st = SC_OK;
	if (!text || !plan_pieces(p)) {
		st = sc_error_nomem(err, "the Graphviz graph");
		goto out;
	}
	free(p->column);
	free(p->piece);
	free(p->empty);
	p->column = calloc((size_t)p->f->columns, sizeof *p->column);
	p->piece = sc_calloc_n((size_t)p->npieces + 1, sizeof *p->piece);
	p->empty = sc_calloc_n((size_t)p->npieces + 1, sizeof *p->empty);
	if (!p->column || !p->piece || !p->empty) {
		st = sc_error_nomem(err, "the Graphviz graph");
		goto out;
	}
	if (cap && cap->title)
		caption(g, p, cap, text, 8192);
	for (int c = 0; p->f->columns > 1 && c < p->f->columns; c++) {
		char name[32];
		snprintf(name, sizeof name, "head%d", c + 1);
		if (!tie_node(g, name)) {
			st = sc_error_nomem(err, "the Graphviz graph");
			goto out;
		}
	}
	if ((st = make_clusters(g, p, text, 8192, err)) != SC_OK)
		goto out;
	memset(p->node, 0, (size_t)p->u->n * sizeof *p->node);
	for (int x = 0; x < p->u->n; x++)
		if (drawn(p, x) && !(p->node[x] = unit_node(g, p, x, text, 8192))) {
			st = sc_error_nomem(err, "the Graphviz graph");
			goto out;
		}
	if ((st = unit_edges(g, p, err)) == SC_OK)
		st = keep_order(g, p, err);
out:
	free(text);
	return st;
}

/* The fold's aim and limit: about as wide as a screen, and neither side
 * more than SC_FULL_ASPECT_MAX times the other (full.h). */
#define ASPECT_AIM 1.6
/* how far off the aim a drawing may be before it is folded again: the
 * slack keeps within SC_FULL_ASPECT_MAX */
#define ASPECT_SLACK 1.5
/* seconds of layout after which a drawing within the limit is kept */
#define SLOW_LAYOUT 5.0

/* What dot will make of a level, roughly, in points: the sum of its
 * units' extents across the flow and the largest along it (a box is its
 * label's longest line, Helvetica at about 0.55 of its size per
 * character, by two or three lines). */
static void level_sizes(const full_plan *p, double *across, double *along)
{
	const sc_graph *gr = p->gr;
	const sc_boxes *u = p->u;
	for (int x = 0; x < u->n; x++) {
		char w[32], o[32];
		int v = u->op[x];
		double wide, tall;
		if (u->module[x] >= 0) {
			wide = fmax(6.2 * (double)strlen(p->mods->m[u->module[x]].name), 150) + 16;
			tall = 36;
		} else {
			sc_quotient_fmt(gr->work[v], w, sizeof w);
			sc_quotient_fmt_bytes(gr->out[v], o, sizeof o);
			wide = fmax(5.6 * (double)strlen(sc_boxes_op_label(gr, p->mods, p->u, v)),
			            4.5 * (double)(strlen(w) + strlen(o) + 14)) +
			       12;
			tall = gr->backward && gr->backward[v] ? 42 : 31;
		}
		double a = p->f->across ? tall : wide, b = p->f->across ? wide : tall;
		int l = p->f->level[v];
		if (l < 0)
			continue; /* on another page */
		across[l] += a + 11;
		along[l] = fmax(along[l], b);
	}
}

static void plan_fini(full_plan *p)
{
	sc_fold_free(p->f);
	sc_boxes_free(p->u);
	free(p->first_piece);
	free(p->piece_col);
	free(p->piece_of);
	free(p->column);
	free(p->piece);
	free(p->node);
	free(p->empty);
}

/* Whether dot drew the columns of the last layout left to right. */
static bool columns_in_order(const full_plan *p)
{
	for (int c = 1; c < p->f->columns; c++)
		if (GD_bb(p->column[c - 1]).UR.x > GD_bb(p->column[c]).LL.x)
			return false;
	return true;
}

static sc_status too_many(sc_error *err, const sc_graph *g, int boxes, int max_ops)
{
	return sc_error_set(err, SC_ERR_INPUT,
	                    "%s has %d %s, too many for a readable picture of every op "
	                    "(the limit is %d): draw the stage graph instead, collapse "
	                    "modules, or raise the limit",
	                    g->name, boxes, boxes == g->n ? "ops" : "boxes", max_ops);
}

/* Builds and lays out the picture in s, folding it again (up to twice)
 * when dot's drawing comes out too wide or too tall. */
static sc_status fold_and_lay_out(gv_session *s, full_plan *p, const sc_caption *cap, sc_error *err)
{
	int L = p->f->levels;
	double *across = sc_calloc_n((size_t)L + 1, sizeof *across),
	       *along = sc_calloc_n((size_t)L + 1, sizeof *along);
	bool *starts_stage = calloc((size_t)L + 1, 1);
	sc_status st = SC_OK;
	if (!across || !along || !starts_stage) {
		st = sc_error_nomem(err, "the picture's levels");
		goto out;
	}
	level_sizes(p, across, along);
	for (int b = 1; b < p->k; b++)
		if (p->f->stage_start[b] < L)
			starts_stage[p->f->stage_start[b]] = true;
	double correction = 1, started = sc_clock_now();
	int tried[3] = {0};
	bool reordered = false;
	for (int t = 0; t < 3; t++) {
		int c = reordered ? p->f->columns
		                  : sc_fold_best(p->f, across, along, starts_stage,
		                                 ASPECT_AIM / correction);
		for (int i = 0; i < t && !reordered; i++)
			if (tried[i] == c)
				goto out; /* the last layout is as good as it gets */
		tried[t] = c;
		if (s->laid_out)
			gvFreeLayout(s->gvc, s->g);
		s->laid_out = false;
		if (s->g)
			agclose(s->g);
		if (!(s->g = gv_graph_new("stages"))) {
			st = sc_error_nomem(err, "the Graphviz graph");
			goto out;
		}
		if ((st = build(s->g, p, cap, err)) != SC_OK || (st = gv_layout(s, err)) != SC_OK)
			goto out;
		if (!columns_in_order(p)) {
			/* dot let data edges between columns reorder them: fold
			 * into fewer until the columns read left to right (one
			 * always does) */
			int fewer = p->f->columns / 2;
			sc_fold_cut(p->f, fewer > 1 ? fewer : 1);
			reordered = true;
			t = 0;
			continue;
		}
		boxf bb = GD_bb(s->g);
		double w = bb.UR.x - bb.LL.x, h = bb.UR.y - bb.LL.y;
		double aspect = h > 0 ? w / h : 1;
		/* near enough the aim; else fold again, correcting the
		 * estimate by what dot made of it */
		bool within = aspect <= SC_FULL_ASPECT_MAX && aspect >= 1 / SC_FULL_ASPECT_MAX;
		/* a dense graph takes dot minutes: once a layout has taken
		 * seconds, one within the limit will do, and none is redone
		 * after half a minute */
		double spent = sc_clock_now() - started;
		if (reordered || (within && spent > SLOW_LAYOUT) || spent > 6 * SLOW_LAYOUT ||
		    (aspect <= ASPECT_AIM * ASPECT_SLACK && aspect >= ASPECT_AIM / ASPECT_SLACK))
			break;
		correction = aspect / sc_fold_aspect(p->f, across, along, starts_stage);
	}
out:
	free(across);
	free(along);
	free(starts_stage);
	return st;
}

int sc_full_page_path(const char *path, int i, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	if (!dot || dot == (slash ? slash + 1 : path)) /* no extension, or ".png" alone */
		return snprintf(buf, size, "%s-%d", path, i);
	return snprintf(buf, size, "%.*s-%d%s", (int)(dot - path), path, i, dot);
}

int sc_full_page_number(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base) /* as sc_full_page_path: no extension */
		dot = base + strlen(base);
	size_t stem = (size_t)(dot - base), tail = strlen(dot), len = strlen(name);
	if (len < stem + 2 + tail || strncmp(name, base, stem) != 0 || name[stem] != '-' ||
	    strcmp(name + len - tail, dot) != 0)
		return 0;
	/* the number as sc_full_page_path prints it: digits, no leading 0 */
	const char *d = name + stem + 1, *end = name + len - tail;
	if (*d == '0')
		return 0;
	long i = 0;
	for (; d < end; d++) {
		if (*d < '0' || *d > '9' || i > (INT_MAX - 9) / 10)
			return 0;
		i = 10 * i + (*d - '0');
	}
	return (int)i;
}

/* The units on each level of p's fold and the edges cut between levels
 * (sc_fold_pages); both L + 1 entries, NULL when out of memory. */
static bool level_counts(const full_plan *p, int **count, int **cross)
{
	int L = p->f->levels;
	*count = sc_calloc_n((size_t)L + 1, sizeof **count);
	*cross = sc_calloc_n((size_t)L + 2, sizeof **cross);
	if (!*count || !*cross)
		return false;
	for (int x = 0; x < p->u->n; x++)
		(*count)[p->f->level[p->u->op[x]]]++;
	/* an edge between levels a < b is cut before each of a + 1 .. b */
	for (int i = 0; i < p->u->nedges; i++) {
		int a = p->f->level[p->u->op[p->u->edge[i].from]];
		int b = p->f->level[p->u->op[p->u->edge[i].to]];
		int lo = a < b ? a : b, hi = a < b ? b : a;
		(*cross)[lo + 1]++;
		(*cross)[hi + 1]--;
	}
	for (int l = 1; l <= L; l++)
		(*cross)[l] += (*cross)[l - 1];
	return true;
}

/* Lays out and writes each page of p (pages of p->whole's levels at
 * start) to its numbered path. */
static sc_status write_pages(gv_session *s, full_plan *p, const int *start, const sc_caption *cap,
                             const char *format, const char *path, bool (*stop)(void),
                             double *scale, sc_error *err)
{
	sc_status st = SC_OK;
	char *name = malloc(strlen(path) + 16);
	if (!name)
		return sc_error_nomem(err, "the pages");
	p->whole = p->f;
	p->page_start = start;
	for (int i = 0; i < p->pages && st == SC_OK; i++) {
		if (stop && stop()) {
			st = sc_error_set(err, SC_ERR_LIMIT, "stopped before page %d of %d", i + 1,
			                  p->pages);
			break;
		}
		p->page = i + 1;
		p->lo = start[i];
		if (!(p->f = sc_fold_window(p->whole, start[i], start[i + 1], err))) {
			st = err->code;
			break;
		}
		sc_full_page_path(path, i + 1, name, strlen(path) + 16);
		double z = 1;
		st = fold_and_lay_out(s, p, cap, err);
		if (st == SC_OK)
			st = gv_render(s, format, name, &z, err);
		*scale = fmin(*scale, z);
		sc_fold_free(p->f);
	}
	p->f = (sc_fold *)p->whole;
	p->whole = NULL;
	free(name);
	return st;
}

/* The overview of a picture drawn on pages, at path: each module at the
 * deepest depth whose boxes fit one page as one box (0 when none does),
 * its caption naming the pages. */
static int overview_depth(const sc_graph *g, const sc_modules *mods, const int *stage, int most,
                          sc_error *err)
{
	for (int d = mods->max_depth; d >= 1; d--) {
		sc_boxes *b = sc_boxes_new(g, mods, d, stage, err);
		if (!b)
			return -1;
		int n = b->n;
		sc_boxes_free(b);
		if (n <= most && n < g->n)
			return d;
	}
	return 0;
}

sc_status sc_render_full(const sc_graph *g, const sc_settings *set, const int *stage,
                         const sc_caption *cap, const char *format, const char *path,
                         const sc_full_opts *o, sc_full_result *r, sc_error *err)
{
	sc_error local;
	if (!err)
		err = &local;
	sc_full_result res = {.scale = 1};
	int max_ops = o && o->max_ops > 0 ? o->max_ops : SC_FULL_MAX_OPS;
	int depth = o ? o->depth : 0, page_units = o ? o->page_units : 0;
	/* collapsed modules are counted once they are known */
	if (g->n > max_ops && depth <= 0)
		return too_many(err, g, g->n, max_ops);
	if (depth < 0)
		return sc_error_set(err, SC_ERR_INPUT, "a module depth must be 1 or more, not %d",
		                    depth);
	sc_quotient *q = NULL;
	if (stage && !(q = sc_quotient_new_kinds(g, set, stage, o ? o->kind : NULL, err)))
		return err->code;
	full_plan p = {.gr = g, .stage = stage, .q = q, .k = q ? q->k : 1, .depth = depth};
	p.hide = q && sc_quotient_hides_empty(q);
	gv_session s = {0};
	sc_status st = SC_OK;
	sc_modules *mods = NULL;
	int *count = NULL, *cross = NULL, *start = NULL;
	if (!(p.mods = mods = sc_modules_new(g, err)) ||
	    !(p.u = sc_boxes_new(g, mods, depth, stage, err)) ||
	    !(p.f = sc_fold_new(g, stage, p.k, p.hide, depth > 0 ? p.u->of_op : NULL, err))) {
		st = err->code;
		goto out;
	}
	sc_boxes_order(p.u, p.f->level, stage);
	if (p.u->n > max_ops) {
		st = too_many(err, g, p.u->n, max_ops);
		goto out;
	}
	p.piece_of = sc_calloc_n((size_t)p.u->n + 1, sizeof *p.piece_of);
	p.node = sc_calloc_n((size_t)p.u->n + 1, sizeof *p.node);
	if (!p.piece_of || !p.node || !level_counts(&p, &count, &cross) ||
	    (p.pages = sc_fold_pages(p.f, count, cross, page_units, &start)) < 0) {
		st = sc_error_nomem(err, "the Graphviz graph");
		goto out;
	}
	st = gv_open(&s, err);
	if (st == SC_OK)
		st = gv_check_format(&s, format, path, err);
	if (st == SC_OK && p.pages > 1) {
		res.pages = p.pages;
		st = write_pages(&s, &p, start, cap, format, path, o ? o->stop : NULL, &res.scale,
		                 err);
	} else if (st == SC_OK) {
		st = fold_and_lay_out(&s, &p, cap, err);
		if (st == SC_OK)
			st = gv_render(&s, format, path, &res.scale, err);
	}
	if (s.gvc)
		gv_close(&s);
	if (st == SC_OK && p.pages > 1 && o && o->stop && o->stop())
		st = sc_error_set(err, SC_ERR_LIMIT, "stopped before the overview");
	if (st == SC_OK && p.pages > 1) {
		/* the overview at path, naming the pages */
		int d = overview_depth(g, mods, stage, page_units, err);
		char first[64], what[512];
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		char *a = malloc(strlen(base) + 16), *z = malloc(strlen(base) + 16);
		if (d < 0 || !a || !z) {
			free(a);
			free(z);
			st = d < 0 ? err->code : sc_error_nomem(err, "the overview");
			goto out;
		}
		sc_full_page_path(base, 1, a, strlen(base) + 16);
		sc_full_page_path(base, p.pages, z, strlen(base) + 16);
		snprintf(first, sizeof first, "%d pages", p.pages);
		snprintf(what, sizeof what, "%s%severy op on %s, %s to %s",
		         cap && cap->what && *cap->what ? cap->what : "",
		         cap && cap->what && *cap->what ? "; " : "", first, a, z);
		free(a);
		free(z);
		sc_caption over = cap ? *cap : (sc_caption){0};
		over.what = what;
		res.overview_depth = d;
		double zs = 1;
		if (d > 0) {
			sc_full_opts oo = {
			        .max_ops = max_ops, .depth = d, .kind = o ? o->kind : NULL};
			sc_full_result rr;
			st = sc_render_full(g, set, stage, cap ? &over : NULL, format, path, &oo,
			                    &rr, err);
			zs = rr.scale;
		} else if (q) {
			st = sc_render_quotient(q, cap ? &over : NULL, format, path, &zs, err);
		} else {
			/* no modules and no stages: the graph as one stage */
			int *one = sc_calloc_n((size_t)g->n + 1, sizeof *one);
			sc_settings s1 = *set;
			s1.k = 1;
			sc_quotient *q1 = one ? sc_quotient_new(g, &s1, one, err) : NULL;
			st = !one ? sc_error_nomem(err, "the overview")
			     : q1 ? sc_render_quotient(q1, cap ? &over : NULL, format, path, &zs,
			                               err)
			          : err->code;
			sc_quotient_free(q1);
			free(one);
		}
		if (st == SC_OK && zs < res.scale)
			res.scale = zs;
	}
out:
	free(count);
	free(cross);
	free(start);
	plan_fini(&p);
	sc_modules_free(mods);
	sc_quotient_free(q);
	if (r)
		*r = res;
	return st;
}

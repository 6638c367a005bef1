/*
 * full.c - the full graph through libgvc.  See full.h.
 *
 * Nodes are named by op index ("o17"), not by op name, so any name is safe;
 * the name only appears, escaped, in the HTML-like label.  Each stage is a
 * subgraph "cluster_sN" (the prefix makes dot draw it as a box); the stage
 * costs come from the quotient (quotient.h), so the picture, the stage
 * graph and `stagecut eval` agree.
 */
#define _POSIX_C_SOURCE 200809L
#include "full.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "gv.h"
#include "quotient.h"

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

static void defaults(Agraph_t *g)
{
	gv_declare_defaults(g);
	agattr(g, AGRAPH, "nodesep", "0.15");
	agattr(g, AGRAPH, "ranksep", "0.35");
	agattr(g, AGRAPH, "labeljust", "c");
	agattr(g, AGRAPH, "newrank", "true");
	/* cluster attributes, declared on the root so subgraphs may set them */
	agattr(g, AGRAPH, "style", "");
	agattr(g, AGRAPH, "fillcolor", "");
	agattr(g, AGRAPH, "color", "");
	agattr(g, AGRAPH, "penwidth", "1");
	agattr(g, AGRAPH, "margin", "");
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

/* An op's label: its name, then work and output size in small print; on
 * a training graph a backward op says so (and whether it is an orphan). */
static void op_label(const sc_graph *g, int v, strbuf *b)
{
	char w[32], o[32];
	sb_add_escaped(b, g->op_name[v]);
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
	sb_add(b, "<B>stage %d</B>", s + 1);
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

/* Stages read left to right even where no data flows between them: an
 * invisible edge runs from the deepest op of each stage (longest path from
 * a source, counting every op) to the shallowest of the next.  Only k - 1
 * edges: tying every free source and sink of a stage to its neighbours
 * orders disconnected parts too, but makes dot take minutes on a few
 * hundred ops.  An empty stage gets a "no ops" placeholder so that it
 * still shows, unless hide (many empty stages, quotient.h): then it is
 * left out, and the edges skip it. */
static sc_status keep_order(Agraph_t *g, const sc_graph *gr, const int *stage, int k, bool hide,
                            Agraph_t **cluster, Agnode_t **node, sc_error *err)
{
	int *depth = sc_calloc_n((size_t)gr->n, sizeof *depth);
	Agnode_t **deep = calloc((size_t)k, sizeof *deep),
	         **shallow = calloc((size_t)k, sizeof *shallow);
	int *dmax = malloc((size_t)k * sizeof *dmax), *dmin = malloc((size_t)k * sizeof *dmin);
	sc_status st = SC_OK;
	if (!depth || !deep || !shallow || !dmax || !dmin)
		goto nomem;
	for (int i = 0; i < gr->n; i++) {
		int v = gr->topo[i];
		for (int j = gr->pred_off[v]; j < gr->pred_off[v + 1]; j++)
			if (depth[gr->pred[j]] + 1 > depth[v])
				depth[v] = depth[gr->pred[j]] + 1;
	}
	for (int s = 0; s < k; s++) {
		dmax[s] = -1;
		dmin[s] = gr->n + 1;
	}
	for (int v = 0; v < gr->n; v++) {
		int s = stage[v];
		if (depth[v] > dmax[s]) {
			dmax[s] = depth[v];
			deep[s] = node[v];
		}
		if (depth[v] < dmin[s]) {
			dmin[s] = depth[v];
			shallow[s] = node[v];
		}
	}
	for (int s = 0; s < k; s++)
		if (!deep[s] && !hide) {
			char name[32];
			snprintf(name, sizeof name, "empty%d", s + 1);
			if (!(deep[s] = shallow[s] = agnode(cluster[s], name, 1)))
				goto nomem;
			agset(deep[s], "label", "no ops");
			agset(deep[s], "style", "dashed,rounded");
		}
	for (int s = 0, prev = -1; s < k; s++) {
		if (!deep[s])
			continue; /* hidden */
		Agedge_t *e = prev >= 0 ? agedge(g, deep[prev], shallow[s], "order", 1) : NULL;
		if (prev >= 0 && !e)
			goto nomem;
		if (e)
			agset(e, "style", "invis");
		prev = s;
	}
	goto out;
nomem:
	st = sc_error_nomem(err, "the Graphviz graph");
out:
	free(depth);
	free(deep);
	free(shallow);
	free(dmax);
	free(dmin);
	return st;
}

static sc_status build(Agraph_t *g, const sc_graph *gr, const int *stage, const sc_quotient *q,
                       const sc_caption *cap, sc_error *err)
{
	defaults(g);
	char *text = malloc(8192);
	Agnode_t **node = sc_calloc_n((size_t)gr->n, sizeof *node);
	Agraph_t **cluster = q ? calloc((size_t)q->k, sizeof *cluster) : NULL;
	sc_status st = SC_OK;
	if (!text || !node || (q && !cluster)) {
		st = sc_error_nomem(err, "the Graphviz graph");
		goto out;
	}
	strbuf b;
	if (cap && cap->title) {
		b = (strbuf){.s = text, .size = 8192};
		char line[160], num[32], where[96];
		if (q) {
			int len = snprintf(line, sizeof line, "%d stage%s, bottleneck %s in %s",
			                   q->k, q->k == 1 ? "" : "s",
			                   sc_quotient_fmt(q->bottleneck_cost, num, sizeof num),
			                   sc_quotient_bottleneck_stages(q, where, sizeof where));
			if (sc_quotient_hides_empty(q) && len < (int)sizeof line)
				snprintf(line + len, sizeof line - (size_t)len,
				         "; %d empty stages not drawn", sc_quotient_empty(q));
		} else {
			double total = 0;
			for (int v = 0; v < gr->n; v++)
				total += gr->work[v];
			snprintf(line, sizeof line, "%d op%s, %d edge%s, total work %s", gr->n,
			         gr->n == 1 ? "" : "s", gr->m, gr->m == 1 ? "" : "s",
			         sc_quotient_fmt(total, num, sizeof num));
		}
		gv_training tr = {.ops = gr->n,
		                  .backward_ops = gr->backward_ops,
		                  .orphans = gr->orphans,
		                  .schedule = q ? q->schedule : gr->settings.schedule,
		                  .q = q,
		                  .legend = true};
		gv_caption(&b, cap, line, sc_graph_is_training(gr) ? &tr : NULL,
		           q ? q->objective : NAN);
		if (!b.full) /* a very long title: keep the picture, drop the caption */
			gv_set_html(g, g, "label", text);
	}
	bool hide = q && sc_quotient_hides_empty(q);
	for (int s = 0; q && s < q->k; s++) {
		if (hide && q->st[s].ops == 0)
			continue;
		char name[32];
		snprintf(name, sizeof name, "cluster_s%d", s + 1);
		Agraph_t *c = cluster[s] = agsubg(g, name, 1);
		if (!c) {
			st = sc_error_nomem(err, "the Graphviz graph");
			goto out;
		}
		bool bn = s == q->bottleneck;
		b = (strbuf){.s = text, .size = 8192};
		stage_heading(q, s, &b);
		gv_set_html(c, g, "label", text);
		agset(c, "style", "filled,rounded");
		agset(c, "fillcolor", (char *)tint[s % NCOLOURS]);
		agset(c, "color", bn ? GV_COL_BN_BORDER : (char *)border[s % NCOLOURS]);
		agset(c, "penwidth", bn ? "3" : "1.2");
		agset(c, "margin", "10");
		agsafeset(c, "fontsize", "12", "15");
	}
	for (int v = 0; v < gr->n; v++) {
		char name[32];
		snprintf(name, sizeof name, "o%d", v);
		Agraph_t *home = q ? cluster[stage[v]] : g;
		node[v] = agnode(home, name, 1);
		if (!node[v]) {
			st = sc_error_nomem(err, "the Graphviz graph");
			goto out;
		}
		b = (strbuf){.s = text, .size = 8192};
		op_label(gr, v, &b);
		if (b.full) { /* a name of kilobytes: its start will do */
			b = (strbuf){.s = text, .size = 8192};
			sb_add(&b, "o%d", v);
		}
		gv_set_html(node[v], g, "label", text);
		if (q)
			agset(node[v], "color", (char *)border[stage[v] % NCOLOURS]);
		if (gr->backward && gr->backward[v]) {
			/* "class" names the pass in svg output (and is declared only
			 * on training graphs, so inference output keeps its bytes) */
			agsafeset(node[v], "style", GV_STYLE_BW_OP, "");
			agsafeset(node[v], "fillcolor", GV_COL_BW_FILL, "");
			agsafeset(node[v], "class", "backward", "");
		}
	}
	for (int v = 0; v < gr->n; v++)
		for (int i = gr->succ_off[v]; i < gr->succ_off[v + 1]; i++) {
			int w = gr->succ[i];
			Agedge_t *e = agedge(g, node[v], node[w], NULL, 1);
			if (!e) {
				st = sc_error_nomem(err, "the Graphviz graph");
				goto out;
			}
			if (q && stage[v] != stage[w] && gr->out[v] == 0) {
				/* an order between stages that moves no data */
				agset(e, "style", "dashed");
			} else if (q && stage[v] != stage[w]) {
				char bytes[32];
				agset(e, "color", COL_CROSS);
				agset(e, "penwidth", "1.8");
				agset(e, "arrowsize", "0.7");
				agset(e, "label",
				      sc_quotient_fmt_bytes(gr->out[v], bytes, sizeof bytes));
			}
			if (gr->backward && gr->backward[w]) {
				/* an edge into the backward pass (from either pass) */
				agsafeset(e, "style", GV_STYLE_BW_EDGE, "");
				agsafeset(e, "color", GV_COL_BW_EDGE, "");
				agsafeset(e, "class", "backward", "");
			}
		}
	if (q)
		st = keep_order(g, gr, stage, q->k, hide, cluster, node, err);
out:
	free(text);
	free(node);
	free(cluster);
	return st;
}

sc_status sc_render_full(const sc_graph *g, const sc_settings *set, const int *stage,
                         const sc_caption *cap, const char *format, const char *path, int max_ops,
                         double *scale, sc_error *err)
{
	sc_error local;
	if (!err)
		err = &local;
	if (max_ops <= 0)
		max_ops = SC_FULL_MAX_OPS;
	if (g->n > max_ops)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s has %d ops, too many for a readable picture of every op "
		                    "(the limit is %d): draw the stage graph instead, or raise the "
		                    "limit",
		                    g->name, g->n, max_ops);
	sc_quotient *q = NULL;
	if (stage && !(q = sc_quotient_new(g, set, stage, err)))
		return err->code;
	gv_session s;
	sc_status st = gv_open(&s, err);
	if (st == SC_OK)
		st = gv_check_format(&s, format, path, err);
	if (st == SC_OK && !(s.g = agopen("stages", Agdirected, NULL)))
		st = sc_error_nomem(err, "the Graphviz graph");
	if (st == SC_OK)
		st = build(s.g, g, stage, q, cap, err);
	if (st == SC_OK)
		st = gv_layout(&s, err);
	if (st == SC_OK)
		st = gv_render(&s, format, path, scale, err);
	if (s.gvc)
		gv_close(&s);
	sc_quotient_free(q);
	return st;
}

/*
 * layout.c - the quotient graph through libgvc.  See layout.h.
 *
 * Both public functions open a Graphviz session (gv.h), build the same
 * graph with build_graph, run dot, and then either read the positions back
 * (ND_coord, ND_width/height, ED_spl, ED_label, GD_bb) or render it (gv.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "layout.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "gv.h"

typedef struct quot_session {
	gv_session gv;
	Agnode_t **node; /* k */
	Agedge_t **edge; /* nedges */
} quot_session;

static void quot_close(quot_session *s)
{
	gv_close(&s->gv);
	free(s->node);
	free(s->edge);
	s->node = NULL;
	s->edge = NULL;
}

/* The HTML-like label of stage s; a picture's (not the terminal's layout,
 * whose boxes hold the rows the canvas draws) adds the parameter bytes. */
static void stage_label(const sc_quotient *q, int s, bool picture, strbuf *b)
{
	const sc_stage_cost *st = &q->st[s];
	bool bn = sc_quotient_at_bottleneck(q, s);
	char num[32];
	/* a CPU stage (001 section 3): rounded and dashed on warm grey, headed
	 * "CPU", its rows its CPU time (it pays no io and no overflow) */
	bool cpu = st->cpu;
	sb_add(b,
	       "<TABLE BORDER=\"%d\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"3\" "
	       "COLOR=\"%s\" BGCOLOR=\"%s\"%s>",
	       bn ? 3 : 1,
	       bn    ? GV_COL_BN_BORDER
	       : cpu ? GV_COL_CPU_BORDER
	             : GV_COL_BORDER,
	       cpu ? GV_COL_CPU_FILL : "white", cpu ? " STYLE=\"rounded,dashed\"" : "");
	/* a fleet's kinds each their heading colour */
	const char *head =
	        q->devices && !cpu ? gv_kind_head[st->kind % GV_KIND_HEADS] : GV_COL_HEAD;
	sb_add(b, "<TR><TD COLSPAN=\"2\" BGCOLOR=\"%s\"><B>stage %d%s%s</B></TD></TR>",
	       bn    ? GV_COL_BN_HEAD
	       : cpu ? GV_COL_CPU_HEAD
	             : head,
	       s + 1, sc_quotient_device(q, s) ? " &#183; " : "",
	       sc_quotient_device(q, s) ? sc_quotient_device(q, s) : "");
	if (bn)
		sb_add(b,
		       "<TR><TD COLSPAN=\"2\" BGCOLOR=\"%s\"><FONT COLOR=\"%s\"><B>bottleneck"
		       "</B></FONT></TD></TR>",
		       GV_COL_BN_HEAD, GV_COL_BN_TEXT);
	const struct {
		const char *name;
		double value;
	} row[] = {
	        {"ops", st->ops},       {"work", st->work},         {"io in", st->io_in},
	        {"io out", st->io_out}, {"overflow", st->overflow},
	};
	const struct {
		const char *name;
		double value;
	} cpu_row[] = {{"ops", st->ops}, {"CPU time", st->work}};
	for (size_t i = 0; cpu && i < sizeof cpu_row / sizeof cpu_row[0]; i++)
		sb_add(b,
		       "<TR><TD ALIGN=\"LEFT\">%s&nbsp;&nbsp;&nbsp;</TD><TD ALIGN=\"RIGHT\">%s</TD>"
		       "</TR>",
		       cpu_row[i].name, sc_quotient_fmt(cpu_row[i].value, num, sizeof num));
	for (size_t i = 0; !cpu && i < sizeof row / sizeof row[0]; i++)
		sb_add(b,
		       "<TR><TD ALIGN=\"LEFT\">%s&nbsp;&nbsp;&nbsp;</TD><TD ALIGN=\"RIGHT\">%s</TD>"
		       "</TR>",
		       row[i].name, sc_quotient_fmt(row[i].value, num, sizeof num));
	sb_add(b,
	       "<TR><TD ALIGN=\"LEFT\" BORDER=\"1\" SIDES=\"T\"><B>cost</B></TD>"
	       "<TD ALIGN=\"RIGHT\" BORDER=\"1\" SIDES=\"T\"><B>%s</B></TD></TR>",
	       sc_quotient_fmt(st->cost, num, sizeof num));
	if (q->training) {
		/* the cost split by pass; under GPipe the terms of the objective
		 * (the largest of each pass) in bold */
		bool gp = q->schedule == SC_SCHEDULE_GPIPE;
		bool fw_max = gp && s == q->gpipe_fw_at, bw_max = gp && s == q->gpipe_bw_at;
		char num2[32];
		sb_add(b,
		       "<TR><TD ALIGN=\"LEFT\">forward</TD><TD ALIGN=\"RIGHT\">%s%s%s</TD></TR>"
		       "<TR><TD ALIGN=\"LEFT\">backward</TD><TD ALIGN=\"RIGHT\">%s%s%s</TD></TR>",
		       fw_max ? "<B>" : "", sc_quotient_fmt(st->cost_fw, num, sizeof num),
		       fw_max ? "</B>" : "", bw_max ? "<B>" : "",
		       sc_quotient_fmt(st->cost_bw, num2, sizeof num2), bw_max ? "</B>" : "");
	}
	/* the parameter bytes the stage holds, against the limit when there is
	 * one */
	char lim[40] = "";
	double mem = sc_quotient_memory(q, s);
	if (picture && cpu && isfinite(q->memory))
		snprintf(lim, sizeof lim, " (no limit)");
	else if (picture && isfinite(mem)) {
		char m[32];
		snprintf(lim, sizeof lim, " / %s", sc_quotient_fmt_bytes(mem, m, sizeof m));
	}
	if (picture)
		sb_add(b, "<TR><TD ALIGN=\"LEFT\">param</TD><TD ALIGN=\"RIGHT\">%s%s</TD></TR>",
		       sc_quotient_fmt_bytes(st->param, num, sizeof num), lim);
	if (st->over_memory)
		sb_add(b,
		       "<TR><TD COLSPAN=\"2\"><FONT COLOR=\"%s\"><B>over memory%s</B></FONT></TD>"
		       "</TR>",
		       GV_COL_WARN, q->policy == SC_MEM_HARD ? ": infeasible" : "");
	sb_add(b, "</TABLE>");
}

/* The first stage over a hard memory limit, or -1 when none is. */
static int over_hard_limit(const sc_quotient *q)
{
	for (int s = 0; q->policy == SC_MEM_HARD && s < q->k; s++)
		if (q->st[s].over_memory)
			return s;
	return -1;
}

/* The caption of q's picture (see gv_caption). */
static void graph_label(const sc_quotient *q, const sc_caption *cap, strbuf *b)
{
	char num[32], line[384], m[32], p[32], where[96], lims[160];
	int len =
	        snprintf(line, sizeof line, "%d stage%s, bottleneck %s in %s", q->k,
	                 q->k == 1 ? "" : "s", sc_quotient_fmt(q->bottleneck_cost, num, sizeof num),
	                 sc_quotient_bottleneck_stages(q, where, sizeof where));
	/* the memory the param rows are held against, and a stage breaking it */
	int over = over_hard_limit(q);
	if (over >= 0)
		snprintf(
		        line + len, sizeof line - (size_t)len,
		        "; infeasible: stage %d holds %s of parameters, over the hard memory limit "
		        "of %s",
		        over + 1, sc_quotient_fmt_bytes(q->st[over].param, p, sizeof p),
		        sc_quotient_fmt_bytes(sc_quotient_memory(q, over), m, sizeof m));
	else if (*sc_quotient_memory_limits(q, lims, sizeof lims))
		len += snprintf(line + len, sizeof line - (size_t)len, "; memory limit %s (%s)",
		                lims, sc_mem_policy_name(q->policy));
	if (sc_quotient_hides_empty(q) && len < (int)sizeof line)
		len += snprintf(line + len, sizeof line - (size_t)len,
		                "; %d empty stages not drawn", sc_quotient_empty(q));
	/* devices: how many stages of each (001 section 3's CPU stages
	 * drawn apart) */
	char dev[160];
	if (q->devices && len < (int)sizeof line)
		snprintf(line + len, sizeof line - (size_t)len, "; %s%s",
		         sc_quotient_devices(q, dev, sizeof dev),
		         q->cpus > 0 ? " (CPU stages rounded, dashed, grey: CPU time only, no io)"
		                     : "");
	gv_training tr = {.ops = q->ops,
	                  .backward_ops = q->backward_ops,
	                  .orphans = q->orphans,
	                  .schedule = q->schedule,
	                  .q = q};
	/* an infeasible partition has no gap */
	gv_caption(b, cap, line, q->training ? &tr : NULL, over >= 0 ? INFINITY : q->objective);
}

/* Builds the Graphviz graph of q into s (shared by layout and render). */
static sc_status build_graph(quot_session *s, const sc_quotient *q, const sc_caption *cap,
                             bool picture, sc_error *err)
{
	s->gv.g = gv_graph_new("quotient");
	s->node = calloc((size_t)q->k, sizeof *s->node);
	s->edge = sc_calloc_n((size_t)q->nedges, sizeof *s->edge);
	if (!s->gv.g || !s->node || !s->edge)
		return sc_error_nomem(err, "the Graphviz graph");
	Agraph_t *g = s->gv.g;
	gv_declare_defaults(g);
	agattr(g, AGRAPH, "nodesep", "0.3");
	agattr(g, AGRAPH, "ranksep", "0.45");
	agattr(g, AGNODE, "shape", "none");
	agattr(g, AGNODE, "margin", "0");
	agattr(g, AGNODE, "fontsize", "11");
	agattr(g, AGEDGE, "fontsize", "10");
	agattr(g, AGEDGE, "color", GV_COL_EDGE);
	agattr(g, AGEDGE, "arrowsize", "0.7");
	agattr(g, AGEDGE, "penwidth", "1");

	char text[4096];
	strbuf b = {.s = text, .size = sizeof text};
	if (cap && cap->title) {
		graph_label(q, cap, &b);
		if (b.full) /* a very long title: keep the picture, drop the title */
			b = (strbuf){.s = text, .size = sizeof text};
		else
			gv_set_html(g, g, "label", text);
	}
	/* a picture leaves out empty stages when there are many (quotient.h);
	 * the layout for the terminal keeps every stage */
	bool hide = picture && sc_quotient_hides_empty(q);
	Agnode_t *prev = NULL;
	for (int st = 0; st < q->k; st++) {
		if (hide && q->st[st].ops == 0)
			continue;
		char name[32];
		snprintf(name, sizeof name, "s%d", st + 1);
		s->node[st] = agnode(g, name, 1);
		if (!s->node[st])
			return sc_error_nomem(err, "the Graphviz graph");
		b = (strbuf){.s = text, .size = sizeof text};
		stage_label(q, st, picture, &b);
		if (b.full)
			return sc_error_set(err, SC_ERR_INTERNAL, "stage %d's label is too long",
			                    st + 1);
		gv_set_html(s->node[st], g, "label", text);
		/* "class" names a CPU stage in svg and dot output (declared
		 * only when some stage is one: other pictures are unchanged) */
		if (q->st[st].cpu)
			agsafeset(s->node[st], "class", "cpu", "");
		/* the pipeline reads left to right even where no data flows
		 * between neighbouring stages: an invisible edge keeps their
		 * order */
		if (prev) {
			Agedge_t *ge = agedge(g, prev, s->node[st], "order", 1);
			if (!ge)
				return sc_error_nomem(err, "the Graphviz graph");
			agsafeset(ge, "style", "invis", "");
			agsafeset(ge, "weight", "5", "1");
		}
		prev = s->node[st];
	}
	double most = 0;
	for (int i = 0; i < q->nedges; i++)
		most = fmax(most, q->edges[i].volume);
	for (int i = 0; i < q->nedges; i++) {
		const sc_qedge *e = &q->edges[i];
		if (e->from < 0 || e->from >= q->k || e->to < 0 || e->to >= q->k)
			return sc_error_set(err, SC_ERR_INTERNAL,
			                    "quotient edge %d -> %d is outside 1..%d", e->from + 1,
			                    e->to + 1, q->k);
		Agedge_t *ge = agedge(g, s->node[e->from], s->node[e->to], NULL, 1);
		if (!ge)
			return sc_error_nomem(err, "the Graphviz graph");
		s->edge[i] = ge;
		char vol[80], pw[32];
		/* on a training graph each pass on a line of its own */
		sc_quotient_edge_label(q, e, "\\n", vol, sizeof vol);
		agset(ge, "label", vol);
		/* heavier traffic, thicker line (square root: volumes span orders
		 * of magnitude) */
		snprintf(pw, sizeof pw, "%.2f", most > 0 ? 1 + 2.5 * sqrt(e->volume / most) : 1.0);
		agset(ge, "penwidth", pw);
		/* an order between stages that moves no data: drawn light */
		if (e->volume == 0) {
			agset(ge, "style", "dashed");
			agset(ge, "color", GV_COL_EDGE_EMPTY);
		} else if (q->training && e->volume_bw >= e->volume) {
			/* only the backward pass's tensors cross it */
			agset(ge, "color", GV_COL_BW_EDGE);
		}
	}
	return SC_OK;
}

/* Builds q's graph in the open session s and lays it out with dot. */
static sc_status lay_out(quot_session *s, const sc_quotient *q, const sc_caption *cap, bool picture,
                         sc_error *err)
{
	sc_status st = build_graph(s, q, cap, picture, err);
	return st == SC_OK ? gv_layout(&s->gv, err) : st;
}

/* Appends the straight piece a -> b (as a cubic) to pts at *n. */
static void add_straight(double *pts, int *n, pointf b)
{
	double ax = pts[2 * (*n - 1)], ay = pts[2 * (*n - 1) + 1];
	double p[6] = {ax, ay, b.x, b.y, b.x, b.y};
	memcpy(pts + 2 * *n, p, sizeof p);
	*n += 3;
}

/* Copies e's route into le; false when out of memory. */
static bool read_edge(Agedge_t *e, sc_ledge *le)
{
	const splines *spl = ED_spl(e);
	int cap = 0;
	if (spl)
		for (int i = 0; i < spl->size; i++)
			cap += spl->list[i].size + 9; /* pieces plus joins and arrows */
	le->npts = 0;
	le->pts = sc_malloc_n((size_t)cap * 2, sizeof *le->pts);
	if (!le->pts)
		return false;
	int n = 0;
	for (int i = 0; spl && i < spl->size; i++) {
		const bezier *bz = &spl->list[i];
		if (bz->size < 1)
			continue;
		pointf first = bz->sflag ? bz->sp : bz->list[0];
		if (n == 0) {
			le->pts[0] = first.x;
			le->pts[1] = first.y;
			n = 1;
		} else {
			add_straight(le->pts, &n, first);
		}
		if (bz->sflag)
			add_straight(le->pts, &n, bz->list[0]);
		for (int j = 1; j + 2 < bz->size; j += 3) {
			for (int t = 0; t < 3; t++) {
				le->pts[2 * n] = bz->list[j + t].x;
				le->pts[2 * n + 1] = bz->list[j + t].y;
				n++;
			}
		}
		if (bz->eflag)
			add_straight(le->pts, &n, bz->ep);
	}
	le->npts = n;
	const textlabel_t *lab = ED_label(e);
	if (lab) {
		le->lx = lab->pos.x;
		le->ly = lab->pos.y;
	} else if (n > 0) {
		le->lx = le->pts[2 * (n / 2)];
		le->ly = le->pts[2 * (n / 2) + 1];
	}
	return true;
}

static void grow(boxf *b, double x, double y)
{
	b->LL.x = fmin(b->LL.x, x);
	b->LL.y = fmin(b->LL.y, y);
	b->UR.x = fmax(b->UR.x, x);
	b->UR.y = fmax(b->UR.y, y);
}

sc_layout *sc_layout_quotient(const sc_quotient *q, const sc_caption *cap, sc_error *err)
{
	quot_session s = {0};
	if (gv_open(&s.gv, err) != SC_OK)
		return NULL;
	if (lay_out(&s, q, cap, false, err) != SC_OK) {
		quot_close(&s);
		return NULL;
	}
	sc_layout *l = calloc(1, sizeof *l);
	if (l) {
		l->node = calloc((size_t)q->k, sizeof *l->node);
		l->edge = sc_calloc_n((size_t)q->nedges, sizeof *l->edge);
	}
	if (!l || !l->node || !l->edge)
		goto nomem;
	l->nnodes = q->k;
	for (int i = 0; i < q->k; i++) {
		Agnode_t *n = s.node[i];
		l->node[i] = (sc_lnode){.x = ND_coord(n).x,
		                        .y = ND_coord(n).y,
		                        .w = ND_width(n) * 72,
		                        .h = ND_height(n) * 72};
	}
	l->nedges = q->nedges;
	for (int i = 0; i < q->nedges; i++) {
		l->edge[i].from = q->edges[i].from;
		l->edge[i].to = q->edges[i].to;
		if (!read_edge(s.edge[i], &l->edge[i]))
			goto nomem;
	}
	/* GD_bb holds the drawing, but a curve's control points may lie
	 * outside it: take them in too, and put the origin at the corner */
	boxf bb = GD_bb(s.gv.g);
	for (int i = 0; i < q->k; i++) {
		const sc_lnode *n = &l->node[i];
		grow(&bb, n->x - n->w / 2, n->y - n->h / 2);
		grow(&bb, n->x + n->w / 2, n->y + n->h / 2);
	}
	for (int i = 0; i < q->nedges; i++) {
		const sc_ledge *e = &l->edge[i];
		for (int j = 0; j < e->npts; j++)
			grow(&bb, e->pts[2 * j], e->pts[2 * j + 1]);
		grow(&bb, e->lx, e->ly);
	}
	l->width = bb.UR.x - bb.LL.x;
	l->height = bb.UR.y - bb.LL.y;
	for (int i = 0; i < q->k; i++) {
		l->node[i].x -= bb.LL.x;
		l->node[i].y -= bb.LL.y;
	}
	for (int i = 0; i < q->nedges; i++) {
		sc_ledge *e = &l->edge[i];
		for (int j = 0; j < e->npts; j++) {
			e->pts[2 * j] -= bb.LL.x;
			e->pts[2 * j + 1] -= bb.LL.y;
		}
		e->lx -= bb.LL.x;
		e->ly -= bb.LL.y;
	}
	quot_close(&s);
	return l;
nomem:
	quot_close(&s);
	sc_layout_free(l);
	sc_error_nomem(err, "the layout");
	return NULL;
}

void sc_layout_free(sc_layout *l)
{
	if (!l)
		return;
	if (l->edge)
		for (int i = 0; i < l->nedges; i++)
			free(l->edge[i].pts);
	free(l->node);
	free(l->edge);
	free(l);
}

sc_status sc_render_quotient(const sc_quotient *q, const sc_caption *cap, const char *format,
                             const char *path, double *scale, sc_error *err)
{
	quot_session s = {0};
	sc_status st = gv_open(&s.gv, err);
	if (st != SC_OK)
		return st;
	/* a wrong format fails before the layout's work */
	st = gv_check_format(&s.gv, format, path, err);
	if (st == SC_OK)
		st = lay_out(&s, q, cap, true, err);
	if (st == SC_OK)
		st = gv_render(&s.gv, format, path, scale, err);
	quot_close(&s);
	return st;
}

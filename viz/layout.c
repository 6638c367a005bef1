/*
 * layout.c - the quotient graph through libgvc.  See layout.h.
 *
 * Both public functions open a session (the Graphviz context, with
 * Graphviz's error channel diverted), build the same graph with build_graph, run dot,
 * and then either read the positions back (ND_coord, ND_width/height,
 * ED_spl, ED_label, GD_bb) or render into a memory stream that
 * sc_file_write_atomic puts in place.
 *
 * Three pieces of Graphviz global state are handled here:
 *  - cgraph's error channel: agseterr(AGMAX) makes it keep messages in its
 *    own buffer instead of printing them; aglasterr() gives the last one
 *    back for err; the previous level is restored afterwards.
 *  - gvContext() declares a default node label "\N" in cgraph's prototype
 *    graph, which every graph opened later in the process inherits (so a
 *    later sc_write_dot would write `node [label="\N"]`); the previous
 *    default is put back right after the context is made.
 *  - the context itself is made once and kept for the life of the process:
 *    the pango text-layout plugin (2.43) remembers a pointer to the last
 *    font name it measured, a string owned by the context, so laying out
 *    with a second context after freeing a first reads freed memory.  One
 *    context also saves loading the plugins on every call.  Valgrind shows
 *    it as still reachable.
 */
#define _POSIX_C_SOURCE 200809L
#include "layout.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/gvc.h>

#include "core/fileio.h"

/* colours: a calm blue-grey for stages, warm with a red border for the
 * bottleneck (which also says "bottleneck", for greyscale) */
#define COL_BORDER "#5b6b7f"
#define COL_HEAD "#dfe7f1"
#define COL_BN_BORDER "#b3261e"
#define COL_BN_HEAD "#f9c99a"
#define COL_BN_TEXT "#8c1d18"
#define COL_EDGE "#56657a"
#define COL_EDGE_EMPTY "#9aa5b4"
#define COL_LABEL "#2f3b4a"
#define COL_WARN "#b3261e"
#define FONT "Helvetica"

typedef struct gv_session {
	GVC_t *gvc;
	Agraph_t *g;
	Agnode_t **node; /* k */
	Agedge_t **edge; /* nedges */
	bool laid_out;
	agerrlevel_t old_level;
} gv_session;

/* A bounded string builder; an overflow is remembered, not written. */
typedef struct strbuf {
	char *s;
	size_t size, len;
	bool full;
} strbuf;

static void sb_add(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(strbuf *b, const char *fmt, ...)
{
	if (b->full)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->s + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->size - b->len) {
		b->full = true;
		b->s[b->len] = '\0';
		return;
	}
	b->len += (size_t)n;
}

/* Appends text with the characters HTML-like labels reserve escaped. */
static void sb_add_escaped(strbuf *b, const char *text)
{
	for (const char *p = text; *p; p++) {
		switch (*p) {
		case '&': sb_add(b, "&amp;"); break;
		case '<': sb_add(b, "&lt;"); break;
		case '>': sb_add(b, "&gt;"); break;
		case '"': sb_add(b, "&quot;"); break;
		default: sb_add(b, "%c", *p); break;
		}
	}
}

/* Sets err to code, saying what Graphviz could not do and quoting its last
 * message when it reported an error. */
static sc_status gv_fail(sc_error *err, sc_status code, const char *path, const char *format)
{
	char *msg = agerrors() > AGWARN ? aglasterr() : NULL;
	if (msg) {
		size_t n = strlen(msg);
		while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			msg[--n] = '\0';
	}
	char what[512];
	if (format)
		snprintf(what, sizeof what, "%s: Graphviz could not write format '%s'", path,
		         format);
	else
		snprintf(what, sizeof what, "Graphviz could not lay out the stage graph");
	sc_status st =
	        sc_error_set(err, code, "%s%s%s", what, msg && *msg ? ": " : "", msg ? msg : "");
	free(msg);
	return st;
}

/* The process's one Graphviz context, made on first use and kept (see the
 * top of the file). */
static GVC_t *shared_gvc;

static void gv_close(gv_session *s)
{
	if (s->laid_out)
		gvFreeLayout(s->gvc, s->g);
	if (s->g)
		agclose(s->g);
	free(s->node);
	free(s->edge);
	agseterr(s->old_level);
	memset(s, 0, sizeof *s);
}

static sc_status gv_open(gv_session *s, sc_error *err)
{
	memset(s, 0, sizeof *s);
	s->old_level = agseterr(AGMAX);
	agreseterrors();
	if (!shared_gvc) {
		Agsym_t *sym = agattr(NULL, AGNODE, "label", NULL);
		char *saved = sym ? strdup(sym->defval) : NULL;
		if (sym && !saved) {
			agseterr(s->old_level);
			return sc_error_nomem(err, "the Graphviz context");
		}
		shared_gvc = gvContext();
		/* see the top of the file: gvContext() changed the prototype */
		agattr(NULL, AGNODE, "label", saved ? saved : "");
		free(saved);
	}
	if (!shared_gvc) {
		agseterr(s->old_level);
		return sc_error_nomem(err, "the Graphviz context");
	}
	s->gvc = shared_gvc;
	return SC_OK;
}

/* The HTML-like label of stage s. */
static void stage_label(const sc_quotient *q, int s, strbuf *b)
{
	const sc_stage_cost *st = &q->st[s];
	bool bn = s == q->bottleneck;
	char num[32];
	sb_add(b,
	       "<TABLE BORDER=\"%d\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"3\" "
	       "COLOR=\"%s\" BGCOLOR=\"white\">",
	       bn ? 3 : 1, bn ? COL_BN_BORDER : COL_BORDER);
	sb_add(b, "<TR><TD COLSPAN=\"2\" BGCOLOR=\"%s\"><B>stage %d</B></TD></TR>",
	       bn ? COL_BN_HEAD : COL_HEAD, s + 1);
	if (bn)
		sb_add(b,
		       "<TR><TD COLSPAN=\"2\" BGCOLOR=\"%s\"><FONT COLOR=\"%s\"><B>bottleneck"
		       "</B></FONT></TD></TR>",
		       COL_BN_HEAD, COL_BN_TEXT);
	const struct {
		const char *name;
		double value;
	} row[] = {
	        {"ops", st->ops},       {"work", st->work},         {"io in", st->io_in},
	        {"io out", st->io_out}, {"overflow", st->overflow},
	};
	for (size_t i = 0; i < sizeof row / sizeof row[0]; i++)
		sb_add(b,
		       "<TR><TD ALIGN=\"LEFT\">%s&nbsp;&nbsp;&nbsp;</TD><TD ALIGN=\"RIGHT\">%s</TD>"
		       "</TR>",
		       row[i].name, sc_quotient_fmt(row[i].value, num, sizeof num));
	sb_add(b,
	       "<TR><TD ALIGN=\"LEFT\" BORDER=\"1\" SIDES=\"T\"><B>cost</B></TD>"
	       "<TD ALIGN=\"RIGHT\" BORDER=\"1\" SIDES=\"T\"><B>%s</B></TD></TR>",
	       sc_quotient_fmt(st->cost, num, sizeof num));
	if (st->over_memory)
		sb_add(b,
		       "<TR><TD COLSPAN=\"2\"><FONT COLOR=\"%s\"><B>over memory</B></FONT></TD>"
		       "</TR>",
		       COL_WARN);
	sb_add(b, "</TABLE>");
}

/* The title and a one-line summary, as an HTML-like label. */
static void graph_label(const sc_quotient *q, const char *title, strbuf *b)
{
	char num[32];
	sb_add(b, "<B>");
	sb_add_escaped(b, title);
	sb_add(b, "</B><BR/><FONT POINT-SIZE=\"11\">%d stage%s, bottleneck %s in stage %d</FONT>",
	       q->k, q->k == 1 ? "" : "s", sc_quotient_fmt(q->bottleneck_cost, num, sizeof num),
	       q->bottleneck + 1);
}

/* Sets an HTML-like attribute value (the text must be marked as HTML in
 * cgraph's string pool, which agstrdup_html does). */
static void set_html(void *obj, Agraph_t *g, char *name, char *text)
{
	char *html = agstrdup_html(g, text);
	agsafeset(obj, name, html, "");
	agstrfree(g, html);
}

/* Builds the Graphviz graph of q into s (shared by layout and render). */
static sc_status build_graph(gv_session *s, const sc_quotient *q, const char *title, sc_error *err)
{
	s->g = agopen("quotient", Agdirected, NULL);
	s->node = calloc((size_t)q->k, sizeof *s->node);
	s->edge = calloc((size_t)(q->nedges ? q->nedges : 1), sizeof *s->edge);
	if (!s->g || !s->node || !s->edge)
		return sc_error_nomem(err, "the Graphviz graph");
	Agraph_t *g = s->g;
	agattr(g, AGRAPH, "rankdir", "LR");
	agattr(g, AGRAPH, "nodesep", "0.3");
	agattr(g, AGRAPH, "ranksep", "0.45");
	agattr(g, AGRAPH, "pad", "0.25");
	agattr(g, AGRAPH, "bgcolor", "white");
	agattr(g, AGRAPH, "fontname", FONT);
	agattr(g, AGRAPH, "fontsize", "15");
	agattr(g, AGRAPH, "fontcolor", COL_LABEL);
	agattr(g, AGRAPH, "labelloc", "t");
	agattr(g, AGNODE, "shape", "none");
	agattr(g, AGNODE, "margin", "0");
	agattr(g, AGNODE, "fontname", FONT);
	agattr(g, AGNODE, "fontsize", "11");
	agattr(g, AGNODE, "fontcolor", COL_LABEL);
	agattr(g, AGNODE, "label", "");
	agattr(g, AGEDGE, "fontname", FONT);
	agattr(g, AGEDGE, "fontsize", "10");
	agattr(g, AGEDGE, "fontcolor", COL_LABEL);
	agattr(g, AGEDGE, "color", COL_EDGE);
	agattr(g, AGEDGE, "arrowsize", "0.7");
	agattr(g, AGEDGE, "penwidth", "1");
	agattr(g, AGEDGE, "label", "");
	agattr(g, AGEDGE, "style", "");

	char text[4096];
	strbuf b = {.s = text, .size = sizeof text};
	if (title) {
		graph_label(q, title, &b);
		if (b.full) /* a very long title: keep the picture, drop the title */
			b = (strbuf){.s = text, .size = sizeof text};
		else
			set_html(g, g, "label", text);
	}
	for (int st = 0; st < q->k; st++) {
		char name[32];
		snprintf(name, sizeof name, "s%d", st + 1);
		s->node[st] = agnode(g, name, 1);
		if (!s->node[st])
			return sc_error_nomem(err, "the Graphviz graph");
		b = (strbuf){.s = text, .size = sizeof text};
		stage_label(q, st, &b);
		if (b.full)
			return sc_error_set(err, SC_ERR_INTERNAL, "stage %d's label is too long",
			                    st + 1);
		set_html(s->node[st], g, "label", text);
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
		char vol[32], pw[32];
		sc_quotient_fmt_bytes(e->volume, vol, sizeof vol);
		agset(ge, "label", vol);
		/* heavier traffic, thicker line (square root: volumes span orders
		 * of magnitude) */
		snprintf(pw, sizeof pw, "%.2f", most > 0 ? 1 + 2.5 * sqrt(e->volume / most) : 1.0);
		agset(ge, "penwidth", pw);
		/* an order between stages that moves no data: drawn light */
		if (e->volume == 0) {
			agset(ge, "style", "dashed");
			agset(ge, "color", COL_EDGE_EMPTY);
		}
	}
	return SC_OK;
}

/* Builds q's graph in the open session s and lays it out with dot. */
static sc_status lay_out(gv_session *s, const sc_quotient *q, const char *title, sc_error *err)
{
	sc_status st = build_graph(s, q, title, err);
	if (st != SC_OK)
		return st;
	if (gvLayout(s->gvc, s->g, "dot") != 0)
		return gv_fail(err, SC_ERR_INTERNAL, NULL, NULL);
	s->laid_out = true;
	return SC_OK;
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
	le->pts = malloc((size_t)(cap ? cap : 1) * 2 * sizeof *le->pts);
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

sc_layout *sc_layout_quotient(const sc_quotient *q, const char *title, sc_error *err)
{
	gv_session s;
	if (gv_open(&s, err) != SC_OK)
		return NULL;
	if (lay_out(&s, q, title, err) != SC_OK) {
		gv_close(&s);
		return NULL;
	}
	sc_layout *l = calloc(1, sizeof *l);
	if (l) {
		l->node = calloc((size_t)q->k, sizeof *l->node);
		l->edge = calloc((size_t)(q->nedges ? q->nedges : 1), sizeof *l->edge);
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
	boxf bb = GD_bb(s.g);
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
	gv_close(&s);
	return l;
nomem:
	gv_close(&s);
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

/* True when Graphviz can write format to a file ("png", or "png:cairo" and
 * the like: the part before the first ':' names the output device).
 * Otherwise fills known with a few formats it can write. */
static bool format_known(GVC_t *gvc, const char *format, char *known, size_t size)
{
	static const char *const common[] = {"png", "svg",  "pdf", "ps",
	                                     "dot", "json", "jpg", "gif"};
	/* devices that open a window instead of writing a file, and vrml,
	 * which also drops an image per node into the working directory */
	static const char *const unsuitable[] = {"x11", "xlib", "gtk", "vrml"};
	size_t flen = strcspn(format, ":");
	int n = 0;
	char **list = gvPluginList(gvc, "device", &n, NULL);
	bool found = false;
	for (int i = 0; list && i < n; i++)
		if (flen > 0 && strlen(list[i]) == flen && strncmp(list[i], format, flen) == 0)
			found = true;
	for (size_t i = 0; i < sizeof unsuitable / sizeof unsuitable[0]; i++)
		if (strlen(unsuitable[i]) == flen && strncmp(unsuitable[i], format, flen) == 0)
			found = false;
	strbuf b = {.s = known, .size = size};
	known[0] = '\0';
	int listed = 0;
	for (size_t c = 0; !found && c < sizeof common / sizeof common[0]; c++)
		for (int i = 0; list && i < n; i++)
			if (strcmp(list[i], common[c]) == 0) {
				sb_add(&b, "%s%s", listed++ ? ", " : "", common[c]);
				break;
			}
	if (!found)
		sb_add(&b, listed ? " (%d formats in all)" : "none (%d formats)", n);
	for (int i = 0; list && i < n; i++)
		free(list[i]);
	free(list);
	return found;
}

sc_status sc_render_quotient(const sc_quotient *q, const char *title, const char *format,
                             const char *path, sc_error *err)
{
	gv_session s;
	sc_status st = gv_open(&s, err);
	if (st != SC_OK)
		return st;
	char known[512];
	if (!format)
		format = "";
	if (!format_known(s.gvc, format, known, sizeof known)) {
		gv_close(&s);
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: unknown image format '%s'; Graphviz here writes %s", path,
		                    format, known);
	}
	st = lay_out(&s, q, title, err);
	char *data = NULL;
	size_t len = 0;
	FILE *f = NULL;
	if (st == SC_OK && !(f = open_memstream(&data, &len)))
		st = sc_error_nomem(err, "the picture");
	if (st == SC_OK) {
		/* the device exists, so a refusal here is about the renderer
		 * named after it ("png:nosuch") */
		int bad = gvRender(s.gvc, s.g, format, f);
		if (fclose(f) != 0 || !data)
			st = sc_error_nomem(err, "the picture");
		else if (bad)
			st = gv_fail(err, SC_ERR_INPUT, path, format);
		else if (len == 0) /* e.g. gd formats in a build without GD */
			st = sc_error_set(err, SC_ERR_INPUT,
			                  "%s: Graphviz here wrote nothing in format '%s'", path,
			                  format);
	}
	gv_close(&s);
	if (st == SC_OK)
		st = sc_file_write_atomic(path, data, len, err);
	free(data);
	return st;
}

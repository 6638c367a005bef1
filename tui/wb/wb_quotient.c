/*
 * wb_quotient.c - the quotient view (the stage graph laid out by Graphviz
 * and drawn with box-drawing characters, scaled to the window, or as a
 * matrix of stage-to-stage volumes) and the image export.
 *
 * Graphviz lays the graph out only when the partition changed (a layout
 * costs milliseconds and Graphviz keeps a few kilobytes each time); the
 * drawing into cells is redone on every redraw, so resizes are free.  In a
 * terminal whose locale is not UTF-8 the box-drawing characters become
 * + - | so the view still reads.  A dense stage graph (many stages of a
 * random graph) draws badly: edges merge at junctions, labels find no
 * room; when the canvas says so (viz/canvas.h: unlabelled, merged,
 * hidden), the view shows the volumes as a matrix instead, rows the stages
 * tensors leave, columns those they enter, with each stage's out and in
 * bytes; m switches between the two by hand.  e (export) is a global
 * action (wb_keys.c) that lands in wb_export here; its caption speaks of
 * the partition on screen, with the header's gap (its objective over the
 * best lower bound) and the best found beside it when that is better.  On
 * a training graph the boxes and labels split costs and volumes by pass
 * (viz/canvas.h); the matrix gives both passes together.
 *
 * Its state (the stage graph, its layout, what is shown) is its own,
 * made by its init and freed by its fini (wb_view_ops), no file statics.
 *
 * Layer: a view (layer 4 in wb.h): it calls the state, the prompt and
 * wb_draw.c's wb_lower_bound; the dispatcher and the loop name it.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_quotient.h"

#include <curses.h>
#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/ui.h"
#include "tui/wb/wb_devices.h"
#include "tui/wb/wb_jobs.h"
#include "tui/wb/wb_keytab.h"
#include "tui/wb/wb_lineedit.h"
#include "viz/canvas.h"
#include "viz/layout.h"
#include "viz/quotient.h"

/* The view's own state (made by its init, freed by its fini): the stage
 * graph and its layout as of partition lay_version, why the last layout
 * failed, what the screen shows. */
typedef struct quot_state {
	sc_quotient *quot;
	sc_layout *lay;
	unsigned lay_version;
	char lay_error[sizeof(((sc_error *)0)->msg)];
	bool matrix_shown; /* the last drawing of the view was the matrix */
	/* 0 the drawing unless it is crowded, then the matrix; 1 always the
	 * drawing; 2 always the matrix */
	int show;
} quot_state;

static void drop_layout(quot_state *qs)
{
	sc_layout_free(qs->lay);
	sc_quotient_free(qs->quot);
	qs->lay = NULL;
	qs->quot = NULL;
	qs->lay_version = ~0u;
}

static void *quotient_init(wb *w)
{
	(void)w;
	quot_state *qs = calloc(1, sizeof *qs);
	if (qs)
		qs->lay_version = ~0u;
	return qs;
}

static void quotient_fini(wb *w, void *state)
{
	(void)w;
	if (state)
		drop_layout(state);
	free(state);
}

/* The export's caption: the graph, the partition on screen (its
 * objective and gap come from the quotient, which is of it), the best
 * lower bound known now, and the best partition found. */
static sc_caption caption_of(const wb *w, char *title, size_t size, char *what, size_t wsize)
{
	const char *by;
	double lb = wb_lower_bound(w, &by);
	char dev[128];
	snprintf(title, size, "%s, %s", w->g->name, wb_devices_text(w, dev, sizeof dev));
	snprintf(what, wsize, "the partition on screen: %s", w->origin);
	return (sc_caption){.title = title,
	                    .lower = lb,
	                    .lower_by = by,
	                    .what = what,
	                    .best = w->best,
	                    .best_by = w->best_from,
	                    .costs = w->g->cost_short};
}

static bool ensure_layout(quot_state *qs, wb *w)
{
	if (qs->lay && qs->lay_version == w->part_version)
		return true;
	drop_layout(qs);
	sc_error err;
	/* the stages' kinds as the editor costs them */
	sc_settings ps;
	wb_part_settings(w, &ps);
	qs->quot = sc_quotient_new_kinds(w->g, &ps, w->stage, sc_editor_costs(w->ed)->kind, &err);
	if (qs->quot)
		qs->lay = sc_layout_quotient(qs->quot, NULL, &err);
	if (!qs->quot || !qs->lay) {
		snprintf(qs->lay_error, sizeof qs->lay_error, "%s", err.msg);
		return false;
	}
	qs->lay_version = w->part_version;
	return true;
}

/* Prints a UTF-8 line, as ASCII when the terminal cannot show the
 * box-drawing characters. */
static void put_line(int y, const char *s, bool utf8)
{
	if (utf8) {
		mvaddstr(y, 0, s);
		return;
	}
	move(y, 0);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		if (*p < 0x80) {
			addch(*p++);
			continue;
		}
		/* decode one code point */
		unsigned cp = 0;
		int len = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
		cp = *p & (0x3f >> (len - 1));
		for (int i = 1; i < len && p[i]; i++)
			cp = cp << 6 | (p[i] & 0x3f);
		p += len;
		char c = '+';
		if (cp == 0x2500 || cp == 0x2501)
			c = '-';
		else if (cp == 0x2502 || cp == 0x2503)
			c = '|';
		else if (cp == 0x00b7)
			c = '.';
		addch((unsigned char)c);
	}
}

/* The first of n items to show in a window of `fit` so that item sel is
 * in it, near its middle. */
static int window_start(int sel, int n, int fit)
{
	if (n <= fit)
		return 0;
	int first = sel - fit / 2;
	if (first > n - fit)
		first = n - fit;
	return first < 0 ? 0 : first;
}

/* The volumes as a matrix from row y, h rows: row s, column t holds the
 * bytes of tensors made in stage s and read in stage t ("." where no edge
 * goes), then the stage's out bytes; the last row each stage's in bytes.
 * A window of rows and columns around the selected stage when k does not
 * fit. */
static void matrix_draw(const quot_state *qs, wb *w, int y, int h, int cols)
{
	const sc_quotient *q = qs->quot;
	int k = q->k;
	double *vol = calloc((size_t)k * (size_t)k, sizeof *vol);
	char *has = calloc((size_t)k * (size_t)k, 1);
	if (!vol || !has) {
		free(vol);
		free(has);
		mvprintw(y, 0, "out of memory");
		return;
	}
	for (int i = 0; i < q->nedges; i++) {
		size_t at = (size_t)q->edges[i].from * (size_t)k + (size_t)q->edges[i].to;
		vol[at] = q->edges[i].volume;
		has[at] = 1;
	}
	/* one width for every cell: the widest number, and the stage numbers */
	char b[32];
	int cw = snprintf(b, sizeof b, "%d", k);
	for (int s = 0; s < k; s++) {
		int len = (int)strlen(sc_quotient_fmt_bytes(q->st[s].out_bytes, b, sizeof b));
		cw = len > cw ? len : cw;
		len = (int)strlen(sc_quotient_fmt_bytes(q->st[s].in_bytes, b, sizeof b));
		cw = len > cw ? len : cw;
	}
	for (size_t i = 0; i < (size_t)k * (size_t)k; i++)
		if (has[i]) {
			int len = (int)strlen(sc_quotient_fmt_bytes(vol[i], b, sizeof b));
			cw = len > cw ? len : cw;
		}
	cw++;
	int sel = w->stage_sel < k ? w->stage_sel : 0;
	int lead = 7, fitc = (cols - 1 - lead - (cw + 2)) / cw, fitr = h - 3;
	if (fitc < 1)
		fitc = 1;
	if (fitr < 1) {
		free(vol);
		free(has);
		return;
	}
	int c0 = window_start(sel, k, fitc), r0 = window_start(sel, k, fitr);
	int nc = k - c0 < fitc ? k - c0 : fitc, nr = k - r0 < fitr ? k - r0 : fitr;
	if (nc < k || nr < k)
		mvprintw(y, 0, "stages to %d-%d of %d, from %d-%d (j k move the window)", c0 + 1,
		         c0 + nc, k, r0 + 1, r0 + nr);
	else
		mvprintw(y, 0, "%.*s", cols - 1,
		         "bytes made in the row's stage and read in the column's (. no edge); out, "
		         "in: the stage's out and in bytes");
	attron(A_BOLD);
	mvprintw(y + 1, 0, "%*s", lead - 1, "from\\to");
	for (int t = c0; t < c0 + nc; t++) {
		if (t == sel)
			attron(A_REVERSE);
		printw("%*d", cw, t + 1);
		if (t == sel)
			attroff(A_REVERSE);
	}
	printw("  %*s", cw, "out");
	attroff(A_BOLD);
	for (int r = 0; r < nr; r++) {
		int s = r0 + r;
		move(y + 2 + r, 0);
		if (s == sel)
			attron(A_REVERSE);
		printw("%5d%c ", s + 1, sc_quotient_at_bottleneck(q, s) ? '*' : ' ');
		if (s == sel)
			attroff(A_REVERSE);
		for (int t = c0; t < c0 + nc; t++) {
			size_t at = (size_t)s * (size_t)k + (size_t)t;
			printw("%*s", cw,
			       has[at] ? sc_quotient_fmt_bytes(vol[at], b, sizeof b) : ".");
		}
		printw("  %*s", cw, sc_quotient_fmt_bytes(q->st[s].out_bytes, b, sizeof b));
	}
	attron(A_BOLD);
	mvprintw(y + 2 + nr, 0, "%*s ", lead - 1, "in");
	attroff(A_BOLD);
	for (int t = c0; t < c0 + nc; t++)
		printw("%*s", cw, sc_quotient_fmt_bytes(q->st[t].in_bytes, b, sizeof b));
	free(vol);
	free(has);
}

/* Why the drawing is crowded: "the drawing is crowded (3 edges merge, 2
 * volumes without room): ". */
static void crowd_text(const sc_canvas *cv, char *buf, size_t size)
{
	const struct {
		int n;
		const char *one, *many;
	} part[] = {{cv->merged, "edge merges", "edges merge"},
	            {cv->unlabelled, "volume without room", "volumes without room"},
	            {cv->hidden, "edge left out", "edges left out"}};
	size_t len = (size_t)snprintf(buf, size, "the drawing is crowded (");
	bool first = true;
	for (size_t i = 0; i < sizeof part / sizeof *part && len < size; i++)
		if (part[i].n) {
			len += (size_t)snprintf(buf + len, size - len, "%s%d %s", first ? "" : ", ",
			                        part[i].n,
			                        part[i].n == 1 ? part[i].one : part[i].many);
			first = false;
		}
	if (len < size)
		snprintf(buf + len, size - len, "): ");
}

static void quotient_draw(wb *w, int y, int h, int cols)
{
	quot_state *qs = wb_view_state(w, &wb_quotient_view);
	if (!qs)
		return;
	attron(A_BOLD);
	if (sc_graph_is_training(w->g))
		mvprintw(
		        y, 0, "%.*s", cols - 1,
		        "stage graph: tensor volume between stages, forward (fw) and backward (bw) "
		        "apart (e exports an image)");
	else
		mvprintw(y, 0, "stage graph: tensor volume between stages (e exports an image)");
	attroff(A_BOLD);
	if (h < 3)
		return;
	if (!ensure_layout(qs, w)) {
		mvprintw(y + 2, 0, "cannot lay out the stage graph: %.*s", cols - 40,
		         qs->lay_error);
		return;
	}
	sc_error err;
	sc_canvas *cv = sc_canvas_draw(qs->lay, qs->quot, cols, h - 1, &err);
	if (!cv) {
		mvprintw(y + 2, 0, "cannot draw the stage graph: %.*s", cols - 40, err.msg);
		return;
	}
	bool crowded = cv->unlabelled + cv->merged + cv->hidden > 0;
	qs->matrix_shown = qs->show == 2 || (qs->show == 0 && crowded);
	if (qs->matrix_shown) {
		char why[256] = "";
		if (crowded)
			crowd_text(cv, why, sizeof why);
		sc_canvas_free(cv);
		attron(A_BOLD);
		mvprintw(y, 0, "%-*s", cols - 1, "");
		mvprintw(y, 0, "%.*s", cols - 1, "stage graph as a matrix of tensor volumes");
		attroff(A_BOLD);
		mvprintw(y + 1, 0, "%.*s", cols - 1, why);
		printw("%.*s", cols - 1 - getcurx(stdscr), "m draws the graph; e exports it");
		matrix_draw(qs, w, y + 2, h - 2, cols);
		return;
	}
	bool utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	int at = qs->quot->bottleneck;
	for (int r = 0; r < cv->rows; r++)
		put_line(y + 1 + r, cv->line[r], utf8);
	/* colour the bottleneck's box */
	if (at >= 0 && at < cv->k && cv->box[at][2] > 0 && w->color) {
		for (int r = 0; r < cv->box[at][3]; r++)
			mvchgat(y + 1 + cv->box[at][1] + r, cv->box[at][0], cv->box[at][2], A_BOLD,
			        1, NULL);
	}
	sc_canvas_free(cv);
}

static unsigned export_answer(wb *w, const char *path, bool ok, int arg)
{
	(void)arg;
	if (!ok)
		return 0;
	const char *ext = ui_file_extension(path);
	if (!ext) {
		wb_say(w, "not exported: give the file an extension naming its format (.png, .svg, "
		          ".pdf)");
		return 0;
	}
	quot_state *qs = wb_view_state(w, &wb_quotient_view);
	if (!qs)
		return 0;
	if (!ensure_layout(qs, w)) {
		wb_say(w, "not exported: %s", qs->lay_error);
		return 0;
	}
	char title[512], what[256];
	sc_caption cap = caption_of(w, title, sizeof title, what, sizeof what);
	sc_error err;
	if (sc_render_quotient(qs->quot, &cap, ext, path, NULL, &err) != SC_OK)
		wb_say(w, "not exported: %s", err.msg);
	else
		wb_say(w, "exported the stage graph to %s", path);
	return 0;
}

unsigned wb_export(wb *w)
{
	char path[1024];
	const char *base = w->g->name;
	const char *dot = strrchr(base, '.');
	int stem = dot ? (int)(dot - base) : (int)strlen(base);
	snprintf(path, sizeof path, "%.*s-k%d.png", stem, base, sc_settings_stages(&w->set));
	return wb_ask(w, "export the stage graph to (png, svg, pdf, dot...):", path, sizeof path,
	              export_answer, 0);
}

unsigned wb_quotient_toggle(wb *w)
{
	/* what the screen shows decides: the other one, from now on by hand */
	quot_state *qs = wb_view_state(w, &wb_quotient_view);
	if (!qs)
		return WB_HANDLED;
	bool matrix = qs->show == 2 || (qs->show == 0 && qs->matrix_shown);
	qs->show = matrix ? 1 : 2;
	wb_say(w, matrix ? "the stage graph drawn (m: the matrix)"
	                 : "the stage graph as a matrix (m: the drawing)");
	return WB_HANDLED | WB_REDRAW;
}

static unsigned quotient_key(wb *w, wb_action a, int ch)
{
	(void)ch;
	return a == WB_A_MATRIX ? wb_quotient_toggle(w) : 0;
}

const wb_view_ops wb_quotient_view = {.name = "quotient view",
                                      .in = WB_IN_QUOTIENT,
                                      .footer = WB_FOOT_MAIN,
                                      .draw = quotient_draw,
                                      .key = quotient_key,
                                      .init = quotient_init,
                                      .fini = quotient_fini};

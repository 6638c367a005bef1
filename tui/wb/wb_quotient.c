/*
 * wb_quotient.c - the quotient view (the stage graph laid out by Graphviz
 * and drawn with box-drawing characters, scaled to the window) and the
 * image export.
 *
 * Graphviz lays the graph out only when the partition changed (a layout
 * costs milliseconds and Graphviz keeps a few kilobytes each time); the
 * drawing into cells is redone on every redraw, so resizes are free.  In a
 * terminal whose locale is not UTF-8 the box-drawing characters become
 * + - | so the view still reads.  The view has no keys of its own: e
 * (export) is a global action (wb_keys.c) that lands in wb_export here.
 * On a training graph the boxes and labels split costs and volumes by pass
 * (viz/canvas.h).
 *
 * Layer: a view (layer 4 in wb.h): it calls the state, the prompt and
 * wb_draw.c's wb_lower_bound; the dispatcher and the loop name it.
 */
#define _POSIX_C_SOURCE 200809L
#include <curses.h>
#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/ui.h"
#include "viz/canvas.h"
#include "viz/layout.h"
#include "viz/quotient.h"
#include "tui/wb/wb.h"

static sc_quotient *quot;
static sc_layout *lay;
static unsigned lay_version = ~0u;
static char lay_error[1024];

void wb_quotient_free(void)
{
	sc_layout_free(lay);
	sc_quotient_free(quot);
	lay = NULL;
	quot = NULL;
	lay_version = ~0u;
}

/* The export's caption: the graph, and the best lower bound known now. */
static sc_caption caption_of(const wb *w, char *title, size_t size)
{
	const char *by;
	double lb = wb_lower_bound(w, &by);
	snprintf(title, size, "%s, k %d", w->g->name, w->set.k);
	return (sc_caption){.title = title, .lower = lb, .lower_by = by};
}

static bool ensure_layout(wb *w)
{
	if (lay && lay_version == w->part_version)
		return true;
	wb_quotient_free();
	sc_error err;
	quot = sc_quotient_new(w->g, &w->set, w->stage, &err);
	if (quot)
		lay = sc_layout_quotient(quot, NULL, &err);
	if (!quot || !lay) {
		snprintf(lay_error, sizeof lay_error, "%s", err.msg);
		return false;
	}
	lay_version = w->part_version;
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

static void quotient_draw(wb *w, int y, int h, int cols)
{
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
	if (!ensure_layout(w)) {
		mvprintw(y + 2, 0, "cannot lay out the stage graph: %.*s", cols - 40, lay_error);
		return;
	}
	sc_error err;
	sc_canvas *cv = sc_canvas_draw(lay, quot, cols, h - 1, &err);
	if (!cv) {
		mvprintw(y + 2, 0, "cannot draw the stage graph: %.*s", cols - 40, err.msg);
		return;
	}
	bool utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	int at = quot->bottleneck;
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
	if (!ensure_layout(w)) {
		wb_say(w, "not exported: %s", lay_error);
		return 0;
	}
	char title[512];
	sc_caption cap = caption_of(w, title, sizeof title);
	sc_error err;
	if (sc_render_quotient(quot, &cap, ext, path, NULL, &err) != SC_OK)
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
	snprintf(path, sizeof path, "%.*s-k%d.png", stem, base, w->set.k);
	return wb_ask(w, "export the stage graph to (png, svg, pdf, dot...):", path, sizeof path,
	              export_answer, 0);
}

const wb_view_ops wb_quotient_view = {.name = "quotient view",
                                      .in = WB_IN_QUOTIENT,
                                      .footer = WB_FOOT_MAIN,
                                      .draw = quotient_draw};

/*
 * timeline_draw.c - the pipeline schedule drawn with cairo (see
 * timeline_draw.h).  The picture is drawn into memory through cairo's
 * stream surfaces, then written atomically with sc_file_write_atomic.
 */
#include "timeline_draw.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"

#define W 1000.0      /* picture width */
#define LEFT 110.0    /* lane labels */
#define RIGHT 20.0    /* right margin */
#define TOP 40.0      /* title */
#define LANE_H 30.0   /* lane height */
#define LANE_GAP 8.0  /* between lanes */
#define AXIS_H 40.0   /* axis, ticks and unit */
#define LEGEND_H 28.0 /* legend row */
#define CAPTION_H 44.0

/* Colours by kind, forward then backward (darker). */
static const double COLOURS[2][3][3] = {
        {{0.6, 0.8, 0.6}, {0.2, 0.4, 0.8}, {1.0, 0.8, 0.4}},
        {{0.3, 0.5, 0.3}, {0.1, 0.2, 0.5}, {0.6, 0.4, 0.1}},
};
/* CPU stages (001 section 3): compute on a CPU, forward then backward, and the
 * lane's tint (SC_TL_CPU_COMPUTE_RGB, SC_TL_CPU_LANE_RGB) */
static const double CPU_COMPUTE[2][3] = {{0.6, 0.3, 0.7}, {0.35, 0.15, 0.45}};
static const double CPU_LANE[3] = {0.91, 0.89, 0.85};

bool sc_timeline_format_ok(const char *format)
{
	return format &&
	       (!strcmp(format, "svg") || !strcmp(format, "png") || !strcmp(format, "pdf"));
}

typedef struct buf {
	char *data;
	size_t len, cap;
	bool nomem;
} buf;

static bool buf_add(buf *b, const char *s, size_t n)
{
	if (b->nomem)
		return false;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *d = realloc(b->data, cap);
		if (!d) {
			b->nomem = true;
			return false;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
	return true;
}

static cairo_status_t write_buf(void *closure, const unsigned char *data, unsigned int n)
{
	return buf_add(closure, (const char *)data, n) ? CAIRO_STATUS_SUCCESS
	                                               : CAIRO_STATUS_NO_MEMORY;
}

/* XML-escaped s appended to b. */
static void buf_xml(buf *b, const char *s)
{
	for (; *s; s++) {
		const char *e = *s == '<'   ? "&lt;"
		                : *s == '>' ? "&gt;"
		                : *s == '&' ? "&amp;"
		                            : NULL;
		if (e)
			buf_add(b, e, strlen(e));
		else
			buf_add(b, s, 1);
	}
}

/* A tick step of 1, 2 or 5 times a power of ten giving about n ticks. */
static double tick_step(double span, int n)
{
	if (!(span > 0))
		return 1;
	double raw = span / n, p = pow(10, floor(log10(raw))), f = raw / p;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void text(cairo_t *cr, double x, double y, double size, const char *s)
{
	cairo_set_font_size(cr, size);
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, s);
}

/* The caption: the derived figures. */
static void caption(const sc_timeline *t, const char *unit, char *out, size_t size)
{
	snprintf(out, size,
	         "%d micro-batches: period %.6g (throughput %.6g), latency %.6g, "
	         "fill %.6g, drain %.6g, makespan %.6g %s",
	         t->m, t->period, t->throughput, t->latency, t->fill, t->drain, t->makespan, unit);
}

/* The caption's second line: the schedule of a training graph, then the
 * devices when some stage is a CPU or the stages run on a fleet of kinds;
 * "" when neither. */
static void caption2(const sc_timeline *t, char *out, size_t size)
{
	int len = 0;
	out[0] = '\0';
	if (t->training)
		len = snprintf(out, size, "training graph, schedule %s",
		               t->schedule == SC_SCHEDULE_GPIPE ? "GPipe" : "1F1B");
	if (t->device && len >= 0 && (size_t)len < size)
		snprintf(out + len, size - (size_t)len, "%seach lane named by its device%s",
		         len ? "; " : "", t->cpus > 0 ? " (a CPU lane computes only)" : "");
	else if (t->cpus > 0 && len >= 0 && (size_t)len < size)
		snprintf(out + len, size - (size_t)len,
		         "%s%d accelerator stage%s, %d CPU stage%s (a CPU lane computes only: no "
		         "communication)",
		         len ? "; " : "", t->k - t->cpus, t->k - t->cpus == 1 ? "" : "s", t->cpus,
		         t->cpus == 1 ? "" : "s");
}

static void draw(cairo_t *cr, const sc_timeline *t, const char *title, const char *unit, double h)
{
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_source_rgb(cr, 0, 0, 0);
	if (title)
		text(cr, 10, 24, 16, title);
	double span = t->makespan > 0 ? t->makespan : 1, pw = W - LEFT - RIGHT;
	char s[512];
	for (int st = 0; st < t->k; st++) {
		double y = TOP + st * (LANE_H + LANE_GAP);
		if (t->cpu[st])
			cairo_set_source_rgb(cr, CPU_LANE[0], CPU_LANE[1], CPU_LANE[2]);
		else
			cairo_set_source_rgb(cr, 0.95, 0.95, 0.95);
		cairo_rectangle(cr, LEFT, y, pw, LANE_H);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		sc_timeline_lane_name(t, st, s, sizeof s);
		text(cr, 10, y + (st == t->bottleneck_at ? 13 : 19), 12, s);
		if (st == t->bottleneck_at) {
			cairo_set_source_rgb(cr, 0.85, 0, 0);
			text(cr, 10, y + 26, 11, "bottleneck");
		}
	}
	/* the segments: one filled rectangle each */
	for (int i = 0; i < t->nseg; i++) {
		const sc_segment *g = &t->seg[i];
		if (!(g->end > g->start))
			continue;
		const double *c = t->cpu[g->stage] && g->kind == SC_SEG_COMPUTE
		                          ? CPU_COMPUTE[g->backward]
		                          : COLOURS[g->backward][g->kind];
		double y = TOP + g->stage * (LANE_H + LANE_GAP);
		cairo_set_source_rgb(cr, c[0], c[1], c[2]);
		cairo_rectangle(cr, LEFT + pw * g->start / span, y + 2,
		                pw * (g->end - g->start) / span, LANE_H - 4);
		cairo_fill(cr);
	}
	/* the bottleneck lane framed in red */
	double by = TOP + t->bottleneck_at * (LANE_H + LANE_GAP);
	cairo_set_source_rgb(cr, 0.85, 0, 0);
	cairo_set_line_width(cr, 1.5);
	cairo_rectangle(cr, LEFT - 1, by - 1, pw + 2, LANE_H + 2);
	cairo_stroke(cr);
	/* the time axis */
	double ay = TOP + t->k * (LANE_H + LANE_GAP);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	cairo_move_to(cr, LEFT, ay);
	cairo_line_to(cr, LEFT + pw, ay);
	cairo_stroke(cr);
	double step = tick_step(span, 10);
	for (int i = 0; i * step <= span * (1 + 1e-9) && i <= 1000; i++) {
		double x = LEFT + pw * (i * step) / span;
		cairo_move_to(cr, x, ay);
		cairo_line_to(cr, x, ay + 5);
		cairo_stroke(cr);
		snprintf(s, sizeof s, "%.6g", i * step);
		text(cr, x - 6, ay + 17, 10, s);
	}
	snprintf(s, sizeof s, "time (%s)", unit);
	text(cr, LEFT + pw / 2 - 30, ay + 32, 11, s);
	/* the legend: one swatch per colour used */
	double ly = ay + AXIS_H, lx = LEFT;
	static const char *kinds[] = {"receive", "compute", "send"};
	for (int p = 0; p < t->passes; p++)
		for (int kd = 0; kd < 3; kd++) {
			const double *c = COLOURS[p][kd];
			cairo_set_source_rgb(cr, c[0], c[1], c[2]);
			cairo_rectangle(cr, lx, ly + 4, 14, 14);
			cairo_fill(cr);
			cairo_set_source_rgb(cr, 0, 0, 0);
			snprintf(s, sizeof s, "%s%s", kinds[kd], p ? " (backward)" : "");
			text(cr, lx + 18, ly + 15, 11, s);
			lx += p ? 130 : 90;
		}
	for (int p = 0; t->cpus > 0 && p < t->passes; p++) {
		const double *c = CPU_COMPUTE[p];
		cairo_set_source_rgb(cr, c[0], c[1], c[2]);
		cairo_rectangle(cr, lx, ly + 4, 14, 14);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		text(cr, lx + 18, ly + 15, 11, p ? "CPU (backward)" : "CPU compute");
		lx += p ? 120 : 100;
	}
	caption(t, unit, s, sizeof s);
	text(cr, 10, h - CAPTION_H + 18, 12, s);
	caption2(t, s, sizeof s);
	if (*s)
		text(cr, 10, h - CAPTION_H + 36, 12, s);
}

/* The SVG with a <title> and a <desc> after its opening tag, into out. */
static void svg_described(const buf *svg, const sc_timeline *t, const char *title, const char *unit,
                          buf *out)
{
	const char *open = strstr(svg->data, "<svg");
	const char *end = open ? strchr(open, '>') : NULL;
	size_t head = end ? (size_t)(end + 1 - svg->data) : svg->len;
	buf_add(out, svg->data, head);
	char s[512];
	buf_add(out, "\n<title>", 8);
	buf_xml(out, title ? title : "pipeline timeline");
	buf_add(out, "</title>\n<desc>", 15);
	caption(t, unit, s, sizeof s);
	buf_xml(out, s);
	if (t->cpus > 0) {
		caption2(t, s, sizeof s);
		buf_add(out, "\n", 1);
		buf_xml(out, s);
	}
	for (int st = 0; st < t->k; st++) {
		char name[48];
		snprintf(s, sizeof s, "\n%s: busy %.6g, idle %.1f%%%s",
		         sc_timeline_lane_name(t, st, name, sizeof name), t->busy[st],
		         100 * t->idle[st], st == t->bottleneck_at ? ", bottleneck" : "");
		buf_xml(out, s);
	}
	buf_add(out, "</desc>", 7);
	buf_add(out, svg->data + head, svg->len - head);
}

sc_status sc_timeline_draw(const sc_timeline *t, const char *title, const char *unit,
                           const char *path, const char *format, sc_error *err)
{
	if (!sc_timeline_format_ok(format))
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: a timeline is drawn as svg, png or pdf, not %s", path,
		                    format ? format : "(none)");
	if (!unit)
		unit = "time units";
	double h = TOP + t->k * (LANE_H + LANE_GAP) + AXIS_H + LEGEND_H + CAPTION_H;
	buf b = {0}, out = {0};
	cairo_surface_t *sf;
	if (!strcmp(format, "svg"))
		sf = cairo_svg_surface_create_for_stream(write_buf, &b, W, h);
	else if (!strcmp(format, "pdf"))
		sf = cairo_pdf_surface_create_for_stream(write_buf, &b, W, h);
	else
		sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)W, (int)ceil(h));
	cairo_t *cr = cairo_create(sf);
	draw(cr, t, title, unit, h);
	cairo_status_t cs = cairo_status(cr);
	cairo_destroy(cr);
	if (cs == CAIRO_STATUS_SUCCESS && !strcmp(format, "png"))
		cs = cairo_surface_write_to_png_stream(sf, write_buf, &b);
	cairo_surface_finish(sf);
	if (cs == CAIRO_STATUS_SUCCESS)
		cs = cairo_surface_status(sf);
	cairo_surface_destroy(sf);
	sc_status st = SC_OK;
	if (cs == CAIRO_STATUS_NO_MEMORY || b.nomem) {
		st = sc_error_set(err, SC_ERR_NOMEM, "out of memory drawing %s", path);
	} else if (cs != CAIRO_STATUS_SUCCESS || !b.data) {
		st = sc_error_set(err, SC_ERR_IO, "%s: cairo: %s", path,
		                  cairo_status_to_string(cs));
	} else if (!strcmp(format, "svg")) {
		svg_described(&b, t, title, unit, &out);
		st = out.nomem ? sc_error_set(err, SC_ERR_NOMEM, "out of memory drawing %s", path)
		               : sc_file_write_atomic(path, out.data, out.len, err);
	} else {
		st = sc_file_write_atomic(path, b.data, b.len, err);
	}
	free(b.data);
	free(out.data);
	return st;
}

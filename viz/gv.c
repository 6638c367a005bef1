/*
 * gv.c - the Graphviz session shared by the pictures.  See gv.h.
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
#include "gv.h"

#include <cairo.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"

const char *const gv_kind_head[GV_KIND_HEADS] = {GV_COL_HEAD, "#cfe8d5", "#f3dcec", "#fbf0c4"};

void sb_add(strbuf *b, const char *fmt, ...)
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

/* The length of the well-formed UTF-8 sequence at p (2 to 4), or 0. */
static int utf8_len(const unsigned char *p)
{
	int len = *p >= 0xf0 && *p <= 0xf4 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 && *p < 0xe0 ? 2 : 0;
	for (int i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

void sb_add_escaped(strbuf *b, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		switch (*p) {
		case '&': sb_add(b, "&amp;"); break;
		case '<': sb_add(b, "&lt;"); break;
		case '>': sb_add(b, "&gt;"); break;
		case '"': sb_add(b, "&quot;"); break;
		default:
			if (*p >= 0x80) {
				int len = utf8_len(p);
				if (len == 2 && p[0] == 0xc2 && p[1] <= 0x9f) {
					sb_add(b, "?"); /* a C1 control, as a C0 one */
					p++;
				} else if (len) {
					sb_add(b, "%.*s", len, (const char *)p);
					p += len - 1;
				} else {
					sb_add(b, "?");
				}
			} else {
				sb_add(b, "%c", *p < 0x20 || *p == 0x7f ? '?' : *p);
			}
			break;
		}
	}
}

sc_status gv_fail(sc_error *err, sc_status code, const char *path, const char *format,
                  const char *what)
{
	char *msg = agerrors() > AGWARN ? aglasterr() : NULL;
	if (msg) {
		size_t n = strlen(msg);
		while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			msg[--n] = '\0';
	}
	char said[512];
	if (format)
		snprintf(said, sizeof said, "%s: Graphviz could not write format '%s'", path,
		         format);
	else
		snprintf(said, sizeof said, "Graphviz could not lay out %s", what);
	sc_status st =
	        sc_error_set(err, code, "%s%s%s", said, msg && *msg ? ": " : "", msg ? msg : "");
	free(msg);
	return st;
}

/* The process's one Graphviz context, made on first use and kept (see the
 * top of the file). */
static GVC_t *shared_gvc;

void gv_close(gv_session *s)
{
	if (s->laid_out)
		gvFreeLayout(s->gvc, s->g);
	if (s->g)
		agclose(s->g);
	agseterr(s->old_level);
	memset(s, 0, sizeof *s);
}

/* ---- objects in the order made (see gv_graph_new) ---- */

/* The discipline's state: names numbered in the order first seen (name i
 * has ID 2 (i + 1); even, as cgraph's own named IDs), found again through
 * an open-addressing table, and the next anonymous ID (odd).  The names
 * are cgraph's shared strings (agstrdup: its writer reads their header to
 * tell HTML from text), one reference each, held until the graph closes
 * (cgraph's internal map of names, which would do the same, leaks its
 * entries at agclose in this Graphviz). */
typedef struct gv_ids {
	Agraph_t *g; /* the root graph, for its strings */
	IDTYPE anon;
	char **name;
	size_t n, cap;
	size_t *slot; /* index + 1 into name, 0 for empty; nslot a power of 2 */
	size_t nslot;
} gv_ids;

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* The slot of str in ids' table: its own, or the empty one it would take. */
static size_t *name_slot(const gv_ids *ids, const char *str)
{
	size_t mask = ids->nslot - 1, at = name_hash(str) & mask;
	while (ids->slot[at] && strcmp(ids->name[ids->slot[at] - 1], str) != 0)
		at = (at + 1) & mask;
	return &ids->slot[at];
}

/* Adds a copy of str as the next name; false when out of memory. */
static bool add_name(gv_ids *ids, char *str)
{
	if (2 * (ids->n + 1) > ids->nslot) {
		size_t nslot = ids->nslot ? 2 * ids->nslot : 64;
		size_t *slot = calloc(nslot, sizeof *slot);
		if (!slot)
			return false;
		free(ids->slot);
		ids->slot = slot;
		ids->nslot = nslot;
		for (size_t i = 0; i < ids->n; i++)
			*name_slot(ids, ids->name[i]) = i + 1;
	}
	if (ids->n == ids->cap) {
		size_t cap = ids->cap ? 2 * ids->cap : 64;
		char **name = realloc(ids->name, cap * sizeof *name);
		if (!name)
			return false;
		ids->name = name;
		ids->cap = cap;
	}
	char *copy = agstrdup(ids->g, str);
	if (!copy)
		return false;
	size_t *slot = name_slot(ids, copy);
	ids->name[ids->n++] = copy;
	*slot = ids->n;
	return true;
}

static void *ids_open(Agraph_t *g, Agdisc_t *disc)
{
	(void)disc;
	gv_ids *ids = calloc(1, sizeof *ids);
	if (ids) {
		ids->g = g;
		ids->anon = 1;
	}
	return ids;
}

static long ids_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
	(void)objtype;
	gv_ids *ids = state;
	if (!ids)
		return 0;
	if (!str) {
		*id = ids->anon;
		ids->anon += 2;
		return 1;
	}
	size_t *slot = ids->nslot ? name_slot(ids, str) : NULL;
	if (slot && *slot) {
		*id = 2 * (IDTYPE)*slot;
		return 1;
	}
	if (!createflag || !add_name(ids, str))
		return 0;
	*id = 2 * (IDTYPE)ids->n;
	return 1;
}

/* IDs are not chosen by callers */
static long ids_alloc(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id;
	return 0;
}

/* a name stays until the graph closes: made again, it has its ID again */
static void ids_free(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id;
}

static char *ids_print(void *state, int objtype, IDTYPE id)
{
	(void)objtype;
	const gv_ids *ids = state;
	if (!ids || id % 2 || id == 0 || id / 2 > ids->n)
		return NULL;
	return ids->name[id / 2 - 1];
}

static void ids_close(void *state)
{
	gv_ids *ids = state;
	if (!ids)
		return;
	/* (agclose calls this before it closes the graph's strings) */
	for (size_t i = 0; i < ids->n; i++)
		agstrfree(ids->g, ids->name[i]);
	free(ids->name);
	free(ids->slot);
	free(ids);
}

static void ids_register(void *state, int objtype, void *obj)
{
	(void)state;
	(void)objtype;
	(void)obj;
}

static Agiddisc_t ids_disc = {
        .open = ids_open,
        .map = ids_map,
        .alloc = ids_alloc,
        .free = ids_free,
        .print = ids_print,
        .close = ids_close,
        .idregister = ids_register,
};

Agraph_t *gv_graph_new(const char *name)
{
	static Agdisc_t disc = {.mem = &AgMemDisc, .id = &ids_disc, .io = &AgIoDisc};
	return agopen((char *)name, Agdirected, &disc);
}

sc_status gv_open(gv_session *s, sc_error *err)
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

sc_status gv_layout(gv_session *s, sc_error *err)
{
	if (gvLayout(s->gvc, s->g, "dot") != 0)
		return gv_fail(err, SC_ERR_INTERNAL, NULL, NULL, "the picture");
	s->laid_out = true;
	return SC_OK;
}

void gv_declare_defaults(Agraph_t *g)
{
	agattr(g, AGRAPH, "rankdir", "LR");
	agattr(g, AGRAPH, "pad", "0.25");
	agattr(g, AGRAPH, "bgcolor", "white");
	agattr(g, AGRAPH, "fontname", GV_FONT);
	agattr(g, AGRAPH, "fontsize", "15");
	agattr(g, AGRAPH, "fontcolor", GV_COL_LABEL);
	agattr(g, AGRAPH, "labelloc", "t");
	agattr(g, AGNODE, "fontname", GV_FONT);
	agattr(g, AGNODE, "fontcolor", GV_COL_LABEL);
	agattr(g, AGNODE, "label", "");
	agattr(g, AGEDGE, "fontname", GV_FONT);
	agattr(g, AGEDGE, "fontcolor", GV_COL_LABEL);
	agattr(g, AGEDGE, "label", "");
	agattr(g, AGEDGE, "style", "");
}

void gv_set_html(void *obj, Agraph_t *g, char *name, const char *text)
{
	/* the text must be marked as HTML in cgraph's string pool */
	char *html = agstrdup_html(g, (char *)text);
	agsafeset(obj, name, html, "");
	agstrfree(g, html);
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

sc_status gv_check_format(gv_session *s, const char *format, const char *path, sc_error *err)
{
	char known[512];
	if (!format)
		format = "";
	if (format_known(s->gvc, format, known, sizeof known))
		return SC_OK;
	return sc_error_set(err, SC_ERR_INPUT,
	                    "%s: unknown image format '%s'; Graphviz here writes %s", path, format,
	                    known);
}

/* True for formats Graphviz writes as pixels (through cairo or gd). */
static bool is_bitmap(const char *format)
{
	static const char *const bitmaps[] = {"png", "jpg",  "jpeg", "jpe", "gif", "bmp", "ico",
	                                      "tif", "tiff", "webp", "gd",  "gd2", "wbmp"};
	size_t flen = strcspn(format, ":");
	for (size_t i = 0; i < sizeof bitmaps / sizeof bitmaps[0]; i++)
		if (strlen(bitmaps[i]) == flen && strncmp(bitmaps[i], format, flen) == 0)
			return true;
	return false;
}

/* The largest drawing, in points, a bitmap gets at full size: 30000 pixels
 * at Graphviz's 96 dpi, under cairo's 32767 (beyond which the plugin
 * scales by itself and says so on stderr). */
#define GV_BITMAP_MAX_POINTS 22500.0

sc_status gv_render(gv_session *s, const char *format, const char *path, double *scale,
                    sc_error *err)
{
	if (scale)
		*scale = 1;
	sc_status st = gv_check_format(s, format, path, err);
	if (st != SC_OK)
		return st;
	if (is_bitmap(format) && s->laid_out) {
		/* shrink a huge drawing ourselves, as the size attribute would */
		boxf bb = GD_bb(s->g);
		double w = bb.UR.x - bb.LL.x + 72, h = bb.UR.y - bb.LL.y + 72; /* with pad */
		double z = fmin(1, fmin(GV_BITMAP_MAX_POINTS / w, GV_BITMAP_MAX_POINTS / h));
		if (z < 1) {
			GD_drawing(s->g)->size = (pointf){z * (w - 72), z * (h - 72)};
			GD_drawing(s->g)->filled = 0;
			if (scale)
				*scale = z;
		}
		/* Graphviz's cairo plugin draws on after it fails to make its
		 * surface, and crashes: make sure the pixels fit first (96 dpi,
		 * 4 bytes each) */
		int pw = (int)ceil(w * z * 96 / 72) + 2, ph = (int)ceil(h * z * 96 / 72) + 2;
		cairo_surface_t *probe = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph);
		cairo_status_t cs = cairo_surface_status(probe);
		cairo_surface_destroy(probe);
		if (cs != CAIRO_STATUS_SUCCESS)
			return sc_error_set(
			        err, SC_ERR_NOMEM,
			        "%s: not enough memory for a %d x %d pixel %s (%s); try "
			        "svg or pdf",
			        path, pw, ph, format, cairo_status_to_string(cs));
	}
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	if (!f)
		return sc_error_nomem(err, "the picture");
	/* the device exists, so a refusal here is about the renderer named
	 * after it ("png:nosuch") */
	int bad = gvRender(s->gvc, s->g, format, f);
	if (fclose(f) != 0 || !data)
		st = sc_error_nomem(err, "the picture");
	else if (bad)
		st = gv_fail(err, SC_ERR_INPUT, path, format, NULL);
	else if (len == 0) /* e.g. gd formats in a build without GD */
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s: Graphviz here wrote nothing in format '%s'", path, format);
	if (st == SC_OK)
		st = sc_file_write_atomic(path, data, len, err);
	free(data);
	return st;
}

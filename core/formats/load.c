/*
 * load.c - choosing a loader.  The helpers the loaders share (numbers,
 * extensions) are in parse.c, so that the loaders and this file, which
 * lists them, do not call each other in a circle.
 */
#define _POSIX_C_SOURCE 200809L
#include "load.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fileio.h"
#include "times.h"

/* in the order ties go: content over extension, then first listed */
static const sc_loader *const loaders[] = {&sc_loader_onnx, &sc_loader_fiddle, &sc_loader_dot};
#define NLOADERS (sizeof loaders / sizeof loaders[0])

static sc_graph *load_from(const char *path, const sc_load_opts *opts, const sc_loader **used,
                           sc_error *err);

sc_graph *sc_load_with(const char *path, const sc_load_opts *opts, sc_error *err)
{
	const sc_loader *used;
	sc_graph *g = load_from(path, opts, &used, err);
	if (!g || !opts || (!opts->times && opts->nkinds == 0) || used == &sc_loader_onnx)
		return g; /* (the ONNX loader takes the times itself, by its names) */
	/* measured times by op name */
	if (sc_load_kinds(g, opts, NULL, NULL, NULL, NULL, err) != SC_OK ||
	    sc_graph_check_totals(g, &g->settings, err) != SC_OK) {
		sc_graph_free(g);
		return NULL;
	}
	return g;
}

/* The offset in head[0..len) of its first byte that only binary data
 * holds: a NUL, or a control byte other than blanks (C0, DEL) outside a
 * quoted string ("...", with backslash escapes, as DOT and JSON write them)
 * and a DOT comment (//, #, slash-star); len when there is none. */
static size_t binary_at(const char *head, size_t len)
{
	enum { CODE, QUOTED, ESCAPE, LINE, BLOCK } state = CODE;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)head[i];
		char next = i + 1 < len ? head[i + 1] : '\0';
		if (c == 0)
			return i;
		switch (state) {
		case CODE:
			if ((c < 0x20 && !isspace(c)) || c == 0x7f)
				return i;
			if (c == '"')
				state = QUOTED;
			else if (c == '#' || (c == '/' && next == '/'))
				state = LINE;
			else if (c == '/' && next == '*')
				state = BLOCK, i++;
			break;
		case QUOTED: state = c == '\\' ? ESCAPE : c == '"' ? CODE : QUOTED; break;
		case ESCAPE: state = QUOTED; break;
		case LINE: state = c == '\n' ? CODE : LINE; break;
		case BLOCK:
			if (c == '*' && next == '/')
				state = CODE, i++;
			break;
		}
	}
	return len;
}

sc_graph *sc_load(const char *path, sc_error *err)
{
	const sc_loader *used;
	return load_from(path, NULL, &used, err);
}

/* The loader whose probe is surest of the file (DOT when none is). */
static const sc_loader *choose(const char *path, const char *head, size_t len)
{
	const sc_loader *best = &sc_loader_dot;
	int surest = SC_PROBE_NO;
	for (size_t l = 0; l < NLOADERS; l++) {
		int p = loaders[l]->probe(path, head, len);
		if (p > surest) {
			surest = p;
			best = loaders[l];
		}
	}
	return best;
}

/* sc_load_with without the measured times; *used: the loader chosen */
static sc_graph *load_from(const char *path, const sc_load_opts *opts, const sc_loader **used,
                           sc_error *err)
{
	*used = NULL;
	/* read once: a pipe cannot be read again by the loader after the probe */
	size_t size;
	char *data = sc_file_read_all(path, "a graph file", &size, err);
	if (!data)
		return NULL;
	/* the probes see the first bytes after any leading blanks, however many
	 * blanks there are (a file of 600 spaces and then a graph is not empty) */
	size_t at = 0; /* offset of head[0] in the file */
	while (at < size && isspace((unsigned char)data[at]))
		at++;
	const char *head = data + at;
	size_t len = size - at < 512 ? size - at : 512;
	sc_graph *g = NULL;
	if (len == 0) {
		sc_error_set(err, SC_ERR_INPUT, "%s: the file is empty%s", path,
		             at > 0 ? " (it holds only blanks)" : "");
		goto done;
	}
	const sc_loader *l = *used = choose(path, head, len);
	if (l != &sc_loader_onnx && opts && (opts->device || opts->precision || opts->ndims > 0)) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: --device, --precision and --dim apply to ONNX models only; this "
		             "file's costs are in it",
		             path);
		goto done;
	}
	/* a NUL, or a control byte other than blanks outside a quoted string
	 * or a comment, means binary data (or UTF-16), which no text loader
	 * reads; say so instead of quoting the byte as a token.  Inside quotes
	 * it is part of a name, which may hold any character but NUL
	 * (stagecut(1), DOT) */
	size_t bad = l->text ? binary_at(head, len) : len;
	if (bad < len) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: binary data (byte 0x%02x at offset %zu), not a DOT graph, "
		             "msr-fiddle JSON or an ONNX model",
		             path, (unsigned char)head[bad], at + bad);
		goto done;
	}
	g = l->load(path, data, size, opts, err);
done:
	free(data);
	return g;
}

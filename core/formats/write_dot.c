/*
 * write_dot.c - DOT output through cgraph (agwrite into a memory stream,
 * then an atomic file write).  See write_dot.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "write_dot.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/cgraph.h>

#include "core/fileio.h"
#include "core/mem.h"

static void num(char *buf, size_t size, double x)
{
	snprintf(buf, size, "%.17g", x);
}

/* cgraph crashes when an allocation fails (it reports the failure and
 * goes on with a null pointer), so the room its graph and the text take is
 * made sure of first, as the DOT loader does: about 600 bytes an op and
 * 250 an edge inside cgraph (measured: a million ops and two million edges
 * took 1.1 GB with the rest of gen), and the text beside it. */
static sc_status check_room(const sc_graph *g, const char *path, sc_error *err)
{
	double need = 728.0 * g->n + 250.0 * g->m + (8 << 20);
	if (!sc_mem_room(need))
		return sc_error_set(err, SC_ERR_NOMEM,
		                    "%s: out of memory: writing %d ops as DOT needs about %.0f MiB",
		                    path, g->n, need / (1 << 20));
	return SC_OK;
}

/* Whether cgraph writes text so that it reads it back the same.  Its
 * writer escapes only '"' (as \"), and its reader (scan.l) takes \" for a
 * quote, \\ for two backslashes and drops a backslash before a newline:
 * so an odd run of backslashes before a quote, a newline or the end of the
 * text comes back otherwise (a name read from DOT never has one). */
static bool dot_faithful(const char *text)
{
	size_t run = 0;
	for (const char *p = text;; p++) {
		if (*p == '\\') {
			run++;
			continue;
		}
		if (run % 2 == 1 && (*p == '"' || *p == '\n' || *p == '\0'))
			return false;
		run = 0;
		if (!*p)
			return true;
	}
}

/* sc_write_dot with k (0: none) for the graph attribute k. */
static sc_status write_dot(const sc_graph *g, const int *stage, int k, const char *path,
                           sc_error *err)
{
	for (int v = 0; v < g->n; v++)
		if (!dot_faithful(g->op_name[v]) ||
		    (g->group[v] >= 0 && !dot_faithful(g->group_name[g->group[v]])))
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: op '%s' of %s: %s ends in a backslash or has one just before "
			        "a quote or a line break, which DOT cannot hold (Graphviz would "
			        "read "
			        "it back otherwise); nothing written",
			        path, g->op_name[v], g->source,
			        dot_faithful(g->op_name[v]) ? "its group's name" : "the name");
	sc_status room = check_room(g, path, err);
	if (room != SC_OK)
		return room;
	char name[256];
	snprintf(name, sizeof name, "%s", g->name);
	char *dot = strrchr(name, '.');
	if (dot)
		*dot = '\0';
	Agraph_t *G = agopen(name, Agstrictdirected, NULL);
	if (!G)
		return sc_error_nomem(err, "the DOT graph");
	char buf[64];
	const sc_settings *s = &g->settings;
	if (k > 0) {
		snprintf(buf, sizeof buf, "%d", k);
		agattr(G, AGRAPH, "k", "");
		agset(G, "k", buf);
	}
	if (s->bandwidth != 1) {
		num(buf, sizeof buf, s->bandwidth);
		agattr(G, AGRAPH, "bandwidth", "");
		agset(G, "bandwidth", buf);
	}
	if (!isinf(s->memory)) {
		num(buf, sizeof buf, s->memory);
		agattr(G, AGRAPH, "memory", "");
		agset(G, "memory", buf);
	}
	if (s->policy != SC_MEM_OVERFLOW) {
		agattr(G, AGRAPH, "memory_policy", "");
		agset(G, "memory_policy", (char *)sc_mem_policy_name(s->policy));
	}
	Agsym_t *aw = agattr(G, AGNODE, "work", "");
	Agsym_t *ap = agattr(G, AGNODE, "param", "");
	Agsym_t *ao = agattr(G, AGNODE, "out", "");
	Agsym_t *ag = g->ngroups ? agattr(G, AGNODE, "group", "") : NULL;
	Agsym_t *as = stage ? agattr(G, AGNODE, "stage", "") : NULL;
	Agsym_t *ab = g->backward ? agattr(G, AGNODE, "backward", "") : NULL;
	Agnode_t **nodes = sc_malloc_n((size_t)g->n, sizeof *nodes);
	if (!nodes) {
		agclose(G);
		return sc_error_nomem(err, "the DOT graph");
	}
	for (int v = 0; v < g->n; v++) {
		Agnode_t *n = agnode(G, g->op_name[v], 1);
		nodes[v] = n;
		num(buf, sizeof buf, g->work[v]);
		agxset(n, aw, buf);
		if (g->param[v] != 0) {
			num(buf, sizeof buf, g->param[v]);
			agxset(n, ap, buf);
		}
		if (g->out[v] != 0) {
			num(buf, sizeof buf, g->out[v]);
			agxset(n, ao, buf);
		}
		if (ag && g->group[v] >= 0)
			agxset(n, ag, g->group_name[g->group[v]]);
		if (ab && g->backward[v])
			agxset(n, ab, "true");
		if (as) {
			snprintf(buf, sizeof buf, "%d", stage[v] + 1);
			agxset(n, as, buf);
		}
	}
	for (int v = 0; v < g->n; v++)
		for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++)
			agedge(G, nodes[v], nodes[g->succ[i]], NULL, 1);
	free(nodes);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		agclose(G);
		return sc_error_nomem(err, "the DOT text");
	}
	int bad = agwrite(G, f);
	fclose(f);
	agclose(G);
	if (bad || !text) {
		free(text);
		return sc_error_set(err, SC_ERR_IO, "%s: cannot format the graph as DOT", path);
	}
	sc_status st = sc_file_write_atomic(path, text, len, err);
	free(text);
	return st;
}

sc_status sc_write_dot(const sc_graph *g, const int *stage, const char *path, sc_error *err)
{
	return write_dot(g, stage, g->settings.k, path, err);
}

sc_status sc_write_dot_partition(const sc_graph *g, const int *stage, int k, const char *path,
                                 sc_error *err)
{
	return write_dot(g, stage, k, path, err);
}

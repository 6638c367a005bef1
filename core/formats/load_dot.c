/*
 * load_dot.c - DOT graphs through Graphviz cgraph (DESIGN.md section 2).
 *
 * Graph attributes k, bandwidth, memory, memory_policy; node attributes work,
 * param, out, group, stage, backward (true or false: an op of a training
 * graph's backward pass), cpu_work (the op's time on a CPU stage; without
 * it the op never goes to one) and accel_ok (false: only a CPU stage may
 * hold the op).  cgraph reports syntax errors through a user
 * error function, which here copies the first error into a buffer instead of
 * printing it; cgraph keeps that state globally, so loading is not
 * thread-safe.  cgraph does not keep source lines for nodes, so attribute
 * errors name the node and the attribute but no line.
 *
 * cgraph's lexer also keeps state from one file to the next (found by
 * tests/fuzz/fuzz_dot.c, which loads a known graph after every input):
 *  - a file ending inside a quoted string, an HTML string or a comment reads
 *    as "no graph" without an error and leaves the lexer inside it, so every
 *    later DOT file in the process reads as more of that string; and '@'
 *    outside them is its end of input, so whatever follows is dropped.
 *    check_lexical refuses such files (and NUL bytes, which cut cgraph's
 *    lines short) before cgraph sees them;
 *  - it reads by lines and keeps what it has not parsed of one for the next
 *    read, so parse_dot reads every file to its end;
 *  - a "#line N \"name\"" directive renames the input for later errors, so
 *    parse_dot resets the name before each file.
 *
 * Longer than 600 lines: the guards against the quirks above (the error
 * buffer, the timed read, the lexical and room checks) are one piece with
 * parse_dot, which sets and resets cgraph's global state around them in
 * this file's statics; the rest is one short function per step of the load
 * (parse_dot, read_settings, read_nodes and read_op, read_kinds).
 */
#define _POSIX_C_SOURCE 200809L
#include "load.h"

#include "core/fleet.h"

#include "core/clock.h"

#include <stdint.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <graphviz/cgraph.h>

#include "core/mem.h"

static char dot_errbuf[512];

static int collect_error(char *msg)
{
	/* keep the first message; cgraph may send it in pieces */
	size_t used = strlen(dot_errbuf);
	if (used < sizeof dot_errbuf - 1 && !strchr(dot_errbuf, '\n'))
		snprintf(dot_errbuf + used, sizeof dot_errbuf - used, "%s", msg);
	return 0;
}

/* Turns cgraph's "Error: <stdin>: syntax error in line 3 near 'x'" into
 * "syntax error in line 3 near 'x'". */
static const char *clean_error(void)
{
	char *s = dot_errbuf;
	char *nl = strchr(s, '\n');
	if (nl)
		*nl = '\0';
	if (strncmp(s, "Error: ", 7) == 0)
		s += 7;
	if (strncmp(s, "Warning: ", 9) == 0)
		s += 9;
	if (strncmp(s, "<stdin>: ", 9) == 0)
		s += 9;
	else if (s[0] == '(' && strncmp(s, "(null): ", 8) == 0)
		s += 8;
	return *s ? s : "malformed DOT";
}

/* A DOT file begins with a comment or with [strict] (di)graph, in any case. */
static int probe_dot(const char *path, const char *head, size_t len)
{
	static const char *const first[] = {"strict", "digraph", "graph", "//", "/*", "#"};
	for (size_t i = 0; i < sizeof first / sizeof *first; i++) {
		size_t n = strlen(first[i]);
		if (len >= n && strncasecmp(head, first[i], n) == 0)
			return SC_PROBE_CONTENT;
	}
	return sc_has_extension(path, ".dot") || sc_has_extension(path, ".gv") ? SC_PROBE_EXTENSION
	                                                                       : SC_PROBE_NO;
}

/* The value of attribute name on object obj, or NULL when absent or empty. */
static const char *attr(void *obj, int kind, Agraph_t *g, const char *name)
{
	Agsym_t *sym = agattr(g, kind, (char *)name, NULL);
	if (!sym)
		return NULL;
	const char *v = agxget(obj, sym);
	return v && *v ? v : NULL;
}

/* Device kinds (fleet.h): every node attribute work_NAME is a table of op
 * times on the kind NAME; an op without the attribute may not run there.
 * Added to out (whose ops index[AGSEQ(v)] numbers).  SC_OK, or an error
 * naming the node and attribute. */
static sc_status read_kinds(Agraph_t *g, const char *path, const int *index, sc_graph *out,
                            sc_error *err)
{
	for (Agsym_t *sym = agnxtattr(g, AGNODE, NULL); sym; sym = agnxtattr(g, AGNODE, sym)) {
		if (strncmp(sym->name, "work_", 5) != 0)
			continue;
		const char *kind = sym->name + 5;
		sc_fleet check;
		char spec[96];
		snprintf(spec, sizeof spec, "%.60s:1", kind);
		if (!*kind || strlen(kind) >= SC_KIND_NAME || strcmp(kind, "cpu") == 0 ||
		    !sc_fleet_parse(spec, &check, NULL))
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: node attribute '%s' names no device kind (work_NAME, "
			        "NAME of letters, digits, _ - . and not 'cpu', whose "
			        "times are cpu_work)",
			        path, sym->name);
		double *w = malloc((size_t)(out->n > 0 ? out->n : 1) * sizeof *w);
		if (!w)
			return sc_error_nomem(err, "a device's op times");
		for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v)) {
			const char *t = agxget(v, sym);
			double x = NAN;
			if (t && *t && !sc_parse_weight(t, &x)) {
				free(w);
				return sc_error_set(
				        err, SC_ERR_INPUT,
				        "%s: node '%s' attribute '%s': '%s' is not a finite "
				        "number >= 0",
				        path, agnameof(v), sym->name, t);
			}
			w[index[AGSEQ(v)]] = x;
		}
		if (sc_graph_add_kind(out, kind, w, NAN, NAN, err) != SC_OK)
			return err ? err->code : SC_ERR_INPUT;
	}
	return SC_OK;
}

static bool parse_int(const char *text, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	while (isspace((unsigned char)*text))
		text++;
	long x = strtol(text, &end, 10);
	if (end == text || errno)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end || x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

/* Scans data[0..len) with the rules of cgraph's lexer (lib/cgraph/scan.l,
 * Graphviz 2.42) for what starts and ends comments and strings, and fails
 * when the file ends inside a comment, a quoted string or an HTML string,
 * or has '@' outside them (see the top of the file), or has a NUL byte. */
static sc_status check_lexical(const char *data, size_t len, const char *path, sc_error *err)
{
	enum { CODE, SLASH, LINE_COMMENT, COMMENT, STAR, QUOTED, ESCAPE, HTML } state = CODE;
	static const char *const what[] = {
	        [COMMENT] = "comment (no closing '*/')",
	        [STAR] = "comment (no closing '*/')",
	        [QUOTED] = "quoted string (no closing '\"')",
	        [ESCAPE] = "quoted string (no closing '\"')",
	        [HTML] = "HTML string (no closing '>')",
	};
	long line = 1, start = 1, nest = 0;
	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)data[i];
		/* cgraph reads by lines with fgets, so a NUL byte cuts its line
		 * short: the lexer would not see what this scan sees */
		if (c == '\0') {
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: binary data (byte 0x00 in line %ld), not a DOT graph", path,
			        line);
		}
		switch (state) {
		case SLASH:
			if (c == '*') {
				state = COMMENT;
				break;
			}
			if (c == '/') {
				state = LINE_COMMENT;
				break;
			}
			/* a lone '/': c is code */
			state = CODE;
			/* fall through */
		case CODE:
			if (c == '/') {
				state = SLASH;
				start = line;
			} else if (c == '#') {
				state = LINE_COMMENT;
			} else if (c == '"') {
				state = QUOTED;
				start = line;
			} else if (c == '<') {
				state = HTML;
				nest = 1;
				start = line;
			} else if (c == '@') {
				return sc_error_set(
				        err, SC_ERR_INPUT,
				        "%s: '@' in line %ld outside a string (Graphviz "
				        "would take it as the end of the file)",
				        path, line);
			}
			break;
		case LINE_COMMENT:
			if (c == '\n')
				state = CODE;
			break;
		case COMMENT:
		case STAR:
			state = c == '*' ? STAR : state == STAR && c == '/' ? CODE : COMMENT;
			break;
		case QUOTED:
			if (c == '\\')
				state = ESCAPE; /* \" and \\ do not end or start anything */
			else if (c == '"')
				state = CODE;
			break;
		case ESCAPE: state = QUOTED; break;
		case HTML:
			if (c == '<')
				nest++;
			else if (c == '>' && --nest == 0)
				state = CODE;
			break;
		}
		if (c == '\n')
			line++;
	}
	if (state >= COMMENT)
		return sc_error_set(err, SC_ERR_INPUT, "%s: unterminated %s starting in line %ld",
		                    path, what[state], start);
	return SC_OK;
}

/* cgraph does not survive running out of memory (it dereferences the
 * NULL it got, or exits), so make sure first that the address space has
 * room for what loading needs: cgraph and the graph take about 8 times the
 * file's size at the peak (a 10.5 MB file loads in 135 MB of address space,
 * the program itself taking under 60), taken as 9 times plus 8 MiB; near
 * the edge a load that would just fit is refused.  With no limit on the
 * address space malloc only reserves, so this costs nothing. */
static sc_status check_room(size_t len, const char *path, sc_error *err)
{
	double need = (double)len * 9 + (8 << 20);
	if (!sc_mem_room(need))
		return sc_error_set(err, SC_ERR_NOMEM,
		                    "%s: out of memory: loading this graph needs about %.0f MiB",
		                    path, need / (1 << 20));
	return SC_OK;
}

static sc_status read_settings(Agraph_t *g, const char *path, sc_settings *s, sc_error *err)
{
	sc_settings_init(s);
	const char *v;
	long k;
	if ((v = attr(g, AGRAPH, g, "k"))) {
		if (!parse_int(v, 1, 1000000, &k))
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: graph attribute 'k': '%s' is not an integer from 1 to 1000000",
			        path, v);
		s->k = (int)k;
	}
	if ((v = attr(g, AGRAPH, g, "bandwidth"))) {
		if (!sc_parse_weight(v, &s->bandwidth) || s->bandwidth <= 0)
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: graph attribute 'bandwidth': '%s' is not a finite number > 0",
			        path, v);
	}
	if ((v = attr(g, AGRAPH, g, "memory"))) {
		if (strcmp(v, "inf") == 0 || strcmp(v, "unlimited") == 0)
			s->memory = INFINITY;
		else if (!sc_parse_weight(v, &s->memory))
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: graph attribute 'memory': '%s' is not a number >= 0 or 'inf'",
			        path, v);
	}
	if ((v = attr(g, AGRAPH, g, "memory_policy"))) {
		if (!sc_mem_policy_parse(v, &s->policy))
			return sc_error_set(err, SC_ERR_INPUT,
			                    "%s: graph attribute 'memory_policy': '%s' is not "
			                    "'overflow' or 'hard'",
			                    path, v);
	}
	return SC_OK;
}

/* cgraph reads through its discipline's afread: this one stops at the
 * deadline of the load (read_deadline), an end of input cgraph then
 * reports as a syntax error, which parse_dot turns into the time limit.
 * What was read must still be freed by cgraph (in its parser when it
 * stops, in agclose after a whole read) and turned into a graph, which
 * on generated graphs of 10^5 ops takes about 0.7 times the parse
 * (0.73 s to free and 0.22 s to build after a parse of 1.3 s): the read
 * stops where what it read could no longer be undone by the deadline.
 * (cgraph's parser has global state anyway: loading is not thread-safe.) */
#define AFTER_PARSE 0.8
static bool out_of_time;
static double read_started, read_deadline;
static Agiodisc_t timed_io;

/* cgraph frees a graph as millions of small blocks, which glibc's malloc
 * gathers again at the next large allocation (0.09 s after 10^5 ops):
 * gathered here, it is the load's time, and the memory goes back. */
static void release_freed(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

static int timed_read(void *chan, char *buf, int size)
{
	double now = sc_clock_now();
	if (read_deadline > 0 && now + AFTER_PARSE * (now - read_started) > read_deadline) {
		out_of_time = true;
		return 0;
	}
	return AgIoDisc.afread(chan, buf, size);
}

/* Parses data[0..len) (path names it in messages) with cgraph, stopping at
 * deadline (sc_clock_now(); 0: none), after checking what cgraph cannot
 * take (check_lexical, check_room).  Returns the one graph in the file (the
 * caller agcloses it), or NULL with err set: a syntax error or warning, no
 * graph or more than one, the time limit. */
static Agraph_t *parse_dot(const char *path, const char *data, size_t len, double deadline,
                           sc_error *err)
{
	if (check_lexical(data, len, path, err) != SC_OK || check_room(len, path, err) != SC_OK)
		return NULL;
	/* cgraph reads a FILE: the file's bytes, already in memory */
	FILE *f = fmemopen((void *)data, len, "r");
	if (!f) {
		sc_error_set(err, errno == ENOMEM ? SC_ERR_NOMEM : SC_ERR_IO, "%s: cannot read: %s",
		             path, strerror(errno));
		return NULL;
	}
	dot_errbuf[0] = '\0';
	agusererrf old = agseterrf(collect_error);
	/* warnings too: cgraph warns where it reads something other than what
	 * was written (a badly delimited number), and reading on would be a
	 * silent wrong answer */
	agerrlevel_t oldlvl = agseterr(AGWARN);
	/* line 1 and no file name: a "#line N \"name\"" directive in an
	 * earlier file would otherwise name that file in this one's errors */
	agsetfile(NULL);
	out_of_time = false;
	read_deadline = deadline;
	read_started = sc_clock_now();
	timed_io = AgIoDisc;
	timed_io.afread = timed_read;
	Agdisc_t disc = {&AgMemDisc, &AgIdDisc, &timed_io};
	Agraph_t *g = agread(f, &disc);
	/* cgraph stops after the first graph; anything after it (a second graph
	 * or stray text) would be silently ignored, so read on and refuse it.
	 * Read on to the end of the file: cgraph reads by lines and would parse
	 * what it has left of one as the start of the next file it reads. */
	bool first_failed = dot_errbuf[0] != '\0';
	Agraph_t *extra = NULL, *more;
	if (g)
		while ((more = agread(f, &disc)) != NULL) {
			if (extra)
				agclose(more);
			else
				extra = more;
		}
	long read = ftell(f);
	fclose(f);
	agseterrf(old);
	agseterr(oldlvl);
	if (out_of_time) {
		if (extra)
			agclose(extra);
		if (g)
			agclose(g);
		release_freed();
		sc_error_set(err, SC_ERR_LIMIT,
		             "%s: the time limit ran out while loading, %.0f%% of the file read",
		             path, len ? 100.0 * (double)read / (double)len : 100.0);
		return NULL;
	}
	if (extra && first_failed) {
		agclose(extra); /* the first graph's own error comes first */
		extra = NULL;
	}
	if (extra) {
		/* cgraph names anonymous graphs "%N"; quote only real names */
		const char *second = agnameof(extra);
		bool named = second && *second && *second != '%';
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: more than one graph in the file%s%s%s; stagecut reads one", path,
		             named ? " (a second graph '" : "", named ? second : "",
		             named ? "' follows the first)" : "");
		agclose(extra);
		agclose(g);
		return NULL;
	}
	if (!g || dot_errbuf[0]) {
		/* a file named neither .dot nor .gv was read as DOT only because it
		 * did not look like JSON: say that its format is unknown */
		bool named_dot = sc_has_extension(path, ".dot") || sc_has_extension(path, ".gv");
		/* a number like 1e9 unquoted is two tokens to cgraph (1e, 9): its
		 * warning fails the load, which would else read 1 and a phantom op */
		bool number = strstr(dot_errbuf, "badly delimited number") != NULL;
		sc_error_set(err, SC_ERR_INPUT, "%s: %s%s%s", path,
		             named_dot ? "" : "unknown format (neither DOT nor msr-fiddle JSON): ",
		             dot_errbuf[0] ? clean_error() : "no graph in the file",
		             number ? " (quote a number with an exponent: memory = \"1e9\")" : "");
		if (g)
			agclose(g);
		return NULL;
	}
	return g;
}

/* Node v of g added to b as an op: its costs (work, param, out), group,
 * pass (backward) and devices (cpu_work, accel_ok).  Returns the op's
 * index in b, or -1 with err set (naming the node and attribute). */
static int read_op(Agraph_t *g, Agnode_t *v, const char *path, sc_builder *b, sc_error *err)
{
	static const char *const wname[3] = {"work", "param", "out"};
	const char *name = agnameof(v);
	double w[3] = {0, 0, 0};
	for (int a = 0; a < 3; a++) {
		const char *t = attr(v, AGNODE, g, wname[a]);
		if (t && !sc_parse_weight(t, &w[a])) {
			sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: node '%s' attribute '%s': '%s' is not a finite number >= 0",
			        path, name, wname[a], t);
			return -1;
		}
	}
	/* partition files and --json name ops in JSON, which is UTF-8 */
	const char *group = attr(v, AGNODE, g, "group");
	size_t bad;
	if (!sc_utf8_valid(name, &bad)) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: node '%s': the name is not valid UTF-8 (byte 0x%02x at offset "
		             "%zu), which partition files cannot name",
		             path, name, (unsigned char)name[bad], bad);
		return -1;
	}
	if (group && !sc_utf8_valid(group, &bad)) {
		sc_error_set(
		        err, SC_ERR_INPUT,
		        "%s: node '%s' attribute 'group': '%s' is not valid UTF-8 (byte 0x%02x "
		        "at offset %zu)",
		        path, name, group, (unsigned char)group[bad], bad);
		return -1;
	}
	int i = sc_builder_add_op(b, name, w[0], w[1], w[2], group, err);
	if (i < 0)
		return -1;
	const char *bw = attr(v, AGNODE, g, "backward");
	if (bw && strcmp(bw, "true") != 0 && strcmp(bw, "false") != 0) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: node '%s' attribute 'backward': '%s' is not true or false", path,
		             name, bw);
		return -1;
	}
	if (bw && strcmp(bw, "true") == 0 && sc_builder_set_backward(b, i, err) != SC_OK)
		return -1;
	/* CPU stages (001 section 3): cpu_work is the op's CPU time, and an op
	 * without one never goes to a CPU stage; accel_ok=false keeps it off
	 * the accelerators */
	const char *cw = attr(v, AGNODE, g, "cpu_work");
	const char *ak = attr(v, AGNODE, g, "accel_ok");
	double cpu = 0;
	if (cw && !sc_parse_weight(cw, &cpu)) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: node '%s' attribute 'cpu_work': '%s' is not a finite number >= 0",
		             path, name, cw);
		return -1;
	}
	if (ak && strcmp(ak, "true") != 0 && strcmp(ak, "false") != 0) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: node '%s' attribute 'accel_ok': '%s' is not true or false", path,
		             name, ak);
		return -1;
	}
	if ((cw || ak) && sc_builder_set_devices(b, i, cpu, cw != NULL,
	                                         !ak || strcmp(ak, "true") == 0, err) != SC_OK)
		return -1;
	return i;
}

/* Every node of g into b (read_op), with its stage when the file gives
 * one: all nodes or none; k, when set (the settings b has) does not give
 * it, becomes the highest stage.  index[AGSEQ(v)] gets v's op index, and
 * stage (room for one per node) the starting stages.  SC_OK, or the first
 * error. */
static sc_status read_nodes(Agraph_t *g, const char *path, sc_builder *b, sc_settings *set,
                            int *index, int *stage, sc_error *err)
{
	int nstaged = 0, maxstage = 0;
	const char *first_unstaged = NULL;
	for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v)) {
		int i = read_op(g, v, path, b, err);
		if (i < 0)
			return err ? err->code : SC_ERR_INPUT;
		index[AGSEQ(v)] = i;
		const char *t = attr(v, AGNODE, g, "stage");
		long s;
		if (t) {
			if (!parse_int(t, 1, set->k ? set->k : 1000000, &s))
				return sc_error_set(
				        err, SC_ERR_INPUT,
				        "%s: node '%s' attribute 'stage': '%s' is not an "
				        "integer from 1 to %d",
				        path, agnameof(v), t, set->k ? set->k : 1000000);
			stage[i] = (int)s - 1;
			nstaged++;
			if (s > maxstage)
				maxstage = (int)s;
		} else if (!first_unstaged) {
			first_unstaged = agnameof(v);
		}
	}
	if (nstaged > 0 && first_unstaged)
		return sc_error_set(
		        err, SC_ERR_INPUT,
		        "%s: node '%s' has no 'stage' attribute although other nodes have one",
		        path, first_unstaged);
	if (nstaged > 0) {
		if (set->k == 0) {
			set->k = maxstage;
			sc_builder_set_settings(b, set);
		}
		return sc_builder_set_init_stage(b, stage, err);
	}
	return SC_OK;
}

/* Parses the file (parse_dot), then reads the settings, the nodes and the
 * edges, in that order (a file with several faults gets the message of the
 * first), finishes the graph and adds its device kinds (read_kinds). */
static sc_graph *load_dot(const char *path, const char *data, size_t len, const sc_load_opts *opts,
                          sc_error *err)
{
	Agraph_t *g = parse_dot(path, data, len, opts ? opts->deadline : 0, err);
	if (!g)
		return NULL;
	sc_graph *out = NULL;
	sc_builder *b = sc_builder_new();
	int *index = NULL, *stage = NULL;
	if (!b) {
		sc_error_nomem(err, "the graph");
		goto done;
	}
	if (!agisdirected(g)) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: the graph is undirected; stagecut needs a digraph", path);
		goto done;
	}
	sc_settings set;
	if (read_settings(g, path, &set, err) != SC_OK)
		goto done;
	sc_builder_set_settings(b, &set);

	int n = agnnodes(g);
	IDTYPE maxseq = 0;
	for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v))
		if (AGSEQ(v) > maxseq)
			maxseq = AGSEQ(v);
	index = malloc(((size_t)maxseq + 1) * sizeof *index);
	stage = sc_malloc_n((size_t)n, sizeof *stage);
	if (!index || !stage) {
		sc_error_nomem(err, "the graph");
		goto done;
	}
	if (read_nodes(g, path, b, &set, index, stage, err) != SC_OK)
		goto done;
	for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v))
		for (Agedge_t *e = agfstout(g, v); e; e = agnxtout(g, e))
			if (sc_builder_add_edge(b, index[AGSEQ(v)], index[AGSEQ(aghead(e))], err) !=
			    SC_OK)
				goto done;
	out = sc_builder_finish(b, path, NULL, err);
	if (out && read_kinds(g, path, index, out, err) != SC_OK) {
		sc_graph_free(out);
		out = NULL;
	}
done:
	free(index);
	free(stage);
	sc_builder_free(b);
	agclose(g);
	release_freed();
	return out;
}

const sc_loader sc_loader_dot = {
        .name = "dot",
        .text = true,
        .probe = probe_dot,
        .load = load_dot,
};

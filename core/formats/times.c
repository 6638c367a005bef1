/*
 * times.c - measured op times: an ONNX Runtime profile or a CSV read into an
 * sc_times, written back as a CSV, and put in place of a graph's work.
 * See times.h for the formats and the contract.
 *
 * Reading.  The whole file is read into memory; its first byte after
 * blanks (and a UTF-8 byte order mark) picks the format: '[' or '{' a
 * profile (parsed with jansson, without refusing repeated keys: ORT writes
 * none, and they are no reason to refuse a profile), anything else a CSV.  A profile's kernel
 * events are sorted by name (then by position) so that each kernel's durations lie together for its
 * median; the entries are then put back in the order of their first event,
 * the order the kernels ran in.  A CSV is scanned byte by byte so that a
 * quoted name may hold commas, quotes and even line breaks; duplicates are
 * found by sorting, and the first one in the file is named.
 *
 * Applying (sc_times_apply) goes in three steps that change nothing in the
 * graph until the last: map each entry to an op (by name, through a folded
 * op, by the tensor it is named after, by the node an ONNX Runtime fusion
 * was made from, or attached to the kernel it serves in the profile), group
 * the ops no entry names with the fused kernels next to them, and share
 * each kernel's time among its ops.  Every entry's time lands on exactly
 * one kernel, and a kernel's shares sum to its time, so the file's total is
 * kept (less what folded ops with no consumer drop).
 *
 * The entry array grows by doubling at powers of two (an array of n
 * entries has room for the next power of two >= n), so that sc_times_add
 * also works on a table sc_times_read made without storing a capacity.
 *
 * Longer than 600 lines: the two readers, the writer and the mapping are
 * one module behind one header; each has its own section below.
 */
#define _POSIX_C_SOURCE 200809L
#include "times.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/fileio.h"
#include "core/mem.h"
#include "core/parse.h"

#define KERNEL_SUFFIX "_kernel_time"

/* ---- the table ------------------------------------------------------------- */

static sc_times *table_new(const char *path, sc_times_format format)
{
	sc_times *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->path = strdup(path ? path : "");
	if (!t->path) {
		free(t);
		return NULL;
	}
	t->format = format;
	t->runs = 1;
	return t;
}

/* Appends an entry owning name and op_type (both freed on failure). */
static bool push(sc_times *t, char *name, char *op_type, double us, int line)
{
	if (!name || t->n == INT_MAX)
		goto fail;
	if ((t->n & (t->n - 1)) == 0) { /* 0 or a power of two: full */
		size_t cap = t->n ? 2 * (size_t)t->n : 1;
		sc_times_entry *e = realloc(t->e, cap * sizeof *e);
		if (!e)
			goto fail;
		t->e = e;
	}
	t->e[t->n++] = (sc_times_entry){.name = name, .op_type = op_type, .us = us, .line = line};
	return true;
fail:
	free(name);
	free(op_type);
	return false;
}

sc_times *sc_times_new(const char *label)
{
	return table_new(label, SC_TIMES_MEMORY);
}

void sc_times_free(sc_times *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++) {
		free(t->e[i].name);
		free(t->e[i].op_type);
	}
	free(t->e);
	free(t->path);
	free(t);
}

sc_status sc_times_add(sc_times *t, const char *name, double us, sc_error *err)
{
	if (!name || !name[0])
		return sc_error_set(err, SC_ERR_INPUT, "%s: an entry with no name", t->path);
	if (!isfinite(us) || us < 0)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: the time of '%s' is %g, not a number of microseconds >= 0",
		                    t->path, name, us);
	/* a linear search: tables made in memory are small, files use a sort */
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].name, name))
			return sc_error_set(err, SC_ERR_INPUT, "%s: '%s' is added twice", t->path,
			                    name);
	if (!push(t, strdup(name), NULL, us, 0))
		return sc_error_nomem(err, "a time entry");
	return SC_OK;
}

/* ---- reading a file ---------------------------------------------------------- */

/* one "_kernel_time" event of a profile; name and op_type live in the tree */
typedef struct kevent {
	const char *name;
	const char *op_type;
	size_t index; /* in the event array */
	double dur;
	double device; /* the durations of the device kernels it launched */
} kevent;

static int cmp_kevent(const void *a, const void *b)
{
	const kevent *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* kernels (their first events) in the order they first ran */
static int cmp_first(const void *a, const void *b)
{
	const kevent *x = *(kevent *const *)a, *y = *(kevent *const *)b;
	return (x->index > y->index) - (x->index < y->index);
}

/* Checks event i and adds it to ev when it is a kernel's; counts runs. */
static sc_status scan_event(const char *path, json_t *e, size_t i, kevent *ev, size_t *nk,
                            int *runs, sc_error *err)
{
	if (!json_is_object(e))
		return sc_error_set(err, SC_ERR_INPUT, "%s: event [%zu] is %s, not an object", path,
		                    i, sc_json_kind(e));
	const char *cat = json_string_value(json_object_get(e, "cat"));
	const char *name = json_string_value(json_object_get(e, "name"));
	if (!cat)
		return SC_OK;
	if (!strcmp(cat, "Session") && name && !strcmp(name, "model_run"))
		(*runs)++;
	if (strcmp(cat, "Node"))
		return SC_OK;
	if (!name)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: event [%zu]: a \"Node\" event whose \"name\" is %s, not a "
		                    "string",
		                    path, i, sc_json_kind(json_object_get(e, "name")));
	size_t len = strlen(name), slen = strlen(KERNEL_SUFFIX);
	if (len < slen || strcmp(name + len - slen, KERNEL_SUFFIX))
		return SC_OK; /* _fence_before, _fence_after */
	if (len == slen)
		return sc_error_set(err, SC_ERR_INPUT, "%s: event [%zu]: a kernel with no name",
		                    path, i);
	json_t *d = json_object_get(e, "dur");
	if (!json_is_number(d))
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: event [%zu] '%s': \"dur\" is %s, not a number of "
		                    "microseconds",
		                    path, i, name, sc_json_kind(d));
	double dur = json_number_value(d);
	if (!isfinite(dur) || dur < 0)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: event [%zu] '%s': \"dur\" is %g, not a time >= 0", path, i,
		                    name, dur);
	json_t *args = json_object_get(e, "args");
	ev[(*nk)++] = (kevent){.name = name,
	                       .op_type = json_string_value(json_object_get(args, "op_name")),
	                       .index = i,
	                       .dur = dur};
	return SC_OK;
}

/* A "cat": "Kernel" event (a CUDA kernel, with ORT's CUDA profiling): its
 * duration is added to the node event before it, last (none: ignored). */
static sc_status device_kernel(const char *path, json_t *e, size_t i, kevent *last, bool *device,
                               sc_error *err)
{
	const char *cat = json_string_value(json_object_get(e, "cat"));
	if (!cat || strcmp(cat, "Kernel") != 0)
		return SC_OK;
	json_t *d = json_object_get(e, "dur");
	double dur = json_is_number(d) ? json_number_value(d) : -1;
	if (!isfinite(dur) || dur < 0)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: event [%zu]: a \"Kernel\" event whose \"dur\" is %s, not "
		                    "a time >= 0",
		                    path, i, json_is_number(d) ? "negative" : sc_json_kind(d));
	*device = true;
	if (last)
		last->device += dur;
	return SC_OK;
}

/* The medians of the sorted kevents into t, in the order of first events. */
static sc_status take_medians(sc_times *t, kevent *ev, size_t nk, sc_error *err)
{
	double *dur = sc_malloc_n(nk, sizeof *dur);
	kevent **first = sc_malloc_n(nk, sizeof *first);
	sc_status st = SC_OK;
	if (!dur || !first) {
		st = sc_error_nomem(err, "the profile's kernels");
		goto done;
	}
	size_t nkern = 0;
	int most = 0;
	for (size_t i = 0, j; i < nk; i = j) {
		for (j = i; j < nk && !strcmp(ev[j].name, ev[i].name); j++)
			dur[j - i] = ev[j].dur;
		size_t c = j - i;
		qsort(dur, c, sizeof *dur, cmp_double);
		/* the group's first event (its lowest index) stands for it and
		 * holds the median; halves first: the mean of two finite times
		 * never overflows */
		ev[i].dur = c % 2 ? dur[c / 2] : 0.5 * dur[c / 2 - 1] + 0.5 * dur[c / 2];
		if (c > (size_t)most)
			most = c > INT_MAX ? INT_MAX : (int)c;
		first[nkern++] = &ev[i];
	}
	qsort(first, nkern, sizeof *first, cmp_first);
	if (t->runs <= 0)
		t->runs = most;
	for (size_t k = 0; k < nkern; k++) {
		const kevent *e = first[k];
		char *op = e->op_type ? strdup(e->op_type) : NULL;
		if ((e->op_type && !op) ||
		    !push(t, strndup(e->name, strlen(e->name) - strlen(KERNEL_SUFFIX)), op, e->dur,
		          0)) {
			st = sc_error_nomem(err, "the profile's kernels");
			goto done;
		}
	}
done:
	free(dur);
	free(first);
	return st;
}

static sc_times *read_ort(const char *path, const char *text, size_t len, sc_error *err)
{
	json_error_t jerr;
	json_t *root = sc_json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		sc_json_error(err, path, &jerr);
		return NULL;
	}
	sc_times *t = NULL;
	kevent *ev = NULL;
	json_t *events = json_is_object(root) ? json_object_get(root, "traceEvents") : root;
	if (!json_is_array(events)) {
		sc_error_set(
		        err, SC_ERR_INPUT,
		        "%s: not an ONNX Runtime profile: \"traceEvents\" is %s, not an array of "
		        "events",
		        path, sc_json_kind(events));
		goto fail;
	}
	size_t nev = json_array_size(events), nk = 0;
	int runs = 0;
	ev = sc_malloc_n(nev, sizeof *ev);
	if (!ev) {
		sc_error_nomem(err, "the profile's events");
		goto fail;
	}
	bool device = false;
	for (size_t i = 0; i < nev; i++) {
		json_t *e = json_array_get(events, i);
		if (scan_event(path, e, i, ev, &nk, &runs, err) != SC_OK)
			goto fail;
		if (device_kernel(path, e, i, nk ? &ev[nk - 1] : NULL, &device, err) != SC_OK)
			goto fail;
	}
	/* a GPU profile: the device's time, not the host's launch time */
	for (size_t k = 0; device && k < nk; k++)
		ev[k].dur = ev[k].device;
	if (nk == 0) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: no kernel events (\"cat\": \"Node\", named *" KERNEL_SUFFIX
		             "): not an ONNX Runtime profile, or one of no run",
		             path);
		goto fail;
	}
	qsort(ev, nk, sizeof *ev, cmp_kevent);
	t = table_new(path, SC_TIMES_ORT);
	if (!t) {
		sc_error_nomem(err, "the times");
		goto fail;
	}
	t->runs = runs;
	t->device_times = device;
	if (take_medians(t, ev, nk, err) != SC_OK)
		goto fail;
	free(ev);
	json_decref(root);
	return t;
fail:
	sc_times_free(t);
	free(ev);
	json_decref(root);
	return NULL;
}

/* A CSV being read: p runs to end; line is p's line (from 1). */
typedef struct csv {
	const char *path;
	const char *p, *end;
	int line;
} csv;

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Reads one field at c->p up to a ',' or the end of the line (left at
 * c->p), unquoted, into a malloc'd string; NULL with err set. */
static char *csv_field(csv *c, sc_error *err)
{
	while (c->p < c->end && blank(*c->p))
		c->p++;
	const char *s = c->p;
	if (c->p < c->end && *c->p == '"') {
		int opened = c->line;
		char *out = malloc((size_t)(c->end - c->p) + 1), *o = out;
		if (!out) {
			sc_error_nomem(err, "a name");
			return NULL;
		}
		for (c->p++;; c->p++) {
			if (c->p == c->end) {
				free(out);
				sc_error_set(err, SC_ERR_INPUT,
				             "%s:%d: the quote opened on this line is never closed",
				             c->path, opened);
				return NULL;
			}
			if (*c->p == '"' && (c->p + 1 == c->end || c->p[1] != '"'))
				break;
			if (*c->p == '"')
				c->p++; /* "" is one quote */
			else if (*c->p == '\n')
				c->line++;
			*o++ = *c->p;
		}
		*o = '\0';
		for (c->p++; c->p < c->end && (blank(*c->p) || *c->p == '\r'); c->p++)
			;
		if (c->p < c->end && *c->p != ',' && *c->p != '\n') {
			free(out);
			sc_error_set(err, SC_ERR_INPUT, "%s:%d: text after a closing quote",
			             c->path, c->line);
			return NULL;
		}
		return out;
	}
	while (c->p < c->end && *c->p != ',' && *c->p != '\n')
		c->p++;
	const char *e = c->p;
	while (e > s && (blank(e[-1]) || e[-1] == '\r'))
		e--;
	char *out = strndup(s, (size_t)(e - s));
	if (!out)
		sc_error_nomem(err, "a name");
	return out;
}

/* Whether a time field is meant as a number (a header's is not). */
static bool numeric(const char *s)
{
	if (!*s || isdigit((unsigned char)*s) || strchr("+-.", *s))
		return true;
	char *end;
	(void)strtod(s, &end); /* "nan", "inf", but not "inference_us" */
	return end != s && !*end;
}

static int cmp_by_name(const void *a, const void *b)
{
	const sc_times_entry *x = *(sc_times_entry *const *)a, *y = *(sc_times_entry *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->line - y->line;
}

/* A name given twice: an error naming the first repeat in the file. */
static sc_status csv_duplicates(const sc_times *t, sc_error *err)
{
	sc_times_entry **by = sc_malloc_n((size_t)t->n, sizeof *by);
	if (!by)
		return sc_error_nomem(err, "the times");
	for (int i = 0; i < t->n; i++)
		by[i] = &t->e[i];
	qsort(by, (size_t)t->n, sizeof *by, cmp_by_name);
	const sc_times_entry *first = NULL, *again = NULL;
	for (int i = 1, from = 0; i < t->n; i++) {
		if (strcmp(by[i - 1]->name, by[i]->name)) {
			from = i; /* the first line of this name */
			continue;
		}
		if (!again || by[i]->line < again->line) {
			first = by[from];
			again = by[i];
		}
	}
	free(by);
	if (again)
		return sc_error_set(err, SC_ERR_INPUT, "%s:%d: '%s' again (first on line %d)",
		                    t->path, again->line, again->name, first->line);
	return SC_OK;
}

/* Parses the record at c->p (not blank, not a comment) into t. */
static sc_status csv_record(csv *c, sc_times *t, bool *header_ok, sc_error *err)
{
	int line = c->line, nf = 0;
	char *f[2] = {NULL, NULL};
	sc_status st = SC_OK;
	for (;;) {
		char *s = csv_field(c, err);
		if (!s) {
			st = err ? err->code : SC_ERR_INPUT;
			goto done;
		}
		if (nf < 2)
			f[nf] = s;
		else
			free(s);
		nf++;
		if (c->p == c->end || *c->p == '\n')
			break;
		c->p++; /* the comma */
	}
	if (nf != 2) {
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s:%d: %d field%s; a line is name,microseconds", c->path, line,
		                  nf, nf == 1 ? "" : "s");
		goto done;
	}
	bool header = *header_ok && !numeric(f[1]);
	*header_ok = false;
	if (header)
		goto done;
	size_t bad;
	double us;
	if (!f[0][0])
		st = sc_error_set(err, SC_ERR_INPUT, "%s:%d: a time with no name", c->path, line);
	else if (!sc_utf8_valid(f[0], &bad))
		st = sc_error_set(err, SC_ERR_INPUT, "%s:%d: the name is not UTF-8 (byte %zu)",
		                  c->path, line, bad + 1);
	else if (!sc_parse_weight(f[1], &us))
		st = sc_error_set(err, SC_ERR_INPUT,
		                  "%s:%d: the time of '%s' is '%s', not a number of microseconds "
		                  ">= 0",
		                  c->path, line, f[0], f[1]);
	else if (!push(t, f[0], NULL, us, line))
		st = sc_error_nomem(err, "the times");
	else
		f[0] = NULL; /* t owns it */
done:
	free(f[0]);
	free(f[1]);
	return st;
}

static sc_times *read_csv(const char *path, const char *text, size_t len, sc_error *err)
{
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		int line = 1;
		for (const char *q = text; q < nul; q++)
			line += *q == '\n';
		sc_error_set(err, SC_ERR_INPUT, "%s:%d: a NUL byte: not a text file", path, line);
		return NULL;
	}
	sc_times *t = table_new(path, SC_TIMES_CSV);
	if (!t) {
		sc_error_nomem(err, "the times");
		return NULL;
	}
	csv c = {.path = path, .p = text, .end = text + len, .line = 1};
	bool header_ok = true;
	while (c.p < c.end) {
		const char *q = c.p;
		while (q < c.end && (blank(*q) || *q == '\r'))
			q++;
		if (q < c.end && *q != '\n' && *q != '#') {
			c.p = q;
			if (csv_record(&c, t, &header_ok, err) != SC_OK)
				goto fail;
		}
		/* on to the next line (a record leaves c.p at its end) */
		c.p = memchr(c.p, '\n', (size_t)(c.end - c.p));
		if (!c.p)
			break;
		c.p++;
		c.line++;
	}
	if (t->n == 0) {
		sc_error_set(err, SC_ERR_INPUT,
		             "%s: no times in the file (lines name,microseconds)", path);
		goto fail;
	}
	if (csv_duplicates(t, err) != SC_OK)
		goto fail;
	return t;
fail:
	sc_times_free(t);
	return NULL;
}

sc_times *sc_times_read(const char *path, sc_error *err)
{
	size_t len;
	char *text = sc_file_read_all(path, "a file of times", &len, err);
	if (!text)
		return NULL;
	size_t at = 0;
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		at = 3; /* a byte order mark, which jansson would refuse */
	size_t i = at;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	sc_times *t = i < len && (text[i] == '[' || text[i] == '{')
	                      ? read_ort(path, text + at, len - at, err)
	                      : read_csv(path, text + at, len - at, err);
	free(text);
	return t;
}

/* ---- writing a CSV ----------------------------------------------------------- */

typedef struct sbuf {
	char *s;
	size_t len, cap;
	bool nomem;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
	if (b->nomem)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *s2 = realloc(b->s, cap);
		if (!s2) {
			b->nomem = true;
			return;
		}
		b->s = s2;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static bool needs_quotes(const char *name)
{
	size_t n = strlen(name);
	return strpbrk(name, ",\"#\r\n") || n == 0 || blank(name[0]) || blank(name[n - 1]);
}

sc_status sc_times_write_csv(const sc_times *t, const char *path, sc_error *err)
{
	sbuf b = {0};
	sb_put(&b, "name,microseconds\n", 18);
	for (int i = 0; i < t->n; i++) {
		const char *name = t->e[i].name;
		if (needs_quotes(name)) {
			sb_put(&b, "\"", 1);
			for (const char *q = name; *q; q++)
				sb_put(&b, *q == '"' ? "\"\"" : q, *q == '"' ? 2 : 1);
			sb_put(&b, "\"", 1);
		} else {
			sb_put(&b, name, strlen(name));
		}
		char num[40];
		int k = snprintf(num, sizeof num, ",%.17g\n", t->e[i].us);
		sb_put(&b, num, (size_t)k);
	}
	sc_status st = b.nomem ? sc_error_nomem(err, "the CSV of times")
	                       : sc_file_write_atomic(path, b.s, b.len, err);
	free(b.s);
	return st;
}

/* ---- applying ---------------------------------------------------------------- */

/* how an entry found its op */
enum { MAP_NONE = 0, MAP_NAME, MAP_TENSOR, MAP_FOLDED, MAP_FUSED };

/* The length of name without the "_token_<digits>" endings ONNX Runtime's
 * Graph::GenerateNodeName adds to a name already taken
 * ("gemm_input_reshape_token_8" -> "gemm_input_reshape"). */
static size_t untokened(const char *name, size_t len)
{
	static const char tok[] = "_token_";
	const size_t tl = sizeof tok - 1;
	for (;;) {
		size_t d = len;
		while (d > 0 && isdigit((unsigned char)name[d - 1]))
			d--;
		if (d == len || d < tl + 1 || memcmp(name + d - tl, tok, tl) != 0)
			return len;
		len = d - tl;
	}
}

static int in_range(const sc_graph *g, int v)
{
	return v >= 0 && v < g->n ? v : -1;
}

/* The op producing tensor x, or x with "_word" suffixes taken off one by one
 * ("/relu/Relu_output_0_nchwc" -> "/relu/Relu_output_0"), or else the
 * longest prefix of x that names a tensor; -1 when none; -2 out of memory. */
static int tensor_op(const sc_graph *g, const sc_times_names *names, const char *x)
{
	int v = in_range(g, names->producer(names->ctx, x));
	if (v >= 0)
		return v;
	size_t len = strlen(x);
	char *b = strdup(x);
	if (!b)
		return -2;
	for (char *u = strrchr(b, '_'); v < 0 && u && u > b; u = strrchr(b, '_')) {
		*u = '\0';
		v = in_range(g, names->producer(names->ctx, b));
	}
	memcpy(b, x, len + 1);
	for (size_t k = len ? len - 1 : 0; v < 0 && k > 0; k--) {
		b[k] = '\0';
		v = in_range(g, names->producer(names->ctx, b));
	}
	free(b);
	return v;
}

/* The op a fused kernel was made from, by ONNX Runtime's naming: its graph
 * optimizers name a node they make after the first node it replaces and
 * the optimizer, "<node>/LayerNormFusion/", "<node>/MatMulAddFusion", or
 * several in turn ("<node>/MatmulTransposeFusion//MatMulScaleFusion/"),
 * and Graph::GenerateNodeName adds "_token_<n>" to a name already taken.
 * So: x without its tokens, else the longest part of it before a '/' that
 * names an op (or a folded op: its consumer).  -1 when none; -2 out of
 * memory. */
static int fused_op(const sc_graph *g, const sc_times_names *names, const char *x)
{
	size_t len = untokened(x, strlen(x));
	char *b = strndup(x, len);
	if (!b)
		return -2;
	int v = -1;
	for (size_t k = len; v < 0 && k > 0; k--) {
		if (k < len && b[k] != '/')
			continue;
		b[k] = '\0';
		int to = -1;
		v = sc_graph_find(g, b);
		if (v < 0 && names->folded && names->folded(names->ctx, b, &to)) {
			v = in_range(g, to);
			break; /* a folded op's time goes where its own would */
		}
	}
	free(b);
	return v;
}

/* Maps entry e to an op in *op (-1: its time is dropped) and returns how. */
static int map_entry(const sc_graph *g, const sc_times_names *names, const sc_times_entry *e,
                     bool profile, int *op)
{
	*op = sc_graph_find(g, e->name);
	if (*op >= 0)
		return MAP_NAME;
	if (!names)
		return MAP_NONE;
	int to = -1;
	if (names->folded && names->folded(names->ctx, e->name, &to)) {
		*op = in_range(g, to);
		return MAP_FOLDED;
	}
	if (names->producer) {
		*op = tensor_op(g, names, e->name);
		if (*op >= 0 || *op == -2)
			return MAP_TENSOR;
	}
	*op = profile ? fused_op(g, names, e->name) : -1;
	if (*op >= 0 || *op == -2)
		return MAP_FUSED;
	*op = -1;
	return MAP_NONE;
}

/* The producer of v with a kernel that comes last in topological order,
 * the one v ran right after; -1 when none has a kernel. */
static int last_kernel_pred(const sc_graph *g, const int *kern, const int *pos, int v)
{
	int last = -1;
	for (int j = g->pred_off[v]; j < g->pred_off[v + 1]; j++) {
		int u = g->pred[j];
		if (kern[u] >= 0 && (last < 0 || pos[u] > pos[last]))
			last = u;
	}
	return last;
}

/* Whether every producer of v belongs to a kernel: an elementwise op with a
 * producer in none (LayerNorm's Sub after its ReduceMean) belongs with the
 * kernel its own result goes to, not with the one before. */
static bool inputs_ran(const sc_graph *g, const int *kern, int v)
{
	for (int j = g->pred_off[v]; j < g->pred_off[v + 1]; j++)
		if (kern[g->pred[j]] < 0)
			return false;
	return true;
}

/* Puts the ops no entry names (kern[v] < 0) with the kernels next to them:
 * first, in topological order, an op that names->follows and whose
 * producers all belong to kernels joins the kernel of its producer that ran
 * last (an Add and Relu after their Conv, not the block's input from
 * further back); then, from the sinks up, an op whose
 * consumers all belong to one kernel joins it (a Conv before the Relu the
 * kernel is named after); then, in topological order, an op still alone
 * joins the kernel of its producer that ran last. */
static sc_status group_fused(const sc_graph *g, const sc_times_names *names, int *kern,
                             sc_error *err)
{
	int *pos = sc_malloc_n((size_t)g->n, sizeof *pos);
	if (!pos)
		return sc_error_nomem(err, "the fused kernels");
	for (int i = 0; i < g->n; i++)
		pos[g->topo[i]] = i;
	for (int i = 0; names->follows && i < g->n; i++) {
		int v = g->topo[i];
		if (kern[v] >= 0 || !names->follows(names->ctx, v) || !inputs_ran(g, kern, v))
			continue;
		int last = last_kernel_pred(g, kern, pos, v);
		if (last >= 0)
			kern[v] = kern[last];
	}
	for (int i = g->n - 1; i >= 0; i--) {
		int v = g->topo[i], a = g->succ_off[v], b = g->succ_off[v + 1];
		if (kern[v] >= 0 || a == b || kern[g->succ[a]] < 0)
			continue;
		int k = kern[g->succ[a]];
		while (a < b && kern[g->succ[a]] == k)
			a++;
		if (a == b)
			kern[v] = k;
	}
	for (int i = 0; i < g->n; i++) {
		int v = g->topo[i];
		if (kern[v] >= 0)
			continue;
		int last = last_kernel_pred(g, kern, pos, v);
		if (last >= 0)
			kern[v] = kern[last];
	}
	free(pos);
	return SC_OK;
}

/* Whether a node ONNX Runtime inserted converts the input of the node after
 * it ("ReorderInput", "gemm_input_reshape") rather than the output of the
 * one before ("ReorderOutput", "gemm_output_reshape") or stands for ops of
 * its own ("Gelu", "SkipLayerNormalization", named after their op type). */
static bool serves_next(const char *name)
{
	size_t len = untokened(name, strlen(name));
	for (const char *p = name; (p = strstr(p, "nput")) && (size_t)(p - name) < len; p++)
		if (p > name && (p[-1] == 'I' || p[-1] == 'i'))
			return true;
	return false;
}

/* Appends the first len bytes of name (and " x<count>" when count > 1) to
 * the list in buf (size bytes), ", " between names; a name that does not
 * fit ends the list with ", ..." (when that fits). */
static void name_list(char *buf, size_t size, const char *name, size_t len, int count)
{
	size_t at = strlen(buf);
	char times[24] = "";
	if (count > 1)
		snprintf(times, sizeof times, " x%d", count);
	if (at >= 3 && !strcmp(buf + at - 3, "..."))
		return;
	if (len > INT_MAX)
		len = INT_MAX;
	if (at + (at ? 2 : 0) + len + strlen(times) + 6 < size) /* room for ", ..." after */
		snprintf(buf + at, size - at, "%s%.*s%s", at ? ", " : "", (int)len, name, times);
	else if (at + 5 < size)
		snprintf(buf + at, size - at, "%s...", at ? ", " : "");
}

/* Lists the entries that name nothing in rep->unmapped, each name once
 * without ORT's "_token_<n>" and with how many there are, in the order
 * they ran ("gemm_input_reshape x6, Gelu x2, ..."). */
static void list_unmapped(const sc_times *t, const unsigned char *how, sc_times_report *rep)
{
	for (int i = 0; i < t->n; i++) {
		if (how[i] != MAP_NONE)
			continue;
		const char *a = t->e[i].name;
		size_t la = untokened(a, strlen(a));
		bool seen = false;
		int count = 0;
		for (int j = 0; j < t->n && !seen; j++) {
			const char *b = t->e[j].name;
			size_t lb = how[j] == MAP_NONE ? untokened(b, strlen(b)) : 0;
			if (lb != la || memcmp(a, b, la) != 0)
				continue;
			seen = j < i;
			count++;
		}
		if (!seen)
			name_list(rep->unmapped, sizeof rep->unmapped, a, la, count);
		size_t at = strlen(rep->unmapped);
		if (at >= 3 && !strcmp(rep->unmapped + at - 3, "..."))
			break; /* the list is full: no need to count the rest */
	}
}

/* Maps every entry (op[i], -1 for none; how[i]) and fills the counts of
 * rep; fails on an entry naming nothing where that is an error. */
static sc_status map_all(const sc_graph *g, const sc_times *t, const sc_times_names *names, int *op,
                         unsigned char *how, sc_times_report *rep, sc_error *err)
{
	bool attach = names && t->format != SC_TIMES_CSV;
	int none = 0, first_none = -1;
	for (int i = 0; i < t->n; i++) {
		const sc_times_entry *e = &t->e[i];
		how[i] = (unsigned char)map_entry(g, names, e, attach, &op[i]);
		if (op[i] == -2)
			return sc_error_nomem(err, "a tensor name");
		rep->time_in_file += e->us;
		switch (how[i]) {
		case MAP_NAME: rep->by_name++; break;
		case MAP_TENSOR: rep->by_tensor++; break;
		case MAP_FOLDED: rep->to_folded++; break;
		case MAP_FUSED: rep->by_fused++; break;
		default:
			if (!attach && e->line > 0)
				return sc_error_set(err, SC_ERR_INPUT,
				                    "%s:%d: '%s' names no op of %s", t->path,
				                    e->line, e->name, g->name);
			if (!attach)
				return sc_error_set(err, SC_ERR_INPUT, "%s: '%s' names no op of %s",
				                    t->path, e->name, g->name);
			if (first_none < 0)
				first_none = i;
			none++;
		}
	}
	if (!isfinite(rep->time_in_file))
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s: the times add up to more than a double holds", t->path);
	list_unmapped(t, how, rep);
	if (none > 0 && 2 * (long)none > t->n)
		return sc_error_set(
		        err, SC_ERR_INPUT,
		        "%s: %d of %d kernels name no op or tensor of the model (first: "
		        "'%s'): a profile of another model?",
		        t->path, none, t->n, t->e[first_none].name);
	/* the rest (nodes the runtime made) go with the kernel they serve: the
	 * one that ran next for an input's conversion, else the one before
	 * (or the other way when there is none) */
	for (int i = 0; i < t->n; i++) {
		if (how[i] != MAP_NONE)
			continue;
		int before = i - 1, after = i + 1;
		while (before >= 0 && (how[before] == MAP_NONE || op[before] < 0))
			before--;
		while (after < t->n && (how[after] == MAP_NONE || op[after] < 0))
			after++;
		bool next = serves_next(t->e[i].name);
		int j = (next && after < t->n) || before < 0 ? after : before;
		op[i] = j < t->n ? op[j] : -1;
		rep->attached++;
	}
	return SC_OK;
}

/* A modelled time as a share's weight: an op the kind may not run (NAN)
 * weighs 0. */
static double weight(double w)
{
	return w == w ? w : 0;
}

/* sc_times_apply into work (g->work, or a kind's table of g with NAN where
 * the kind may not run an op) and, when sourcep is not NULL, the per-op
 * sources *sourcep (allocated when NULL). */
static sc_status apply_to(const sc_graph *g, double *work, unsigned char **sourcep,
                          const sc_times *t, const sc_times_names *names, sc_times_report *rep,
                          sc_error *err)
{
	sc_times_report own;
	if (!rep)
		rep = &own;
	memset(rep, 0, sizeof *rep);
	rep->entries = t->n;
	size_t n = (size_t)g->n;
	int *op = sc_malloc_n((size_t)t->n, sizeof *op);
	unsigned char *how = sc_malloc_n((size_t)t->n, sizeof *how);
	int *kern = sc_malloc_n(n, sizeof *kern), *count = sc_calloc_n(n, sizeof *count);
	double *time = sc_calloc_n(n, sizeof *time), *old = sc_calloc_n(n, sizeof *old);
	unsigned char *source = !sourcep ? NULL : *sourcep ? *sourcep : sc_calloc_n(n, 1);
	sc_status st = SC_OK;
	if (!op || !how || !kern || !count || !time || !old || (sourcep && !source)) {
		st = sc_error_nomem(err, "the measured times");
		goto done;
	}
	if ((st = map_all(g, t, names, op, how, rep, err)) != SC_OK)
		goto done;
	/* every op an entry maps to is a kernel of its own */
	for (size_t v = 0; v < n; v++)
		kern[v] = -1;
	for (int i = 0; i < t->n; i++) {
		if (op[i] < 0) {
			rep->time_dropped += t->e[i].us;
			continue;
		}
		time[op[i]] += t->e[i].us;
		kern[op[i]] = op[i];
	}
	/* a profile holds every op that ran: the ops it does not name were
	 * fused into a kernel next to them (a CSV, or a table made in memory
	 * with no fused kernel, may leave ops out) */
	if (names && t->format != SC_TIMES_CSV &&
	    (t->format == SC_TIMES_ORT || rep->by_tensor + rep->by_fused + rep->attached > 0) &&
	    (st = group_fused(g, names, kern, err)) != SC_OK)
		goto done;
	for (size_t v = 0; v < n; v++)
		if (kern[v] >= 0) {
			old[kern[v]] += weight(work[v]);
			count[kern[v]]++;
		}
	/* nothing fails from here on: the graph changes */
	if (sourcep)
		*sourcep = source;
	for (size_t v = 0; v < n; v++) {
		int k = kern[v];
		if (k < 0) {
			rep->ops_modelled++;
			name_list(rep->modelled, sizeof rep->modelled, g->op_name[v],
			          strlen(g->op_name[v]), 1);
			continue;
		}
		/* a share in proportion to the modelled work (a fraction <= 1
		 * first, so that nothing overflows) */
		work[v] = old[k] > 0 ? time[k] * (weight(work[v]) / old[k]) : time[k] / count[k];
		if (source)
			source[v] = SC_WORK_MEASURED;
		rep->ops_measured++;
		rep->work_measured += work[v];
		if (count[k] > 1) {
			rep->ops_fused++;
			rep->kernels_fused += (int)v == k;
		}
	}
	for (size_t v = 0; v < n; v++)
		rep->work_total += weight(work[v]);
	rep->filled = true;
done:
	if (st != SC_OK && sourcep && source != *sourcep)
		free(source);
	free(op);
	free(how);
	free(kern);
	free(count);
	free(time);
	free(old);
	return st;
}

sc_status sc_times_apply(sc_graph *g, const sc_times *t, const sc_times_names *names,
                         sc_times_report *rep, sc_error *err)
{
	return apply_to(g, g->work, &g->work_source, t, names, rep, err);
}

sc_status sc_times_apply_kind(sc_graph *g, const char *kind, const sc_times *t,
                              const sc_times_names *names, sc_times_report *rep, sc_error *err)
{
	int d = sc_graph_find_kind(g, kind);
	if (d < 0)
		return sc_error_set(err, SC_ERR_INPUT, "%s: no op times for the device '%s'",
		                    g->source && *g->source ? g->source : g->name, kind);
	return apply_to(g, g->kind_work[d], NULL, t, names, rep, err);
}

/* ---- describing -------------------------------------------------------------- */

/* A malloc'd printf; NULL when out of memory. */
__attribute__((format(printf, 1, 2))) static char *str_printf(const char *fmt, ...)
{
	va_list ap, aq;
	va_start(ap, fmt);
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, aq);
	va_end(aq);
	return s;
}

static const char *plural(int n)
{
	return n == 1 ? "" : "s";
}

/* The two lines of sc_times_describe into *origin and *brief (malloc'd;
 * both NULL when out of memory). */
static void describe_text(const sc_graph *g, const sc_times *t, const sc_times_report *rep,
                          const char *model, char **origin, char **brief)
{
	double pct = rep->work_total > 0 ? 100 * rep->work_measured / rep->work_total
	                                 : (rep->ops_measured == g->n ? 100 : 0);
	char how[160], fused[96] = "", attached[288] = "", dropped[96] = "", rest[224] = "";
	if (t->format == SC_TIMES_ORT)
		snprintf(how, sizeof how, "ONNX Runtime profile, %d run%s, median per kernel%s",
		         t->runs, plural(t->runs),
		         t->device_times ? " of its device kernels' time" : "");
	else
		snprintf(how, sizeof how, "%s", t->format == SC_TIMES_CSV ? "CSV" : "given times");
	if (rep->kernels_fused > 0)
		snprintf(fused, sizeof fused, "; %d fused kernel%s shared over %d ops",
		         rep->kernels_fused, plural(rep->kernels_fused), rep->ops_fused);
	if (rep->attached > 0)
		snprintf(attached, sizeof attached,
		         "; %d kernel%s of no op of the model (%s) added to the kernel %s",
		         rep->attached, plural(rep->attached), rep->unmapped,
		         rep->attached == 1 ? "it serves" : "they serve");
	if (rep->time_dropped > 0)
		snprintf(dropped, sizeof dropped,
		         "; %.6g us of folded ops with no consumer left out", rep->time_dropped);
	int other = g->n - rep->ops_measured;
	if (other > 0 && rep->modelled[0])
		snprintf(rest, sizeof rest, "; the other %d op%s (%s): ", other, plural(other),
		         rep->modelled);
	else if (other > 0)
		snprintf(rest, sizeof rest, "; the other %d op%s: ", other, plural(other));
	*origin = str_printf("measured %d of %d op%s (%.1f %% of the work) from %s (%s%s%s%s)%s%s",
	                     rep->ops_measured, g->n, plural(g->n), pct, t->path, how, fused,
	                     attached, dropped, rest,
	                     other > 0 ? (model ? model : "the file's numbers") : "");
	/* whole percents, never rounded up to 100 */
	const char *base = strrchr(t->path, '/');
	*brief = str_printf("measured %d%% (%s)", pct >= 100 || other == 0 ? 100 : (int)pct,
	                    base ? base + 1 : t->path);
	if (!*origin || !*brief) {
		free(*origin);
		free(*brief);
		*origin = *brief = NULL;
	}
}

sc_status sc_times_describe(sc_graph *g, const sc_times *t, const sc_times_report *rep,
                            const char *model, sc_error *err)
{
	char *origin, *brief;
	describe_text(g, t, rep, model, &origin, &brief);
	if (!origin)
		return sc_error_nomem(err, "the cost origin");
	free(g->cost_origin);
	free(g->cost_short);
	g->cost_origin = origin;
	g->cost_short = brief;
	return SC_OK;
}

sc_status sc_times_describe_kind(sc_graph *g, const char *kind, const char *what, const char *brief,
                                 sc_error *err)
{
	char *origin =
	        str_printf("%s; %s stages: %s",
	                   g->cost_origin ? g->cost_origin : "the file's numbers", kind, what);
	char *shrt = str_printf("%s, %s %s", g->cost_short ? g->cost_short : "file's numbers", kind,
	                        brief);
	if (!origin || !shrt) {
		free(origin);
		free(shrt);
		return sc_error_nomem(err, "the cost origin");
	}
	free(g->cost_origin);
	free(g->cost_short);
	g->cost_origin = origin;
	g->cost_short = shrt;
	return SC_OK;
}

sc_status sc_times_load(sc_graph *g, const char *kind, const char *path,
                        const sc_times_names *names, const char *model, sc_times_report *rep,
                        sc_error *err)
{
	sc_times *t = sc_times_read(path, err);
	if (!t)
		return err->code;
	sc_times_report own;
	if (!rep)
		rep = &own;
	sc_status st = kind ? sc_times_apply_kind(g, kind, t, names, rep, err)
	                    : sc_times_apply(g, t, names, rep, err);
	if (st == SC_OK && !kind)
		st = sc_times_describe(g, t, rep, model, err);
	if (st == SC_OK && kind) {
		char *origin, *brief;
		describe_text(g, t, rep, model, &origin, &brief);
		st = origin ? sc_times_describe_kind(g, kind, origin, brief, err)
		            : sc_error_nomem(err, "the cost origin");
		free(origin);
		free(brief);
	}
	sc_times_free(t);
	return st;
}

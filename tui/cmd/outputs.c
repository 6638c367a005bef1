/*
 * outputs.c - the files a batch command writes, kept apart from the files
 * it reads, and render --full's pages written as a whole.  See outputs.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "outputs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fileio.h"
#include "viz/full.h"

bool ui_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!a || !b)
		return false;
	bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
	if (ea && eb)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	return !ea && !eb && strcmp(a, b) == 0;
}

/* The directory part of path ("." for a bare name, "/" for "/x"),
 * malloc'd; NULL when out of memory. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* dir/name, malloc'd (NULL when out of memory). */
static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

typedef struct input {
	const char *path;
	const char *what;
} input;

/* The files command reads by o: at most 7, into in; returns how many. */
static int inputs_of(const ui_opts *o, const char *command, input *in)
{
	int n = 0;
	bool two = strcmp(command, "eval") == 0 || strcmp(command, "render") == 0 ||
	           strcmp(command, "export") == 0;
	for (int i = 0; i < o->npos && i < 2; i++)
		in[n++] = (input){o->pos[i], i == 0 ? "the graph"
		                             : two  ? "the partition"
		                                    : "an input"};
	if (o->partition)
		in[n++] = (input){o->partition, "the --partition file"};
	if (o->bounds)
		in[n++] = (input){o->bounds, "the --bounds file"};
	if (o->times)
		in[n++] = (input){o->times, "the --times file"};
	/* --device names a profile or a file: only a file can clash */
	struct stat st;
	if (o->device && stat(o->device, &st) == 0)
		in[n++] = (input){o->device, "the --device file"};
	return n;
}

/* name in the directory of out, as out spells it ("pic-1.dot" beside
 * "pic.dot", "out/pic-1.dot" beside "out/pic.dot"), malloc'd; NULL when
 * out of memory. */
static char *beside(const char *out, const char *name)
{
	const char *slash = strrchr(out, '/');
	size_t dir = slash ? (size_t)(slash - out) + 1 : 0, n = dir + strlen(name) + 1;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%.*s%s", (int)dir, out, name);
	return p;
}

bool ui_outputs_check(const ui_opts *o, const char *command)
{
	if (!o->output || strcmp(command, "bench") == 0)
		return true;
	input in[8];
	int n = inputs_of(o, command, in);
	for (int i = 0; i < n; i++)
		if (ui_same_file(o->output, in[i].path)) {
			ui_error("%s: -o names a file the command reads (%s): the output would "
			         "replace it; write to another file",
			         o->output, in[i].path);
			return false;
		}
	/* render --full (and render without a partition, which draws every
	 * op) may write OUT-1, OUT-2, ... and removes the pages of an earlier
	 * picture: none of them may be an input */
	bool every_op = o->full || (o->npos < 2 && o->k <= 0);
	if (strcmp(command, "render") != 0 || o->timeline || !every_op)
		return true;
	char *dir = dir_of(o->output);
	if (!dir) {
		ui_error("out of memory");
		return false;
	}
	bool ok = true;
	/* every page name that exists, whatever its number (an input that
	 * does not exist fails to load before anything is written) */
	DIR *d = opendir(dir);
	for (struct dirent *e; d && ok && (e = readdir(d));) {
		int page = sc_full_page_number(o->output, e->d_name);
		char *path = page > 0 ? beside(o->output, e->d_name) : NULL;
		for (int i = 0; path && i < n && ok; i++)
			if (ui_same_file(path, in[i].path)) {
				ui_error("render: %s, page %d of -o %s, is %s the command reads "
				         "(%s): the picture's "
				         "pages would replace or remove it; write the picture to "
				         "another name",
				         path, page, o->output, in[i].what, in[i].path);
				ok = false;
			}
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
	return ok;
}

sc_status ui_staging_open(ui_staging *s, const char *out, sc_error *err)
{
	*s = (ui_staging){0};
	struct stat st;
	if (stat(out, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		/* written through, as sc_file_write_atomic does */
		if (!(s->path = strdup(out)))
			return sc_error_nomem(err, "a file name");
		return SC_OK;
	}
	char *dir = dir_of(out);
	char *tmpl = dir ? join(dir, ".stagecut-XXXXXX") : NULL;
	if (!tmpl) {
		free(dir);
		return sc_error_nomem(err, "a file name");
	}
	if (!mkdtemp(tmpl)) {
		int e = errno;
		sc_status r = sc_error_set(err, SC_ERR_IO, "%s: cannot write in %s: %s", out, dir,
		                           strerror(e));
		free(tmpl);
		free(dir);
		return r;
	}
	free(dir);
	const char *slash = strrchr(out, '/');
	s->dir = tmpl;
	if (!(s->path = join(tmpl, slash ? slash + 1 : out))) {
		ui_staging_abort(s);
		return sc_error_nomem(err, "a file name");
	}
	return SC_OK;
}

void ui_staging_abort(ui_staging *s)
{
	DIR *d = s->dir ? opendir(s->dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *p = join(s->dir, e->d_name);
		if (p)
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	if (s->dir)
		rmdir(s->dir);
	free(s->dir);
	free(s->path);
	*s = (ui_staging){0};
}

/* Moves the staged file from to to (atomically, by fileio's rules). */
static sc_status move_one(const char *from, const char *to, sc_error *err)
{
	size_t len;
	char *data = sc_file_read_all(from, "a picture", &len, err);
	if (!data)
		return err->code;
	sc_status st = sc_file_write_atomic(to, data, len, err);
	free(data);
	if (st == SC_OK)
		unlink(from);
	return st;
}

sc_status ui_staging_commit(ui_staging *s, const char *out, int pages, sc_error *err)
{
	sc_status st = SC_OK;
	if (!s->dir) { /* drawn in place */
		ui_staging_abort(s);
		return SC_OK;
	}
	size_t n = strlen(s->path) + strlen(out) + 32;
	char *from = malloc(n), *to = malloc(n);
	if (!from || !to)
		st = sc_error_nomem(err, "a file name");
	for (int i = 1; st == SC_OK && i <= pages; i++) {
		sc_full_page_path(s->path, i, from, n);
		sc_full_page_path(out, i, to, n);
		st = move_one(from, to, err);
	}
	if (st == SC_OK)
		st = move_one(s->path, out, err);
	free(from);
	free(to);
	ui_staging_abort(s);
	return st;
}

int ui_remove_stale_pages(const char *out, int pages, char *first, char *last, size_t size)
{
	char *dir = dir_of(out);
	DIR *d = dir ? opendir(dir) : NULL;
	int removed = 0, lo = INT_MAX, hi = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		int page = sc_full_page_number(out, e->d_name);
		if (page <= pages)
			continue;
		char *p = join(dir, e->d_name);
		struct stat st;
		/* a page is a file (or a link to one), never a directory */
		if (p && lstat(p, &st) == 0 && !S_ISDIR(st.st_mode) && unlink(p) == 0) {
			removed++;
			lo = page < lo ? page : lo;
			hi = page > hi ? page : hi;
		}
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
	if (removed && first)
		sc_full_page_path(out, lo, first, size);
	if (removed && last)
		sc_full_page_path(out, hi, last, size);
	return removed;
}

void ui_staging_rename_in(const ui_staging *s, const char *out, char *msg, size_t size)
{
	if (!s->dir)
		return;
	size_t dlen = strlen(s->dir);
	const char *slash = strrchr(out, '/');
	/* out's directory as out spells it: "" for a bare name */
	size_t olen = slash ? (size_t)(slash - out) + 1 : 0;
	char *copy = strdup(msg);
	if (!copy)
		return;
	size_t at = 0;
	for (const char *p = copy; *p && at + 1 < size;) {
		if (strncmp(p, s->dir, dlen) == 0 && p[dlen] == '/') {
			for (size_t i = 0; i < olen && at + 1 < size; i++)
				msg[at++] = out[i];
			p += dlen + 1;
		} else {
			msg[at++] = *p++;
		}
	}
	msg[at] = '\0';
	free(copy);
}

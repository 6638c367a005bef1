/*
 * load.c - choosing a loader, and helpers shared by the loaders.
 */
#define _POSIX_C_SOURCE 200809L
#include "load.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const sc_loader *const loaders[] = {&sc_loader_fiddle, &sc_loader_dot};
#define NLOADERS (sizeof loaders / sizeof loaders[0])

bool sc_has_extension(const char *path, const char *ext)
{
	size_t a = strlen(path), b = strlen(ext);
	return a >= b && strcasecmp(path + a - b, ext) == 0;
}

bool sc_parse_weight(const char *text, double *out)
{
	if (!text)
		return false;
	while (isspace((unsigned char)*text))
		text++;
	/* strtod also accepts "inf", "nan" and hex; weights are plain decimals */
	if (!(isdigit((unsigned char)*text) || *text == '.' || *text == '+'))
		return false;
	for (const char *p = text; *p && !isspace((unsigned char)*p); p++)
		if (!(isdigit((unsigned char)*p) || strchr(".+-eE", *p)))
			return false;
	char *end;
	errno = 0;
	double x = strtod(text, &end);
	if (end == text || errno == ERANGE)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end || !isfinite(x) || x < 0)
		return false;
	*out = x;
	return true;
}

sc_graph *sc_load(const char *path, sc_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		sc_error_set(err, SC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fclose(f);
		sc_error_set(err, SC_ERR_IO, "%s: is a directory, not a graph file", path);
		return NULL;
	}
	char head[512];
	size_t len = fread(head, 1, sizeof head, f);
	bool readerr = ferror(f);
	fclose(f);
	if (readerr) {
		sc_error_set(err, SC_ERR_IO, "%s: cannot read", path);
		return NULL;
	}
	size_t i = 0;
	while (i < len && isspace((unsigned char)head[i]))
		i++;
	if (i == len) {
		sc_error_set(err, SC_ERR_INPUT, "%s: the file is empty", path);
		return NULL;
	}
	for (size_t l = 0; l < NLOADERS; l++)
		if (loaders[l]->probe(path, head, len))
			return loaders[l]->load(path, err);
	sc_error_set(err, SC_ERR_INPUT,
	             "%s: unknown format (expected a DOT digraph or msr-fiddle JSON)", path);
	return NULL;
}

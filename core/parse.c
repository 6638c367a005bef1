/*
 * parse.c - weights and extensions, shared by the loaders.  See parse.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	/* ERANGE is overflow (refused) or underflow to a tiny number, which is a
	 * finite weight >= 0 like any other ("1e-400") */
	if (end == text || (errno == ERANGE && fabs(x) >= 1))
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end || !isfinite(x) || x < 0)
		return false;
	*out = x;
	return true;
}

/*
 * parse.c - weights and extensions, shared by the loaders.  See parse.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
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

int sc_utf8_length(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	int len;
	unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		len = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		len = 3;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (u[0] == 0xe0)
		lo = 0xa0; /* overlong */
	else if (u[0] == 0xed)
		hi = 0x9f; /* surrogates */
	else if (u[0] == 0xf0)
		lo = 0x90; /* overlong */
	else if (u[0] == 0xf4)
		hi = 0x8f; /* above U+10FFFF */
	if (u[1] < lo || u[1] > hi)
		return 0;
	for (int i = 2; i < len; i++)
		if ((u[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

bool sc_utf8_valid(const char *text, size_t *bad)
{
	for (const char *p = text; *p;) {
		int len = sc_utf8_length(p);
		if (len == 0) {
			if (bad)
				*bad = (size_t)(p - text);
			return false;
		}
		p += len;
	}
	return true;
}

char *sc_utf8_escape(const char *text)
{
	char *copy = malloc(4 * strlen(text) + 1), *w = copy;
	if (!copy)
		return NULL;
	for (const char *p = text; *p;) {
		int len = sc_utf8_length(p);
		if (len == 0) {
			snprintf(w, 5, "\\x%02x", (unsigned char)*p);
			w += 4;
			p++;
		} else {
			memcpy(w, p, (size_t)len);
			w += len;
			p += len;
		}
	}
	*w = '\0';
	return copy;
}

const char *sc_json_kind(const json_t *v)
{
	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return v ? "null" : "missing";
	}
}

json_t *sc_json_loadb(const char *data, size_t len, size_t flags, json_error_t *jerr)
{
	json_t *root = json_loadb(data, len, flags, jerr);
	if (!root && json_error_code(jerr) == json_error_numeric_overflow &&
	    strstr(jerr->text, "too big integer"))
		root = json_loadb(data, len, flags | JSON_DECODE_INT_AS_REAL, jerr);
	return root;
}

sc_status sc_json_error(sc_error *err, const char *path, const json_error_t *jerr)
{
	if (json_error_code(jerr) == json_error_numeric_overflow)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "%s:%d:%d: a number too large to hold (beyond 1.8e308): %s",
		                    path, jerr->line, jerr->column, jerr->text);
	return sc_error_set(err, SC_ERR_INPUT, "%s:%d:%d: malformed JSON: %s", path, jerr->line,
	                    jerr->column, jerr->text);
}

bool sc_json_whole(const json_t *v, json_int_t *out, bool *exact)
{
	if (exact)
		*exact = true;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return true;
	}
	if (!json_is_real(v))
		return false;
	double x = json_real_value(v);
	if (x != floor(x))
		return false;
	if (exact)
		*exact = fabs(x) <= 9007199254740992.0; /* 2^53 */
	/* 2^63 is the first double past the int64 range */
	*out = x >= 9223372036854775808.0    ? INT64_MAX
	       : x <= -9223372036854775808.0 ? INT64_MIN
	                                     : (json_int_t)x;
	return true;
}

json_t *sc_json_text(const char *text)
{
	if (!text)
		return json_null();
	if (sc_utf8_valid(text, NULL))
		return json_string(text);
	char *copy = sc_utf8_escape(text);
	json_t *v = copy ? json_string(copy) : NULL;
	free(copy);
	return v;
}

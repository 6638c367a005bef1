/*
 * names.c - the natural order of names and fitting a name to a width (see
 * names.h).
 *
 * The natural compare walks both names at once; where both stand on a
 * digit it skips each run's leading zeros and compares the runs first by
 * their number of significant digits, then digit by digit, so numbers of
 * any length compare without overflow.  The display width is a small table
 * of the ranges that matter for op names (combining marks, East Asian wide
 * and fullwidth forms, emoji), not the whole of Unicode's East Asian Width
 * property: a terminal may disagree on a rare character, never on ASCII.
 *
 * sc_names_fit keeps the tail because it is what tells an op's name apart
 * from its neighbours' (the layer number, the op's own name) while the
 * head is shared by hundreds of them; the head's first component stays so
 * that the name still says where it lives.
 */
#include "core/names.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

int sc_names_cmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
	while (*p && *q) {
		if (is_digit(*p) && is_digit(*q)) {
			while (*p == '0' && is_digit(p[1]))
				p++;
			while (*q == '0' && is_digit(q[1]))
				q++;
			size_t np = 0, nq = 0;
			while (is_digit(p[np]))
				np++;
			while (is_digit(q[nq]))
				nq++;
			if (np != nq)
				return np < nq ? -1 : 1;
			int c = memcmp(p, q, np);
			if (c)
				return c;
			p += np;
			q += nq;
			continue;
		}
		if (*p != *q)
			return *p < *q ? -1 : 1;
		p++;
		q++;
	}
	if (*p || *q)
		return *p ? 1 : -1;
	return strcmp(a, b);
}

static void merge_sort(int *x, int *tmp, int n, char *const *names)
{
	if (n < 2)
		return;
	int h = n / 2;
	merge_sort(x, tmp, h, names);
	merge_sort(x + h, tmp, n - h, names);
	int i = 0, j = h, o = 0;
	while (i < h && j < n)
		tmp[o++] = sc_names_cmp(names[x[j]], names[x[i]]) < 0 ? x[j++] : x[i++];
	while (i < h)
		tmp[o++] = x[i++];
	while (j < n)
		tmp[o++] = x[j++];
	memcpy(x, tmp, (size_t)n * sizeof *x);
}

int *sc_names_order(char *const *names, int n)
{
	if (n < 1)
		return NULL;
	int *x = sc_malloc_n((size_t)n, sizeof *x), *tmp = sc_malloc_n((size_t)n, sizeof *tmp);
	if (!x || !tmp) {
		free(x);
		free(tmp);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		x[i] = i;
	merge_sort(x, tmp, n, names);
	free(tmp);
	return x;
}

/* Decodes the character at s (not at its end): its code point in *cp
 * (U+FFFD for a byte that starts no valid sequence) and its length in
 * bytes (1 for such a byte). */
static int next_char(const unsigned char *s, unsigned *cp)
{
	unsigned c = s[0];
	int len = c < 0x80             ? 1
	          : (c & 0xE0) == 0xC0 ? 2
	          : (c & 0xF0) == 0xE0 ? 3
	          : (c & 0xF8) == 0xF0 ? 4
	                               : 0;
	if (len == 1) {
		*cp = c;
		return 1;
	}
	unsigned v = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			len = 0;
			break;
		}
		v = v << 6 | (s[i] & 0x3F);
	}
	/* overlong forms, surrogates and values past U+10FFFF are not UTF-8 */
	if (len == 0 || (len == 2 && v < 0x80) || (len == 3 && v < 0x800) ||
	    (len == 4 && (v < 0x10000 || v > 0x10FFFF)) || (v >= 0xD800 && v <= 0xDFFF)) {
		*cp = 0xFFFD;
		return 1;
	}
	*cp = v;
	return len;
}

static int char_width(unsigned cp)
{
	static const unsigned zero[][2] = {
	        {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A},
	        {0x064B, 0x065F}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x200B, 0x200F},
	        {0x20D0, 0x20FF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F},
	};
	static const unsigned wide[][2] = {
	        {0x1100, 0x115F},   {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF},
	        {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},
	        {0xFE30, 0xFE4F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x1F300, 0x1F64F},
	        {0x1F900, 0x1F9FF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
	};
	if (cp < 0x300)
		return 1;
	for (size_t i = 0; i < sizeof zero / sizeof *zero; i++)
		if (cp >= zero[i][0] && cp <= zero[i][1])
			return 0;
	for (size_t i = 0; i < sizeof wide / sizeof *wide; i++)
		if (cp >= wide[i][0] && cp <= wide[i][1])
			return 2;
	return 1;
}

int sc_names_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int w = 0;
	while (*p) {
		unsigned cp;
		p += next_char(p, &cp);
		w += char_width(cp);
	}
	return w;
}

/* Appends bytes s[0 .. n) to buf (used bytes *len, size bytes) when they
 * fit with the NUL; returns whether they did. */
static bool put(char *buf, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len + n + 1 > size)
		return false;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
	return true;
}

/* Appends the characters of s from its start while they fit in width
 * cells (and in buf); returns the cells taken.  *used gets the bytes of s
 * taken when not NULL. */
static int put_head(char *buf, size_t size, size_t *len, const char *s, int width, size_t *used)
{
	const unsigned char *p = (const unsigned char *)s;
	int w = 0;
	while (*p) {
		unsigned cp;
		int n = next_char(p, &cp), cw = char_width(cp);
		if (w + cw > width || !put(buf, size, len, (const char *)p, (size_t)n))
			break;
		w += cw;
		p += n;
	}
	if (used)
		*used = (size_t)(p - (const unsigned char *)s);
	return w;
}

int sc_names_fit(const char *s, int width, char *buf, size_t size)
{
	size_t len = 0;
	if (size > 0)
		buf[0] = '\0';
	if (width <= 0 || size == 0)
		return 0;
	int total = sc_names_width(s);
	if (total <= width)
		return put_head(buf, size, &len, s, width, NULL);
	if (width == 1)
		return put(buf, size, &len, SC_NAMES_ELLIPSIS, 3) ? 1 : 0;
	/* the head: the first component with its closing separator */
	size_t h = strspn(s, "/.");
	h += strcspn(s + h, "/.");
	if (s[h])
		h++;
	char head[256];
	size_t hl = h < sizeof head ? h : sizeof head - 1;
	memcpy(head, s, hl);
	head[hl] = '\0';
	int third = width / 3, hw;
	if (sc_names_width(head) <= third)
		hw = put_head(buf, size, &len, head, third, NULL);
	else
		hw = put_head(buf, size, &len, s, third, NULL);
	if (!put(buf, size, &len, SC_NAMES_ELLIPSIS, 3))
		return hw;
	/* the tail: the longest run of whole characters ending s that fits,
	 * not starting on a mark that would combine with the ellipsis */
	int room = width - hw - 1;
	const unsigned char *p = (const unsigned char *)s;
	int skip = total - room, w = 0;
	while (*p) {
		unsigned cp;
		int n = next_char(p, &cp), cw = char_width(cp);
		if (w >= skip && cw > 0)
			break;
		w += cw;
		p += n;
	}
	return hw + 1 + put_head(buf, size, &len, (const char *)p, room, NULL);
}

int sc_names_cells(const char *s, int from, int width, char *buf, size_t size)
{
	size_t len = 0;
	if (size > 0)
		buf[0] = '\0';
	if (width <= 0 || size == 0)
		return 0;
	const unsigned char *p = (const unsigned char *)s;
	int at = 0, out = 0;
	while (*p && out < width) {
		unsigned cp;
		int n = next_char(p, &cp), cw = char_width(cp);
		int end = at + cw;
		if (at >= from && end <= from + width) {
			if (!put(buf, size, &len, (const char *)p, (size_t)n))
				break;
			out += cw;
		} else if (end > from && at < from + width) {
			/* a wide character cut by an edge: its cells inside as spaces */
			int inside =
			        (end < from + width ? end : from + width) - (at > from ? at : from);
			for (int i = 0; i < inside && put(buf, size, &len, " ", 1); i++)
				out++;
		}
		at = end;
		p += n;
	}
	return out;
}

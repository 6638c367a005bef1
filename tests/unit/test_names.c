/*
 * test_names.c - core/names.c: the natural order against a tokenising
 * compare written here apart (on random names of letters and short digit
 * runs, where the numbers fit an unsigned long long), long digit runs and
 * leading zeros by hand; display widths of ASCII, marks, wide characters
 * and broken UTF-8; sc_names_fit's middle ellipsis (its width, its head and
 * its tail taken from the name, every width from 0 to past the name) and
 * the cells of a horizontally scrolled name.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "tests/support.h"

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

/* The natural order by tokens: a digit run is read with strtoull, any
 * other byte compared alone; the same tokens, then strcmp. */
static int token_cmp(const char *a, const char *b)
{
	const char *p = a, *q = b;
	while (*p && *q) {
		if (*p >= '0' && *p <= '9' && *q >= '0' && *q <= '9') {
			char *ep, *eq;
			unsigned long long x = strtoull(p, &ep, 10), y = strtoull(q, &eq, 10);
			if (x != y)
				return x < y ? -1 : 1;
			p = ep;
			q = eq;
			continue;
		}
		if (*p != *q)
			return (unsigned char)*p < (unsigned char)*q ? -1 : 1;
		p++;
		q++;
	}
	if (*p || *q)
		return *p ? 1 : -1;
	return sign(strcmp(a, b));
}

Test(names, natural_order_by_hand)
{
	cr_expect_lt(sc_names_cmp("Add1", "Add2"), 0);
	cr_expect_lt(sc_names_cmp("Add2", "Add11"), 0);
	cr_expect_gt(sc_names_cmp("Add11", "Add2"), 0);
	cr_expect_lt(sc_names_cmp("Add", "Add1"), 0);
	cr_expect_lt(sc_names_cmp("layer2.1/conv", "layer10.0/conv"), 0);
	cr_expect_lt(sc_names_cmp("layer2.1/conv", "layer2.10/conv"), 0);
	cr_expect_eq(sc_names_cmp("x7", "x7"), 0);
	/* equal as numbers: strcmp decides, and only the same string is 0 */
	cr_expect_neq(sc_names_cmp("a01", "a1"), 0);
	cr_expect_eq(sign(sc_names_cmp("a01", "a1")), -sign(sc_names_cmp("a1", "a01")));
	/* runs longer than any integer type */
	cr_expect_lt(sc_names_cmp("n99999999999999999999999", "n100000000000000000000000"), 0);
	cr_expect_gt(sc_names_cmp("n123456789012345678901235", "n123456789012345678901234"), 0);
	cr_expect_lt(sc_names_cmp("n0000000000000000000000009", "n10"), 0);
	/* bytes past ASCII compare unsigned */
	cr_expect_gt(sc_names_cmp("\xc3\xa9", "z"), 0);
}

Test(names, natural_order_matches_a_tokenising_compare)
{
	ts_rng r = {7};
	static const char alpha[] = "ab0123456789_/.";
	for (int t = 0; t < 20000; t++) {
		char a[12], b[12];
		int na = (int)ts_below(&r, 10), nb = (int)ts_below(&r, 10);
		for (int i = 0; i < na; i++)
			a[i] = alpha[ts_below(&r, sizeof alpha - 1)];
		for (int i = 0; i < nb; i++)
			b[i] = alpha[ts_below(&r, sizeof alpha - 1)];
		a[na] = b[nb] = '\0';
		if (t % 3 == 0)
			memcpy(b, a, (size_t)(na < nb ? na : nb)); /* a shared head */
		cr_assert_eq(sign(sc_names_cmp(a, b)), token_cmp(a, b), "'%s' vs '%s'", a, b);
		cr_assert_eq(sign(sc_names_cmp(a, b)), -sign(sc_names_cmp(b, a)));
	}
}

Test(names, the_order_of_many_names)
{
	char *names[] = {"Add11", "Add2", "Add1", "Add10", "Mul", "Add", "Add02"};
	int n = (int)(sizeof names / sizeof *names);
	int *x = sc_names_order(names, n);
	cr_assert(x);
	const char *want[] = {"Add", "Add1", "Add02", "Add2", "Add10", "Add11", "Mul"};
	for (int i = 0; i < n; i++)
		cr_expect_str_eq(names[x[i]], want[i], "place %d", i);
	free(x);
	cr_expect_null(sc_names_order(names, 0));
}

Test(names, display_widths)
{
	cr_expect_eq(sc_names_width(""), 0);
	cr_expect_eq(sc_names_width("MatMul_1"), 8);
	cr_expect_eq(sc_names_width("caf\xc3\xa9"), 4);      /* é, one cell */
	cr_expect_eq(sc_names_width("cafe\xcc\x81"), 4);     /* e + combining acute */
	cr_expect_eq(sc_names_width("\xe5\xb1\x82/1"), 4);   /* 层: two cells */
	cr_expect_eq(sc_names_width("\xf0\x9f\x98\x80"), 2); /* an emoji */
	cr_expect_eq(sc_names_width("a\xff"
	                            "b"),
	             3);                             /* a broken byte: one */
	cr_expect_eq(sc_names_width("\xe5\xb1"), 2); /* a cut sequence: its bytes */
	cr_expect_eq(sc_names_width(SC_NAMES_ELLIPSIS), 1);
}

/* Whether s starts with p, and ends with e. */
static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool ends(const char *s, const char *e)
{
	size_t n = strlen(s), m = strlen(e);
	return m <= n && strcmp(s + n - m, e) == 0;
}

Test(names, the_middle_ellipsis_keeps_the_tail)
{
	const char *vit = "/encoder/layers/encoder_layer_10/self_attention/MatMul_1";
	char buf[128];
	/* at the node browser's 47 cells (80 columns) */
	cr_expect_eq(sc_names_fit(vit, 47, buf, sizeof buf), 47);
	cr_expect_str_eq(buf,
	                 "/encoder/" SC_NAMES_ELLIPSIS "oder_layer_10/self_attention/MatMul_1");
	/* too narrow for the head: a third of the cells */
	cr_expect_eq(sc_names_fit(vit, 20, buf, sizeof buf), 20);
	cr_expect_str_eq(buf, "/encod" SC_NAMES_ELLIPSIS "tion/MatMul_1");
	cr_expect_eq(sc_names_fit(vit, 200, buf, sizeof buf), 56);
	cr_expect_str_eq(buf, vit);
	cr_expect_eq(sc_names_fit(vit, 1, buf, sizeof buf), 1);
	cr_expect_str_eq(buf, SC_NAMES_ELLIPSIS);
	cr_expect_eq(sc_names_fit(vit, 0, buf, sizeof buf), 0);
	cr_expect_str_eq(buf, "");
	/* dotted torch names */
	cr_expect_eq(sc_names_fit("encoder.layers.11.attn.out_proj", 25, buf, sizeof buf), 25);
	cr_expect_str_eq(buf, "encoder." SC_NAMES_ELLIPSIS "11.attn.out_proj");
	/* the tail never starts on a combining mark, a wide character never
	 * overflows */
	cr_expect_eq(sc_names_fit("head/xxxxxxxxe\xcc\x81"
	                          "e",
	                          8, buf, sizeof buf),
	             8);
	cr_expect_str_eq(buf,
	                 "he" SC_NAMES_ELLIPSIS "xxxe\xcc\x81"
	                 "e",
	                 "got '%s'", buf);
	cr_expect_eq(sc_names_fit("head/xxxxxxxxe\xcc\x81"
	                          "e",
	                          3, buf, sizeof buf),
	             3);
	cr_expect_str_eq(buf, "h" SC_NAMES_ELLIPSIS "e", "got '%s'", buf);
	cr_expect_eq(sc_names_fit("\xe5\xb1\x82\xe5\xb1\x82\xe5\xb1\x82\xe5\xb1\x82", 6, buf,
	                          sizeof buf),
	             5);
	cr_expect_str_eq(buf, "\xe5\xb1\x82" SC_NAMES_ELLIPSIS "\xe5\xb1\x82");
}

Test(names, fitted_names_take_their_ends_from_the_name)
{
	ts_rng r = {11};
	static const char *const parts[] = {
	        "/", ".", "layer", "_", "7", "\xc3\xa9", "\xe5\xb1\x82", "e\xcc\x81", "MatMul"};
	for (int t = 0; t < 400; t++) {
		char s[256] = "";
		int np = 1 + (int)ts_below(&r, 20);
		for (int i = 0; i < np; i++)
			strcat(s, parts[ts_below(&r, sizeof parts / sizeof *parts)]);
		int total = sc_names_width(s);
		for (int width = 0; width <= total + 2; width++) {
			char buf[512];
			int got = sc_names_fit(s, width, buf, sizeof buf);
			cr_assert_eq(got, sc_names_width(buf), "'%s' at %d: '%s'", s, width, buf);
			cr_assert_leq(got, width, "'%s' at %d: '%s'", s, width, buf);
			if (total <= width) {
				cr_assert_str_eq(buf, s);
				continue;
			}
			char *dots = strstr(buf, SC_NAMES_ELLIPSIS);
			cr_assert(dots || width == 0, "'%s' at %d: '%s'", s, width, buf);
			if (!dots)
				continue;
			*dots = '\0';
			cr_assert(starts(s, buf), "the head of '%s' at %d: '%s'", s, width, buf);
			cr_assert(ends(s, dots + 3), "the tail of '%s' at %d: '%s'", s, width,
			          dots + 3);
			/* only a wide character or a mark can leave a cell empty */
			cr_assert_geq(got, width - 2, "'%s' at %d", s, width);
		}
	}
}

Test(names, the_cells_of_a_scrolled_name)
{
	char buf[64];
	cr_expect_eq(sc_names_cells("/encoder/layers/x", 9, 6, buf, sizeof buf), 6);
	cr_expect_str_eq(buf, "layers");
	cr_expect_eq(sc_names_cells("abc", 1, 10, buf, sizeof buf), 2);
	cr_expect_str_eq(buf, "bc");
	cr_expect_eq(sc_names_cells("abc", 5, 10, buf, sizeof buf), 0);
	cr_expect_str_eq(buf, "");
	/* a wide character cut by the left edge, then by the right one */
	cr_expect_eq(sc_names_cells("a\xe5\xb1\x82"
	                            "b",
	                            2, 2, buf, sizeof buf),
	             2);
	cr_expect_str_eq(buf, " b");
	cr_expect_eq(sc_names_cells("a\xe5\xb1\x82"
	                            "b",
	                            0, 2, buf, sizeof buf),
	             2);
	cr_expect_str_eq(buf, "a ");
	cr_expect_eq(sc_names_cells("caf\xc3\xa9!", 3, 1, buf, sizeof buf), 1);
	cr_expect_str_eq(buf, "\xc3\xa9");
}

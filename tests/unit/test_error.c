/*
 * test_error.c - core/error.c: messages format as vsnprintf formats them,
 * except that a name quoted '%s' longer than SC_MSG_NAME_MAX bytes is cut
 * to that many, with "..." and its length (names of 10 MB were once
 * printed whole, or cut the message's reason off at the end of its buffer).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* sc_msg_format and snprintf agree on fmt with the arguments given */
#define SAME(...)                                                                                  \
	do {                                                                                       \
		char a[512], b[512];                                                               \
		int na = sc_msg_format(a, sizeof a, __VA_ARGS__);                                  \
		int nb = snprintf(b, sizeof b, __VA_ARGS__);                                       \
		cr_assert_str_eq(a, b);                                                            \
		cr_assert_eq(na, nb);                                                              \
	} while (0)

Test(error, formats_every_conversion_as_snprintf_does)
{
	SAME("plain text");
	SAME("%d %i %5d %-5d| %+d %05d %x %X %#o %u", 1, -2, 3, 4, 5, -6, 255, 255, 8, 7u);
	SAME("%ld %lld %zu %jd %td %hhd %hd", -1L, 1LL << 40, (size_t)9, (intmax_t)-3, (ptrdiff_t)4,
	     300, 70000);
	SAME("%g %.3f %e %10.2f %-8.1e| %a %Lg", 1.5, 2.0 / 3, 1e300, 3.14159, -2.5, 0.5,
	     (long double)7);
	SAME("%*d|%-*d|%.*f|%*.*s|", 6, 1, 4, 2, 3, 1.0 / 3, 8, 2, "abcdef");
	SAME("%c%c %s %.3s %10s %% 100%%", 'o', 'k', "name", "truncated", "right");
	SAME("'%s' is short, '%s' too, %s bare", "a", "", "b");
	SAME("%s", "");
}

Test(error, a_long_quoted_name_is_bounded)
{
	size_t len = 10 * 1000 * 1000;
	char *name = malloc(len + 1);
	cr_assert(name);
	memset(name, 'a', len);
	name[len] = '\0';
	char buf[1024];
	int n = sc_msg_format(buf, sizeof buf, "node '%s' attribute 'work': '%s' is bad", name,
	                      "-2");
	char want[1024];
	snprintf(want, sizeof want, "node '%.*s... (10000000 bytes)' attribute 'work': '-2' is bad",
	         SC_MSG_NAME_MAX, name);
	cr_assert_str_eq(buf, want);
	cr_assert_eq(n, (int)strlen(want));
	/* a name not in quotes (a message built of parts) is not cut */
	n = sc_msg_format(buf, sizeof buf, "%s", name);
	cr_assert_eq(n, (int)len);
	cr_assert_eq(strlen(buf), sizeof buf - 1);
	/* exactly SC_MSG_NAME_MAX bytes is not cut */
	name[SC_MSG_NAME_MAX] = '\0';
	sc_msg_format(buf, sizeof buf, "'%s'", name);
	cr_assert_eq(strlen(buf), SC_MSG_NAME_MAX + 2);
	/* sc_error_set bounds them too, so the reason after the name stays */
	name[SC_MSG_NAME_MAX] = 'a';
	sc_error err;
	sc_error_set(&err, SC_ERR_INPUT, "f.json: node '%s': a reason", name);
	cr_assert(strstr(err.msg, "... (10000000 bytes)': a reason"), "%s", err.msg);
	cr_assert_eq(err.code, SC_ERR_INPUT);
	/* and sc_msg_name without the quotes */
	char one[SC_MSG_NAME_MAX + 40];
	cr_assert_str_eq(sc_msg_name(one, sizeof one, "short"), "short");
	sc_msg_name(one, sizeof one, name);
	cr_assert(strstr(one, "a... (10000000 bytes)"), "%s", one);
	free(name);
}

Test(error, a_name_is_cut_between_characters)
{
	/* 'a' then two-byte characters: byte SC_MSG_NAME_MAX is inside one */
	char name[2 * SC_MSG_NAME_MAX + 8];
	size_t at = 0;
	name[at++] = 'a';
	while (at + 2 < sizeof name) {
		name[at++] = (char)0xc3;
		name[at++] = (char)0xa9; /* e acute */
	}
	name[at] = '\0';
	char buf[1024];
	sc_msg_format(buf, sizeof buf, "'%s'", name);
	char *dots = strstr(buf, "...");
	cr_assert(dots);
	size_t kept = (size_t)(dots - buf) - 1;
	cr_assert_leq(kept, SC_MSG_NAME_MAX);
	cr_assert_eq(kept % 2, 1, "cut inside a character: %zu bytes kept", kept);
}

Test(error, a_short_buffer_is_cut_and_terminated)
{
	char buf[8];
	int n = sc_msg_format(buf, sizeof buf, "%s and %d", "abcdef", 12345);
	cr_assert_str_eq(buf, "abcdef ");
	cr_assert_eq(n, 16);
	cr_assert_eq(sc_msg_format(NULL, 0, "x%dy", 7), 3);
}

/*
 * test_man_page.c - the man page as groff renders it: what a reader sees
 * is what the page means (the words and values scripts rely on).
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support.h"

/* An alternating-font macro (.BR, .RB, .IR, ...) splits its arguments at
 * blanks and sets them without one between: a quoted value with a blank
 * in it (\(dqexact DP\(dq) must be one argument in quotes, or it renders
 * as "exactDP" (an outside tester read proven_by so). */
Test(man_page, keeps_quoted_values_whole)
{
	char *man = ts_slurp("man/stagecut.1", NULL);
	cr_assert(man);
	int bad = 0;
	for (char *line = man, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (line[0] != '.' || strlen(line) < 4 || line[3] != ' ' ||
		    !strchr("BIR", line[1]) || !strchr("BIR", line[2]))
			continue;
		/* outside double quotes, no \(dq...\(dq span holds a blank */
		bool in_quotes = false, in_dq = false;
		for (const char *c = line + 4; *c; c++) {
			if (*c == '\\' && c[1] == ' ')
				c++; /* an escaped blank does not split */
			else if (*c == '"')
				in_quotes = !in_quotes;
			else if (strncmp(c, "\\(dq", 4) == 0)
				in_dq = !in_dq, c += 3;
			else if (*c == ' ' && in_dq && !in_quotes) {
				cr_expect(false, "man/stagecut.1: '%s' splits a quoted value",
				          line);
				bad++;
				break;
			}
		}
	}
	free(man);
	cr_assert_eq(bad, 0);
}

/*
 * test_cli.c - what every command shares: help and version, usage errors,
 * the man page in step with the help (options, commands, methods), the
 * --json keys of stagecut(1), abbreviated long options, a full stdout, and
 * the examples of the man page and the README run as written.
 *
 * Expected values never come from the program's own output: they are derived
 * by hand from the sample files, parsed from raw inputs, or computed by the
 * independent cost model and brute force of tests/support.c.  Hand-derived
 * values are sums of dyadic numbers, compared with ==; values from
 * real-valued inputs are compared to a relative 1e-9.  Split from the former
 * test_commands.c; the other commands' tests are test_<command>.c beside it.
 */
#include "tests/cli/cli_test.h"

TestSuite(cli, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

/* ---- help, version, usage --------------------------------------------- */

static char *help_of(const char *cmd)
{
	char *out, *err;
	int status = ts_runf(&out, &err, "%s --help", cmd);
	cr_assert_eq(status, 0, "'%s --help' exits %d: %s", cmd, status, err);
	cr_assert_str_empty(err, "'%s --help' wrote to stderr: %s", cmd, err);
	free(err);
	return out;
}

static const char *const commands[] = {"info", "eval", "solve", "gen"};
#define NCMDS (int)(sizeof commands / sizeof commands[0])

Test(cli, help_goes_to_stdout_and_exits_0)
{
	char *main_help = help_of("");
	cr_assert(strncmp(main_help, "Usage: stagecut", 15) == 0, "got: %s", main_help);
	for (int i = 0; i < NCMDS; i++) {
		/* the command's usage line and its options */
		char want[64];
		snprintf(want, sizeof want, "Usage: stagecut %s ", commands[i]);
		char *h = help_of(commands[i]);
		cr_assert(strncmp(h, want, strlen(want)) == 0, "'%s --help': %s", commands[i], h);
		cr_assert(strstr(h, "--help"), "'%s --help' lists no --help", commands[i]);
		/* the program's help names the command too */
		snprintf(want, sizeof want, "stagecut %s", commands[i]);
		cr_assert(strstr(main_help, want), "'stagecut --help' does not list %s",
		          commands[i]);
		/* -h is the same as --help, wherever it stands */
		char *out;
		cr_assert_eq(ts_runf(&out, NULL, "%s " FIGURE2 " -h", commands[i]), 0);
		cr_assert_str_eq(out, h, "'%s -h' differs from '%s --help'", commands[i],
		                 commands[i]);
		free(out);
		free(h);
	}
	free(main_help);
}

/* The help names every input format the man page's INPUT FORMATS section
 * has a subsection for (ONNX was once missing), and the man page names
 * no file the repository lacks (it named a DESIGN.md). */
Test(cli, help_names_every_input_format)
{
	char *h = NULL;
	cr_assert_eq(ts_runf(&h, NULL, "--help"), 0);
	char *man = ts_slurp(MAN_PAGE, NULL);
	char *sec = strstr(man, "\n.SH INPUT FORMATS\n"), *end = strstr(sec + 1, "\n.SH ");
	cr_assert(sec && end);
	*end = '\0';
	int formats = 0;
	for (char *p = sec; (p = strstr(p, "\n.SS ")); p++) {
		char name[64];
		cr_assert_eq(sscanf(p + 5, "%63[^\n]", name), 1);
		/* roff's \- is a hyphen */
		for (char *q; (q = strstr(name, "\\-"));)
			memmove(q, q + 1, strlen(q));
		cr_assert(strstr(h, name), "--help does not name the input format '%s':\n%s", name,
		          h);
		formats++;
	}
	cr_assert_geq(formats, 3, "DOT, msr-fiddle JSON, ONNX");
	free(man);
	man = ts_slurp(MAN_PAGE, NULL);
	cr_assert_null(strstr(man, "DESIGN.md"), "the man page names DESIGN.md");
	free(man);
	free(h);
}

Test(cli, version_matches_the_man_page)
{
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "--version"), 0);
	cr_assert_str_empty(err);
	int a, b, c, used = 0;
	cr_assert_eq(sscanf(out, "stagecut %d.%d.%d\n%n", &a, &b, &c, &used), 3, "got '%s'", out);
	cr_assert_eq((size_t)used, strlen(out), "trailing text after the version: '%s'", out);
	/* the man page's title line carries the same version */
	char *man = ts_slurp(MAN_PAGE, NULL);
	cr_assert(man);
	char want[64];
	snprintf(want, sizeof want, "\"stagecut %d.%d.%d\"", a, b, c);
	char *th = strstr(man, "\n.TH ");
	cr_assert(th);
	char *eol = strchr(th + 1, '\n');
	*eol = '\0';
	cr_assert(strstr(th, want), "man page title '%s' lacks %s", th + 1, want);
	free(man);
	free(out);
	free(err);
}

Test(cli, bad_usage_exits_2_with_one_line_on_stderr)
{
	static const char *const bad[] = {
	        "", /* the workbench, without a terminal */
	        "--bogus",
	        "info",
	        "info " FIGURE2 " " RESIDUAL,
	        "info " FIGURE2 " --frobnicate",
	        "info " FIGURE2 " -k 0",
	        "info " FIGURE2 " -k 2.5",
	        "info " FIGURE2 " -B 0",
	        "info " FIGURE2 " -M -1",
	        "info " FIGURE2 " --memory-policy soft",
	        "info " FIGURE2 " --json=yes",
	        "info " FIGURE2 " -k",
	        "eval",
	        "eval " FIGURE2,
	        "eval " FIGURE2 " x.json -k 3",
	        "solve",
	        "solve " FIGURE2 " -m nosuch",
	        "solve " FIGURE2 " -e 0",
	        "solve " FIGURE2 " -s -1",
	        "solve " FIGURE2 " -t 0",
	        "solve " FIGURE2 " --elite 1",
	        "solve " FIGURE2 " -m exact --ideal-limit 2",
	        "solve " LEMMA_B2 " -k 4 -m exact --ideal-limit 3",
	        "gen",
	        "gen -n 0",
	        "gen -n 5 --model xx",
	        "gen -n 5 extra",
	        "gen -n 5 --json",
	        "gen --layers 3",
	        "gen -n 5 --layers 3 --model transformer",
	        "gen --model transformer",
	        "gen --model resnet --layers 11",
	        "gen --model transformer --layers 0",
	        "gen --model transformer --layers 100001",
	        "gen --model bert --layers 3",
	        "frobnicate " FIGURE2,
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *out, *err;
		int status = ts_runf(&out, &err, "%s", bad[i]);
		cr_expect_eq(status, 2, "'%s' exits %d, want 2; stderr: %s", bad[i], status, err);
		cr_expect_str_empty(out, "'%s' wrote to stdout: %s", bad[i], out);
		cr_expect(strncmp(err, "stagecut: ", 10) == 0, "'%s': stderr '%s'", bad[i], err);
		char *nl = strchr(err, '\n');
		cr_expect(nl && nl[1] == '\0', "'%s': stderr is not one line: '%s'", bad[i], err);
		free(out);
		free(err);
	}
}

/* ---- the man page is in step with the help ----------------------------- */

/* The man page with groff's "\-" turned into "-". */
static char *man_text(void)
{
	char *man = ts_slurp(MAN_PAGE, NULL);
	cr_assert(man, "cannot read " MAN_PAGE);
	char *w = man;
	for (const char *r = man; *r; r++) {
		if (r[0] == '\\' && r[1] == '-')
			r++;
		*w++ = *r;
	}
	*w = '\0';
	return man;
}

static bool is_opt_char(int ch)
{
	return islower(ch) || isdigit(ch) || ch == '-';
}

/* True when text holds the long option opt ("--name") as a whole word. */
static bool has_option(const char *text, const char *opt)
{
	size_t len = strlen(opt);
	for (const char *p = strstr(text, opt); p; p = strstr(p + 1, opt))
		if ((p == text || p[-1] != '-') && !is_opt_char((unsigned char)p[len]))
			return true;
	return false;
}

Test(cli, man_page_lists_every_long_option_of_the_help)
{
	char *man = man_text();
	int checked = 0;
	for (int i = -1; i < NCMDS; i++) {
		char *h = help_of(i < 0 ? "" : commands[i]);
		for (const char *p = strstr(h, "--"); p; p = strstr(p + 2, "--")) {
			if (p > h && p[-1] == '-')
				continue;
			size_t len = 2;
			while (is_opt_char((unsigned char)p[len]))
				len++;
			if (len == 2 || !islower((unsigned char)p[2]))
				continue;
			char opt[64];
			snprintf(opt, sizeof opt, "%.*s", (int)len, p);
			cr_expect(has_option(man, opt), "'%s' in 'stagecut %s--help' is not in %s",
			          opt, i < 0 ? "" : commands[i], MAN_PAGE);
			checked++;
		}
		free(h);
	}
	/* the option table alone has 20 long options */
	cr_assert_geq(checked, 20, "only %d long options found in the help", checked);
	free(man);
}

/* The commands named by `stagecut --help` ("stagecut NAME ..." lines). */
static int help_commands(char names[][32], int max)
{
	char *h = help_of("");
	int n = 0;
	for (char *line = strtok(h, "\n"); line; line = strtok(NULL, "\n")) {
		char word[32];
		if (sscanf(line, "Usage: stagecut %31s", word) != 1 &&
		    sscanf(line, " stagecut %31s", word) != 1)
			continue;
		bool lower = true;
		for (char *c = word; *c; c++)
			lower = lower && islower((unsigned char)*c);
		if (lower && n < max)
			snprintf(names[n++], 32, "%s", word);
	}
	free(h);
	return n;
}

Test(cli, man_page_has_a_section_for_every_command)
{
	char names[16][32];
	int n = help_commands(names, 16);
	cr_assert_geq(n, 4, "found %d commands in 'stagecut --help'", n);
	char *man = man_text();
	char *sect = strstr(man, "\n.SH COMMANDS\n");
	cr_assert(sect, "the man page has no COMMANDS section");
	sect += 1;
	char *end = strstr(sect + 4, "\n.SH ");
	cr_assert(end);
	*end = '\0';
	for (int i = 0; i < n; i++) {
		/* ".TP" then a bold line whose first word is the command */
		bool found = false;
		for (char *p = strstr(sect, ".TP\n"); p && !found; p = strstr(p + 1, ".TP\n")) {
			char macro[8], word[32];
			if (sscanf(p + 4, ".%7s %31s", macro, word) == 2 && macro[0] == 'B') {
				char *q = word;
				if (*q == '"')
					q++;
				q[strcspn(q, "\"")] = '\0';
				found = strcmp(q, names[i]) == 0;
			}
		}
		cr_expect(found, "no '.TP' entry for the command '%s' in the COMMANDS section",
		          names[i]);
		/* and the command takes --help */
		char *h = help_of(names[i]);
		free(h);
	}
	free(man);
}

Test(cli, man_page_lists_every_solve_method)
{
	char *h = help_of("solve");
	char *m = strstr(h, "Methods:");
	cr_assert(m);
	char *opts = strstr(m, "\nOptions:");
	cr_assert(opts);
	*opts = '\0';
	char *man = man_text();
	int n = 0;
	for (char *line = strtok(m, "\n"); line; line = strtok(NULL, "\n")) {
		char name[32];
		if (strncmp(line, "  ", 2) != 0 || sscanf(line, " %31s", name) != 1)
			continue;
		char want[48];
		snprintf(want, sizeof want, "\n.B %s\n", name);
		cr_expect(strstr(man, want), "method '%s' has no '.B %s' entry in the man page",
		          name, name);
		n++;
	}
	cr_assert_geq(n, 10, "found %d methods in 'solve --help'", n);
	free(man);
	free(h);
}
/* ---- --json objects have the keys of stagecut(1), in its order ------------ */

static void assert_keys(json_t *o, const char *const *keys, int n, const char *what)
{
	const char *key;
	json_t *v;
	int i = 0;
	json_object_foreach(o, key, v)
	{
		(void)v;
		cr_assert_lt(i, n, "%s: unexpected key '%s'", what, key);
		cr_assert_str_eq(key, keys[i], "%s: key %d is '%s', want '%s'", what, i + 1, key,
		                 keys[i]);
		i++;
	}
	cr_assert_eq(i, n, "%s: %d keys, want %d", what, i, n);
}

static const char *const stage_keys[] = {"stage",    "ops",       "work",        "io_in",
                                         "io_out",   "overflow",  "cost",        "param",
                                         "in_bytes", "out_bytes", "over_memory", "memory"};

Test(cli, json_keys_follow_the_man_page)
{
	static const char *const info_keys[] = {
	        "graph",       "source",      "ops",       "edges",       "sources",
	        "sinks",       "depth",       "groups",    "grouped_ops", "largest_group",
	        "total_work",  "total_param", "total_out", "settings",    "simple_bound",
	        "contraction", "modules",     "costs"};
	static const char *const settings_keys[] = {"k", "bandwidth", "memory", "memory_unlimited",
	                                            "memory_policy"};
	json_t *r = ts_run_json(0, "info --json " RESIDUAL);
	assert_keys(r, info_keys, 18, "info");
	assert_keys(ts_jget(r, "settings"), settings_keys, 5, "info settings");
	json_decref(r);

	static const char *const eval_keys[] = {
	        "graph",      "partition",        "k",     "valid", "feasible",
	        "bottleneck", "bottleneck_stage", "stages"};
	static const char *const eval_bad_keys[] = {"graph",      "partition",        "k",
	                                            "valid",      "feasible",         "violation",
	                                            "bottleneck", "bottleneck_stage", "stages"};
	char p[128];
	ts_write_text(ts_tpath(p, sizeof p, "own.json"), ts_fig2_own);
	r = ts_run_json(0, "eval --json " FIGURE2 " %s", p);
	assert_keys(r, eval_keys, 8, "eval");
	assert_keys(json_array_get(ts_jget(r, "stages"), 0), stage_keys, 12, "eval stage");
	json_decref(r);
	ts_write_text(ts_tpath(p, sizeof p, "two.json"), ts_residual_two);
	r = ts_run_json(1, "eval --json " RESIDUAL " %s", p);
	assert_keys(r, eval_bad_keys, 9, "eval, infeasible");
	json_decref(r);

	static const char *const solve_keys[] = {
	        "graph",         "method",           "k",           "seed",
	        "bottleneck",    "bottleneck_stage", "feasible",    "optimal",
	        "evaluations",   "seconds",          "found_by",    "proof",
	        "proven_by",     "optimal_within",   "lower_bound", "gap",
	        "proof_seconds", "partition",        "pins",        "stages"};
	r = ts_run_json(0, "solve --json " FIGURE2);
	assert_keys(r, solve_keys, 20, "solve");
	assert_keys(json_array_get(ts_jget(r, "stages"), 2), stage_keys, 12, "solve stage");
	json_decref(r);
	r = ts_run_json(1, "solve --json " RESIDUAL " -M 50");
	assert_keys(r, solve_keys, 20, "solve, infeasible");
	json_decref(r);
}

/* ---- results that cannot be written are not successes -------------------- */

Test(cli, a_full_stdout_is_an_error)
{
	if (access("/dev/full", W_OK) != 0)
		cr_skip_test("no /dev/full here");
	char p[128];
	ts_write_text(ts_tpath(p, sizeof p, "own.json"), ts_fig2_own);
	char cmds[5][256];
	snprintf(cmds[0], sizeof cmds[0], "gen -n 50 >/dev/full");
	snprintf(cmds[1], sizeof cmds[1], "info --json " FIGURE2 " >/dev/full");
	snprintf(cmds[2], sizeof cmds[2], "eval " FIGURE2 " %s >/dev/full", p);
	snprintf(cmds[3], sizeof cmds[3], "solve --json " FIGURE2 " >/dev/full");
	snprintf(cmds[4], sizeof cmds[4], "--help >/dev/full");
	for (int i = 0; i < 5; i++) {
		char *err;
		int status = ts_runf(NULL, &err, "%s", cmds[i]);
		cr_expect_eq(status, 2, "'%s' exits %d", cmds[i], status);
		cr_expect(strncmp(err, "stagecut: ", 10) == 0 && strstr(err, "standard output"),
		          "'%s': stderr '%s'", cmds[i], err);
		free(err);
	}
}

/* ---- the examples of the man page and the README are what the program does */

/* The text of a man page line with groff's escapes for plain characters
 * undone (in place). */
static void ungroff(char *s)
{
	static const struct {
		const char *from, *to;
	} esc[] = {{"\\-", "-"}, {"\\(aq", "'"}, {"\\(dq", "\""}, {"\\e", "\\"}, {"\\~", " "}};
	char *w = s;
	for (const char *r = s; *r;) {
		size_t i, n = sizeof esc / sizeof esc[0];
		for (i = 0; i < n; i++)
			if (strncmp(r, esc[i].from, strlen(esc[i].from)) == 0)
				break;
		if (i < n) {
			size_t len = strlen(esc[i].to);
			memmove(w, esc[i].to, len);
			w += len;
			r += strlen(esc[i].from);
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Replaces every "in D.DD s" (solve's time, which varies) with "in T s". */
/* The seconds column of the bounds report: a number ending a line after a
 * rung's status. */
static void mask_rung_seconds(char *s)
{
	static const char *const st[] = {"optimal ", "time_limit ", "cancelled ", "error "};
	for (char *line = s; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char *end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		for (int i = 0; i < 4; i++) {
			char *p = strstr(line, st[i]);
			if (!p || p > end)
				continue;
			char *q = p + strlen(st[i]);
			while (*q == ' ')
				q++;
			char *digits = q;
			while (isdigit((unsigned char)*q) || *q == '.')
				q++;
			if (q > digits && q == end) {
				*digits = 'T';
				memmove(digits + 1, q, strlen(q) + 1);
			}
			break;
		}
	}
}

static void mask_seconds(char *s)
{
	mask_rung_seconds(s);
	for (char *p = strstr(s, " in "); p; p = strstr(p + 1, " in ")) {
		char *q = p + 4;
		char *digits = q;
		while (isdigit((unsigned char)*q) || *q == '.')
			q++;
		if (q > digits && strncmp(q, " s", 2) == 0) {
			*digits = 'T';
			memmove(digits + 1, q, strlen(q) + 1);
		}
	}
}

typedef struct doc_run {
	int examples, last_status;
	char prog[4096];
} doc_run;

/* Runs one example (cmd, then the text shown after it) in the scratch
 * directory, where "samples" and "tests" link to the repository's. */
static void doc_example(doc_run *d, const char *doc, char *cmd, char *shown)
{
	if (strncmp(cmd, "cat ", 4) == 0) {
		char p[256];
		ts_write_text(ts_tpath(p, sizeof p, cmd + 4), shown);
		return;
	}
	if (strcmp(cmd, "echo $?") == 0) {
		cr_expect_eq(d->last_status, atoi(shown), "%s: exit status %d, shown %s", doc,
		             d->last_status, shown);
		return;
	}
	/* pipelines, continued lines and examples without output are not run */
	const char *args = strncmp(cmd, "./stagecut ", 11) == 0 ? cmd + 11
	                   : strncmp(cmd, "stagecut ", 9) == 0  ? cmd + 9
	                                                        : NULL;
	if (!args || strchr(cmd, '|') || cmd[strlen(cmd) - 1] == '\\' || !*shown)
		return;
	char full[8192], *out, *err;
	snprintf(full, sizeof full, "cd '%s' && '%s' %s", ts_dir, d->prog, args);
	d->last_status = ts_run(full, &out, &err);
	mask_seconds(out);
	mask_seconds(shown);
	cr_expect_str_eq(out, shown, "%s: '$ %s' prints\n%s\nbut the example shows\n%s", doc, cmd,
	                 out, shown);
	free(out);
	free(err);
	d->examples++;
}

/* Finds the examples of doc: in the man page, the lines between .nf and
 * .fi; in the README, the blocks indented by four spaces.  A line "$ CMD"
 * starts an example and the lines up to the next "$ " or the end of the
 * block are what it prints. */
static int doc_examples(const char *doc, bool man)
{
	doc_run d = {0};
	cr_assert(realpath(ts_program(), d.prog), "no program at %s", ts_program());
	char cwd[4096], p[8400];
	cr_assert(getcwd(cwd, sizeof cwd));
	snprintf(p, sizeof p, "ln -s '%s/samples' '%s/samples' && ln -s '%s/tests' '%s/tests'", cwd,
	         ts_dir, cwd, ts_dir);
	cr_assert_eq(system(p), 0);
	char *text = ts_slurp(doc, NULL);
	cr_assert(text, "cannot read %s", doc);
	char *cmd = NULL, shown[8192] = "";
	bool in_block = false;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		bool block_line;
		if (man) {
			if (strcmp(line, ".nf") == 0 || strcmp(line, ".fi") == 0) {
				in_block = strcmp(line, ".nf") == 0;
				block_line = false;
			} else {
				block_line = in_block && line[0] != '.';
				ungroff(line);
			}
		} else {
			/* a blank line stays in a block when the block goes on after it */
			block_line = strncmp(line, "    ", 4) == 0 ||
			             (!*line && cmd && next && strncmp(next, "    ", 4) == 0);
			if (block_line && *line)
				line += 4;
		}
		bool starts = block_line && strncmp(line, "$ ", 2) == 0;
		if (cmd && (!block_line || starts)) {
			size_t len = strlen(shown);
			while (len > 1 && shown[len - 1] == '\n' && shown[len - 2] == '\n')
				shown[--len] = '\0';
			doc_example(&d, doc, cmd, shown);
			cmd = NULL;
		}
		if (starts) {
			cmd = line + 2;
			shown[0] = '\0';
		} else if (cmd) {
			strncat(shown, line, sizeof shown - strlen(shown) - 2);
			strcat(shown, "\n");
		}
	}
	free(text);
	return d.examples;
}

Test(cli, man_page_examples_are_what_the_program_prints)
{
	int n = doc_examples(MAN_PAGE, true);
	cr_assert_geq(n, 4, "only %d examples of the man page were run", n);
}

Test(cli, readme_examples_are_what_the_program_prints)
{
	int n = doc_examples("README.md", false);
	cr_assert_geq(n, 3, "only %d examples of the README were run", n);
}

/* ---- long options may be abbreviated (stagecut(1), OPTIONS) ---------------- */

Test(cli, long_options_may_be_abbreviated)
{
	json_t *r = ts_run_json(0, "info --js " FIGURE2 " --band 2 --memory-p hard --memory 5");
	json_t *set = ts_jget(r, "settings");
	cr_assert(ts_jnum(set, "bandwidth") == 2);
	cr_assert(ts_jnum(set, "memory") == 5);
	cr_assert_str_eq(ts_jstr(set, "memory_policy"), "hard");
	json_decref(r);
	/* an ambiguous prefix is refused, naming what it could mean */
	static const char *const cases[][3] = {
	        {"info " FIGURE2 " --mem 5", "--memory", "--memory-policy"},
	        {"solve " FIGURE2 " --e 5", "--evals", "--elite"},
	        {"solve " FIGURE2 " --p=5", "--population", "--partition"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err;
		cr_assert_eq(ts_runf(&out, &err, "%s", cases[i][0]), 2, "%s", cases[i][0]);
		cr_assert_str_empty(out);
		cr_assert(strstr(err, "ambiguous") && strstr(err, cases[i][1]) &&
		                  strstr(err, cases[i][2]),
		          "'%s': stderr %s", cases[i][0], err);
		free(out);
		free(err);
	}
}

/*
 * test_bad_input.c - the corpus of bad input in tests/bad.
 *
 * tests/bad/MANIFEST lists one case per line, "COMMAND<TAB>EXPECTED", where
 * {P} in COMMAND stands for the program.  Every case must fail the way
 * DESIGN.md section 2 asks: exit status 2, nothing on stdout, and exactly one
 * line on stderr that starts "stagecut: ", contains EXPECTED and, when the
 * command names a path under tests/bad, the last such path (the file at
 * fault).  All cases run and every failure is reported together, each with
 * its MANIFEST line, so one run shows the whole picture.  Other tests here
 * check that no file of the corpus is left out of the MANIFEST and that a
 * failed `solve -o` leaves an existing output file alone.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support.h"

#define BAD_DIR "tests/bad"
#define MANIFEST BAD_DIR "/MANIFEST"
#define MIN_CASES 40

typedef struct bad_case {
	int line;     /* in MANIFEST, from 1 */
	char *cmd;    /* the template, with {P} */
	char *expect; /* text stderr must contain */
} bad_case;

typedef struct bad_manifest {
	bad_case *cases;
	int n;
} bad_manifest;

/* A growing report of failures; strings are appended printf-style. */
typedef struct report {
	char *text;
	size_t len, cap;
	int failures;
} report;

static void report_add(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void report_add(report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	cr_assert(need >= 0);
	if (r->len + (size_t)need + 1 > r->cap) {
		r->cap = 2 * (r->len + (size_t)need + 1);
		r->text = realloc(r->text, r->cap);
		cr_assert(r->text, "out of memory");
	}
	va_start(ap, fmt);
	vsnprintf(r->text + r->len, r->cap - r->len, fmt, ap);
	va_end(ap);
	r->len += (size_t)need;
}

/* Fails the test with the whole report when anything went wrong. */
static void report_finish(report *r, int total, const char *what)
{
	if (r->failures)
		cr_assert_fail("%d of %d %s failed:\n%s", r->failures, total, what, r->text);
	free(r->text);
}

static char *dup_range(const char *s, size_t len)
{
	char *d = malloc(len + 1);
	cr_assert(d, "out of memory");
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

/* Reads the MANIFEST; a line that is neither blank, a comment nor
 * "COMMAND<TAB>EXPECTED" with both parts non-empty fails the test. */
static bad_manifest manifest_read(void)
{
	FILE *f = fopen(MANIFEST, "r");
	cr_assert(f, "cannot open %s (run the tests from the repository root)", MANIFEST);
	bad_manifest m = {NULL, 0};
	int cap = 0, lineno = 0;
	char buf[4096];
	while (fgets(buf, sizeof buf, f)) {
		lineno++;
		size_t len = strlen(buf);
		cr_assert(len < sizeof buf - 1 || buf[len - 1] == '\n', "%s:%d: line too long",
		          MANIFEST, lineno);
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (buf[0] == '#' || strspn(buf, " \t") == len)
			continue;
		char *tab = strchr(buf, '\t');
		cr_assert(tab && tab > buf && tab[1] && !strchr(tab + 1, '\t'),
		          "%s:%d: expected COMMAND<TAB>EXPECTED, got '%s'", MANIFEST, lineno, buf);
		if (m.n == cap) {
			cap = cap ? 2 * cap : 64;
			m.cases = realloc(m.cases, (size_t)cap * sizeof *m.cases);
			cr_assert(m.cases, "out of memory");
		}
		m.cases[m.n++] = (bad_case){lineno, dup_range(buf, (size_t)(tab - buf)),
		                            dup_range(tab + 1, strlen(tab + 1))};
	}
	fclose(f);
	return m;
}

static void manifest_free(bad_manifest *m)
{
	for (int i = 0; i < m->n; i++) {
		free(m->cases[i].cmd);
		free(m->cases[i].expect);
	}
	free(m->cases);
}

/* The template with every {P} replaced by the program, malloc'd. */
static char *expand(const char *tmpl)
{
	const char *prog = ts_program();
	size_t cap = strlen(tmpl) + 1, plen = strlen(prog);
	for (const char *p = strstr(tmpl, "{P}"); p; p = strstr(p + 3, "{P}"))
		cap += plen;
	char *out = malloc(cap), *o = out;
	cr_assert(out, "out of memory");
	for (const char *s = tmpl; *s;) {
		if (strncmp(s, "{P}", 3) == 0) {
			memcpy(o, prog, plen);
			o += plen;
			s += 3;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/* True when the space-separated words of cmd include word. */
static bool has_word(const char *cmd, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = cmd; (p = strstr(p, word)) != NULL; p++)
		if ((p == cmd || p[-1] == ' ') && (p[wl] == '\0' || p[wl] == ' '))
			return true;
	return false;
}

/* The last word of cmd that is tests/bad or a path under it (the file at
 * fault), copied into buf; NULL when there is none (usage errors). */
static const char *offending_path(const char *cmd, char *buf, size_t size)
{
	const char *found = NULL;
	size_t flen = 0;
	for (const char *p = cmd; *p;) {
		while (*p == ' ')
			p++;
		size_t len = strcspn(p, " ");
		if ((len == strlen(BAD_DIR) && strncmp(p, BAD_DIR, len) == 0) ||
		    strncmp(p, BAD_DIR "/", strlen(BAD_DIR) + 1) == 0) {
			found = p;
			flen = len;
		}
		p += len;
	}
	if (!found)
		return NULL;
	snprintf(buf, size, "%.*s", (int)flen, found);
	return buf;
}

static int count_char(const char *s, char c)
{
	int n = 0;
	for (; *s; s++)
		n += *s == c;
	return n;
}

/* Runs one case; adds what is wrong with it to r. */
static void run_case(const bad_case *c, report *r)
{
	char *cmd = expand(c->cmd);
	char *out = NULL, *err = NULL;
	int status = ts_run(cmd, &out, &err);
	out = out ? out : strdup("");
	err = err ? err : strdup("");
	report p = {0}; /* what is wrong with this case */
	if (status == -1)
		report_add(&p, "    - did not exit normally (killed by a signal, or not run)\n");
	else if (status != 2)
		report_add(&p, "    - exit status %d, want 2\n", status);
	if (*out)
		report_add(&p, "    - stdout is not empty: '%.300s'\n", out);
	size_t elen = strlen(err);
	if (elen == 0 || err[elen - 1] != '\n' || count_char(err, '\n') != 1)
		report_add(
		        &p,
		        "    - stderr is not exactly one line ending in a newline (%d newlines)\n",
		        count_char(err, '\n'));
	if (strncmp(err, "stagecut: ", 10) != 0)
		report_add(&p, "    - stderr does not start with 'stagecut: '\n");
	if (!strstr(err, c->expect))
		report_add(&p, "    - stderr lacks the expected text '%s'\n", c->expect);
	char path[512];
	if (offending_path(c->cmd, path, sizeof path) && !strstr(err, path))
		report_add(&p, "    - stderr does not name the file '%s'\n", path);
	if (p.len) {
		r->failures++;
		report_add(r, "%s:%d: %s\n    status %d, stderr: '%s'\n%s", MANIFEST, c->line, cmd,
		           status, err, p.text);
	}
	free(p.text);
	free(cmd);
	free(out);
	free(err);
}

Test(bad_input, every_case_fails_cleanly, .timeout = 300)
{
	bad_manifest m = manifest_read();
	cr_assert_geq(m.n, MIN_CASES, "%s has %d cases, want at least %d", MANIFEST, m.n,
	              MIN_CASES);
	report r = {0};
	for (int i = 0; i < m.n; i++)
		run_case(&m.cases[i], &r);
	report_finish(&r, m.n, "bad-input cases");
	manifest_free(&m);
}

static bool is_corpus_file(const char *dir, const char *name)
{
	if (name[0] == '.' || strcmp(name, "MANIFEST") == 0 || strcmp(name, "README") == 0)
		return false;
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

Test(bad_input, manifest_covers_every_file)
{
	bad_manifest m = manifest_read();
	DIR *d = opendir(BAD_DIR);
	cr_assert(d, "cannot open %s", BAD_DIR);
	report r = {0};
	int files = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!is_corpus_file(BAD_DIR, e->d_name))
			continue;
		files++;
		char word[1024];
		snprintf(word, sizeof word, "%s/%s", BAD_DIR, e->d_name);
		bool used = false;
		for (int i = 0; i < m.n && !used; i++)
			used = has_word(m.cases[i].cmd, word);
		if (!used) {
			r.failures++;
			report_add(&r, "    %s is in no case of %s\n", word, MANIFEST);
		}
	}
	closedir(d);
	report_finish(&r, files, "corpus files (left out of the MANIFEST)");
	manifest_free(&m);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc(65536);
	size_t n = buf ? fread(buf, 1, 65535, f) : 0;
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	if (d)
		closedir(d);
	return n;
}

/* True for the corpus files that are meant as graphs (not partitions). */
static bool is_bad_graph(const char *name)
{
	static const char *const prefixes[] = {"dot_",  "fiddle_",    "garbage", "unknown_format",
	                                       "empty", "whitespace", "json_"};
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

Test(bad_input, failed_solve_keeps_existing_output, .timeout = 300)
{
	char dir[] = "/tmp/sc-bad-input-XXXXXX";
	cr_assert(mkdtemp(dir), "cannot create a temporary directory");
	char out[128];
	snprintf(out, sizeof out, "%s/existing.json", dir);
	const char *content = "{\"keep\": \"this content, byte for byte\"}\n";
	FILE *f = fopen(out, "w");
	cr_assert(f);
	fputs(content, f);
	fclose(f);

	/* every bad graph of the corpus (dot_no_k.dot is a good graph, but solve
	 * without -k is an error too, and -k 2 is given here, so it is skipped),
	 * then a bad starting partition on a good graph */
	char **cmds = NULL;
	int ncmds = 0;
	DIR *d = opendir(BAD_DIR);
	cr_assert(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!is_corpus_file(BAD_DIR, e->d_name) || !is_bad_graph(e->d_name) ||
		    strcmp(e->d_name, "dot_no_k.dot") == 0)
			continue;
		cmds = realloc(cmds, (size_t)(ncmds + 1) * sizeof *cmds);
		cr_assert(cmds);
		char buf[1024];
		snprintf(buf, sizeof buf, "{P} solve %s/%s -k 2 -o %s", BAD_DIR, e->d_name, out);
		cmds[ncmds++] = strdup(buf);
	}
	closedir(d);
	static const char *const parts[] = {"part_stage_range.json", "part_edge_back.json",
	                                    "part_stage_huge.json", "part_malformed.json"};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		cmds = realloc(cmds, (size_t)(ncmds + 1) * sizeof *cmds);
		cr_assert(cmds);
		char buf[1024];
		snprintf(buf, sizeof buf,
		         "{P} solve samples/paper/figure2.dot --partition %s/%s -o %s", BAD_DIR,
		         parts[i], out);
		cmds[ncmds++] = strdup(buf);
	}
	cr_assert_geq(ncmds, 20, "only %d bad graphs found in %s", ncmds, BAD_DIR);

	report r = {0};
	for (int i = 0; i < ncmds; i++) {
		char *cmd = expand(cmds[i]);
		char *err = NULL;
		int status = ts_run(cmd, NULL, &err);
		char *now = read_all(out);
		int entries = count_entries(dir);
		/* an invalid starting partition exits 1, bad input 2 */
		int want = strstr(cmd, "part_stage_range") || strstr(cmd, "part_edge_back") ||
		                           strstr(cmd, "part_stage_huge")
		                   ? 1
		                   : 2;
		if (status != want || !now || strcmp(now, content) != 0 || entries != 1) {
			r.failures++;
			report_add(&r,
			           "    %s\n    status %d (want %d), %s, %d files in %s (want 1), "
			           "stderr: '%s'\n",
			           cmd, status, want,
			           !now                        ? "the output file is gone"
			           : strcmp(now, content) != 0 ? "the output file was changed"
			                                       : "the output file is intact",
			           entries, dir, err ? err : "");
			/* put the content back for the next case */
			f = fopen(out, "w");
			cr_assert(f);
			fputs(content, f);
			fclose(f);
		}
		free(now);
		free(err);
		free(cmd);
		free(cmds[i]);
	}
	free(cmds);
	char rm[256];
	snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
	system(rm);
	report_finish(&r, ncmds, "solve -o runs on bad input");
}

/* eval reports a stage outside 1..k as an invalid partition: exit 1 with
 * the reason on stdout (stagecut(1), "eval"), not as bad input; this is why
 * the corpus runs those partition files through solve --partition. */
Test(bad_input, eval_reports_out_of_range_stage_as_invalid)
{
	char cmd[512], *out, *err;
	snprintf(cmd, sizeof cmd, "%s eval samples/paper/figure2.dot %s/part_stage_range.json",
	         ts_program(), BAD_DIR);
	int status = ts_run(cmd, &out, &err);
	cr_assert_eq(status, 1, "status %d, stderr '%s'", status, err);
	cr_assert(strstr(out, "invalid: op 'y' is in stage 4, outside 1..k"), "stdout '%s'", out);
	cr_assert_str_empty(err);
	free(out);
	free(err);
	/* a stage above 1000000 is no different, nor one beyond an
	 * int, which is kept at the int's end */
	snprintf(cmd, sizeof cmd, "%s eval samples/paper/figure2.dot %s/part_stage_huge.json",
	         ts_program(), BAD_DIR);
	status = ts_run(cmd, &out, &err);
	cr_assert_eq(status, 1, "status %d, stderr '%s'", status, err);
	cr_assert(strstr(out, "invalid: op 'y' is in stage 1000001, outside 1..k"), "stdout '%s'",
	          out);
	cr_assert_str_empty(err);
	free(out);
	free(err);
	json_t *j = ts_run_json(
	        1, "eval --json samples/paper/figure2.dot %s/part_stage_beyond_int.json", BAD_DIR);
	cr_assert_str_eq(ts_jstr(j, "violation"),
	                 "op 'a' is in stage -2147483646 or below, outside 1..k");
	json_decref(j);
}

/* solve --partition, bounds --partition and render take a partition file
 * the one way eval does (sc_part_load): a stage outside 1..k, a stage 0 or
 * an edge going back is an invalid partition, exit 1 with one line on
 * stderr naming the file, and nothing on stdout. */
Test(bad_input, invalid_partition_exits_1_in_every_command, .timeout = 120)
{
	static const struct {
		const char *args, *part, *why;
	} cases[] = {
	        {"solve samples/paper/figure2.dot", "part_stage_range.json",
	         "op 'y' is in stage 4, outside 1..k"},
	        {"solve samples/paper/figure2.dot", "part_stage_zero.json",
	         "op 'a' is in stage 0, outside 1..k"},
	        {"solve samples/paper/figure2.dot -m exact", "part_edge_back.json",
	         "edge 'u' -> 'v' goes from stage 2 back to stage 1"},
	        {"bounds samples/paper/figure2.dot --rungs simple", "part_edge_back.json",
	         "edge 'u' -> 'v' goes from stage 2 back to stage 1"},
	        {"render samples/paper/figure2.dot -o /dev/null -T dot", "part_stage_range.json",
	         "op 'y' is in stage 4, outside 1..k"},
	        /* however far outside (above 1000000 was once "must be an
	         * integer", exit 2); beyond an int it is kept at the int's end */
	        {"solve samples/paper/figure2.dot", "part_stage_huge.json",
	         "op 'y' is in stage 1000001, outside 1..k"},
	        {"bounds samples/paper/figure2.dot --rungs simple", "part_stage_beyond_int.json",
	         "op 'a' is in stage -2147483646 or below, outside 1..k"},
	        /* beyond 64 bits, read as the real it is (once "too big
	         * integer", exit 2) */
	        {"solve samples/paper/figure2.dot", "part_stage_beyond_int64.json",
	         "op 'y' is in stage 2147483647 or above, outside 1..k"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char cmd[512], *out, *err, want[256];
		bool render = strncmp(cases[i].args, "render", 6) == 0;
		snprintf(cmd, sizeof cmd, "%s %s %s%s/%s", ts_program(), cases[i].args,
		         render ? "" : "--partition ", BAD_DIR, cases[i].part);
		int status = ts_run(cmd, &out, &err);
		snprintf(want, sizeof want, "stagecut: %s/%s: the partition is invalid: %s\n",
		         BAD_DIR, cases[i].part, cases[i].why);
		cr_assert_eq(status, 1, "%s: status %d, stderr '%s'", cmd, status, err);
		cr_assert_str_empty(out, "%s: stdout '%s'", cmd, out);
		cr_assert_str_eq(err, want, "%s", cmd);
		free(out);
		free(err);
	}
}

/* Leading blanks, however many, do not make a graph file empty. */
Test(bad_input, many_leading_blanks_are_not_an_empty_file)
{
	char path[] = "/tmp/sc-blanks-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	for (int i = 0; i < 2000; i++)
		fputc(i % 80 == 79 ? '\n' : ' ', f);
	fputs("digraph blanks { a [work = 1]; b [work = 2]; a -> b; }\n", f);
	fclose(f);
	char cmd[256], *err;
	snprintf(cmd, sizeof cmd, "%s info %s", ts_program(), path);
	int status = ts_run(cmd, NULL, &err);
	unlink(path);
	cr_assert_eq(status, 0, "status %d, stderr '%s'", status, err);
	free(err);
}

/* A reader that closes early: the program is not killed by SIGPIPE (exit
 * 141); the write fails, one line says so, exit 2. */
Test(bad_input, a_reader_closing_early_is_exit_2_not_sigpipe)
{
	char cmd[512], *err;
	snprintf(cmd, sizeof cmd,
	         "sh -c '(%s gen -n 100000 -s 1; echo \"status $?\" >&2) | head -c 10 >/dev/null'",
	         ts_program());
	cr_assert_eq(ts_run(cmd, NULL, &err), 0);
	cr_assert(strstr(err, "status 2\n"), "%s", err);
	cr_assert(strstr(err, "stagecut: standard output: cannot write"), "%s", err);
	free(err);
}

/* The README states how many cases the corpus holds; it stays true as cases are added. */
Test(bad_input, the_readme_counts_the_corpus)
{
	bad_manifest m = manifest_read();
	char *readme = ts_slurp("README.md", NULL);
	cr_assert(readme);
	const char *at = strstr(readme, "tests/bad/MANIFEST: ");
	cr_assert(at, "README.md does not count the corpus");
	int said = atoi(at + strlen("tests/bad/MANIFEST: "));
	cr_assert_eq(said, m.n, "README.md says %d cases, tests/bad/MANIFEST has %d", said, m.n);
	free(readme);
	manifest_free(&m);
}

/* A name from the input is quoted in a message bounded: its
 * first SC_MSG_NAME_MAX (200) bytes, "...", its length, then the rest of
 * the message, not 10 MB of name (nor a message cut off before its reason).
 * msr-fiddle JSON takes names of any length; cgraph's quoted strings stop
 * at 16384 bytes. */
Test(bad_input, long_names_are_bounded_in_messages)
{
	char dir[64], json[128], cyc[128], dot[128], csv[128];
	ts_make_dir(dir, "sc-longname");
	snprintf(json, sizeof json, "%s/long.json", dir);
	snprintf(cyc, sizeof cyc, "%s/cycle.json", dir);
	snprintf(dot, sizeof dot, "%s/long.dot", dir);
	snprintf(csv, sizeof csv, "%s/times.csv", dir);
	size_t len = 10 * 1000 * 1000;
	char *name = malloc(len + 1);
	cr_assert(name);
	memset(name, 'n', len);
	name[len] = '\0';
	FILE *f = fopen(json, "w");
	cr_assert(f);
	fprintf(f,
	        "{\"maxFPGAs\": 2, \"nodes\": [{\"id\": 1, \"name\": \"%s\", \"fpgaLatency\": "
	        "-1, \"size\": 0}], \"edges\": []}\n",
	        name);
	fclose(f);
	f = fopen(cyc, "w");
	cr_assert(f);
	fprintf(f,
	        "{\"maxFPGAs\": 2, \"nodes\": [{\"id\": 1, \"name\": \"%s\", \"fpgaLatency\": 1, "
	        "\"size\": 0}, {\"id\": 2, \"name\": \"b\", \"fpgaLatency\": 1, \"size\": 0}], "
	        "\"edges\": [{\"sourceId\": 1, \"destId\": 2, \"cost\": 0}, {\"sourceId\": 2, "
	        "\"destId\": 1, \"cost\": 0}]}\n",
	        name);
	fclose(f);
	f = fopen(csv, "w");
	cr_assert(f);
	fprintf(f, "%s,3\n", name);
	fclose(f);
	f = fopen(dot, "w");
	cr_assert(f);
	fprintf(f, "digraph g { \"%.16000s\" [work = -1]; }\n", name);
	fclose(f);
	char head[SC_MSG_NAME_MAX + 1];
	memset(head, 'n', SC_MSG_NAME_MAX);
	head[SC_MSG_NAME_MAX] = '\0';
	static const char *const fmt[] = {"info %s", "info %s",
	                                  "info samples/paper/figure2.dot --times %s", "info %s"};
	const char *path[] = {json, cyc, csv, dot};
	const char *tail[] = {
	        "... (10000000 bytes)' attribute 'fpgaLatency': -1 is negative (it must be a "
	        "finite number >= 0)\n",
	        "... (10000000 bytes)' -> 'b' -> '",
	        "... (10000000 bytes)' names no op of figure2.dot\n",
	        "... (16000 bytes)' attribute 'work': '-1' is not a finite number >= 0\n",
	};
	for (int i = 0; i < 4; i++) {
		char args[256], *out, *err;
		snprintf(args, sizeof args, fmt[i], path[i]);
		int st = ts_runf(&out, &err, "%s", args);
		cr_assert_eq(st, 2, "%s: %d", args, st);
		cr_assert_lt(strlen(err), 1024, "%s: %zu bytes on stderr", args, strlen(err));
		char want[SC_MSG_NAME_MAX + 160];
		snprintf(want, sizeof want, "'%s%s", head, tail[i]);
		cr_assert(strstr(err, want), "%s: %s", args, err);
		cr_assert(strstr(err, path[i]), "%s: %s", args, err);
		free(out);
		free(err);
	}
	free(name);
	ts_remove_dir(dir);
}

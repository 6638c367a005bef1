/*
 * test_outputs.c - the names a command writes against the files it reads
 * (tui/cmd/outputs.h): render --full's page names checked against every
 * input before anything runs, the pages of an earlier, longer picture
 * removed and nothing else, and an interrupted picture that leaves the
 * earlier one whole and no temporary file.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support.h"

static char dir[64];

static void make_dir(void)
{
	ts_make_dir(dir, "sc-outputs");
}

static void remove_dir(void)
{
	ts_remove_dir(dir);
}

TestSuite(outputs, .init = make_dir, .fini = remove_dir, .timeout = 120);

#define ER50 "samples/testbed/regal-er-50-1.dot"

static const char *in_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

static char *slurp(const char *path)
{
	char *text = ts_slurp(path, NULL);
	cr_assert(text, "cannot read %s", path);
	return text;
}

static void copy_file(const char *from, const char *to)
{
	char *text = slurp(from);
	ts_write_text(to, text);
	free(text);
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* The names in dir, sorted, joined by newlines, each with its size and
 * its bytes' sum (a listing to compare before and after). */
static char *listing(void)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	cr_assert(n >= 0);
	size_t cap = 64 + (size_t)n * 600, at = 0;
	char *out = malloc(cap);
	cr_assert(out);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		char path[512];
		unsigned long sum = 0;
		size_t len = 0;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			char *text = ts_slurp(path, &len);
			for (size_t j = 0; text && j < len; j++)
				sum = sum * 31 + (unsigned char)text[j];
			free(text);
		}
		at += (size_t)snprintf(out + at, cap - at, "%s %zu %lx\n", names[i]->d_name, len,
		                       sum);
		free(names[i]);
	}
	free(names);
	return out;
}

Test(outputs, page_names_that_are_inputs_are_refused_before_anything_runs)
{
	char g[256], pic1[256], pic[256], part2[256], part[256], q40[256], q[256], *err = NULL;
	in_dir(g, sizeof g, "g.dot");
	copy_file(ER50, g);
	char *graph = slurp(g);
	/* the graph named as page 1 of -o */
	copy_file(ER50, in_dir(pic1, sizeof pic1, "pic-1.dot"));
	in_dir(pic, sizeof pic, "pic.dot");
	int st = ts_runf(NULL, &err, "render '%s' -o '%s' -T dot --full --page-ops 5 -k 3", pic1,
	                 pic);
	cr_assert_eq(st, 2, "exit %d: %s", st, err);
	cr_assert(strstr(err, "pic-1.dot") && strstr(err, "pic.dot") && strstr(err, "page 1"), "%s",
	          err);
	char *kept = slurp(pic1);
	cr_assert_str_eq(kept, graph, "the input was replaced");
	free(kept);
	free(err);
	cr_assert(!exists(pic), "the overview was written");
	/* a partition named as page 2 */
	in_dir(part2, sizeof part2, "part-2.json");
	cr_assert_eq(ts_runf(NULL, NULL, "solve '%s' -k 3 -m kahn -o '%s'", g, part2), 0);
	char *p2 = slurp(part2);
	st = ts_runf(NULL, &err, "render '%s' '%s' -o '%s' -T dot --full --page-ops 5", g, part2,
	             in_dir(part, sizeof part, "part.json"));
	cr_assert_eq(st, 2, "exit %d: %s", st, err);
	cr_assert(strstr(err, "part-2.json") && strstr(err, "part.json"), "%s", err);
	kept = slurp(part2);
	cr_assert_str_eq(kept, p2, "the partition was replaced");
	free(kept);
	free(err);
	/* another name for the graph (a hard link) at a page number the
	 * picture will not reach, which the removal of stale pages would
	 * take: refused too, naming both */
	in_dir(q40, sizeof q40, "q-40.svg");
	cr_assert_eq(link(g, q40), 0);
	st = ts_runf(NULL, &err, "render '%s' -o '%s' --full --page-ops 5 -k 3", g,
	             in_dir(q, sizeof q, "q.svg"));
	cr_assert_eq(st, 2, "exit %d: %s", st, err);
	cr_assert(strstr(err, "q-40.svg") && strstr(err, "g.dot"), "%s", err);
	cr_assert(exists(q40) && !exists(q));
	free(err);
	/* the same renders to a name no input has run */
	cr_assert_eq(unlink(q40), 0);
	cr_assert_eq(ts_runf(NULL, &err, "render '%s' -o '%s' --full --page-ops 5 -k 3", g, q), 0,
	             "%s", err);
	free(err);
	kept = slurp(g);
	cr_assert_str_eq(kept, graph);
	free(kept);
	free(graph);
	free(p2);
}

Test(outputs, pages_of_an_earlier_longer_picture_are_removed_and_nothing_else)
{
	char g[256], q[256], path[300], *out = NULL, *err = NULL;
	in_dir(g, sizeof g, "g.dot");
	copy_file(ER50, g);
	in_dir(q, sizeof q, "q.svg");
	cr_assert_eq(
	        ts_runf(&out, NULL, "render '%s' -o '%s' --full --page-ops 5 -k 3 --json", g, q),
	        0);
	json_t *v = json_loads(out, 0, NULL);
	int many = (int)json_array_size(json_object_get(v, "pages"));
	json_decref(v);
	free(out);
	cr_assert(many >= 6, "%d pages", many);
	/* names that are no page of q.svg, and a page-like directory */
	const char *decoys[] = {"q-05.svg",    "q-9.png",  "q-x.svg", "qq-9.svg",
	                        "q-9.svg.bak", "q--9.svg", "q-.svg"};
	for (size_t i = 0; i < sizeof decoys / sizeof *decoys; i++)
		ts_write_text(in_dir(path, sizeof path, decoys[i]), "mine");
	cr_assert_eq(mkdir(in_dir(path, sizeof path, "q-99.svg"), 0755), 0);
	cr_assert_eq(
	        ts_runf(&out, &err, "render '%s' -o '%s' --full --page-ops 20 -k 3 --json", g, q),
	        0, "%s", err);
	v = json_loads(out, 0, NULL);
	int few = (int)json_array_size(json_object_get(v, "pages"));
	json_decref(v);
	free(out);
	cr_assert(few >= 2 && few < many, "%d pages after %d", few, many);
	for (int i = 1; i <= many; i++) {
		snprintf(path, sizeof path, "%s/q-%d.svg", dir, i);
		cr_assert_eq(exists(path), i <= few, "%s", path);
	}
	/* the pages kept are the new picture's */
	snprintf(path, sizeof path, "%s/q-1.svg", dir);
	char *svg = slurp(path), want[64];
	snprintf(want, sizeof want, "page 1 of %d", few);
	cr_assert(strstr(svg, want), "q-1.svg is not page 1 of %d", few);
	free(svg);
	cr_assert(strstr(err, "removed") && strstr(err, "q-40.svg") == NULL, "%s", err);
	char from[64];
	snprintf(from, sizeof from, "q-%d.svg", few + 1);
	cr_assert(strstr(err, from), "%s", err);
	free(err);
	for (size_t i = 0; i < sizeof decoys / sizeof *decoys; i++)
		cr_assert(exists(in_dir(path, sizeof path, decoys[i])), "%s was removed",
		          decoys[i]);
	cr_assert(exists(in_dir(path, sizeof path, "q-99.svg")));
	/* a picture on one page leaves no page of the earlier one */
	cr_assert_eq(ts_runf(NULL, NULL, "render '%s' -o '%s' --full --page-ops 0 -k 3", g, q), 0);
	for (int i = 1; i <= many; i++) {
		snprintf(path, sizeof path, "%s/q-%d.svg", dir, i);
		cr_assert(!exists(path), "%s", path);
	}
}

/* Whether a staging directory in dir holds a file yet. */
static bool staging_has_a_file(void)
{
	DIR *d = opendir(dir);
	bool found = false;
	for (struct dirent *e; d && !found && (e = readdir(d));) {
		if (strncmp(e->d_name, ".stagecut-", 10) != 0)
			continue;
		char sub[512];
		snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
		DIR *s = opendir(sub);
		for (struct dirent *f; s && (f = readdir(s));)
			if (f->d_name[0] != '.')
				found = true;
		if (s)
			closedir(s);
	}
	if (d)
		closedir(d);
	return found;
}

/* render --full of a large graph, signalled with sig once it has drawn a
 * page: exit 130 (143 after SIGTERM), and dir as it was before. */
static void interrupt_render(int sig)
{
	char g[256], q[256], cmd[1024];
	in_dir(g, sizeof g, "big.dot");
	in_dir(q, sizeof q, "q.svg");
	cr_assert_eq(ts_runf(NULL, NULL, "gen -n 2000 -s 4 -o '%s'", g), 0);
	/* the earlier picture, on pages */
	cr_assert_eq(ts_runf(NULL, NULL, "render '%s' -o '%s' --full -k 3 -m kahn", g, q), 0);
	char *before = listing();
	cr_assert(strstr(before, "q-2.svg"), "%s", before);
	snprintf(cmd, sizeof cmd, "exec %s render '%s' -o '%s' --full -k 4 -m kahn 2>/dev/null",
	         ts_program(), g, q);
	pid_t pid = ts_spawn(cmd, false);
	int st = 0;
	bool done = false;
	for (int i = 0; i < 20000 && !staging_has_a_file(); i++) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			done = true;
			break;
		}
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
	cr_assert(!done, "render ended before a page was drawn aside (status %d)", st);
	kill(pid, sig);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	int want = sig == SIGTERM ? 143 : 130;
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == want, "status %d", st);
	char *after = listing();
	cr_assert_str_eq(after, before, "the directory changed");
	free(after);
	free(before);
}

Test(outputs, an_interrupted_picture_leaves_the_earlier_one_and_no_temporary_file)
{
	interrupt_render(SIGINT);
}

Test(outputs, sigterm_while_drawing_leaves_the_earlier_picture_too)
{
	interrupt_render(SIGTERM);
}

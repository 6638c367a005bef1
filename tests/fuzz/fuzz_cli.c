/*
 * fuzz_cli.c - libFuzzer harness for the command line (tui/cmd/cli.c: option
 * parsing, its error messages and help, then the command).
 *
 * The input is the argument list, split at NUL bytes.  If the first argument
 * is "info" or "eval" it is the command, else the command is "info" and every
 * argument is passed on; other commands search, fork solvers, write files or
 * open the terminal, so they are not run.  Files stay inside the harness's
 * private directory: an argument holding '/' rejects the input, the current
 * directory during the call is the private one (so "x" names nothing), and
 * these arguments are replaced by fixture files written there once:
 *
 *   @g  samples/paper/figure2.dot      @r  samples/small/residual.dot
 *   @j  a small msr-fiddle JSON graph  @p  a partition file for @g
 *
 * stdout and stderr are sent to /dev/null during the call only (the stdio
 * streams are swapped; libFuzzer and the sanitizers write to fd 2 as usual).
 */
#define _GNU_SOURCE
#include "tests/fuzz/fuzz_common.h"

#include <fcntl.h>
#include <getopt.h>

#include "tui/cmd/cli.h"

static const char *const fixtures[][2] = {
        {"@g", fuzz_figure2_dot},
        {"@r", fuzz_residual_dot},
        {"@j", "{\"maxSizePerFPGA\": 1000.0, \"maxFPGAs\": 2, \"nodes\": [\n"
               " {\"name\": \"embed\", \"id\": 10, \"fpgaLatency\": 0.5, \"colorClass\": 1, "
               "\"size\": 400},\n"
               " {\"name\": \"attn\", \"id\": 11, \"fpgaLatency\": 2.75, \"size\": 300},\n"
               " {\"name\": \"pos\", \"id\": 3, \"fpgaLatency\": 0, \"colorClass\": 1}],\n"
               " \"edges\": [{\"sourceId\": 10, \"destId\": 11, \"cost\": 1.25},\n"
               "  {\"sourceId\": 3, \"destId\": 11, \"cost\": 1.25}]}\n"},
        {"@p", "{\"format\": \"stagecut-partition/1\", \"k\": 3,\n"
               " \"stages\": {\"a\": 1, \"u\": 1, \"v\": 2, \"w\": 2, \"x\": 3, \"y\": 3}}\n"},
};
#define NFIXTURES (int)(sizeof fixtures / sizeof fixtures[0])

static char fixture_path[NFIXTURES][PATH_MAX];
static int home_fd = -1; /* the directory to return to after each call */
static FILE *devnull;

static void setup(void)
{
	static const char *const file[NFIXTURES] = {"g.dot", "r.dot", "j.json", "p.json"};
	for (int i = 0; i < NFIXTURES; i++) {
		fuzz_path(file[i], fixture_path[i], sizeof fixture_path[i]);
		fuzz_write(fixture_path[i], fixtures[i][1], strlen(fixtures[i][1]));
	}
	home_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	devnull = fopen("/dev/null", "w");
	FUZZ_CHECK(home_fd >= 0 && devnull != NULL);
}

/* glibc's getopt keeps a pointer into the last argv it parsed (the rest of a
 * cluster such as "-hk3" when the parser stopped at -h); cli.c rewinds with
 * optind = 1, which keeps that pointer, so it would read the previous input's
 * freed arguments.  optind = 0 makes getopt start afresh. */
static void reset_getopt(void)
{
	static char name[] = "stagecut";
	char *argv[] = {name, NULL};
	optind = 0;
	opterr = 0;
	(void)getopt(1, argv, "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (home_fd < 0)
		setup();
	/* a copy ending in NUL, so that every argument is a C string */
	char *buf = malloc(size + 1);
	FUZZ_CHECK(buf != NULL);
	memcpy(buf, data, size);
	buf[size] = '\0';
	int nargs = 0;
	for (size_t i = 0; i <= size; i++)
		nargs += buf[i] == '\0';
	char **argv = calloc((size_t)nargs + 3, sizeof *argv);
	FUZZ_CHECK(argv != NULL);
	static char prog[] = "stagecut", info[] = "info";
	int argc = 0, result = 0;
	argv[argc++] = prog;
	for (char *s = buf; s <= buf + size; s += strlen(s) + 1) {
		if (strchr(s, '/')) {
			result = -1; /* names a file outside the private directory */
			goto out;
		}
		if (argc == 1 && strcmp(s, "info") != 0 && strcmp(s, "eval") != 0)
			argv[argc++] = info;
		char *arg = s;
		for (int i = 0; i < NFIXTURES; i++)
			if (strcmp(s, fixtures[i][0]) == 0)
				arg = fixture_path[i];
		argv[argc++] = arg;
	}
	argv[argc] = NULL;

	reset_getopt();
	FILE *saved_out = stdout, *saved_err = stderr;
	stdout = devnull;
	stderr = devnull;
	FUZZ_CHECK(chdir(fuzz_tmpdir()) == 0);
	int status = ui_main(argc, argv);
	FUZZ_CHECK(fchdir(home_fd) == 0);
	clearerr(devnull);
	stdout = saved_out;
	stderr = saved_err;
	FUZZ_CHECK(status == UI_EXIT_OK || status == UI_EXIT_INFEASIBLE || status == UI_EXIT_INPUT);
out:
	free(argv);
	free(buf);
	return result;
}

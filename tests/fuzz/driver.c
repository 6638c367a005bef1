/*
 * driver.c - runs a fuzz harness without libFuzzer, for `make fuzz-regress`:
 * every file named on the command line, and every regular file in each
 * directory named (in name order), is read whole and passed once to
 * LLVMFuzzerTestOneInput.  All inputs are read before the first run, since a
 * harness may change the working directory.  Built with the sanitizers, a
 * report, a leak (checked after each input) or a failed check (abort) ends
 * the run and names the input; otherwise it exits 0 after printing how many
 * inputs ran, or 2 when an input cannot be read.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct input {
	char *path;
	uint8_t *data;
	size_t size;
} input;

static input *inputs;
static size_t ninputs, cap;
static const char *volatile current; /* the input being run */

/* Names the input at fault; async-signal-safe (write only). */
static void name_current(void)
{
	const char *p = current;
	if (!p)
		return;
	static const char pre[] = "driver: the failing input is ";
	ssize_t w = write(2, pre, sizeof pre - 1);
	w += write(2, p, strlen(p));
	w += write(2, "\n", 1);
	(void)w;
}

static void on_signal(int sig)
{
	name_current();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int read_input(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	uint8_t *data = NULL;
	size_t size = 0, room = 0;
	for (;;) {
		if (size == room) {
			room = room ? 2 * room : 4096;
			uint8_t *more = realloc(data, room);
			if (!more) {
				free(data);
				fclose(f);
				fprintf(stderr, "%s: out of memory\n", path);
				return -1;
			}
			data = more;
		}
		size_t got = fread(data + size, 1, room - size, f);
		size += got;
		if (got == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(data);
		fprintf(stderr, "%s: cannot read\n", path);
		return -1;
	}
	if (ninputs == cap) {
		cap = cap ? 2 * cap : 64;
		input *more = realloc(inputs, cap * sizeof *inputs);
		if (!more) {
			free(data);
			return -1;
		}
		inputs = more;
	}
	inputs[ninputs++] = (input){strdup(path), data, size};
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int read_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, by_name);
	if (n < 0) {
		perror(dir);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat sb;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    read_input(path) != 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			rc |= read_dir(argv[i]);
		else
			rc |= read_input(argv[i]);
	}
	if (rc)
		return 2;
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_set_death_callback(name_current);
#endif
	signal(SIGABRT, on_signal); /* a failed check in a harness */
#ifndef __SANITIZE_ADDRESS__
	signal(SIGSEGV, on_signal); /* AddressSanitizer reports these itself */
	signal(SIGFPE, on_signal);
#endif
	for (size_t i = 0; i < ninputs; i++) {
		current = inputs[i].path;
		LLVMFuzzerTestOneInput(inputs[i].data, inputs[i].size);
#ifdef __SANITIZE_ADDRESS__
		/* as libFuzzer does, find a leak at the input that made it */
		if (__lsan_do_recoverable_leak_check()) {
			name_current();
			return 1;
		}
#endif
		current = NULL;
		free(inputs[i].data);
		free(inputs[i].path);
	}
	free(inputs);
	fprintf(stderr, "%s: %zu inputs ran\n", argv[0], ninputs);
	return 0;
}

/*
 * cmd_gen.c - `stagecut gen`: a synthetic graph (REGAL-style, transformer or
 * resnet; core/gen.h) as DOT, to -o FILE or stdout.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <unistd.h>

#include "tui/ui.h"
#include "core/formats/write_dot.h"
#include "core/gen.h"

int ui_cmd_gen(const ui_opts *o)
{
	sc_gen_spec spec;
	sc_gen_spec_init(&spec);
	/* the option parser has checked the name */
	if (o->model && !sc_gen_model_parse(o->model, &spec.model)) {
		ui_error("gen: --model: '%s' is not er, ba, ws, any, transformer, resnet or "
		         "inception",
		         o->model);
		return UI_EXIT_INPUT;
	}
	spec.nodes = o->nodes;
	spec.layers = o->layers;
	spec.seed = o->seed;
	spec.k = o->k;
	spec.training = o->training;
	sc_error err;
	sc_graph *g = sc_gen(&spec, &err);
	if (!g) {
		ui_error("gen: %s", err.msg);
		return UI_EXIT_INPUT;
	}
	int status = UI_EXIT_OK;
	if (o->output) {
		if (sc_write_dot(g, NULL, o->output, &err) != SC_OK) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
		}
	} else {
		/* stdout: write through a temporary file so the text is cgraph's */
		char tmp[] = "/tmp/stagecut-gen-XXXXXX";
		int fd = mkstemp(tmp);
		if (fd < 0 || sc_write_dot(g, NULL, tmp, &err) != SC_OK) {
			ui_error("gen: %s", fd < 0 ? "cannot create a temporary file" : err.msg);
			status = UI_EXIT_INPUT;
		} else {
			FILE *f = fopen(tmp, "r");
			char buf[65536];
			size_t n;
			while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
				fwrite(buf, 1, n, stdout);
			if (f)
				fclose(f);
		}
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
	}
	sc_graph_free(g);
	return status;
}

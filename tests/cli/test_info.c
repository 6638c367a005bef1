/*
 * test_info.c - `stagecut info`: counts, totals and simple bounds of the
 * samples by hand and of the msr-fiddle graphs from their raw JSON, and the
 * settings options overriding the file.
 *
 * Expected values never come from the program's own output: they are derived
 * by hand from the sample files, parsed from raw inputs, or computed by the
 * independent cost model and brute force of tests/support.c.  Hand-derived
 * values are sums of dyadic numbers, compared with ==; values from
 * real-valued inputs are compared to a relative 1e-9.  Split from the former
 * test_commands.c; the other commands' tests are test_<command>.c beside it.
 * Longer than 600 lines: one test per sample and option, each with the
 * values derived for it by hand.
 */
#include "tests/cli/cli_test.h"

TestSuite(info, .init = ts_scratch_init, .fini = ts_scratch_fini, .timeout = 60);

/* ---- info ----------------------------------------------------------- */

/* What `info` should report, computed from the raw msr-fiddle JSON. */
typedef struct fiddle_facts {
	int ops, edges, sources, sinks, depth, groups, grouped_ops, largest_group;
	double work, param, out, largest_unit;
	long long k;
	double memory;
} fiddle_facts;

static int index_of_id(json_t *nodes, long long id)
{
	for (size_t i = 0; i < json_array_size(nodes); i++)
		if (json_integer_value(json_object_get(json_array_get(nodes, i), "id")) == id)
			return (int)i;
	cr_assert_fail("edge to an unknown id %lld", id);
	return -1;
}

static void fiddle_facts_of(const char *path, fiddle_facts *f)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	cr_assert(root, "%s: %s", path, jerr.text);
	json_t *nodes = json_object_get(root, "nodes"), *edges = json_object_get(root, "edges");
	cr_assert(json_is_array(nodes) && json_is_array(edges));
	memset(f, 0, sizeof *f);
	int n = (int)json_array_size(nodes), m = (int)json_array_size(edges);
	f->ops = n;
	f->k = json_integer_value(json_object_get(root, "maxFPGAs"));
	f->memory = json_number_value(json_object_get(root, "maxSizePerFPGA"));
	int *src = malloc((size_t)m * sizeof *src), *dst = malloc((size_t)m * sizeof *dst);
	int *indeg = calloc((size_t)n, sizeof *indeg), *outdeg = calloc((size_t)n, sizeof *outdeg);
	int *level = malloc((size_t)n * sizeof *level);
	double *outv = calloc((size_t)n, sizeof *outv);
	long long *color = malloc((size_t)n * sizeof *color);
	double *cwork = calloc((size_t)n, sizeof *cwork);
	int *csize = calloc((size_t)n, sizeof *csize), ncolors = 0;
	cr_assert(src && dst && indeg && outdeg && level && outv && color && cwork && csize);
	/* distinct edges */
	for (int e = 0; e < m; e++) {
		json_t *ed = json_array_get(edges, (size_t)e);
		int s = index_of_id(nodes, json_integer_value(json_object_get(ed, "sourceId")));
		int d = index_of_id(nodes, json_integer_value(json_object_get(ed, "destId")));
		bool dup = false;
		for (int j = 0; j < f->edges && !dup; j++)
			dup = src[j] == s && dst[j] == d;
		if (!dup) {
			src[f->edges] = s;
			dst[f->edges] = d;
			f->edges++;
			indeg[d]++;
			outdeg[s]++;
		}
		outv[s] = json_number_value(json_object_get(ed, "cost"));
	}
	for (int v = 0; v < n; v++) {
		json_t *node = json_array_get(nodes, (size_t)v);
		double w = json_number_value(json_object_get(node, "fpgaLatency"));
		f->work += w;
		f->param += json_number_value(json_object_get(node, "size"));
		f->out += outv[v];
		f->sources += indeg[v] == 0;
		f->sinks += outdeg[v] == 0;
		json_t *cc = json_object_get(node, "colorClass");
		if (!cc || json_is_null(cc)) {
			f->largest_unit = fmax(f->largest_unit, w);
			continue;
		}
		int c = 0;
		while (c < ncolors && color[c] != json_integer_value(cc))
			c++;
		if (c == ncolors)
			color[ncolors++] = json_integer_value(cc);
		cwork[c] += w;
		csize[c]++;
	}
	for (int c = 0; c < ncolors; c++) {
		f->largest_unit = fmax(f->largest_unit, cwork[c]);
		if (csize[c] > 1) {
			f->groups++;
			f->grouped_ops += csize[c];
			if (csize[c] > f->largest_group)
				f->largest_group = csize[c];
		}
	}
	/* the longest path in ops, by relaxing the edges until nothing changes */
	for (int v = 0; v < n; v++)
		level[v] = 1;
	for (bool changed = true; changed;) {
		changed = false;
		for (int e = 0; e < f->edges; e++)
			if (level[dst[e]] < level[src[e]] + 1) {
				level[dst[e]] = level[src[e]] + 1;
				changed = true;
			}
	}
	for (int v = 0; v < n; v++)
		if (level[v] > f->depth)
			f->depth = level[v];
	free(src);
	free(dst);
	free(indeg);
	free(outdeg);
	free(level);
	free(outv);
	free(color);
	free(cwork);
	free(csize);
	json_decref(root);
}

/* Asserts info's simple_bound array: k = 2, 4, ..., 64 then extra_k (when
 * > 0), each max(largest, total / k). */
static void assert_simple_bounds(json_t *info, double largest, double total, int extra_k,
                                 const char *what)
{
	static const int ks[] = {2, 4, 8, 16, 32, 64};
	json_t *b = ts_jget(info, "simple_bound");
	cr_assert(json_is_array(b));
	size_t want_n = 6 + (extra_k > 0);
	cr_assert_eq(json_array_size(b), want_n, "%s: %zu simple bounds, want %zu", what,
	             json_array_size(b), want_n);
	for (size_t i = 0; i < want_n; i++) {
		json_t *e = json_array_get(b, i);
		int k = i < 6 ? ks[i] : extra_k;
		cr_assert_eq(ts_jint(e, "k"), k, "%s: entry %zu", what, i);
		double want = fmax(largest, total / k);
		cr_assert(ts_close_rel(ts_jnum(e, "bound"), want, 1e-12),
		          "%s: k %d bound %.17g, want %.17g", what, k, ts_jnum(e, "bound"), want);
	}
}

static void check_fiddle_info(const char *path)
{
	fiddle_facts f;
	fiddle_facts_of(path, &f);
	json_t *info = ts_run_json(0, "info --json %s", path);
	cr_assert_str_eq(ts_jstr(info, "source"), path);
	cr_assert_str_eq(ts_jstr(info, "graph"), strrchr(path, '/') + 1);
	cr_assert_eq(ts_jint(info, "ops"), f.ops, "%s: ops", path);
	cr_assert_eq(ts_jint(info, "edges"), f.edges, "%s: edges", path);
	cr_assert_eq(ts_jint(info, "sources"), f.sources, "%s: sources", path);
	cr_assert_eq(ts_jint(info, "sinks"), f.sinks, "%s: sinks", path);
	cr_assert_eq(ts_jint(info, "depth"), f.depth, "%s: depth", path);
	cr_assert_eq(ts_jint(info, "groups"), f.groups, "%s: groups", path);
	cr_assert_eq(ts_jint(info, "grouped_ops"), f.grouped_ops, "%s: grouped ops", path);
	cr_assert_eq(ts_jint(info, "largest_group"), f.largest_group, "%s: largest group", path);
	cr_assert(ts_close_rel(ts_jnum(info, "total_work"), f.work, 1e-9), "%s: total work", path);
	cr_assert(ts_close_rel(ts_jnum(info, "total_param"), f.param, 1e-9), "%s: total param",
	          path);
	cr_assert(ts_close_rel(ts_jnum(info, "total_out"), f.out, 1e-9), "%s: total out", path);
	json_t *set = ts_jget(info, "settings");
	cr_assert_eq(ts_jint(set, "k"), f.k);
	cr_assert(ts_jnum(set, "bandwidth") == 1);
	cr_assert(ts_jnum(set, "memory") == f.memory);
	cr_assert_str_eq(ts_jstr(set, "memory_policy"), "hard");
	int extra = (int)f.k;
	for (int k = 2; k <= 64; k *= 2)
		if (k == extra)
			extra = 0;
	assert_simple_bounds(info, f.largest_unit, f.work, extra, path);
	json_decref(info);
}

Test(info, info_counts_match_the_raw_msr_fiddle_json)
{
	check_fiddle_info(BERT3_OP);
	check_fiddle_info(RESNET_OP);
}

Test(info, info_figure2_by_hand)
{
	/* ops a, u, v, w, x, y; edges a-u, u-v, u-w, v-x, w-x, x-y; one source
	 * (a), one sink (y), longest path a u v x y; work 1+2+3+1+2+1 = 10,
	 * param 4+4+8+2+6+1 = 25, out 1+2+1+1+1+0 = 6; largest op v = 3 */
	json_t *info = ts_run_json(0, "info --json " FIGURE2);
	cr_assert_str_eq(ts_jstr(info, "graph"), "figure2.dot");
	cr_assert_eq(ts_jint(info, "ops"), 6);
	cr_assert_eq(ts_jint(info, "edges"), 6);
	cr_assert_eq(ts_jint(info, "sources"), 1);
	cr_assert_eq(ts_jint(info, "sinks"), 1);
	cr_assert_eq(ts_jint(info, "depth"), 5);
	cr_assert_eq(ts_jint(info, "groups"), 0);
	cr_assert_eq(ts_jint(info, "grouped_ops"), 0);
	cr_assert_eq(ts_jint(info, "largest_group"), 0);
	cr_assert(ts_jnum(info, "total_work") == 10);
	cr_assert(ts_jnum(info, "total_param") == 25);
	cr_assert(ts_jnum(info, "total_out") == 6);
	json_t *set = ts_jget(info, "settings");
	cr_assert_eq(ts_jint(set, "k"), 3);
	cr_assert(ts_jnum(set, "bandwidth") == 1);
	cr_assert(json_is_null(ts_jget(set, "memory")), "unlimited memory is not null");
	/* null alone would not say unlimited (stagecut(1): null is unknown) */
	cr_assert(ts_jbool(set, "memory_unlimited"));
	cr_assert_str_eq(ts_jstr(set, "memory_policy"), "overflow");
	/* 5, 3 (2.5 < v's 3), 3, 3, 3, 3, then the file's k = 3: 10/3 */
	assert_simple_bounds(info, 3, 10, 3, "figure2");
	cr_assert(ts_close_rel(ts_jnum(json_array_get(ts_jget(info, "simple_bound"), 6), "bound"),
	                       10.0 / 3, 1e-15));
	json_decref(info);
}

Test(info, info_residual_by_hand)
{
	/* 8 ops, 9 edges; input is the only source, output the only sink;
	 * longest path input conv1 conv2 add mm_a concat output = 7 ops;
	 * group matmul = {mm_a, mm_b} with work 3+3 = 6 = conv1's 6;
	 * work 0+6+6+3+3+1+1+1 = 21, param 60+60+30+30 = 180,
	 * out 8+8+8+4+4+8+8+0 = 48 */
	json_t *info = ts_run_json(0, "info --json " RESIDUAL);
	cr_assert_eq(ts_jint(info, "ops"), 8);
	cr_assert_eq(ts_jint(info, "edges"), 9);
	cr_assert_eq(ts_jint(info, "sources"), 1);
	cr_assert_eq(ts_jint(info, "sinks"), 1);
	cr_assert_eq(ts_jint(info, "depth"), 7);
	cr_assert_eq(ts_jint(info, "groups"), 1);
	cr_assert_eq(ts_jint(info, "grouped_ops"), 2);
	cr_assert_eq(ts_jint(info, "largest_group"), 2);
	cr_assert(ts_jnum(info, "total_work") == 21);
	cr_assert(ts_jnum(info, "total_param") == 180);
	cr_assert(ts_jnum(info, "total_out") == 48);
	json_t *set = ts_jget(info, "settings");
	cr_assert_eq(ts_jint(set, "k"), 3);
	cr_assert(ts_jnum(set, "bandwidth") == 2);
	cr_assert(ts_jnum(set, "memory") == 100);
	cr_assert(!ts_jbool(set, "memory_unlimited"));
	cr_assert_str_eq(ts_jstr(set, "memory_policy"), "hard");
	assert_simple_bounds(info, 6, 21, 3, "residual");
	json_decref(info);
}

Test(info, info_options_override_the_file)
{
	/* -k 2 is in the list already: no extra row; the group's 6 dominates
	 * 21/k from k = 4 */
	json_t *info = ts_run_json(0, "info --json " RESIDUAL
	                              " -k 2 -B 0.5 -M inf --memory-policy overflow");
	json_t *set = ts_jget(info, "settings");
	cr_assert_eq(ts_jint(set, "k"), 2);
	cr_assert(ts_jnum(set, "bandwidth") == 0.5);
	cr_assert(json_is_null(ts_jget(set, "memory")));
	cr_assert_str_eq(ts_jstr(set, "memory_policy"), "overflow");
	assert_simple_bounds(info, 6, 21, 0, "residual -k 2");
	json_decref(info);
	/* a k of its own joins the end of the list: figure2 with k = 7 */
	info = ts_run_json(0, "info --json " FIGURE2 " --k 7 --memory 12.5 --memory-policy hard");
	set = ts_jget(info, "settings");
	cr_assert_eq(ts_jint(set, "k"), 7);
	cr_assert(ts_jnum(set, "memory") == 12.5);
	cr_assert_str_eq(ts_jstr(set, "memory_policy"), "hard");
	assert_simple_bounds(info, 3, 10, 7, "figure2 -k 7");
	json_decref(info);
}

/* The graph line names the file: a file name with ESC or a newline in it is
 * printed escaped, so info's report stays plain lines of text. */
Test(info, file_names_are_escaped_on_stdout)
{
	char g[128];
	ts_tpath(g, sizeof g, "e\x1b[2Jvil\nname.dot");
	ts_write_text(g, "digraph g { a [work = 1]; }\n");
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "info '%s'", g), 0, "%s", err);
	cr_assert_null(strchr(out, '\x1b'), "raw ESC on stdout:\n%s", out);
	cr_assert(strncmp(out, "graph          e\\x1b[2Jvil\\nname.dot (", 34) == 0, "%s", out);
	cr_assert(strstr(out, "\nops            1 "), "%s", out);
	free(out);
	free(err);
}

/* A training graph (isBackwardNode true on some ops, as a boolean or a
 * number) is described with its passes: in fiddle_training.json embed and
 * attn are forward (work 1.5 + 2), attn_grad and embed_grad backward (4 +
 * 3), in the groups of attn and embed, so no orphan; of the three edges only
 * embed -> attn orders the stages.  --json gives the same as "training",
 * present only for a training graph. */
Test(info, training_graph_is_described_with_its_passes)
{
	char *out, *err;
	cr_assert_eq(ts_runf(&out, &err, "info tests/data/fiddle_training.json"), 0, "%s", err);
	cr_assert_str_eq(err, "");
	cr_assert(strstr(out, "\nops            4 "), "%s", out);
	cr_assert(strstr(out, "\ntotal work     10.5000 time units\n"), "%s", out);
	cr_assert(strstr(out, "\ntraining       2 forward ops (work 3.5000), 2 backward (work "
	                      "7.0000), 0 orphans\n"
	                      "               1 of the 3 edges order the stages (1 forward, 0 "
	                      "mirrored at orphans)\n"),
	          "%s", out);
	free(out);
	free(err);
	json_t *j = ts_run_json(0, "info --json tests/data/fiddle_training.json");
	json_t *t = ts_jget(j, "training");
	cr_assert_eq(ts_jint(t, "forward_ops"), 2);
	cr_assert_eq(ts_jint(t, "backward_ops"), 2);
	cr_assert_eq(ts_jint(t, "orphans"), 0);
	cr_assert_eq(ts_jnum(t, "work_forward"), 3.5);
	cr_assert_eq(ts_jnum(t, "work_backward"), 7.0);
	cr_assert_eq(ts_jint(t, "order_arcs"), 1);
	cr_assert_eq(ts_jnum(j, "total_work"), 10.5);
	json_decref(j);
	/* an inference graph has neither */
	cr_assert_eq(ts_runf(&out, &err, "info " RESNET_OP), 0, "%s", err);
	cr_assert_null(strstr(out, "training"), "%s", out);
	free(out);
	free(err);
	j = ts_run_json(0, "info --json " RESNET_OP);
	cr_assert_null(json_object_get(j, "training"));
	json_decref(j);
}

/* A file name that is not UTF-8: --json still writes (JSON must be UTF-8),
 * the odd byte as \xHH in "graph" and "source". */
Test(info, json_with_a_file_name_not_utf8)
{
	char g[128];
	ts_tpath(g, sizeof g, "caf\xe9.dot");
	ts_write_text(g, "digraph g { a [work = 1]; }\n");
	json_t *j = ts_run_json(0, "info --json '%s'", g);
	cr_assert_str_eq(ts_jstr(j, "graph"), "caf\\xe9.dot");
	const char *src = ts_jstr(j, "source");
	cr_assert(strlen(src) > 12 && strcmp(src + strlen(src) - 12, "/caf\\xe9.dot") == 0, "%s",
	          src);
	cr_assert_eq(ts_jint(j, "ops"), 1);
	json_decref(j);
}

/* ---- the exact DP's contraction (solvers/contract.c) ------------------ */

/* a -> b, a -> c; a weight w (work 0, 3 bytes of parameters, out 4) feeds
 * b; a summary s (work 0, 5 bytes) hangs off c.  Ideals by hand: {}, a, w,
 * aw, ac, awc, acs, awcs, awb, awbc, awbcs = 11.  With all 8 parameter
 * bytes within the memory w joins b (into-successor: it reads nothing and
 * sends 4 bytes) and s joins c (into-predecessor: it sends nothing): units
 * a, bw, cs and ideals {}, a, a+bw, a+cs, all = 5.  With memory 6 neither
 * may move (its bytes could overflow or break the limit). */
#define LEAVES                                                                                     \
	"digraph leaves { memory=100; memory_policy=hard; a [work=2, out=1]; b [work=3, out=2]; "  \
	"c [work=1, out=1]; w [param=3, out=4]; s [param=5]; a -> b; a -> c; w -> b; c -> s; }"

Test(info, info_reports_the_contraction)
{
	char path[256];
	ts_write_text(ts_tpath(path, sizeof path, "leaves.dot"), LEAVES);
	json_t *info = ts_run_json(0, "info --json %s", path);
	json_t *c = ts_jget(info, "contraction");
	cr_assert_eq(ts_jint(c, "units_before"), 5);
	cr_assert_eq(ts_jint(c, "units"), 3);
	cr_assert_eq(ts_jint(c, "ideals_before"), 11);
	cr_assert_eq(ts_jint(c, "ideals"), 5);
	json_t *rules = ts_jget(c, "rules");
	cr_assert_eq(ts_jint(rules, "into-successor"), 1);
	cr_assert_eq(ts_jint(rules, "into-predecessor"), 1);
	cr_assert_eq(ts_jint(rules, "chain"), 0);
	cr_assert_eq(ts_jint(rules, "isolated"), 0);
	json_decref(info);
	info = ts_run_json(0, "info --json %s -M 6", path);
	c = ts_jget(info, "contraction");
	cr_assert_eq(ts_jint(c, "units"), 5);
	cr_assert_eq(ts_jint(c, "ideals"), 11);
	json_decref(info);
	char *out = NULL;
	cr_assert_eq(ts_runf(&out, NULL, "info %s", path), 0);
	cr_assert(strstr(out, "contraction    5 ops -> 5 units (groups, cycles) -> 3 units"), "%s",
	          out);
	cr_assert(strstr(out, "ideals         5 for the exact DP (11 without the rules)"), "%s",
	          out);
	free(out);
}

/* A graph read from a pipe (/dev/stdin) loads as the file does:
 * the file was opened once to choose the loader and once more to load it,
 * and the second read of the pipe found nothing.  DOT and msr-fiddle JSON,
 * by content (the name has no extension). */
Test(info, a_graph_from_a_pipe_loads_as_the_file_does)
{
	const char *files[] = {LEMMA_B2, BERT3_OP};
	for (int i = 0; i < 2; i++) {
		char cmd[512], *out, *err;
		snprintf(cmd, sizeof cmd, "cat %s | %s info --json /dev/stdin", files[i],
		         ts_program());
		int st = ts_run(cmd, &out, &err);
		cr_assert_eq(st, 0, "%s: %s", files[i], err);
		cr_assert_str_empty(err);
		json_error_t jerr;
		json_t *piped = json_loads(out, 0, &jerr);
		cr_assert(piped, "%s: %s", files[i], out);
		json_t *direct = ts_run_json(0, "info --json %s", files[i]);
		const char *keys[] = {"ops", "edges", "total_work", "total_param", "total_out"};
		for (int j = 0; j < 5; j++)
			cr_assert_eq(ts_jnum(piped, keys[j]), ts_jnum(direct, keys[j]), "%s %s",
			             files[i], keys[j]);
		json_decref(piped);
		json_decref(direct);
		free(out);
		free(err);
	}
	char cmd[512], *out, *err;
	snprintf(cmd, sizeof cmd, "cat %s | %s solve /dev/stdin -k 4 --json", LEMMA_B2,
	         ts_program());
	cr_assert_eq(ts_run(cmd, &out, &err), 0, "%s", err);
	json_t *s = json_loads(out, 0, NULL);
	cr_assert(s, "%s", out);
	cr_assert_eq(ts_jnum(s, "bottleneck"), 1);
	json_decref(s);
	free(out);
	free(err);
}

/* A valid JSON number loads however large: jansson refuses an
 * integer beyond 64 bits ("too big integer") unless asked to read it as a
 * real, which is what an msr-fiddle latency or size and an ONNX Runtime
 * profile's "dur" and "ts" are.  A whole number counts as an integer
 * however it is written (an id 2.0, a stage 1.0). */
Test(info, integers_beyond_64_bits_load_as_reals)
{
	char json[256], ort[256], part[256];
	ts_tpath(json, sizeof json, "big.json");
	ts_tpath(ort, sizeof ort, "big.ort.json");
	ts_tpath(part, sizeof part, "big.part.json");
	ts_write_text(json,
	              "{\"maxFPGAs\": 2, \"nodes\": [\n"
	              " {\"id\": 1, \"name\": \"a\", \"fpgaLatency\": 100000000000000000000,\n"
	              "  \"size\": 300000000000000000000},\n"
	              " {\"id\": 2.0, \"name\": \"b\", \"fpgaLatency\": 1, \"size\": 0}],\n"
	              " \"edges\": [{\"sourceId\": 1, \"destId\": 2, \"cost\": 2}]}\n");
	json_t *j = ts_run_json(0, "info --json %s", json);
	cr_assert_eq(ts_jnum(j, "total_work"), 1e20 + 1);
	cr_assert_eq(ts_jnum(j, "total_param"), 3e20);
	cr_assert_eq(ts_jint(j, "edges"), 1);
	json_decref(j);
	ts_write_text(ort, "[{\"cat\": \"Node\", \"name\": \"a_kernel_time\", \"ts\": "
	                   "100000000000000000000, \"dur\": 200000000000000000000, \"ph\": \"X\", "
	                   "\"args\": {\"op_name\": \"Relu\"}}]\n");
	j = ts_run_json(0, "info --json " FIGURE2 " --times %s", ort);
	json_t *f = ts_run_json(0, "info --json " FIGURE2);
	cr_assert_eq(ts_jnum(j, "total_work"), 2e20 + ts_jnum(f, "total_work") - 1); /* a: 1 */
	json_decref(j);
	json_decref(f);
	ts_write_text(part, "{\"format\": \"stagecut-partition/1\", \"k\": 2.0, \"stages\": "
	                    "{\"a\": 1.0, \"b\": 2}}\n");
	j = ts_run_json(0, "eval --json %s %s", json, part);
	cr_assert_eq(ts_jint(j, "k"), 2);
	cr_assert(ts_jbool(j, "valid"));
	json_decref(j);
}

/* A DOT name may hold control characters (stagecut(1), DOT), wherever it
 * is in the file (within the first 512 bytes the file was taken
 * for binary data); messages quote them escaped.  Outside a quoted string
 * a control byte is still binary data. */
Test(info, control_characters_in_dot_names_load)
{
	char dot[256], bin[256];
	ts_tpath(dot, sizeof dot, "ctl.dot");
	ts_tpath(bin, sizeof bin, "bin.dot");
	ts_write_text(dot, "digraph g { \"a\x1b[31m\x01\" [work = 1]; b [work = 2]; "
	                   "\"a\x1b[31m\x01\" -> b; }\n");
	json_t *j = ts_run_json(0, "info --json %s", dot);
	cr_assert_eq(ts_jint(j, "ops"), 2);
	json_decref(j);
	char *out, *err;
	ts_write_text(dot, "digraph g { \"a\x1b[31m\x01\" [work = -1]; }\n");
	cr_assert_eq(ts_runf(&out, &err, "info %s", dot), 2);
	cr_assert(strstr(err, "node 'a\\x1b[31m\\x01' attribute 'work': '-1'"), "%s", err);
	free(out);
	free(err);
	ts_write_text(bin, "digraph g { a\x1b [work = 1]; }\n");
	cr_assert_eq(ts_runf(&out, &err, "info %s", bin), 2);
	cr_assert(strstr(err, "binary data (byte 0x1b at offset 13)"), "%s", err);
	free(out);
	free(err);
}

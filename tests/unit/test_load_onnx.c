/*
 * test_load_onnx.c - the ONNX loader and its roofline costs on tiny models
 * built here with protobuf-c's generated structs and packed to files: a
 * Conv, a MatMul, a Gemm, a broadcasting Add, a weight shared by two ops,
 * a symbolic batch set by --dim, an op of unknown type, and bad files.
 * Expected FLOPs, bytes and work are computed by hand in the comments.
 *
 * Longer than 600 lines: every test builds its model with the same small
 * writer (model, node, init, input, value_info, save), which a split would
 * have to share through a header of its own.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/formats/load.h"
#include "core/formats/onnx.h"
#include "onnx/onnx.pb-c.h"

/* ---- a small model writer ---------------------------------------------------- */

#define MAXN 16

typedef struct model {
	Onnx__ModelProto m;
	Onnx__GraphProto g;
	Onnx__OperatorSetIdProto opset, *opsets[1];
	Onnx__NodeProto nodes[MAXN], *pnodes[MAXN];
	Onnx__TensorProto inits[MAXN], *pinits[MAXN];
	Onnx__ValueInfoProto inputs[MAXN], *pinputs[MAXN], *pvalue_info[MAXN];
	Onnx__TypeProto types[MAXN];
	Onnx__TypeProto__Tensor ttypes[MAXN];
	Onnx__TensorShapeProto shapes[MAXN];
	Onnx__TensorShapeProto__Dimension dims[MAXN][4], *pdims[MAXN][4];
	Onnx__AttributeProto attrs[MAXN], *pattrs[MAXN];
} model;

static void model_init(model *x, int opset)
{
	memset(x, 0, sizeof *x);
	onnx__model_proto__init(&x->m);
	onnx__graph_proto__init(&x->g);
	onnx__operator_set_id_proto__init(&x->opset);
	x->opset.domain = "";
	x->opset.has_version = 1;
	x->opset.version = opset;
	x->opsets[0] = &x->opset;
	x->m.n_opset_import = 1;
	x->m.opset_import = x->opsets;
	x->m.has_ir_version = 1;
	x->m.ir_version = 8;
	x->m.graph = &x->g;
	x->g.name = "tiny";
	x->g.node = x->pnodes;
	x->g.initializer = x->pinits;
	x->g.input = x->pinputs;
	x->g.value_info = x->pvalue_info;
}

static Onnx__NodeProto *node(model *x, const char *name, const char *type, int nin, char **in,
                             int nout, char **out)
{
	Onnx__NodeProto *n = &x->nodes[x->g.n_node];
	onnx__node_proto__init(n);
	n->name = (char *)name;
	n->op_type = (char *)type;
	n->n_input = (size_t)nin;
	n->input = in;
	n->n_output = (size_t)nout;
	n->output = out;
	x->pnodes[x->g.n_node++] = n;
	return n;
}

static void attr_ints(model *x, Onnx__NodeProto *n, const char *name, int64_t *v, int count)
{
	Onnx__AttributeProto *a = &x->attrs[n - x->nodes];
	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	a->n_ints = (size_t)count;
	a->ints = v;
	x->pattrs[n - x->nodes] = a;
	n->n_attribute = 1;
	n->attribute = &x->pattrs[n - x->nodes];
}

/* an initializer of FLOAT (no data: only dims and type are read) */
static void init(model *x, const char *name, int rank, int64_t *dims)
{
	Onnx__TensorProto *t = &x->inits[x->g.n_initializer];
	onnx__tensor_proto__init(t);
	t->name = (char *)name;
	t->n_dims = (size_t)rank;
	t->dims = dims;
	t->has_data_type = 1;
	t->data_type = 1;
	x->pinits[x->g.n_initializer++] = t;
}

/* a FLOAT value info in slot i; a dim < 0 is the symbolic dim sym */
static Onnx__ValueInfoProto *fill_value_info(model *x, size_t i, const char *name, int rank,
                                             const int64_t *dims, const char *sym)
{
	Onnx__ValueInfoProto *v = &x->inputs[i];
	onnx__value_info_proto__init(v);
	onnx__type_proto__init(&x->types[i]);
	onnx__type_proto__tensor__init(&x->ttypes[i]);
	onnx__tensor_shape_proto__init(&x->shapes[i]);
	v->name = (char *)name;
	v->type = &x->types[i];
	x->types[i].value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	x->types[i].tensor_type = &x->ttypes[i];
	x->ttypes[i].has_elem_type = 1;
	x->ttypes[i].elem_type = 1;
	x->ttypes[i].shape = &x->shapes[i];
	x->shapes[i].n_dim = (size_t)rank;
	x->shapes[i].dim = x->pdims[i];
	for (int d = 0; d < rank; d++) {
		Onnx__TensorShapeProto__Dimension *dm = &x->dims[i][d];
		onnx__tensor_shape_proto__dimension__init(dm);
		if (dims[d] < 0) {
			dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			dm->dim_param = (char *)sym;
		} else {
			dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			dm->dim_value = dims[d];
		}
		x->pdims[i][d] = dm;
	}
	return v;
}

/* a FLOAT graph input; a dim < 0 is the symbolic dim sym (inputs come
 * before value infos) */
static void input(model *x, const char *name, int rank, const int64_t *dims, const char *sym)
{
	x->pinputs[x->g.n_input] = fill_value_info(x, x->g.n_input, name, rank, dims, sym);
	x->g.n_input++;
}

/* a value_info entry for a node's output, as onnx's shape inference
 * writes them (a dim < 0 is the symbolic dim sym) */
static void value_info(model *x, const char *name, int rank, const int64_t *dims, const char *sym)
{
	size_t i = x->g.n_input + x->g.n_value_info;
	x->pvalue_info[x->g.n_value_info++] = fill_value_info(x, i, name, rank, dims, sym);
}

static const char *save(model *x, const char *file)
{
	static char path[256];
	snprintf(path, sizeof path, "/tmp/stagecut-test-%d-%s", (int)getpid(), file);
	size_t len = onnx__model_proto__get_packed_size(&x->m);
	uint8_t *buf = malloc(len);
	cr_assert_not_null(buf);
	onnx__model_proto__pack(&x->m, buf);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
	free(buf);
	return path;
}

static sc_graph *load_ok(const char *path, const sc_load_opts *o)
{
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g = sc_load_with(path, o, &err);
	cr_assert_not_null(g, "%s", err.msg);
	return g;
}

static void expect_error(const char *path, const char *text)
{
	sc_error err;
	sc_error_clear(&err);
	sc_graph *g = sc_load(path, &err);
	cr_assert_null(g);
	cr_assert_eq(err.code, SC_ERR_INPUT, "%s", err.msg);
	cr_assert(strstr(err.msg, text), "'%s' lacks '%s'", err.msg, text);
	cr_assert(strstr(err.msg, path), "'%s' lacks the path", err.msg);
}

#define CLOSE(a, b)                                                                                \
	cr_assert(fabs((double)(a) - (double)(b)) <= 1e-9 * fmax(1, fabs((double)(b))),            \
	          "%.17g != %.17g", (double)(a), (double)(b))

/* a100: 312e12 FLOP/s, 1555e9 B/s, link 600e9 B/s */
static double a100_us(double flops, double bytes)
{
	return fmax(flops / 312e12, bytes / 1555e9) * 1e6;
}

/* The A100's datasheet as a pure roofline profile file (no launch overhead,
 * efficiencies 1, fp32: the model file's element sizes), so that the tests
 * of shapes and bytes can check the work against a100_us. */
static const char *roofline_a100(void)
{
	const char *path = "/tmp/stagecut-test-roofline-a100.device";
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "name = a100-roofline\nflops = 312 TFLOP/s\nmem_bandwidth = 1555 GB/s\n"
	           "memory = 40 GB\nlink_bandwidth = 600 GB/s\n");
	fclose(f);
	return path;
}

/* ---- the tests ---------------------------------------------------------------- */

Test(load_onnx, conv_then_relu)
{
	model x;
	model_init(&x, 13);
	int64_t xd[] = {1, 3, 8, 8}, wd[] = {4, 3, 3, 3}, bd[] = {4}, pads[] = {1, 1, 1, 1};
	input(&x, "X", 4, xd, NULL);
	init(&x, "W", 4, wd);
	init(&x, "B", 1, bd);
	char *cin[] = {"X", "W", "B"}, *cout[] = {"Y"}, *rin[] = {"Y"}, *rout[] = {"Z"};
	Onnx__NodeProto *c = node(&x, "conv", "Conv", 3, cin, 1, cout);
	attr_ints(&x, c, "pads", pads, 4);
	node(&x, "", "Relu", 1, rin, 1, rout);
	sc_onnx_report rep = {0};
	sc_load_opts o = {.device = roofline_a100(), .report = &rep};
	sc_graph *g = load_ok(save(&x, "conv.onnx"), &o);
	cr_assert_eq(g->n, 2);
	cr_assert_eq(g->m, 1);
	int cv = sc_graph_find(g, "conv"), r = sc_graph_find(g, "Relu_1");
	cr_assert(cv >= 0 && r >= 0, "unnamed op is Relu_1");
	/* Y is 1x4x8x8.  FLOPs 2*1*4*8*8*(3/1)*3*3 + bias 1*4*64 = 13824 + 256;
	 * bytes X 768 + W 432 + B 16 + Y 1024 = 2240 */
	CLOSE(rep.flops, 14080 + 256); /* + Relu 256 */
	CLOSE(g->work[cv], a100_us(14080, 2240));
	CLOSE(g->param[cv], 432 + 16);
	CLOSE(g->out[cv], 1024); /* read by the Relu */
	CLOSE(g->work[r], a100_us(256, 2048));
	CLOSE(g->out[r], 0); /* a graph output nobody reads */
	CLOSE(rep.param_bytes, 448);
	CLOSE(g->settings.bandwidth, 600e9 / 1e6);
	CLOSE(g->settings.memory, 40e9);
	cr_assert_eq(g->settings.policy, SC_MEM_HARD);
	cr_assert_eq(rep.nunknown, 0);
	cr_assert_str_eq(rep.device.name, "a100-roofline");
	cr_assert_eq(rep.precision, SC_PREC_FP32);
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
}

Test(load_onnx, matmul_compute_bound_on_a_profile_file)
{
	const char *prof = "/tmp/stagecut-test-slow.device";
	FILE *f = fopen(prof, "w");
	cr_assert_not_null(f);
	fprintf(f, "# a slow device\nname = slow\nflops = 1 MFLOP/s\nmem_bandwidth = 1 GB/s\n"
	           "memory = 1 MiB\nlink_bandwidth = 2 MB/s\n");
	fclose(f);
	model x;
	model_init(&x, 17);
	int64_t ad[] = {2, 3, 4}, bd[] = {4, 5};
	input(&x, "A", 3, ad, NULL);
	init(&x, "Bw", 2, bd);
	char *in[] = {"A", "Bw"}, *out[] = {"C"};
	node(&x, "mm", "MatMul", 2, in, 1, out);
	sc_onnx_report rep = {0};
	sc_load_opts o = {.device = prof, .report = &rep};
	sc_graph *g = load_ok(save(&x, "mm.onnx"), &o);
	/* 2 * batch 2 * M 3 * N 5 * K 4 = 240 FLOPs at 1e6/s = 240 us; bytes
	 * (24 + 20 + 30) * 4 = 296 at 1e9/s = 0.296 us */
	CLOSE(rep.flops, 240);
	CLOSE(g->work[0], 240);
	CLOSE(g->param[0], 80);
	CLOSE(g->settings.bandwidth, 2);
	CLOSE(g->settings.memory, 1048576);
	cr_assert_str_eq(rep.device.name, "slow");
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
}

/* cache and cache_bandwidth: an op whose bytes fit moves them at the
 * cache's bandwidth, a larger one at the memory's (computed here from the
 * tensor sizes: a Relu of E floats reads and writes 8E bytes). */
Test(load_onnx, small_ops_move_their_bytes_at_the_cache_bandwidth)
{
	const char *prof = "/tmp/stagecut-test-cache.device";
	FILE *f = fopen(prof, "w");
	cr_assert_not_null(f);
	fprintf(f, "name = cached\nflops = 1 TFLOP/s\nmem_bandwidth = 1 GB/s\nmemory = 1 GiB\n"
	           "link_bandwidth = 1 GB/s\ncache = 4 KB\ncache_bandwidth = 4 GB/s\n");
	fclose(f);
	model x;
	model_init(&x, 13);
	/* 64 floats: 512 bytes, within the cache; 1024: 8192 bytes, over it */
	int64_t sd[] = {1, 64}, ld[] = {1, 1024};
	input(&x, "S", 2, sd, NULL);
	input(&x, "L", 2, ld, NULL);
	char *sin[] = {"S"}, *sout[] = {"S2"}, *lin[] = {"L"}, *lout[] = {"L2"};
	node(&x, "small", "Relu", 1, sin, 1, sout);
	node(&x, "large", "Relu", 1, lin, 1, lout);
	sc_onnx_report rep = {0};
	sc_load_opts o = {.device = prof, .report = &rep};
	sc_graph *g = load_ok(save(&x, "cache.onnx"), &o);
	int sm = sc_graph_find(g, "small"), lg = sc_graph_find(g, "large");
	cr_assert(sm >= 0 && lg >= 0);
	CLOSE(g->work[sm], 512 / 4e9 * 1e6);
	CLOSE(g->work[lg], 8192 / 1e9 * 1e6);
	cr_assert_eq(rep.device.cache, 4000);
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
	unlink(prof);
}

Test(load_onnx, gemm_and_broadcasting_add)
{
	model x;
	model_init(&x, 13);
	int64_t ad[] = {2, 3}, bd[] = {5, 3}, cd[] = {5}, pd[] = {4, 1, 1}, trans[] = {1};
	input(&x, "A", 2, ad, NULL);
	init(&x, "Bg", 2, bd);
	init(&x, "Cg", 1, cd);
	init(&x, "P", 3, pd);
	char *gin[] = {"A", "Bg", "Cg"}, *gout[] = {"G"}, *ain[] = {"G", "P"}, *aout[] = {"S"};
	Onnx__NodeProto *gm = node(&x, "gemm", "Gemm", 3, gin, 1, gout);
	attr_ints(&x, gm, "transB", trans, 0);
	x.attrs[0].has_i = 1;
	x.attrs[0].i = 1;
	x.attrs[0].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	node(&x, "add", "Add", 2, ain, 1, aout);
	sc_onnx_report rep = {0};
	sc_load_opts o = {.device = roofline_a100(), .report = &rep};
	sc_graph *g = load_ok(save(&x, "gemm.onnx"), &o);
	int gi = sc_graph_find(g, "gemm"), ai = sc_graph_find(g, "add");
	/* Gemm: A 2x3, B^T 3x5: 2*2*5*3 + C 2*5 = 70 FLOPs; out 2x5 */
	/* Add: [2,5] + [4,1,1] -> [4,2,5]: 40 FLOPs, bytes 40 + 16 + 160 */
	CLOSE(rep.flops, 70 + 40);
	CLOSE(g->out[gi], 40);
	CLOSE(g->work[gi], a100_us(70, 24 + 60 + 20 + 40));
	CLOSE(g->work[ai], a100_us(40, 40 + 16 + 160));
	CLOSE(g->param[ai], 16);
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
}

Test(load_onnx, shared_weight_charged_to_the_first_consumer)
{
	model x;
	model_init(&x, 13);
	int64_t xd[] = {2, 4}, wd[] = {4, 4};
	input(&x, "X", 2, xd, NULL);
	init(&x, "W", 2, wd);
	char *i1[] = {"X", "W"}, *o1[] = {"H"}, *i2[] = {"H", "W"}, *o2[] = {"Y"};
	/* listed second-first: the order that counts is the topological one */
	node(&x, "second", "MatMul", 2, i2, 1, o2);
	node(&x, "first", "MatMul", 2, i1, 1, o1);
	sc_onnx_report rep = {0};
	sc_load_opts o = {.device = roofline_a100(), .report = &rep};
	sc_graph *g = load_ok(save(&x, "shared.onnx"), &o);
	CLOSE(g->param[sc_graph_find(g, "first")], 64);
	CLOSE(g->param[sc_graph_find(g, "second")], 0);
	CLOSE(rep.param_bytes, 64);
	/* both read W: 2*2*4*4 = 64 FLOPs, bytes 32 + 64 + 32 */
	CLOSE(g->work[sc_graph_find(g, "second")], a100_us(64, 128));
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
}

Test(load_onnx, symbolic_batch_from_dim)
{
	model x;
	model_init(&x, 13);
	int64_t xd[] = {-1, 8};
	input(&x, "X", 2, xd, "N");
	char *in[] = {"X"}, *out[] = {"Y"};
	node(&x, "relu", "Relu", 1, in, 1, out);
	const char *path = save(&x, "dim.onnx");
	const char *names[] = {"N"};
	long long values[] = {16};
	sc_onnx_report rep = {0};
	sc_load_opts o = {.ndims = 1, .dim_name = names, .dim_value = values, .report = &rep};
	sc_graph *g = load_ok(path, &o);
	CLOSE(rep.flops, 128);
	cr_assert_eq(rep.ndims, 1);
	cr_assert_str_eq(rep.dim_name[0], "N");
	cr_assert_eq(rep.dim_value[0], 16);
	cr_assert(rep.dim_given[0]);
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
	/* the default is 1 */
	sc_load_opts d = {.report = &rep};
	g = load_ok(path, &d);
	CLOSE(rep.flops, 8);
	cr_assert_eq(rep.dim_value[0], 1);
	cr_assert(!rep.dim_given[0]);
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
}

/* value_info with symbolic dims, as onnx's shape inference writes it (unk__
 * names nobody sets): inference derives them from the inputs' dims and
 * names them; one it cannot derive leaves its op's consumers unknown and
 * is reported with the op, never set to 1; --dim sets it. */
Test(load_onnx, symbolic_dims_of_value_info_are_derived_not_defaulted)
{
	model x;
	model_init(&x, 13);
	int64_t xd[] = {-1, 8}, wd[] = {8, 5}, yd[] = {-1, 5}, zd[] = {-1, 3};
	input(&x, "X", 2, xd, "N");
	init(&x, "W", 2, wd);
	char *mi[] = {"X", "W"}, *mo[] = {"Y"}, *ci[] = {"Y"}, *co[] = {"Z"}, *ri[] = {"Z"},
	     *ro[] = {"R"};
	node(&x, "mm", "MatMul", 2, mi, 1, mo);
	node(&x, "custom", "NoSuchOp", 1, ci, 1, co);
	node(&x, "relu", "Relu", 1, ri, 1, ro);
	/* Y: [unk__1, 5] (inference gives 4 x 5 at N = 4); Z: [unk__2, 3] */
	value_info(&x, "Y", 2, yd, "unk__1");
	value_info(&x, "Z", 2, zd, "unk__2");
	const char *path = save(&x, "vi.onnx");
	const char *names[] = {"N", "unk__2"};
	long long values[] = {4, 7};
	sc_onnx_report rep = {0};
	sc_load_opts o = {.ndims = 1, .dim_name = names, .dim_value = values, .report = &rep};
	sc_graph *g = load_ok(path, &o);
	/* MatMul 2*4*5*8 = 320; the Relu after the unknown op: unknown */
	CLOSE(rep.flops, 320);
	cr_assert_eq(rep.nunknown, 2, "%d", rep.nunknown); /* custom, relu */
	bool derived = false;
	for (int i = 0; i < rep.ndims; i++)
		if (!strcmp(rep.dim_name[i], "unk__1")) {
			derived = true;
			cr_assert_eq(rep.dim_value[i], 4);
			cr_assert_str_eq(rep.dim_from[i], "mm");
		}
	cr_assert(derived, "unk__1 was not derived");
	cr_assert_eq(rep.nunresolved, 1);
	cr_assert_str_eq(rep.unresolved_dim[0], "unk__2");
	cr_assert_str_eq(rep.unresolved_op[0], "custom");
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
	/* --dim unk__2=7 gives Z its shape: the Relu costs 7*3 = 21 */
	o.ndims = 2;
	g = load_ok(path, &o);
	CLOSE(rep.flops, 320 + 21);
	cr_assert_eq(rep.nunknown, 1);
	cr_assert_eq(rep.nunresolved, 0);
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
}

Test(load_onnx, unknown_op_costs_zero_and_is_listed)
{
	model x;
	model_init(&x, 13);
	int64_t xd[] = {2, 8}, wd[] = {8, 3};
	input(&x, "X", 2, xd, NULL);
	init(&x, "W", 2, wd);
	char *i1[] = {"X", "W"}, *o1[] = {"F"}, *i2[] = {"F"}, *o2[] = {"Y"};
	node(&x, "mystery", "FooBar", 2, i1, 1, o1);
	node(&x, "after", "Relu", 1, i2, 1, o2);
	sc_onnx_report rep = {0};
	sc_load_opts o = {.report = &rep, .precision = "fp32"};
	sc_graph *g = load_ok(save(&x, "unknown.onnx"), &o);
	/* FooBar is unknown, and so its output and the Relu after it */
	cr_assert_eq(rep.nunknown, 2);
	cr_assert_str_eq(rep.unknown[0], "mystery");
	int v = sc_graph_find(g, "mystery");
	cr_assert_eq(g->work[v], 0);
	cr_assert_eq(g->out[v], 0);
	/* its weight takes memory whatever its shape: 8 x 3 floats */
	CLOSE(g->param[v], 96);
	cr_assert_eq(g->m, 1);
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
}

Test(load_onnx, bad_models)
{
	model x;
	model_init(&x, 13);
	int64_t xd[] = {2, 8};
	input(&x, "X", 2, xd, NULL);
	char *i1[] = {"X", "nowhere"}, *o1[] = {"Y"};
	node(&x, "add", "Add", 2, i1, 1, o1);
	expect_error(save(&x, "missing.onnx"),
	             "op 'add' (Add): input 'nowhere' is produced by no node");

	model_init(&x, 13);
	char *ai[] = {"b_out"}, *ao[] = {"a_out"}, *bi[] = {"a_out"}, *bo[] = {"b_out"};
	node(&x, "a", "Relu", 1, ai, 1, ao);
	node(&x, "b", "Relu", 1, bi, 1, bo);
	expect_error(save(&x, "cycle.onnx"), "cycle");

	model_init(&x, 5);
	input(&x, "X", 2, xd, NULL);
	char *ri[] = {"X"}, *ro[] = {"Y"};
	node(&x, "r", "Relu", 1, ri, 1, ro);
	expect_error(save(&x, "opset5.onnx"), "ai.onnx opset 5 is not supported");

	/* truncated: the first half of a good model */
	model_init(&x, 13);
	input(&x, "X", 2, xd, NULL);
	node(&x, "r", "Relu", 1, ri, 1, ro);
	const char *good = save(&x, "good.onnx");
	FILE *f = fopen(good, "rb");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	f = fopen("/tmp/stagecut-test-trunc.onnx", "wb");
	fwrite(buf, 1, n - 7, f);
	fclose(f);
	expect_error("/tmp/stagecut-test-trunc.onnx", "truncated or malformed");
	/* binary bytes that no probe knows, named .onnx: the ONNX loader says
	 * what is wrong (the name is the only hint) */
	f = fopen("/tmp/stagecut-test-junk.onnx", "wb");
	fputs("\x01\x02 junk", f);
	fclose(f);
	expect_error("/tmp/stagecut-test-junk.onnx", "not an ONNX model");
}

/* The format is told by the content, the name only a hint: a DOT
 * graph named .onnx loads as DOT, an ONNX model named .dot or with no
 * extension loads as ONNX, msr-fiddle JSON named .dot as JSON. */
Test(load_onnx, the_format_is_told_by_the_content)
{
	sc_error err;
	FILE *f = fopen("/tmp/stagecut-test-text.onnx", "wb");
	fputs("digraph g { a -> b }\n", f);
	fclose(f);
	sc_graph *g = sc_load("/tmp/stagecut-test-text.onnx", &err);
	cr_assert(g, "%s", err.msg);
	cr_assert_eq(g->n, 2);
	sc_graph_free(g);
	unlink("/tmp/stagecut-test-text.onnx");

	model x;
	model_init(&x, 13);
	int64_t xd[] = {2, 8};
	input(&x, "X", 2, xd, NULL);
	char *ri[] = {"X"}, *ro[] = {"Y"};
	node(&x, "r", "Relu", 1, ri, 1, ro);
	const char *good = save(&x, "named.onnx");
	g = sc_load(good, &err);
	cr_assert(g, "%s", err.msg);
	int n = g->n;
	sc_graph_free(g);
	const char *names[] = {"/tmp/stagecut-test-model.dot", "/tmp/stagecut-test-model"};
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(rename(good, names[i]), 0);
		good = names[i];
		g = sc_load(good, &err);
		cr_assert(g, "%s: %s", good, err.msg);
		cr_assert_eq(g->n, n, "%s", good);
		cr_assert_str_eq(g->op_name[0], "r");
		sc_graph_free(g);
	}
	unlink(good);

	f = fopen("/tmp/stagecut-test-fiddle.dot", "wb");
	fputs("{\"nodes\": [{\"id\": 1, \"name\": \"a\", \"fpgaLatency\": 2}], "
	      "\"edges\": []}\n",
	      f);
	fclose(f);
	g = sc_load("/tmp/stagecut-test-fiddle.dot", &err);
	cr_assert(g, "%s", err.msg);
	cr_assert_eq(g->n, 1);
	cr_assert_float_eq(g->work[0], 2, 1e-12);
	sc_graph_free(g);
	unlink("/tmp/stagecut-test-fiddle.dot");
}

Test(load_onnx, pad_from_an_attribute)
{
	model x;
	model_init(&x, 7); /* Pad takes its pads as an attribute before opset 11 */
	int64_t xd[] = {1, 2, 4, 4}, pads[] = {0, 0, 1, 1, 0, 0, 1, 1};
	input(&x, "X", 4, xd, NULL);
	char *pi[] = {"X"}, *po[] = {"P"}, *ri[] = {"P"}, *ro[] = {"Y"};
	Onnx__NodeProto *p = node(&x, "pad", "Pad", 1, pi, 1, po);
	attr_ints(&x, p, "pads", pads, 8);
	node(&x, "relu", "Relu", 1, ri, 1, ro);
	sc_onnx_report rep = {0};
	sc_load_opts o = {.device = roofline_a100(), .report = &rep};
	sc_graph *g = load_ok(save(&x, "pad.onnx"), &o);
	/* P is 1x2x6x6: 72 floats, 288 bytes, read by the Relu (72 FLOPs) */
	cr_assert_eq(rep.nunknown, 0);
	CLOSE(g->out[sc_graph_find(g, "pad")], 288);
	CLOSE(rep.flops, 72);
	sc_onnx_report_fini(&rep);
	sc_graph_free(g);
}

/* Folding: an Identity of a weight (torch writes one per
 * de-duplicated weight) and a Shape of a tensor of static shape are
 * computed once at load time; they are not ops, their values are the
 * params of the ops that read them (the Identity's output counts as the
 * weight itself), and no edge or transfer comes from them. */
Test(load_onnx, identity_of_a_weight_and_static_shapes_are_folded)
{
	model x;
	model_init(&x, 13);
	int64_t xd[] = {2, 4}, wd[] = {4, 4};
	input(&x, "X", 2, xd, NULL);
	init(&x, "W", 2, wd);
	char *ii[] = {"W"}, *io[] = {"W2"}, *mi[] = {"X", "W2"}, *mo[] = {"H"};
	char *si[] = {"X"}, *so[] = {"S"}, *ri[] = {"H", "S"}, *ro[] = {"Y"};
	node(&x, "Identity_7", "Identity", 1, ii, 1, io);
	node(&x, "mm", "MatMul", 2, mi, 1, mo);
	node(&x, "shape", "Shape", 1, si, 1, so);
	node(&x, "reshape", "Reshape", 2, ri, 1, ro);
	sc_onnx_report rep = {0};
	sc_load_opts o = {.device = roofline_a100(), .report = &rep};
	char path[256];
	snprintf(path, sizeof path, "%s", save(&x, "folded.onnx"));
	sc_graph *g = load_ok(path, &o);
	cr_assert_eq(g->n, 2, "only the MatMul and the Reshape are ops");
	cr_assert_eq(g->m, 1);
	int mm = sc_graph_find(g, "mm"), rs = sc_graph_find(g, "reshape");
	cr_assert(mm >= 0 && rs >= 0);
	cr_assert_eq(sc_graph_find(g, "Identity_7"), -1);
	cr_assert_eq(sc_graph_find(g, "shape"), -1);
	cr_assert_eq(g->succ[g->succ_off[mm]], rs);
	cr_assert_eq(rep.nfolded, 2);
	cr_assert_str_eq(rep.folded[0], "Identity_7");
	cr_assert_str_eq(rep.folded[1], "shape");
	CLOSE(g->param[mm], 64); /* W, 16 floats, once */
	CLOSE(g->param[rs], 16); /* the shape, 2 int64 */
	CLOSE(g->out[mm], 32);   /* H, read by the Reshape */
	CLOSE(rep.param_bytes, 64);
	cr_assert_eq(sc_onnx_report_kind_count(&rep, SC_OPK_MATMUL), 1);
	cr_assert_eq(sc_onnx_report_kind_count(&rep, SC_OPK_VIEW), 1);
	/* a measured time of a folded op goes to its consumer: none lost */
	const char *csv = "/tmp/stagecut-test-folded.csv";
	FILE *f = fopen(csv, "w");
	cr_assert_not_null(f);
	fprintf(f, "name,us\nIdentity_7,0.5\nmm,3\nshape,0.25\n");
	fclose(f);
	sc_onnx_report rep2 = {0};
	sc_load_opts o2 = {.device = roofline_a100(), .report = &rep2, .times = csv};
	sc_graph *h = load_ok(path, &o2);
	CLOSE(h->work[sc_graph_find(h, "mm")], 3.5);
	CLOSE(h->work[sc_graph_find(h, "reshape")], 0.25);
	cr_assert_eq(h->work_source[sc_graph_find(h, "mm")], SC_WORK_MEASURED);
	sc_onnx_report_fini(&rep);
	sc_onnx_report_fini(&rep2);
	sc_graph_free(g);
	sc_graph_free(h);
}

/* --precision sets the element size of floating-point tensors (not of
 * int64 shapes) and the peak: fp16 halves the bytes of fp32 weights. */
Test(load_onnx, precision_sets_element_size_and_peak)
{
	model x;
	model_init(&x, 13);
	int64_t xd[] = {2, 4}, wd[] = {4, 4};
	input(&x, "X", 2, xd, NULL);
	init(&x, "W", 2, wd);
	char *mi[] = {"X", "W"}, *mo[] = {"H"};
	node(&x, "mm", "MatMul", 2, mi, 1, mo);
	const char *path = save(&x, "prec.onnx");
	const char *precs[] = {"fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
	const double bytes[] = {4, 4, 2, 2, 1, 1};
	for (int i = 0; i < 6; i++) {
		sc_onnx_report rep = {0};
		sc_load_opts o = {.device = "h100", .precision = precs[i], .report = &rep};
		sc_graph *g = load_ok(path, &o);
		CLOSE(g->param[0], 16 * bytes[i]);
		cr_assert_eq(rep.precision, (sc_precision)i);
		sc_onnx_report_fini(&rep);
		sc_graph_free(g);
	}
}

/* Appends field (wire type 2, length-delimited) holding b[0..n) to *buf
 * (of *len bytes), realloc'd. */
static void put_bytes(uint8_t **buf, size_t *len, unsigned field, const uint8_t *b, size_t n)
{
	uint8_t head[20];
	size_t h = 0;
	for (uint64_t v = (uint64_t)field << 3 | 2;; v >>= 7) {
		head[h++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		if (v <= 0x7f)
			break;
	}
	for (uint64_t v = n;; v >>= 7) {
		head[h++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		if (v <= 0x7f)
			break;
	}
	*buf = realloc(*buf, *len + h + n);
	cr_assert(*buf);
	memcpy(*buf + *len, head, h);
	memcpy(*buf + *len + h, b, n);
	*len += h + n;
}

/* A model whose graph's one If node holds in its then_branch a graph whose
 * one If node holds ... depth graphs in all, written byte by byte (the
 * library's own packing recurses as deep). */
static const char *nested_ifs(int depth, const char *file)
{
	uint8_t *g = NULL;
	size_t glen = 0;
	put_bytes(&g, &glen, 4, (const uint8_t *)"Relu", 4); /* a node: op_type */
	uint8_t *graph = NULL;
	size_t graphlen = 0;
	put_bytes(&graph, &graphlen, 1, g, glen); /* GraphProto.node */
	free(g);
	for (int i = 1; i < depth; i++) {
		uint8_t *attr = NULL, *nd = NULL, *outer = NULL;
		size_t alen = 0, nlen = 0, olen = 0;
		put_bytes(&attr, &alen, 1, (const uint8_t *)"then_branch", 11);
		put_bytes(&attr, &alen, 6, graph, graphlen); /* AttributeProto.g */
		put_bytes(&nd, &nlen, 4, (const uint8_t *)"If", 2);
		put_bytes(&nd, &nlen, 5, attr, alen); /* NodeProto.attribute */
		put_bytes(&outer, &olen, 1, nd, nlen);
		free(attr);
		free(nd);
		free(graph);
		graph = outer;
		graphlen = olen;
	}
	uint8_t *m = NULL;
	size_t mlen = 0;
	put_bytes(&m, &mlen, 7, graph, graphlen); /* ModelProto.graph */
	free(graph);
	static char path[64];
	snprintf(path, sizeof path, "/tmp/sc-nested-%d-%s", (int)getpid(), file);
	FILE *f = fopen(path, "wb");
	cr_assert(f && fwrite(m, 1, mlen, f) == mlen);
	fclose(f);
	free(m);
	return path;
}

/* 3 000 nested Ifs (217 KB) crashed protobuf-c's unpacking by recursion;
 * past 100 levels the file is refused before it is unpacked, and 100
 * levels are still read (into whatever else they lack). */
Test(load_onnx, subgraphs_nested_too_deep_are_refused_not_a_crash)
{
	const char *deep = nested_ifs(3000, "deep.onnx");
	expect_error(deep, "nest more than 100 deep");
	remove(deep);
	const char *ok = nested_ifs(100, "ok.onnx");
	sc_error err;
	sc_graph *g = sc_load(ok, &err);
	if (!g)
		cr_assert_null(strstr(err.msg, "nest more"), "%s", err.msg);
	sc_graph_free(g);
	remove(ok);
}

/*
 * test_onnx_einsum.c - Einsum's output shape and FLOPs through
 * sc_onnx_infer, on nodes built here with protobuf-c's generated structs:
 * a matmul, a batched matmul, the implicit output, ellipses that
 * broadcast, a diagonal and a trace, three operands, and equations that are
 * malformed or disagree with the inputs.  Expected shapes and FLOPs are
 * worked out by hand in the comments: n operands cost n FLOPs per point of
 * the full index space (one multiply per extra operand, one add), one
 * operand costs its elements (onnx_einsum.c).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/formats/onnx_shape.h"
#include "onnx/onnx.pb-c.h"

/* ---- an Einsum node and its tensors ------------------------------------------- */

typedef struct einsum_node {
	Onnx__NodeProto n;
	Onnx__AttributeProto eq, *peq;
} einsum_node;

/* an Einsum node; equation NULL leaves the attribute out */
static void node_init(einsum_node *x, const char *equation)
{
	memset(x, 0, sizeof *x);
	onnx__node_proto__init(&x->n);
	x->n.op_type = "Einsum";
	if (!equation)
		return;
	onnx__attribute_proto__init(&x->eq);
	x->eq.name = "equation";
	x->eq.has_type = 1;
	x->eq.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
	x->eq.has_s = 1;
	x->eq.s.len = strlen(equation);
	x->eq.s.data = (uint8_t *)equation;
	x->peq = &x->eq;
	x->n.n_attribute = 1;
	x->n.attribute = &x->peq;
}

static sc_onnx_tensor shaped(int rank, const int64_t *dim)
{
	sc_onnx_tensor t = {.known = true, .rank = rank, .dtype = 1, .elem = 4, .nvalues = -1};
	memcpy(t.dim, dim, (size_t)rank * sizeof *dim);
	return t;
}

#define CLOSE(a, b)                                                                                \
	cr_assert(fabs((double)(a) - (double)(b)) <= 1e-9 * fmax(1, fabs((double)(b))),            \
	          "%.17g != %.17g", (double)(a), (double)(b))

/* infers equation on in[0..nin) into *y; false as sc_onnx_infer */
static bool infer(const char *equation, const sc_onnx_tensor *const *in, int nin, sc_onnx_tensor *y,
                  double *flops)
{
	einsum_node x;
	node_init(&x, equation);
	*y = (sc_onnx_tensor){.known = false, .nvalues = -1};
	sc_onnx_tensor *out[] = {y};
	return sc_onnx_infer(&x.n, in, nin, out, 1, flops);
}

static void expect_shape(const sc_onnx_tensor *t, int rank, const int64_t *dim)
{
	cr_assert(t->known);
	cr_assert_eq(t->rank, rank);
	for (int i = 0; i < rank; i++)
		cr_assert_eq(t->dim[i], dim[i], "dim %d: %lld != %lld", i, (long long)t->dim[i],
		             (long long)dim[i]);
	cr_assert_eq(t->dtype, 1);
	cr_assert_eq(t->elem, 4);
}

/* ---- the tests ---------------------------------------------------------------- */

Test(onnx_einsum, matmul)
{
	int64_t ad[] = {2, 3}, bd[] = {3, 4};
	sc_onnx_tensor A = shaped(2, ad), B = shaped(2, bd), y;
	const sc_onnx_tensor *in[] = {&A, &B};
	double flops = -1;
	cr_assert(infer("ij,jk->ik", in, 2, &y, &flops));
	int64_t want[] = {2, 4};
	expect_shape(&y, 2, want);
	CLOSE(flops, 48); /* i 2 * j 3 * k 4 = 24 points, 2 each, as MatMul's 2*M*N*K */
}

Test(onnx_einsum, batched_matmul_with_spaces)
{
	int64_t ad[] = {5, 2, 3}, bd[] = {5, 3, 4};
	sc_onnx_tensor A = shaped(3, ad), B = shaped(3, bd), y;
	const sc_onnx_tensor *in[] = {&A, &B};
	double flops = -1;
	cr_assert(infer("bij,bjk->bik", in, 2, &y, &flops));
	int64_t want[] = {5, 2, 4};
	expect_shape(&y, 3, want);
	CLOSE(flops, 240); /* 2 * b 5 * i 2 * j 3 * k 4 */
	cr_assert(infer(" b i j , b j k -> b i k ", in, 2, &y, &flops));
	expect_shape(&y, 3, want);
	CLOSE(flops, 240);
}

Test(onnx_einsum, implicit_output_is_the_single_letters_sorted)
{
	int64_t ad[] = {2, 3}, bd[] = {3, 4};
	sc_onnx_tensor A = shaped(2, ad), B = shaped(2, bd), y;
	const sc_onnx_tensor *in[] = {&A, &B};
	double flops = -1;
	cr_assert(infer("ij,jk", in, 2, &y, &flops));
	int64_t ik[] = {2, 4};
	expect_shape(&y, 2, ik);
	CLOSE(flops, 48);
	/* "kj,ji": k 2, j 3, i 4; once: k and i, sorted "ik" -> [4, 2] (not
	 * the order they appear in, which would give [2, 4]) */
	int64_t kd[] = {2, 3}, jd[] = {3, 4};
	sc_onnx_tensor K = shaped(2, kd), J = shaped(2, jd);
	const sc_onnx_tensor *in2[] = {&K, &J};
	cr_assert(infer("kj,ji", in2, 2, &y, &flops));
	int64_t sorted[] = {4, 2};
	expect_shape(&y, 2, sorted);
	CLOSE(flops, 48); /* 2 * 2 * 3 * 4 */
	/* capitals sort before small letters (ASCII, as numpy): in "ab,Ab" A
	 * and a occur once, A first */
	int64_t pd[] = {5, 6}, qd[] = {7, 6};
	sc_onnx_tensor P = shaped(2, pd), Q = shaped(2, qd);
	const sc_onnx_tensor *in3[] = {&P, &Q};
	cr_assert(infer("ab,Ab", in3, 2, &y, &flops));
	int64_t caps[] = {7, 5};
	expect_shape(&y, 2, caps);
	CLOSE(flops, 420); /* 2 * a 5 * b 6 * A 7 */
}

Test(onnx_einsum, ellipsis_broadcasts)
{
	/* A's ellipsis is [2, 1], B's [5]: aligned on the right they broadcast
	 * to [2, 5]; i 2, j 3, k 4 */
	int64_t ad[] = {2, 1, 2, 3}, bd[] = {5, 3, 4};
	sc_onnx_tensor A = shaped(4, ad), B = shaped(3, bd), y;
	const sc_onnx_tensor *in[] = {&A, &B};
	double flops = -1;
	cr_assert(infer("...ij,...jk->...ik", in, 2, &y, &flops));
	int64_t want[] = {2, 5, 2, 4};
	expect_shape(&y, 4, want);
	CLOSE(flops, 480); /* 2 * (2 * 5) * (2 * 3 * 4) */
	/* implicit: the ellipsis dims first, then i and k */
	cr_assert(infer("...ij,...jk", in, 2, &y, &flops));
	expect_shape(&y, 4, want);
	CLOSE(flops, 480);
	/* the ellipsis may sit anywhere in a term: "i...j" on [2, 7, 3] */
	int64_t cd[] = {2, 7, 3}, dd[] = {3, 4};
	sc_onnx_tensor C = shaped(3, cd), D = shaped(2, dd);
	const sc_onnx_tensor *in2[] = {&C, &D};
	cr_assert(infer("i...j,jk->i...k", in2, 2, &y, &flops));
	int64_t mid[] = {2, 7, 4};
	expect_shape(&y, 3, mid);
	CLOSE(flops, 336); /* 2 * i 2 * 7 * j 3 * k 4 */
	/* an explicit output that drops ellipsis dims: numpy refuses */
	cr_assert(!infer("...ij,...jk->ik", in, 2, &y, &flops));
	/* ellipses that cannot broadcast: E's [2] against F's [3] */
	int64_t ed[] = {2, 2, 3}, fd[] = {3, 3, 4};
	sc_onnx_tensor E = shaped(3, ed), F = shaped(3, fd);
	const sc_onnx_tensor *in3[] = {&E, &F};
	cr_assert(!infer("...ij,...jk->...ik", in3, 2, &y, &flops));
}

Test(onnx_einsum, a_letter_of_size_1_broadcasts)
{
	int64_t ad[] = {1, 3}, bd[] = {2, 3};
	sc_onnx_tensor A = shaped(2, ad), B = shaped(2, bd), y;
	const sc_onnx_tensor *in[] = {&A, &B};
	double flops = -1;
	cr_assert(infer("ij,ij->ij", in, 2, &y, &flops));
	int64_t want[] = {2, 3};
	expect_shape(&y, 2, want);
	CLOSE(flops, 12); /* 2 * i 2 * j 3 */
	int64_t cd[] = {4, 3};
	sc_onnx_tensor C = shaped(2, cd);
	const sc_onnx_tensor *in2[] = {&C, &B};
	cr_assert(!infer("ij,ij->ij", in2, 2, &y, &flops), "i is 4 and 2");
}

Test(onnx_einsum, one_operand_diagonal_trace_transpose)
{
	int64_t ad[] = {3, 3};
	sc_onnx_tensor A = shaped(2, ad), y;
	const sc_onnx_tensor *in[] = {&A};
	double flops = -1;
	cr_assert(infer("ii->i", in, 1, &y, &flops));
	int64_t diag[] = {3};
	expect_shape(&y, 1, diag);
	CLOSE(flops, 9);                           /* one operand: its 3 * 3 elements */
	cr_assert(infer("ii", in, 1, &y, &flops)); /* implicit: i occurs twice, a trace */
	expect_shape(&y, 0, diag);
	CLOSE(flops, 9);
	int64_t bd[] = {2, 5, 7};
	sc_onnx_tensor B = shaped(3, bd);
	const sc_onnx_tensor *in2[] = {&B};
	cr_assert(infer("abc->cba", in2, 1, &y, &flops));
	int64_t rev[] = {7, 5, 2};
	expect_shape(&y, 3, rev);
	CLOSE(flops, 70); /* 2 * 5 * 7 */
	int64_t cd[] = {3, 4};
	sc_onnx_tensor C = shaped(2, cd);
	const sc_onnx_tensor *in3[] = {&C};
	cr_assert(!infer("ii->i", in3, 1, &y, &flops), "a diagonal of a 3x4");
}

Test(onnx_einsum, three_operands)
{
	int64_t ad[] = {2, 3}, bd[] = {3, 4}, cd[] = {4, 5};
	sc_onnx_tensor A = shaped(2, ad), B = shaped(2, bd), C = shaped(2, cd), y;
	const sc_onnx_tensor *in[] = {&A, &B, &C};
	double flops = -1;
	cr_assert(infer("ij,jk,kl->il", in, 3, &y, &flops));
	int64_t want[] = {2, 5};
	expect_shape(&y, 2, want);
	/* 2*3*4*5 = 120 points, 2 multiplies and 1 add each */
	CLOSE(flops, 360);
}

Test(onnx_einsum, malformed_equations_are_false)
{
	int64_t ad[] = {2, 3}, bd[] = {3, 4};
	sc_onnx_tensor A = shaped(2, ad), B = shaped(2, bd), y;
	const sc_onnx_tensor *in[] = {&A, &B};
	const char *bad[] = {
	        "ij-jk",          /* '-' without '>' */
	        "ij,jk->ik->ik",  /* two arrows */
	        "i.j,jk->ik",     /* a lone dot */
	        "..ij,jk->ik",    /* two dots */
	        "ij,jk->il",      /* l in no input */
	        "ij,jk->iki",     /* i twice in the output */
	        "ij,jk->...i...", /* two ellipses */
	        "i1,jk->ik",      /* not a letter */
	        "ijk,jk->ik",     /* 3 letters for a 2-D input */
	        "ij->ij",         /* 1 term for 2 operands */
	        "ij,jk,kl->il",   /* 3 terms for 2 operands */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		double flops = -1;
		cr_assert(!infer(bad[i], in, 2, &y, &flops), "'%s'", bad[i]);
		cr_assert(!y.known, "'%s'", bad[i]);
		cr_assert_eq(flops, 0, "'%s'", bad[i]);
	}
	/* the same inputs pass a well-formed equation: the failures above come
	 * from the equations (i 2, j 3, k 3, l 4) */
	double flops = -1;
	cr_assert(infer("ij,kl->ik", in, 2, &y, &flops));
	int64_t want[] = {2, 3};
	expect_shape(&y, 2, want);
	CLOSE(flops, 144); /* 2 * i 2 * j 3 * k 3 * l 4 */
	/* j is 3 in A and 4 in B */
	cr_assert(!infer("ij,kj->ik", in, 2, &y, &flops));
	/* no equation at all */
	cr_assert(!infer(NULL, in, 2, &y, &flops));
	/* an operand of unknown shape */
	sc_onnx_tensor unknown = {.known = false, .nvalues = -1};
	const sc_onnx_tensor *in2[] = {&A, &unknown};
	cr_assert(!infer("ij,jk->ik", in2, 2, &y, &flops));
}

/*
 * onnx_einsum.c - shape and FLOPs of Einsum (onnx_einsum.h).
 *
 * The equation (ONNX operator spec of Einsum, as numpy.einsum reads it) is
 * "term,term,...->output" or, without "->", the implicit form whose output
 * is the broadcast dims of the ellipses followed by the letters that occur
 * exactly once, in ASCII order (capitals first).  Spaces are ignored.  A
 * term is letters and at most one "...", which stands for the dims its
 * letters do not name; the ellipses of the operands broadcast against each
 * other as numpy does (aligned on the right, a 1 stretches).  A letter has
 * one size across the operands, or 1 where it broadcasts; a letter repeated
 * within one operand (a diagonal) needs equal dims.  As numpy does, an
 * explicit output must keep "..." when the ellipses cover any dim.
 *
 * FLOPs, a multiply or an add each (onnx_shape.c): with n >= 2 operands,
 * every point of the full index space (the product of the sizes of all
 * distinct letters and of the broadcast ellipsis dims) takes n - 1
 * multiplies and 1 add into its output element, so n * that product
 * (2 * M * N * K for "ij,jk->ik", as for MatMul).  With one operand
 * (transpose, diagonal, trace, sum) the input's elements, one add or copy
 * each.
 */
#include "onnx_einsum.h"

#include <math.h>
#include <string.h>

#define EINSUM_MAX_LEN 256     /* equation characters, spaces dropped */
#define EINSUM_MAX_OPERANDS 32 /* more than any exporter emits */
#define EINSUM_LETTERS 52      /* A-Z then a-z: ASCII order */
#define EINSUM_ELLIPSIS (-1)   /* the label of "..." in a term */

/* one term of the equation: its labels in order, letters as 0..51 and the
 * ellipsis as EINSUM_ELLIPSIS */
typedef struct einsum_term {
	int n;
	int label[SC_ONNX_MAX_RANK + 1];
	bool ellipsis;
} einsum_term;

static int letter_of(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return 26 + (c - 'a');
	return -1;
}

/* parses s[0..len) into t; false on a character that is not a letter, a
 * '.' outside "...", a second ellipsis or more labels than a rank holds */
static bool parse_term(const char *s, size_t len, einsum_term *t)
{
	t->n = 0;
	t->ellipsis = false;
	for (size_t i = 0; i < len; i++) {
		int label;
		if (s[i] == '.') {
			if (t->ellipsis || len - i < 3 || s[i + 1] != '.' || s[i + 2] != '.')
				return false;
			t->ellipsis = true;
			label = EINSUM_ELLIPSIS;
			i += 2;
		} else if ((label = letter_of(s[i])) < 0) {
			return false;
		}
		if (t->n == SC_ONNX_MAX_RANK + 1)
			return false;
		t->label[t->n++] = label;
	}
	return true;
}

/* numpy broadcasting of the ellipsis dims d[0..n) into ell[0..*rank) */
static bool broadcast_into(int64_t *ell, int *rank, const int64_t *d, int n)
{
	if (n > *rank) {
		/* right-aligned: shift what is there and pad with 1s */
		int pad = n - *rank;
		memmove(ell + pad, ell, (size_t)*rank * sizeof *ell);
		for (int i = 0; i < pad; i++)
			ell[i] = 1;
		*rank = n;
	}
	for (int i = 0; i < n; i++) {
		int64_t *e = &ell[*rank - n + i];
		if (*e != d[i] && *e != 1 && d[i] != 1)
			return false;
		if (*e == 1)
			*e = d[i];
	}
	return true;
}

bool sc_onnx_infer_einsum(const Onnx__NodeProto *node, const sc_onnx_tensor *const *in, int nin,
                          sc_onnx_tensor *const *out, int nout, double *flops)
{
	*flops = 0;
	const Onnx__AttributeProto *a = sc_onnx_attr(node, "equation");
	if (!a || !a->has_s || nin < 1 || nin > EINSUM_MAX_OPERANDS || nout != 1)
		return false;

	char eq[EINSUM_MAX_LEN + 1];
	size_t len = 0;
	for (size_t i = 0; i < a->s.len; i++) {
		if (a->s.data[i] == ' ')
			continue;
		if (len == EINSUM_MAX_LEN)
			return false;
		eq[len++] = (char)a->s.data[i];
	}
	eq[len] = '\0';
	const char *arrow = strstr(eq, "->");
	size_t lhs_len = arrow ? (size_t)(arrow - eq) : len;

	/* the terms, one per operand, and the sizes they give the letters */
	int64_t size[EINSUM_LETTERS], ell[SC_ONNX_MAX_RANK];
	int count[EINSUM_LETTERS] = {0}, ell_rank = 0, nterms = 0;
	bool any_ellipsis = false;
	for (int i = 0; i < EINSUM_LETTERS; i++)
		size[i] = -1;
	for (size_t start = 0; start <= lhs_len; nterms++) {
		const char *comma = memchr(eq + start, ',', lhs_len - start);
		size_t end = comma ? (size_t)(comma - eq) : lhs_len;
		einsum_term t;
		const sc_onnx_tensor *x = nterms < nin ? in[nterms] : NULL;
		if (!parse_term(eq + start, end - start, &t) || !x || !x->known)
			return false;
		int nletters = t.n - t.ellipsis, ndims = x->rank - nletters;
		if (ndims < 0 || (!t.ellipsis && ndims != 0))
			return false;
		int64_t mine[EINSUM_LETTERS]; /* this operand's dim of each letter */
		for (int i = 0; i < EINSUM_LETTERS; i++)
			mine[i] = -1;
		for (int i = 0, d = 0; i < t.n; i++) {
			if (t.label[i] == EINSUM_ELLIPSIS) {
				if (!broadcast_into(ell, &ell_rank, &x->dim[d], ndims))
					return false;
				d += ndims;
				continue;
			}
			int l = t.label[i];
			int64_t dim = x->dim[d++];
			if (dim < 0 || (mine[l] >= 0 && mine[l] != dim))
				return false;
			mine[l] = dim;
			count[l]++;
			if (size[l] < 0 || size[l] == 1)
				size[l] = dim;
			else if (dim != size[l] && dim != 1)
				return false;
		}
		any_ellipsis |= t.ellipsis;
		start = end + 1;
	}
	if (nterms != nin)
		return false;
	for (int i = 0; i < ell_rank; i++)
		if (ell[i] < 0)
			return false;

	/* the output's labels: explicit, or the implicit form's */
	einsum_term o = {.n = 0};
	if (arrow) {
		if (!parse_term(arrow + 2, len - lhs_len - 2, &o) || (ell_rank > 0 && !o.ellipsis))
			return false;
		bool seen[EINSUM_LETTERS] = {false};
		for (int i = 0; i < o.n; i++) {
			int l = o.label[i];
			if (l != EINSUM_ELLIPSIS && (count[l] == 0 || seen[l]))
				return false;
			if (l != EINSUM_ELLIPSIS)
				seen[l] = true;
		}
	} else {
		if (any_ellipsis)
			o.label[o.n++] = EINSUM_ELLIPSIS;
		for (int l = 0; l < EINSUM_LETTERS; l++) {
			if (count[l] != 1)
				continue;
			if (o.n == SC_ONNX_MAX_RANK + 1)
				return false;
			o.label[o.n++] = l;
		}
	}
	int64_t dim[SC_ONNX_MAX_RANK];
	int rank = 0;
	for (int i = 0; i < o.n; i++) {
		int k = o.label[i] == EINSUM_ELLIPSIS ? ell_rank : 1;
		if (rank + k > SC_ONNX_MAX_RANK)
			return false;
		if (o.label[i] == EINSUM_ELLIPSIS)
			memcpy(&dim[rank], ell, (size_t)ell_rank * sizeof *ell);
		else
			dim[rank] = size[o.label[i]];
		rank += k;
	}

	double total = 1;
	if (nin == 1) {
		total = (double)sc_onnx_numel(in[0]);
	} else {
		for (int l = 0; l < EINSUM_LETTERS; l++)
			if (count[l])
				total *= (double)size[l];
		for (int i = 0; i < ell_rank; i++)
			total *= (double)ell[i];
		total *= nin;
	}
	if (!isfinite(total) || total < 0)
		return false;
	sc_onnx_tensor *y = out[0];
	if (!y->known) { /* else value_info gave it (sc_onnx_infer's contract) */
		y->known = true;
		y->rank = rank;
		memcpy(y->dim, dim, (size_t)rank * sizeof *dim);
		y->dtype = in[0]->dtype;
		y->elem = sc_onnx_dtype_size(y->dtype);
	}
	*flops = total;
	return true;
}

/*
 * linediff.c - the lines a change added to a text (roz/linediff.h).
 *
 * Each text is cut into lines once, each line hashed (FNV-1a) so that most
 * comparisons are one integer; equal hashes are confirmed byte for byte.
 * The common head and tail are set aside first, so an edit in one place of
 * a large file costs a pass over it and a difference of a few lines.
 *
 * Between them, Myers' greedy algorithm: for d = 0, 1, ... the furthest
 * point reachable on each diagonal k = x - y with d insertions and
 * deletions. The frontier of every round is kept (rounds of d hold 2d + 3
 * values; memory grows with the rounds a change needs), so the path back from the end says which lines of the new text
 * were insertions. Past ROZ_LINEDIFF_MAX_COST rounds the whole middle of
 * the new text is taken as added.
 */
#include "roz/linediff.h"
#include "roz/digest.h"

#include <stdint.h>
#include <string.h>

typedef struct line {
	const char *p;
	size_t len; /* without its "\n" */
	uint64_t h;
} line;

static int split(const char *text, size_t len, line **out, size_t *n)
{
	size_t count = 0, k = 0;
	const char *p = text, *end = text + len;

	*out = NULL;
	*n = 0;
	if (!text || !len)
		return ROZ_OK;
	for (const char *q = p; q < end;) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));

		count++;
		if (!nl)
			break;
		q = nl + 1;
	}
	if (!(*out = roz_calloc(count, sizeof **out)))
		return ROZ_ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		(*out)[k].p = p;
		(*out)[k].len = l;
		(*out)[k].h = roz_hash_fnv1a(p, l);
		k++;
		if (!nl)
			break;
		p = nl + 1;
	}
	*n = k;
	return ROZ_OK;
}

static bool same(const line *a, const line *b)
{
	return a->h == b->h && a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

typedef struct spans {
	roz_line_span *items;
	size_t n, cap;
} spans;

/* Add line `no` of the new text (1-based); lines come in descending order here. */
static int add_line(spans *s, unsigned long no)
{
	if (s->n && s->items[s->n - 1].start == no + 1) {
		s->items[s->n - 1].start = no;
		return ROZ_OK;
	}
	if (s->n == s->cap &&
	    roz_alloc_array_reserve((void **)&s->items, &s->cap, sizeof *s->items, s->n + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	s->items[s->n].start = s->items[s->n].end = no;
	s->n++;
	return ROZ_OK;
}

/* Lines from..to (1-based, inclusive, descending order kept by the caller). */
static int add_lines(spans *s, unsigned long from, unsigned long to)
{
	for (unsigned long l = to; l >= from && l > 0; l--)
		if (add_line(s, l) != ROZ_OK)
			return ROZ_ENOMEM;
	return ROZ_OK;
}

/*
 * The middle: a[0..na) against b[0..nb), the new lines' numbers offset by
 * `base`. Insertions are added to s, last first.
 */
static int middle(const line *a, long na, const line *b, long nb, unsigned long base, spans *s)
{
	long max = na + nb, bound = max < (long)ROZ_LINEDIFF_MAX_COST ? max : (long)ROZ_LINEDIFF_MAX_COST;
	int32_t *v = NULL, *trace = NULL;
	size_t *at = NULL, used = 0, cap = 0;
	long d, found = -1;
	int rc = ROZ_ENOMEM;

	if (nb == 0)
		return ROZ_OK;
	if (na == 0)
		return add_lines(s, base + 1, base + (unsigned long)nb);
	/* v[k + bound + 1], k in [-bound - 1, bound + 1] */
	v = roz_calloc((size_t)(2 * bound + 3), sizeof *v);
	at = roz_calloc((size_t)(bound + 1), sizeof *at);
	if (!v || !at)
		goto out;
#define V(k) v[(k) + bound + 1]
	V(1) = 0;
	for (d = 0; d <= bound && found < 0; d++) {
		/* the frontier before round d, for k in [-d - 1, d + 1]: kept as far as the rounds go */
		if (roz_alloc_array_reserve((void **)&trace, &cap, sizeof *trace, used + (size_t)(2 * d + 3)) != ROZ_OK)
			goto out;
		at[d] = used;
		memcpy(trace + used, &V(-d - 1), (size_t)(2 * d + 3) * sizeof *trace);
		used += (size_t)(2 * d + 3);
		for (long k = -d; k <= d; k += 2) {
			long x = (k == -d || (k != d && V(k - 1) < V(k + 1))) ? V(k + 1) : V(k - 1) + 1;
			long y = x - k;

			while (x < na && y < nb && same(&a[x], &b[y])) {
				x++;
				y++;
			}
			V(k) = (int32_t)x;
			if (x >= na && y >= nb) {
				found = d;
				break;
			}
		}
	}
#undef V
	if (found < 0) {
		/* too different to be worth the work: the whole middle is the change's */
		rc = add_lines(s, base + 1, base + (unsigned long)nb);
		goto out;
	}
	{
		long x = na, y = nb;

		for (d = found; d > 0; d--) {
			const int32_t *pv = trace + at[d];
			long k = x - y, pk, px, py;

			/* pv[j] is the frontier at diagonal j - d - 1 */
#define PV(kk) pv[(kk) + d + 1]
			pk = (k == -d || (k != d && PV(k - 1) < PV(k + 1))) ? k + 1 : k - 1;
			px = PV(pk);
#undef PV
			py = px - pk;
			/* back along the snake, then the one step of round d */
			x = px + (pk == k + 1 ? 0 : 1);
			y = x - k;
			if (pk == k + 1 && add_line(s, base + (unsigned long)y) != ROZ_OK)
				goto out;
			x = px;
			y = py;
		}
	}
	rc = ROZ_OK;
out:
	roz_free(v);
	roz_free(at);
	roz_free(trace);
	return rc;
}

int roz_line_diff_added(const char *before, size_t blen, const char *after, size_t alen, roz_line_span **out,
			size_t *nout)
{
	line *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, head = 0, tail = 0;
	spans s = {0};
	int rc;

	*out = NULL;
	*nout = 0;
	if ((rc = split(before, blen, &a, &na)) != ROZ_OK || (rc = split(after, alen, &b, &nb)) != ROZ_OK)
		goto out;
	while (head < na && head < nb && same(&a[head], &b[head]))
		head++;
	while (tail < na - head && tail < nb - head && same(&a[na - 1 - tail], &b[nb - 1 - tail]))
		tail++;
	if (na - head - tail > INT32_MAX / 2 || nb - head - tail > INT32_MAX / 2) {
		rc = add_lines(&s, head + 1, nb - tail);
	} else {
		/* an empty text has no lines at all (NULL): nothing to offset */
		rc = middle(a ? a + head : NULL, (long)(na - head - tail), b ? b + head : NULL,
			    (long)(nb - head - tail), (unsigned long)head, &s);
	}
	if (rc != ROZ_OK)
		goto out;
	/* found last first: put them in order */
	for (size_t i = 0; i < s.n / 2; i++) {
		roz_line_span t = s.items[i];

		s.items[i] = s.items[s.n - 1 - i];
		s.items[s.n - 1 - i] = t;
	}
	*out = s.items;
	*nout = s.n;
	s.items = NULL;
out:
	roz_free(s.items);
	roz_free(a);
	roz_free(b);
	return rc;
}

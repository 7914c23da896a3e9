/*
 * roz/linediff.h - which lines of a file's new text a change put there:
 * the lines of `after` that are not in a longest common subsequence of the
 * lines of `before` and `after` (Myers' O(ND) difference, after the common
 * head and tail are set aside).
 *
 * Used for a file detection saw changed in place (roz/detect.h): the ledger
 * attributes to the call the lines it added or rewrote, not the whole file.
 * Lines are compared without their "\n"; a last line with no "\n" is a
 * line. Pure: text in, line numbers out.
 */
#ifndef ROZ_LINEDIFF_H
#define ROZ_LINEDIFF_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Lines start..end of the new text (1-based, inclusive). */
typedef struct roz_line_span {
	unsigned long start;
	unsigned long end;
} roz_line_span;

/*
 * Work bound: past this many differences (insertions plus deletions) in the
 * part of the texts that differ, the whole of that part of the new text is
 * taken as changed rather than spending more time and memory. Memory is
 * about 4 * d^2 bytes for a change of d differences, 16 MiB at the bound.
 */
#define ROZ_LINEDIFF_MAX_COST 2048u

/*
 * The spans of `after` (sorted, disjoint, not touching) that the change
 * from `before` added. *spans is allocated (NULL when there are none; free
 * with roz_free). ROZ_OK or ROZ_ENOMEM.
 */
int roz_line_diff_added(const char *before, size_t blen, const char *after, size_t alen, roz_line_span **spans,
			size_t *n) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif

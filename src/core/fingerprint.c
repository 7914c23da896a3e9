/*
 * fingerprint.c - what an approval saw against what is there now
 * (roz/fingerprint.h): one merge pass over two lists sorted by path.
 */
#include "roz/fingerprint.h"
#include "roz/glob.h"

#include <string.h>

static const char rereview_names[][8] = {
	[ROZ_REREVIEW_ALWAYS] = "always",
	[ROZ_REREVIEW_CODE] = "code",
	[ROZ_REREVIEW_NEVER] = "never",
};

static const char change_names[][10] = {
	[ROZ_FP_MODIFIED] = "modified",
	[ROZ_FP_ADDED] = "added",
	[ROZ_FP_REMOVED] = "removed",
	[ROZ_FP_REVERTED] = "reverted",
};

const char *roz_rereview_name(roz_rereview r)
{
	return (size_t)r < sizeof rereview_names / sizeof rereview_names[0] ? rereview_names[r] : "always";
}

int roz_rereview_parse(const char *s, roz_rereview *out)
{
	for (size_t i = 0; s && i < sizeof rereview_names / sizeof rereview_names[0]; i++)
		if (strcmp(s, rereview_names[i]) == 0) {
			*out = (roz_rereview)i;
			return ROZ_OK;
		}
	return ROZ_EINVALID;
}

const char *roz_fp_change_name(roz_fp_change c)
{
	return (size_t)c < sizeof change_names / sizeof change_names[0] ? change_names[c] : "modified";
}

void roz_fingerprint_dispose(roz_fingerprint *fp)
{
	if (!fp)
		return;
	for (size_t i = 0; i < fp->n; i++)
		roz_free(fp->items[i].path);
	roz_free(fp->items);
	memset(fp, 0, sizeof *fp);
}

int roz_fingerprint_put(roz_fingerprint *fp, const char *path, const char *hash, uint32_t mode)
{
	size_t lo = 0, hi = fp->n;
	roz_fp_file *f;

	/* files come mostly in order: look at the end first */
	if (fp->n && strcmp(fp->items[fp->n - 1].path, path) < 0)
		lo = fp->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(fp->items[mid].path, path);

		if (c == 0) {
			lo = mid;
			goto set;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (roz_alloc_array_reserve((void **)&fp->items, &fp->cap, sizeof *fp->items, fp->n + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	memmove(&fp->items[lo + 1], &fp->items[lo], (fp->n - lo) * sizeof *fp->items);
	memset(&fp->items[lo], 0, sizeof fp->items[lo]);
	if (!(fp->items[lo].path = roz_strdup(path))) {
		memmove(&fp->items[lo], &fp->items[lo + 1], (fp->n - lo) * sizeof *fp->items);
		return ROZ_ENOMEM;
	}
	fp->n++;
set:
	f = &fp->items[lo];
	if (hash && *hash && strlen(hash) < ROZ_SHA256_HEX_SIZE)
		memcpy(f->hash, hash, strlen(hash) + 1);
	else
		f->hash[0] = '\0';
	f->mode = f->hash[0] ? mode : 0;
	return ROZ_OK;
}

void roz_fp_diff_dispose(roz_fp_diff *d)
{
	if (!d)
		return;
	roz_free(d->items);
	memset(d, 0, sizeof *d);
}

static bool counts(const char *path, roz_rereview mode, const char *const *ignore, size_t nignore)
{
	if (mode == ROZ_REREVIEW_NEVER)
		return false;
	if (mode == ROZ_REREVIEW_CODE)
		for (size_t i = 0; i < nignore; i++)
			if (ignore[i] && roz_glob_match(ignore[i], path))
				return false;
	return true;
}

static int add(roz_fp_diff *d, const char *path, roz_fp_change change)
{
	if (roz_alloc_array_reserve((void **)&d->items, &d->cap, sizeof *d->items, d->n + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	d->items[d->n++] = (roz_fp_diff_item){path, change};
	return ROZ_OK;
}

static bool same(const roz_fp_file *a, const roz_fp_file *b)
{
	return strcmp(a->hash, b->hash) == 0 && a->mode == b->mode;
}

int roz_fingerprint_compare(const roz_fingerprint *approved, const roz_fingerprint *now, roz_rereview mode,
			    const char *const *ignore, size_t nignore, roz_fp_diff *out)
{
	size_t i = 0, j = 0;
	int rc = ROZ_OK;

	memset(out, 0, sizeof *out);
	while (rc == ROZ_OK && (i < approved->n || j < now->n)) {
		const roz_fp_file *a = i < approved->n ? &approved->items[i] : NULL;
		const roz_fp_file *b = j < now->n ? &now->items[j] : NULL;
		int c = !a ? 1 : !b ? -1 : strcmp(a->path, b->path);
		const char *path = c <= 0 ? a->path : b->path;
		roz_fp_change change;
		bool changed = true;

		if (c < 0) {
			change = ROZ_FP_REVERTED;
			i++;
		} else if (c > 0) {
			change = ROZ_FP_ADDED;
			j++;
		} else {
			changed = !same(a, b);
			change = !b->hash[0] ? ROZ_FP_REMOVED : !a->hash[0] ? ROZ_FP_ADDED : ROZ_FP_MODIFIED;
			i++;
			j++;
		}
		if (changed && counts(path, mode, ignore, nignore))
			rc = add(out, path, change);
	}
	if (rc != ROZ_OK)
		roz_fp_diff_dispose(out);
	return rc;
}

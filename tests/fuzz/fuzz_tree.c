/*
 * fuzz_tree.c - a saved working-tree snapshot on arbitrary bytes (what a
 * torn write, a full disk or another program could leave in
 * <storage>/trees/). A snapshot that loads must hold what the walk
 * promises (relative, normal, strictly sorted paths, so lookups work);
 * saved again it loads back the same; compared with itself it shows no
 * change. One that does not load leaves nothing behind.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "roz/tree.h"
#include "roz/tree_diff.h"

static void check_tree(const roz_tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const char *p = t->items[i].path;
		size_t len = strlen(p);

		FUZZ_CHECK(len > 0 && p[0] != '/' && p[len - 1] != '/');
		FUZZ_CHECK(strstr(p, "//") == NULL);
		FUZZ_CHECK(i == 0 || strcmp(t->items[i - 1].path, p) < 0);
		FUZZ_CHECK(roz_tree_find(t, p) == &t->items[i]);
	}
}

/* The bytes as a snapshot file (a regular file: the loader refuses links, so no memfd path). */
static int load_bytes(const uint8_t *data, size_t size, roz_tree *t)
{
	static char dir[] = "/tmp/roz-fuzz-tree-XXXXXX";
	static int made;
	char path[64];
	FILE *f;
	int rc;

	if (!made) {
		FUZZ_CHECK(mkdtemp(dir) != NULL);
		made = 1;
	}
	snprintf(path, sizeof path, "%s/in.tree", dir);
	FUZZ_CHECK((f = fopen(path, "wb")) != NULL);
	FUZZ_CHECK(fwrite(data, 1, size, f) == size);
	FUZZ_CHECK(fclose(f) == 0);
	rc = roz_tree_load(path, t);
	unlink(path);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	roz_tree t = {0}, back = {0};
	roz_changes ch = {0};
	char dir[] = "/tmp/roz-fuzz-tree-XXXXXX", file[64];
	int rc;

	fuzz_init();
	rc = load_bytes(data, size, &t);
	FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_ECORRUPT || rc == ROZ_ENOMEM || rc == ROZ_EIO);
	if (rc != ROZ_OK) {
		FUZZ_CHECK(t.n == 0 && t.items == NULL);
		return 0;
	}
	check_tree(&t);
	/* compared with itself: nothing changed, whatever the times say */
	FUZZ_CHECK(roz_tree_diff(&t, &t, 0, INT64_MIN, &ch, NULL) == ROZ_OK);
	FUZZ_CHECK(ch.n == 0);
	roz_changes_dispose(&ch);
	/* saved and loaded again: the same tree */
	if (mkdtemp(dir)) {
		snprintf(file, sizeof file, "%s/t.tree", dir);
		if (roz_tree_save(&t, file) == ROZ_OK) {
			FUZZ_CHECK(roz_tree_load(file, &back) == ROZ_OK);
			FUZZ_CHECK(back.n == t.n && back.truncated == t.truncated && back.taken_ns == t.taken_ns);
			for (size_t i = 0; i < t.n; i++) {
				FUZZ_CHECK(strcmp(back.items[i].path, t.items[i].path) == 0);
				FUZZ_CHECK(back.items[i].mode == t.items[i].mode && back.items[i].ino == t.items[i].ino &&
					   back.items[i].size == t.items[i].size &&
					   back.items[i].mtime_ns == t.items[i].mtime_ns &&
					   back.items[i].ctime_ns == t.items[i].ctime_ns);
			}
			roz_tree_dispose(&back);
			unlink(file);
		}
		rmdir(dir);
	}
	roz_tree_dispose(&t);
	return 0;
}

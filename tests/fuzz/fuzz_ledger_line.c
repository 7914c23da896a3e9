/*
 * fuzz_ledger_line.c - a ledger line on arbitrary bytes. A line that reads
 * must hold only what the contract promises (ranges from line 1, ending
 * no earlier than they start, hashes empty or 64 lowercase hex digits, text
 * that is UTF-8); written again as roz's own record it must read back with
 * the same files and ranges, and as one line that is JSON. A line that does
 * not read leaves nothing behind and says why.
 */
#include <string.h>

#include "fuzz.h"
#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/utf8.h"

/*
 * Below this size a record written again cannot reach ROZ_LEDGER_MAX_LINE
 * (a number or a file entry grows at most a few times when roz writes it),
 * so its ranges must all survive.
 */
#define ROUND_TRIP_EXACT (ROZ_LEDGER_MAX_LINE / 8)

static void check_text(const char *s)
{
	if (s)
		FUZZ_CHECK(roz_utf8_valid(s, strlen(s)));
}

static void check_rec(const roz_ledger_rec *r)
{
	FUZZ_CHECK((r->nfiles == 0) || r->files != NULL);
	check_text(r->id);
	check_text(r->revision);
	check_text(r->session_id);
	check_text(r->intent_id);
	check_text(r->mutation_class);
	check_text(r->model_id);
	for (size_t i = 0; i < r->nfiles; i++) {
		const roz_ledger_ranges *g = &r->files[i].ranges;

		FUZZ_CHECK(r->files[i].path != NULL);
		check_text(r->files[i].path);
		FUZZ_CHECK(g->n <= 100000);
		for (size_t k = 0; k < g->n; k++) {
			const char *h = g->items[k].hash;
			size_t hl = strnlen(h, ROZ_SHA256_HEX_SIZE);

			FUZZ_CHECK(g->items[k].start_line >= 1);
			FUZZ_CHECK(g->items[k].end_line >= g->items[k].start_line);
			FUZZ_CHECK(hl == 0 || hl == 64);
			FUZZ_CHECK(strspn(h, "0123456789abcdef") == hl);
		}
	}
}

static bool same_or_none(const char *a, const char *b)
{
	if (!a || !*a)
		return !b || !*b;
	return b && !strcmp(a, b);
}

static void write_again(const roz_ledger_rec *r, size_t in_len)
{
	roz_ledger_file *files = NULL;
	roz_ledger_record_in in = {0};
	roz_ledger_rec back;
	roz_buf b = ROZ_BUF_INIT;
	bool dropped = false;
	int rc;

	if (r->nfiles && !(files = roz_calloc(r->nfiles, sizeof *files)))
		return;
	for (size_t i = 0; i < r->nfiles; i++) {
		files[i].path = r->files[i].path;
		files[i].ranges = &r->files[i].ranges;
	}
	in.id = r->id && *r->id ? r->id : "00000000-0000-4000-8000-000000000000";
	in.timestamp = r->has_timestamp ? r->timestamp : roz_time_make(0, 0);
	in.revision = r->revision;
	in.roz_version = "0";
	in.session_id = r->session_id;
	in.model_id = r->model_id;
	in.intent_id = r->intent_id;
	in.tool_name = "Edit";
	in.files = files;
	in.nfiles = r->nfiles;

	rc = roz_ledger_record_write(&in, &b);
	if (rc == ROZ_ENOMEM)
		goto done;
	if (rc == ROZ_EINVALID) {
		/* only a record too long even without its ranges */
		FUZZ_CHECK(in_len > ROUND_TRIP_EXACT);
		FUZZ_CHECK(b.len == 0);
		goto done;
	}
	FUZZ_CHECK(rc == ROZ_OK);
	FUZZ_CHECK(b.len >= 2 && b.ptr[b.len - 1] == '\n');
	FUZZ_CHECK(memchr(b.ptr, '\n', b.len - 1) == NULL);
	FUZZ_CHECK(b.len - 1 <= ROZ_LEDGER_MAX_LINE);
	FUZZ_CHECK(roz_json_valid(b.ptr, b.len - 1));

	rc = roz_ledger_line_parse(b.ptr, b.len - 1, &back);
	if (rc == ROZ_ENOMEM)
		goto done;
	FUZZ_CHECK(rc == ROZ_OK);
	check_rec(&back);
	FUZZ_CHECK(back.nfiles == r->nfiles);
	FUZZ_CHECK(back.id && !strcmp(back.id, in.id));
	FUZZ_CHECK(same_or_none(r->revision, back.revision));
	FUZZ_CHECK(same_or_none(r->session_id, back.session_id));
	FUZZ_CHECK(same_or_none(r->intent_id, back.intent_id));
	FUZZ_CHECK(back.has_timestamp);
	if (r->has_timestamp)
		FUZZ_CHECK(roz_time_cmp(back.timestamp, r->timestamp) == 0);
	for (size_t i = 0; i < r->nfiles; i++) {
		const roz_ledger_ranges *x = &r->files[i].ranges, *y = &back.files[i].ranges;

		FUZZ_CHECK(!strcmp(r->files[i].path, back.files[i].path));
		if (y->n == 0 && x->n > 0) {
			dropped = true;
			continue;
		}
		FUZZ_CHECK(x->n == y->n);
		for (size_t k = 0; k < x->n; k++) {
			FUZZ_CHECK(x->items[k].start_line == y->items[k].start_line);
			FUZZ_CHECK(x->items[k].end_line == y->items[k].end_line);
			FUZZ_CHECK(!strcmp(x->items[k].hash, y->items[k].hash));
		}
	}
	if (dropped) {
		/* ranges go all together, and only from a long record */
		FUZZ_CHECK(in_len > ROUND_TRIP_EXACT);
		for (size_t i = 0; i < back.nfiles; i++)
			FUZZ_CHECK(back.files[i].ranges.n == 0);
	}
	roz_ledger_rec_dispose(&back);
done:
	roz_buf_dispose(&b);
	roz_free(files);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	roz_ledger_rec rec;
	int rc;

	fuzz_init();
	rc = roz_ledger_line_parse((const char *)data, size, &rec);
	if (rc == ROZ_ENOMEM)
		return 0;
	if (rc != ROZ_OK) {
		FUZZ_CHECK(rc == ROZ_EPARSE);
		FUZZ_CHECK(rec.files == NULL && rec.nfiles == 0 && rec.id == NULL);
		FUZZ_CHECK(roz_error_last()[0] != '\0');
		return 0;
	}
	check_rec(&rec);
	write_again(&rec, size);
	roz_ledger_rec_dispose(&rec);
	return 0;
}

/*
 * fuzz_shell.c - the Bash line reader behind `Bash:` gates, on arbitrary
 * bytes. Gates match each reported command's `line`, so it must be exactly
 * its words; and a line roz could not read must say so (flag plus reason),
 * because that is what turns an unreadable command into a question. What a
 * command leaves to run time must lie inside it, and a gate that matches a
 * line must also be found able to match every known start of it, or a
 * computed word could hide a match.
 */
#include <string.h>

#include "fuzz.h"
#include "roz/glob.h"
#include "roz/shell.h"

#define KNOWN_FLAGS (ROZ_SHELL_DYNAMIC | ROZ_SHELL_UNPARSED)

static void check_cmd(const roz_shell_cmd *c)
{
	const char *p;

	FUZZ_CHECK(c->nwords >= 1);
	FUZZ_CHECK(c->words != NULL && c->line != NULL);
	p = c->line;
	for (size_t i = 0; i < c->nwords; i++) {
		size_t k;

		FUZZ_CHECK(c->words[i] != NULL);
		if (i) {
			FUZZ_CHECK(*p == ' ');
			p++;
		}
		k = strlen(c->words[i]);
		FUZZ_CHECK(strncmp(p, c->words[i], k) == 0);
		p += k;
		FUZZ_CHECK(c->info != NULL);
		FUZZ_CHECK(c->info[i].known <= k && c->info[i].known_home <= k);
		FUZZ_CHECK(c->info[i].parts || c->info[i].known == k);
	}
	FUZZ_CHECK(*p == '\0');
	FUZZ_CHECK(c->known <= strlen(c->line));
	FUZZ_CHECK(!c->why || c->why[0]);
}

/* A line a pattern matches could be matched from any known start of it. */
static void check_prefixes(const roz_shell_cmd *c)
{
	static const char *const patterns[] = {"git push*", "*", "g?t *", "[a-z]*x", "rm -rf *"};

	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (roz_glob_match(patterns[i], c->line))
			FUZZ_CHECK(roz_glob_could_match(patterns[i], c->line, c->known));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	roz_shell_result r;
	int rc;

	fuzz_init();
	rc = roz_shell_parse((const char *)data, size, &r);
	if (rc == ROZ_ENOMEM)
		return 0;
	FUZZ_CHECK(rc == ROZ_OK);
	FUZZ_CHECK(r.ncmds <= r.cap);
	FUZZ_CHECK(r.ncmds == 0 || r.cmds != NULL);
	for (size_t i = 0; i < r.ncmds; i++) {
		check_cmd(&r.cmds[i]);
		check_prefixes(&r.cmds[i]);
	}
	for (size_t i = 0; i < r.nredirs; i++) {
		FUZZ_CHECK(r.redirs[i].path != NULL);
		FUZZ_CHECK(r.redirs[i].info.known <= strlen(r.redirs[i].path));
	}
	for (size_t i = 0; i < r.nnames; i++) {
		FUZZ_CHECK(r.names[i] != NULL && r.names[i][0] != '\0');
		FUZZ_CHECK(roz_shell_assigns(&r, r.names[i]));
	}
	FUZZ_CHECK((r.flags & ~(unsigned)KNOWN_FLAGS) == 0);
	FUZZ_CHECK((r.reason != NULL) == (r.flags != 0));
	if (r.reason)
		FUZZ_CHECK(r.reason[0] != '\0');
	roz_shell_result_dispose(&r);
	return 0;
}

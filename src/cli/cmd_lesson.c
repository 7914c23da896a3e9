/*
 * cmd_lesson.c - `roz lesson add "<text>" [--intent ID]`: a person adds a
 * lesson to the repository's .orchestration/CLAUDE.md, the lessons every
 * session's briefing ends with (docs/governance.md, "Shared lessons").
 *
 * The file is append-only: a lesson is one line added under the file's
 * lock, never an edit, so people, reviewers and parallel sessions add to it
 * at once without losing each other's lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "roz/append.h"
#include "roz/clock.h"
#include "roz/lessons.h"
#include "roz/orchestration.h"

/* How long to wait for another writer of the lessons file. */
#define LESSON_LOCK_MS 5000u

static void help(void)
{
	printf("usage: roz lesson add \"<text>\" [--intent <ID>]\n\n"
	       "Add a lesson to .orchestration/CLAUDE.md of the repository you are in (the\n"
	       "git top level, else the current directory). Every governed session is\n"
	       "briefed with the newest lessons, and the reviewer's ISSUES verdicts are added\n"
	       "there too. A lesson is one line: the date, the intent, who wrote it and the\n"
	       "text (line breaks become \" / \"; at most 2 KiB).\n\n"
	       "Options:\n"
	       "      --intent <ID>  file the lesson under this intent (one the intents file declares)\n"
	       "  -h, --help         show this help\n\n"
	       "Exit status: 0 added, 1 no .orchestration/ here, an unknown intent or the file\n"
	       "could not be written, 2 usage error.\n");
}

/*
 * Who adds the lesson. Claude Code names its session in the environment of
 * what its Bash tool runs: a lesson added from there is the agent's, and
 * says so, so no later session takes it for a person's. Otherwise the login
 * name when the environment gives one.
 */
static const char *author(char *buf, size_t size)
{
	const char *sid = getenv("CLAUDE_CODE_SESSION_ID"), *u = getenv("USER");

	if (sid && *sid) {
		snprintf(buf, size, "the agent of session %.64s", sid);
		return buf;
	}
	return u && *u ? u : "a person";
}

int cmd_lesson(int argc, char **argv)
{
	roz_orchestration o;
	const char *text = NULL, *intent = NULL;
	roz_buf line = ROZ_BUF_INIT;
	char cwd[4096], who[128], *dir = NULL, *path = NULL;
	struct stat st;
	int rc = ROZ_EXIT_FAILURE, r;

	memset(&o, 0, sizeof(o));
	if (argc < 2 || cli_wants_help(argc, argv)) {
		if (argc < 2)
			return cli_usage_error("lesson", "say what to do: add \"<text>\"");
		help();
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	if (strcmp(argv[1], "add") != 0)
		return cli_usage_error("lesson", "unknown action '%s' (add)", argv[1]);
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--intent") == 0) {
			if (++i == argc)
				return cli_usage_error("lesson", "--intent needs an intent id");
			intent = argv[i];
		} else if (strcmp(argv[i], "--") == 0 && i + 1 < argc && !text && i + 2 == argc) {
			text = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("lesson", "unknown option '%s'", argv[i]);
		} else if (text) {
			return cli_usage_error("lesson", "one lesson at a time: quote the text (\"...\")");
		} else {
			text = argv[i];
		}
	}
	if (!text)
		return cli_usage_error("lesson", "add needs the lesson's text");

	if (!getcwd(cwd, sizeof cwd)) {
		cli_error("lesson: cannot tell the current directory");
		return ROZ_EXIT_FAILURE;
	}
	if (roz_orchestration_find(cwd, &o) < 0 ||
	    (intent && roz_orchestration_load(&o, ROZ_ORCH_INTENTS) < 0)) {
		cli_error("lesson: %s", roz_error_last());
		goto out;
	}
	dir = roz_asprintf("%s/%s", o.root, ROZ_ORCH_DIR);
	path = roz_asprintf("%s/%s", o.root, ROZ_ORCH_LESSONS_FILE);
	if (!dir || !path) {
		cli_error("lesson: out of memory");
		goto out;
	}
	/* lessons are the repository's once it has taken part in governance: never create the folder */
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		cli_error("lesson: %s has no %s/ folder; lessons are kept there once the repository "
			  "declares intents (docs/governance.md)",
			  o.root, ROZ_ORCH_DIR);
		goto out;
	}
	if (intent) {
		if (!o.governed || !o.intents_ok) {
			cli_error("lesson: --intent %s: %s", intent,
				  !o.governed ? "this repository declares no intents"
					      : (o.intents_problem ? o.intents_problem : "the intents file cannot be used"));
			goto out;
		}
		if (!roz_intents_find(&o.intents, intent)) {
			cli_error("lesson: there is no intent '%s' in %s (roz intent list)", intent,
				  ROZ_ORCH_INTENTS_FILE);
			goto out;
		}
	}
	if ((r = roz_lessons_format(roz_clock_now(), intent, author(who, sizeof who), text, &line)) < 0) {
		if (r == ROZ_EINVALID)
			rc = cli_usage_error("lesson", "%s", roz_error_last());
		else
			cli_error("lesson: out of memory");
		goto out;
	}
	if (roz_append_line(path, line.ptr, line.len, LESSON_LOCK_MS) < 0) {
		cli_error("lesson: cannot add to %s: %s", path, roz_error_last());
		goto out;
	}
	printf("Added to %s:\n", path);
	cli_put_safe(stdout, roz_buf_cstr(&line), true);
	rc = ROZ_EXIT_OK;
out:
	roz_buf_dispose(&line);
	roz_free(dir);
	roz_free(path);
	roz_orchestration_dispose(&o);
	return cli_finish_stdout(rc);
}

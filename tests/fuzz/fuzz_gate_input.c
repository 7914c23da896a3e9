/*
 * fuzz_gate_input.c - one gated command, everything around it hostile. The
 * config gates `Bash:git push*`; every input is a PreToolUse for the Bash
 * command `git push origin main`, and the fuzzer's bytes make up the rest of
 * the hook input: other tool_input members, other top-level fields, raw
 * splices, deep nesting, escapes JSON cannot carry into C. The call goes
 * through roz_runner_hook, the runner the CLI calls, against a real file store.
 * Whatever the rest of the input holds, the answer must be deny or ask:
 * never {} (Claude Code would let the push run) and never "allow".
 *
 * Two placements put the bytes into the command itself, for the shell
 * reader, git's and the wrappers' rules and the interpreters' scanner: as
 * more lines after the push (still deny or ask), and as the whole command
 * (any answer but "allow"; the session usually holds the push's pending
 * denial by then, so this is where a detour is judged).
 *
 * Input layout:
 *
 *   byte 0    where the bytes go (mod 8, see the cases in build())
 *   byte 1    a parameter: nesting depth, or where a splice lands
 *   rest      the bytes
 *
 * The fixed part comes first, so a duplicate key the bytes add is the
 * second of its name: Claude Code never sends duplicates, and which one a
 * reader takes is not what this target is about.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "roz/json.h"
#include "roz/runner.h"

#define COMMAND "git push origin main"
/* Up to and including the command: never touched by the fuzzer's bytes. */
#define PREFIX                                                                                    \
	"{\"session_id\":\"fz\",\"cwd\":\"/w\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\"," \
	"\"tool_input\":{\"command\":\"" COMMAND "\""
#define CONFIG "[review.gates]\ntools = [\"Bash:git push*\"]\n[storage]\nfsync = false\n[trace]\nmax_events = 4\n"

static char home[256];
static bool tracing;

static const char *fuzz_getenv(void *ud, const char *name)
{
	(void)ud;
	if (strcmp(name, "ROZ_HOME") == 0 || strcmp(name, "HOME") == 0)
		return home;
	if (strcmp(name, "PATH") == 0)
		return "/nonexistent";
	return NULL;
}

/* The file store the config names, as the CLI hands it to the runner. */
static int fuzz_open_store(void *ud, const roz_config *config, roz_store_warn_fn warn, void *warn_ud,
			   roz_store **out)
{
	roz_store_file_opts so = {config->fsync};
	int rc = roz_store_file_open(config->storage_path, &so, out);

	(void)ud;
	if (rc == ROZ_OK)
		roz_store_file_on_warning(*out, warn, warn_ud);
	return rc;
}

/* Remove the home again when the process ends normally (a crash leaves it to look at). */
static void remove_home(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/sessions/fz.json", home);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sessions/fz.lock", home);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sessions", home);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/config.toml", home);
	unlink(path);
	rmdir(home);
}

/* A private ROZ_HOME with the gate config, in memory-backed /dev/shm when there is one. */
static void make_home(void)
{
	char path[512];
	struct stat st;
	FILE *f;

	snprintf(home, sizeof(home), "%s/roz-fuzz-gate-XXXXXX",
		 stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp");
	FUZZ_CHECK(mkdtemp(home) != NULL);
	snprintf(path, sizeof(path), "%s/config.toml", home);
	FUZZ_CHECK((f = fopen(path, "w")) != NULL);
	FUZZ_CHECK(fputs(CONFIG, f) >= 0);
	FUZZ_CHECK(fclose(f) == 0);
	tracing = getenv("ROZ_FUZZ_TRACE") != NULL;
	atexit(remove_home);
}

static void add_nested(roz_buf *b, size_t depth, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < depth; i++)
		roz_buf_adds(b, i % 3 == 2 ? "{\"k\":" : "[");
	if (n)
		roz_buf_add(b, p, n);
	else
		roz_buf_adds(b, "0");
	for (size_t i = depth; i-- > 0;)
		roz_buf_adds(b, i % 3 == 2 ? "}" : "]");
}

/* The hook input: the fixed prefix, then the fuzzer's bytes where byte 0 says. */
#define PLACES 8
#define WHOLE_COMMAND 7

/* The bytes as the text of a JSON string (escaped, so the input stays JSON). */
static void add_text(roz_buf *b, const uint8_t *p, size_t n)
{
	roz_buf s = ROZ_BUF_INIT;

	roz_json_add_stringn(&s, (const char *)p, n);
	if (!roz_buf_failed(&s) && s.len >= 2)
		roz_buf_add(b, s.ptr + 1, s.len - 2);
	roz_buf_dispose(&s);
}

static void build(roz_buf *b, uint8_t where, uint8_t param, const uint8_t *p, size_t n)
{
	if (where % PLACES == WHOLE_COMMAND) {
		roz_buf_adds(b, "{\"session_id\":\"fz\",\"cwd\":\"/w\",\"hook_event_name\":\"PreToolUse\","
				"\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"");
		add_text(b, p, n);
		roz_buf_adds(b, "\"}}");
		return;
	}
	if (where % PLACES == 6) { /* more lines after the push: it still runs first */
		roz_buf_adds(b, PREFIX);
		b->len--; /* reopen the command's string */
		roz_buf_adds(b, "\\n");
		add_text(b, p, n);
		roz_buf_adds(b, "\"}}");
		return;
	}
	roz_buf_adds(b, PREFIX);
	switch (where % 6) {
	case 0: /* more tool_input members, raw */
		roz_buf_addc(b, ',');
		roz_buf_add(b, p, n);
		roz_buf_adds(b, "}}");
		break;
	case 1: /* more top-level fields, raw */
		roz_buf_adds(b, "},");
		roz_buf_add(b, p, n);
		roz_buf_addc(b, '}');
		break;
	case 2: /* a description's text, raw: escapes, NULs, surrogates, bytes that are not UTF-8 */
		roz_buf_adds(b, ",\"description\":\"");
		roz_buf_add(b, p, n);
		roz_buf_adds(b, "\"}}");
		break;
	case 3: /* the bytes at the bottom of a member nested around the parser's limit */
		roz_buf_adds(b, ",\"x\":");
		add_nested(b, 400 + (size_t)param * 2, p, n);
		roz_buf_adds(b, "}}");
		break;
	case 4: /* a top-level field nested the same way */
		roz_buf_adds(b, "},\"y\":");
		add_nested(b, 400 + (size_t)param * 2, p, n);
		roz_buf_addc(b, '}');
		break;
	default: { /* spliced into an ordinary rest of input, anywhere after the command */
		static const char rest[] = ",\"description\":\"Push the branch\",\"timeout\":120000},"
					   "\"permission_mode\":\"default\",\"transcript_path\":\"/t.jsonl\","
					   "\"tool_use_id\":\"toolu_01\"}";
		size_t at = (size_t)param % sizeof(rest);

		roz_buf_add(b, rest, at);
		roz_buf_add(b, p, n);
		roz_buf_adds(b, rest + at);
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	roz_runner_opts opts = {fuzz_getenv, NULL, .open_store = fuzz_open_store};
	roz_buf in = ROZ_BUF_INIT, out = ROZ_BUF_INIT, err = ROZ_BUF_INIT;
	cJSON *answer = NULL;
	const cJSON *hso, *decision;
	int rc;

	fuzz_init();
	if (!home[0])
		make_home();
	if (size < 2)
		return 0;
	build(&in, data[0], data[1], data + 2, size - 2);
	FUZZ_CHECK(!in.oom);
	rc = roz_runner_hook("pre-tool-use", in.ptr, in.len, &out, &err, &opts);
	if (tracing)
		fprintf(stderr, "input: %.300s\nanswer: %s%s", in.ptr, out.len ? out.ptr : "(none)\n",
			err.len ? err.ptr : "");
	FUZZ_CHECK(rc == ROZ_OK && !out.oom && out.len);
	/* one JSON line, in a shape Claude Code accepts, never "allow" */
	FUZZ_CHECK(out.ptr[out.len - 1] == '\n');
	FUZZ_CHECK(!memmem(out.ptr, out.len, "\"allow\"", 7));
	FUZZ_CHECK(roz_json_parse(out.ptr, out.len, &answer) == ROZ_OK);
	hso = cJSON_GetObjectItemCaseSensitive(answer, "hookSpecificOutput");
	decision = cJSON_GetObjectItemCaseSensitive(hso, "permissionDecision");
	if (data[0] % PLACES == WHOLE_COMMAND) {
		/* any command: any answer Claude Code accepts but "allow" (checked above) */
		cJSON_Delete(answer);
		roz_buf_dispose(&in);
		roz_buf_dispose(&out);
		roz_buf_dispose(&err);
		return 0;
	}
	if (!cJSON_IsString(decision) ||
	    (strcmp(decision->valuestring, "deny") != 0 && strcmp(decision->valuestring, "ask") != 0)) {
		fprintf(stderr, "input: %.2000s\nanswer: %sstderr: %s", in.ptr, out.ptr,
			err.len ? err.ptr : "");
		FUZZ_CHECK(!"the gated command was not denied or asked about");
	}
	cJSON_Delete(answer);
	roz_buf_dispose(&in);
	roz_buf_dispose(&out);
	roz_buf_dispose(&err);
	return 0;
}

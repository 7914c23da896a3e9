/*
 * lesson_hook.c - the reviewer's ISSUES as a lesson later sessions read:
 * `roz decide ... ISSUES` runs in the reviewer's Bash, in the repository,
 * so the repository is the one the process runs in; the lesson goes under
 * the intent the reviewed session had selected (docs/governance.md,
 * "Shared lessons").
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "lesson_hook.h"
#include "roz/append.h"
#include "roz/lessons.h"
#include "roz/orchestration.h"

int lesson_hook_record(const roz_session *s, const roz_decide_request *req, roz_time now,
		       uint32_t lock_timeout_ms)
{
	const char *text = req->message && *req->message ? req->message : req->summary;
	roz_orchestration o;
	roz_buf line = ROZ_BUF_INIT;
	char cwd[4096], *path = NULL, *who = NULL;
	int rc;

	memset(&o, 0, sizeof(o));
	if (!getcwd(cwd, sizeof cwd)) {
		roz_error_set_errno(errno, "cannot tell the current directory");
		return ROZ_EIO;
	}
	if ((rc = roz_orchestration_find(cwd, &o)) < 0)
		goto out;
	if (!o.governed)
		goto out; /* lessons belong to governed repositories only */
	who = req->override ? roz_asprintf("a person's verdict on session %s", s->session_id)
			    : roz_asprintf("roz:roz review of %s", s->session_id);
	path = roz_asprintf("%s/%s", o.root, ROZ_ORCH_LESSONS_FILE);
	if (!who || !path) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	if ((rc = roz_lessons_format(now, s->gov.intent_id, who, text, &line)) < 0)
		goto out;
	if ((rc = roz_append_line(path, line.ptr, line.len, lock_timeout_ms)) < 0)
		roz_error_prefix("%s", path);
out:
	roz_buf_dispose(&line);
	roz_free(path);
	roz_free(who);
	roz_orchestration_dispose(&o);
	return rc;
}

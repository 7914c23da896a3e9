/*
 * error.c - the per-thread "why did that fail" message behind
 * roz_error_set()/roz_error_last(), and names for return codes.
 */
#include "roz/common.h"
#include "roz/utf8.h"

#include <stdio.h>
#include <string.h>

/* One message per thread; hooks are single threaded, tests may not be. */
static _Thread_local char error_msg[1024];

const char *roz_error_name(int code)
{
	switch (code) {
	case ROZ_OK: return "ok";
	case ROZ_ENOMEM: return "out of memory";
	case ROZ_ENOTFOUND: return "not found";
	case ROZ_EINVALID: return "invalid";
	case ROZ_ECORRUPT: return "corrupt";
	case ROZ_EIO: return "i/o error";
	case ROZ_ETIMEOUT: return "timed out";
	case ROZ_EPARSE: return "parse error";
	default: return "error";
	}
}

/*
 * A message is UTF-8 whatever it quotes: a name cut to fit ('%.80s', or the
 * buffer's end) or bytes from a tool call would otherwise make every JSON
 * text the message is put into unreadable. A byte that starts no
 * well-formed character becomes '?', in place; a character cut at the end
 * is dropped.
 */
static void settle(void)
{
	size_t len = strlen(error_msg), i = 0, n;

	while (i < len) {
		if ((unsigned char)error_msg[i] < 0x80) {
			i++;
			continue;
		}
		n = roz_utf8_char_len(error_msg + i, len - i);
		if (n) {
			i += n;
		} else if (len - i < 4 && (unsigned char)error_msg[i] >= 0xC0 &&
			   len == sizeof(error_msg) - 1) {
			error_msg[i] = '\0'; /* the last character, cut by the buffer */
			break;
		} else {
			error_msg[i++] = '?';
		}
	}
}

void roz_error_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(error_msg, sizeof(error_msg), fmt, ap);
	va_end(ap);
	settle();
}

void roz_error_set_errno(int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vsnprintf(error_msg, sizeof(error_msg), fmt, ap);
	va_end(ap);
	len = strlen(error_msg);
	if (len < sizeof(error_msg))
		snprintf(error_msg + len, sizeof(error_msg) - len, ": %s", strerror(errnum));
	settle();
}

void roz_error_prefix(const char *fmt, ...)
{
	char old[sizeof(error_msg)];
	size_t len, olen;
	va_list ap;

	memcpy(old, error_msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(error_msg, sizeof(error_msg), fmt, ap);
	va_end(ap);
	len = strlen(error_msg);
	olen = strlen(old);
	/* messages longer than the buffer are cut; a clipped reason beats none */
	if (olen && len + 2 < sizeof(error_msg)) {
		memcpy(error_msg + len, ": ", 2);
		len += 2;
		if (olen > sizeof(error_msg) - 1 - len)
			olen = sizeof(error_msg) - 1 - len;
		memcpy(error_msg + len, old, olen);
		error_msg[len + olen] = '\0';
	}
	settle();
}

const char *roz_error_last(void)
{
	return error_msg;
}

void roz_error_clear(void)
{
	error_msg[0] = '\0';
}

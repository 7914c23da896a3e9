/*
 * buf.c - the growable, always NUL-terminated byte buffer (roz_buf) with a
 * sticky out-of-memory flag, so builders check for failure once at the end.
 */
#include "roz/common.h"

#include <stdio.h>
#include <string.h>

void roz_buf_init(roz_buf *b)
{
	b->ptr = NULL;
	b->len = 0;
	b->cap = 0;
	b->oom = false;
}

void roz_buf_dispose(roz_buf *b)
{
	roz_free(b->ptr);
	roz_buf_init(b);
}

void roz_buf_reset(roz_buf *b)
{
	b->len = 0;
	b->oom = false;
	if (b->ptr)
		b->ptr[0] = '\0';
}

bool roz_buf_grow(roz_buf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (extra > SIZE_MAX - b->len - 1) {
		b->oom = true;
		roz_error_set("buffer too large");
		return false;
	}
	if (roz_alloc_array_reserve((void **)&b->ptr, &b->cap, 1, b->len + extra + 1) < 0) {
		b->oom = true;
		return false;
	}
	return true;
}

void roz_buf_add(roz_buf *b, const void *data, size_t len)
{
	if (!roz_buf_grow(b, len))
		return;
	if (len)
		memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void roz_buf_adds(roz_buf *b, const char *s)
{
	roz_buf_add(b, s, strlen(s));
}

void roz_buf_addc(roz_buf *b, char c)
{
	roz_buf_add(b, &c, 1);
}

void roz_buf_vaddf(roz_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (b->oom)
		return;
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0) {
		b->oom = true;
		roz_error_set("cannot format text");
		return;
	}
	if (!roz_buf_grow(b, (size_t)n))
		return;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void roz_buf_addf(roz_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	roz_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void roz_buf_add_replaced(roz_buf *b, const char *s, const char *from, const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to);
	const char *hit;

	if (!flen) {
		roz_buf_adds(b, s);
		return;
	}
	while ((hit = strstr(s, from)) != NULL) {
		roz_buf_add(b, s, (size_t)(hit - s));
		roz_buf_add(b, to, tlen);
		s = hit + flen;
	}
	roz_buf_adds(b, s);
}

const char *roz_buf_cstr(const roz_buf *b)
{
	return b->ptr ? b->ptr : "";
}

int roz_buf_failed(const roz_buf *b)
{
	if (!b->oom)
		return ROZ_OK;
	roz_error_set("out of memory building text");
	return ROZ_ENOMEM;
}

char *roz_buf_detach(roz_buf *b, size_t *len)
{
	char *p = b->ptr;

	if (!p && !b->oom) {
		/* an empty buffer still detaches as a valid empty string */
		p = roz_malloc(1);
		if (p)
			p[0] = '\0';
	}
	if (len)
		*len = b->len;
	roz_buf_init(b);
	return p;
}

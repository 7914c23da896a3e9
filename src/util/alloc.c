/*
 * alloc.c - roz's single allocator. Everything, cJSON included, allocates
 * here so that tests can fail the Nth allocation and watch roz cope.
 */
#include "roz/common.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long fail_after = -1; /* allocations left before injected failures */
static long alloc_count;

static bool injected_failure(void)
{
	alloc_count++;
	if (fail_after < 0)
		return false;
	if (fail_after == 0)
		return true;
	fail_after--;
	return false;
}

void roz_alloc_fail_after(long n)
{
	fail_after = n;
	alloc_count = 0;
}

long roz_alloc_count(void)
{
	return alloc_count;
}

static void *alloc_failed(size_t size)
{
	roz_error_set("out of memory (allocating %zu bytes)", size);
	return NULL;
}

void *roz_malloc(size_t size)
{
	void *p;

	if (injected_failure())
		return alloc_failed(size);
	p = malloc(size ? size : 1);
	return p ? p : alloc_failed(size);
}

void *roz_calloc(size_t n, size_t size)
{
	void *p;

	if (injected_failure())
		return alloc_failed(n * size);
	p = calloc(n ? n : 1, size ? size : 1);
	return p ? p : alloc_failed(n * size);
}

void *roz_realloc(void *ptr, size_t size)
{
	void *p;

	if (injected_failure())
		return alloc_failed(size);
	p = realloc(ptr, size ? size : 1);
	return p ? p : alloc_failed(size);
}

void roz_free(void *ptr)
{
	free(ptr);
}

char *roz_strndup(const char *s, size_t n)
{
	char *p;

	if (!s) {
		roz_error_set("no string to copy");
		return NULL;
	}
	p = roz_malloc(n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *roz_strdup(const char *s)
{
	return s ? roz_strndup(s, strlen(s)) : roz_strndup(s, 0);
}

char *roz_asprintf(const char *fmt, ...)
{
	roz_buf b = ROZ_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	roz_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (roz_buf_failed(&b)) {
		roz_buf_dispose(&b);
		return NULL;
	}
	return roz_buf_detach(&b, NULL);
}

int roz_alloc_array_reserve(void **ptr, size_t *cap, size_t elem, size_t need)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return ROZ_OK;
	ncap = *cap ? *cap : 4;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return roz_error_set("array too large"), ROZ_ENOMEM;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return roz_error_set("array too large"), ROZ_ENOMEM;
	p = roz_realloc(*ptr, ncap * elem);
	if (!p)
		return ROZ_ENOMEM;
	*ptr = p;
	*cap = ncap;
	return ROZ_OK;
}

static void *cjson_malloc(size_t size)
{
	return roz_malloc(size);
}

void roz_alloc_init(void)
{
	cJSON_Hooks hooks = {cjson_malloc, roz_free};

	cJSON_InitHooks(&hooks);
}

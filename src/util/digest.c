/*
 * digest.c - SHA-256 through libcrypto's one-shot digest routines. The
 * low-level SHA256 functions are used on purpose: the EVP layer would load
 * OpenSSL's providers, which costs more than an entire hook run.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "roz/digest.h"

#include <openssl/sha.h>

static void to_hex(const unsigned char md[SHA256_DIGEST_LENGTH], char out[ROZ_SHA256_HEX_SIZE])
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
}

void roz_digest_sha256_bytes(const void *data, size_t len, unsigned char out[ROZ_SHA256_SIZE])
{
	SHA256_CTX ctx;

	SHA256_Init(&ctx);
	SHA256_Update(&ctx, data, len);
	SHA256_Final(out, &ctx);
}

void roz_digest_sha256_hex(const void *data, size_t len, char out[ROZ_SHA256_HEX_SIZE])
{
	unsigned char md[ROZ_SHA256_SIZE];

	roz_digest_sha256_bytes(data, len, md);
	to_hex(md, out);
}

int roz_digest_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

struct roz_digest_sha256 {
	SHA256_CTX ctx;
};

roz_digest_sha256 *roz_digest_sha256_begin(void)
{
	roz_digest_sha256 *d = roz_malloc(sizeof *d);

	if (d)
		SHA256_Init(&d->ctx);
	return d;
}

void roz_digest_sha256_update(roz_digest_sha256 *d, const void *data, size_t len)
{
	if (d && len)
		SHA256_Update(&d->ctx, data, len);
}

void roz_digest_sha256_end(roz_digest_sha256 *d, char out[ROZ_SHA256_HEX_SIZE])
{
	unsigned char md[SHA256_DIGEST_LENGTH];

	if (!d)
		return;
	SHA256_Final(md, &d->ctx);
	to_hex(md, out);
	roz_free(d);
}

void roz_digest_sha256_abort(roz_digest_sha256 *d)
{
	roz_free(d);
}

uint64_t roz_hash_fnv1a(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = UINT64_C(1469598103934665603);

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

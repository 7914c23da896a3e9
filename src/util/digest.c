/*
 * digest.c - SHA-256 through libcrypto's one-shot digest routines. The
 * low-level SHA256 functions are used on purpose: the EVP layer would load
 * OpenSSL's providers, which costs more than an entire hook run.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "roz/digest.h"

#include <openssl/sha.h>

void roz_digest_sha256_hex(const void *data, size_t len, char out[ROZ_SHA256_HEX_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256_CTX ctx;

	SHA256_Init(&ctx);
	SHA256_Update(&ctx, data, len);
	SHA256_Final(md, &ctx);
	for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
}

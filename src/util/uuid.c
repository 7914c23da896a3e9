/*
 * uuid.c - turning 16 random bytes into a version 4 UUID's text. Drawing
 * the bytes is I/O and lives with the other random sources (io/random.c).
 */
#include "roz/uuid.h"

void roz_uuid_format(unsigned char b[16], char out[ROZ_UUID_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	int o = 0;

	b[6] = (unsigned char)((b[6] & 0x0F) | 0x40); /* version 4 */
	b[8] = (unsigned char)((b[8] & 0x3F) | 0x80); /* RFC 4122 variant */
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[b[i] >> 4];
		out[o++] = hex[b[i] & 15];
	}
	out[o] = '\0';
}

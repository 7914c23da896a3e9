/*
 * random.c - random bytes and UUIDs from getrandom(2). OpenSSL's RAND_bytes
 * draws from the same kernel source but first initialises its DRBG and
 * providers, which measured 1.3-1.6 ms per process; a hook cannot afford it.
 */
#include "roz/random.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/random.h>
#include <unistd.h>

static int urandom_fallback(unsigned char *p, size_t len)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		roz_error_set_errno(errno, "cannot open /dev/urandom");
		return ROZ_EIO;
	}
	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			roz_error_set_errno(n < 0 ? errno : EIO, "cannot read /dev/urandom");
			close(fd);
			return ROZ_EIO;
		}
		p += n;
		len -= (size_t)n;
	}
	close(fd);
	return ROZ_OK;
}

int roz_random_bytes(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOSYS)
				return urandom_fallback(p, len);
			roz_error_set_errno(errno, "getrandom failed");
			return ROZ_EIO;
		}
		p += n;
		len -= (size_t)n;
	}
	return ROZ_OK;
}

int roz_random_uuid_v4(char out[ROZ_UUID_SIZE])
{
	unsigned char b[16];
	int rc;

	if ((rc = roz_random_bytes(b, sizeof(b))) < 0)
		return rc;
	roz_uuid_format(b, out);
	return ROZ_OK;
}

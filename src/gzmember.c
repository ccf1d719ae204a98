/* gzmember.c: gzip members with zlib, written whole and read one at a
 * time from any offset (see gzmember.h). */
#include "config.h"
#include "gzmember.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "util.h"

/* zlib's windowBits: 15 (32 KiB window) + 16 (gzip header and trailer). */
#define GZ_WBITS (15 + 16)
#define GZ_INBUF ((size_t)64 << 10)
/* The extra field: subfield id "PM", 16 bytes (length, stamp). It starts
 * at byte 12 of the member: magic, method, flags, mtime, xfl, os, xlen. */
#define GZ_XLEN 20
#define GZ_XOFF 12
#define GZ_HLEN (GZ_XOFF + GZ_XLEN)

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int gzm_append(int fd, const void *buf, size_t len, int64_t stamp, char **cause)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	/* Level 1: on recorded counts it compresses 5 % worse than zlib's
	 * default level 6 in a fifth of the time (docs/recording.md). */
	if (deflateInit2(&z, 1, Z_DEFLATED, GZ_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return set_cause(cause, "zlib: %s", z.msg ? z.msg : "cannot start compressing"), -ENOMEM;
	/* The length is known only once compressed: written as 0 here and
	 * patched in the output below (the header has no checksum of its own). */
	unsigned char extra[GZ_XLEN] = { 'P', 'M', 16, 0 };
	put_le64(extra + 12, (uint64_t)stamp);
	gz_header h;
	memset(&h, 0, sizeof(h));
	h.os = 3;   /* Unix */
	h.extra = extra;
	h.extra_len = GZ_XLEN;
	deflateSetHeader(&z, &h);
	size_t cap = deflateBound(&z, (uLong)len) + 32;
	unsigned char *out = xmalloc(cap);
	z.next_in = (Bytef *)(uintptr_t)buf;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	int zr = deflate(&z, Z_FINISH);
	size_t n = cap - z.avail_out;
	deflateEnd(&z);
	if (zr != Z_STREAM_END) {
		free(out);
		return set_cause(cause, "zlib: compressing failed (%d)", zr), -EIO;
	}
	put_le64(out + GZ_XOFF + 4, (uint64_t)n);
	int rc = write_all(fd, out, n);
	free(out);
	if (rc < 0)
		set_cause(cause, "%s", strerror(-rc));
	return rc;
}

static ssize_t pread_full(int fd, unsigned char *buf, size_t n, uint64_t off);

/* The header of a member at off, already read into h (GZ_HLEN bytes). */
static int check_header(const unsigned char *h, uint64_t off, uint64_t size, uint64_t *next, int64_t *stamp)
{
	if (h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || !(h[3] & 4) ||
	    h[10] != GZ_XLEN || h[11] != 0 || h[12] != 'P' || h[13] != 'M' || h[14] != 16 || h[15] != 0)
		return -EBADMSG;
	uint64_t n = get_le64(h + 16);
	/* 18 bytes of gzip header and trailer at least, plus ours. */
	if (n < GZ_HLEN + 8)
		return -EBADMSG;
	if (n > size - off)
		return -EAGAIN;
	*next = off + n;
	*stamp = (int64_t)get_le64(h + 24);
	return 0;
}

int gzm_peek(int fd, uint64_t off, uint64_t size, uint64_t *next, int64_t *stamp)
{
	unsigned char h[GZ_HLEN];
	if (off >= size)
		return -EAGAIN;
	ssize_t r = pread_full(fd, h, sizeof(h), off);
	if (r < 0)
		return (int)r;
	if ((size_t)r < sizeof(h))
		return size - off < sizeof(h) ? -EAGAIN : -EBADMSG;
	return check_header(h, off, size, next, stamp);
}

static ssize_t pread_full(int fd, unsigned char *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int gzm_read_at(int fd, uint64_t off, size_t max, char **out, size_t *len, uint64_t *next, char **cause)
{
	*out = NULL;
	*len = 0;
	bool ratio_bound = false;
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, GZ_WBITS) != Z_OK)
		return set_cause(cause, "zlib: cannot start inflating"), -ENOMEM;
	if (max > GZM_MAX_MEMBER)
		max = GZM_MAX_MEMBER;
	/* The member's own length (its "PM" field) bounds what is read, and
	 * what it may inflate to: GZM_MAX_RATIO times its bytes, so that a
	 * file costs time in proportion to its size, whatever it holds. */
	uint64_t end = UINT64_MAX;
	unsigned char h[GZ_HLEN];
	if (pread_full(fd, h, sizeof(h), off) == (ssize_t)sizeof(h)) {
		uint64_t next_h;
		int64_t stamp;
		if (check_header(h, off, UINT64_MAX, &next_h, &stamp) == 0) {
			end = next_h;
			uint64_t clen = next_h - off;
			uint64_t most = clen > (UINT64_MAX - GZM_RATIO_SLACK) / GZM_MAX_RATIO
				? UINT64_MAX : clen * GZM_MAX_RATIO + GZM_RATIO_SLACK;
			if (most < max) {
				max = (size_t)most;
				ratio_bound = true;
			}
		}
	}
	size_t inlen = end - off < GZ_INBUF ? (size_t)(end - off) : GZ_INBUF;
	unsigned char *in = xmalloc(inlen);
	/* The buffer grows as the member inflates, never past max and a
	 * little room: what a member claims to hold is not believed. */
	size_t cap = max < ((size_t)1 << 16) ? max + 4096 : (size_t)1 << 16, n = 0;
	char *buf = xmalloc(cap + 1);
	uint64_t pos = off;
	int rc = 0;
	for (;;) {
		if (n > max) {
			rc = ratio_bound ? -E2BIG : -EFBIG;
			if (ratio_bound)
				set_cause(cause, "inflates to more than %d times its %llu bytes",
					  GZM_MAX_RATIO, (unsigned long long)(end - off));
			else
				set_cause(cause, "the record at byte %llu inflates to more than %zu bytes",
					  (unsigned long long)off, max);
			break;
		}
		if (z.avail_in == 0) {
			size_t want = end - pos < inlen ? (size_t)(end - pos) : inlen;
			ssize_t r = want ? pread_full(fd, in, want, pos) : 0;
			if (r < 0) {
				rc = (int)r;
				set_cause(cause, "reading at byte %llu: %s", (unsigned long long)pos,
					  strerror((int)-r));
				break;
			}
			if (r == 0 && pos >= end) {
				/* The data runs past the length its header gives. */
				rc = -EBADMSG;
				set_cause(cause, "the record at byte %llu is damaged (longer than its header says)",
					  (unsigned long long)off);
				break;
			}
			if (r == 0) {
				rc = -EAGAIN;
				set_cause(cause, "the file ends inside the record that starts at byte %llu",
					  (unsigned long long)off);
				break;
			}
			z.next_in = in;
			z.avail_in = (uInt)r;
			pos += (uint64_t)r;
		}
		if (cap - n < 4096) {
			cap = cap * 2 < max + 4096 ? cap * 2 : max + 4096;
			buf = xrealloc(buf, cap + 1);
		}
		z.next_out = (Bytef *)buf + n;
		z.avail_out = (uInt)(cap - n);
		int zr = inflate(&z, Z_NO_FLUSH);
		n = cap - z.avail_out;
		if (zr == Z_STREAM_END && n <= max) {
			*next = pos - z.avail_in;
			break;
		}
		if (zr == Z_STREAM_END)
			continue;   /* refused above */
		if (zr == Z_OK || (zr == Z_BUF_ERROR && z.avail_in == 0))
			continue;
		rc = -EBADMSG;
		set_cause(cause, "the record at byte %llu is damaged (%s)", (unsigned long long)off,
			  z.msg ? z.msg : "not gzip data");
		break;
	}
	inflateEnd(&z);
	free(in);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int64_t gzm_next_member(int fd, uint64_t off, uint64_t size, uint64_t *next, int64_t *stamp)
{
	/* One pass over the bytes in windows of GZ_INBUF: a candidate's
	 * header is checked in the window it was found in, so that a file of
	 * nothing but gzip magic costs one read per window, not one per
	 * match. */
	unsigned char *b = xmalloc(GZ_INBUF);
	int64_t found = -1;
	while (off < size) {
		ssize_t r = pread_full(fd, b, GZ_INBUF, off);
		if (r < 3)
			break;
		for (ssize_t i = 0; i + 2 < r; i++) {
			if (b[i] != 0x1f || b[i + 1] != 0x8b || b[i + 2] != 8)
				continue;
			uint64_t at = off + (uint64_t)i;
			int pk = (size_t)(r - i) >= GZ_HLEN ? check_header(b + i, at, size, next, stamp)
							    : gzm_peek(fd, at, size, next, stamp);
			if (pk == 0) {
				found = (int64_t)at;
				goto out;
			}
		}
		if ((size_t)r < GZ_INBUF)
			break;
		off += (uint64_t)r - 2;   /* a magic split across reads is found next time */
	}
out:
	free(b);
	return found;
}

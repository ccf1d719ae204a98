/* export_gzip.c: gzip (RFC 1952) responses without compressing an
 * interval's exposition once per scrape.
 *
 * A response is the state's shared body followed by the scrape's own tail
 * (export.h). The body is deflated once per state and format and ends with
 * a sync flush, which leaves the deflate stream at a byte boundary without
 * a last block; each scrape then appends its tail deflated by a fresh raw
 * stream that ends with the last block, and the gzip trailer whose CRC is
 * the body's combined with the tail's (crc32_combine). The result is one
 * ordinary gzip member, so any client reads it, and a scrape compresses
 * only its few hundred bytes of tail. */
#include "config.h"
#include "export_impl.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* With the output sized by deflateBound, zlib fails only when it cannot
 * allocate its state: out of memory, which aborts as xmalloc does. */
static void gz_fail(void)
{
	fputs("pmctop: out of memory (zlib)\n", stderr);
	abort();
}

/* Raw deflate of len bytes of in appended to *out, ending with flush
 * (Z_SYNC_FLUSH: more follows; Z_FINISH: the last block). */
static void deflate_into(const void *in, size_t len, int flush, unsigned char **out, size_t *olen)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	/* -15: raw deflate, the gzip header and trailer are written here. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		gz_fail();
	size_t cap = *olen + deflateBound(&z, (uLong)len) + 16;
	*out = xrealloc(*out, cap);
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = *out + *olen;
	z.avail_out = (uInt)(cap - *olen);
	int rc = deflate(&z, flush);
	if ((flush == Z_FINISH && rc != Z_STREAM_END) || (flush != Z_FINISH && rc != Z_OK) || z.avail_in)
		gz_fail();
	*olen = cap - z.avail_out;
	deflateEnd(&z);
}

void export_gz_head(const char *body, size_t len, struct export_gz *gz)
{
	/* Magic, deflate, no flags, no time, no extra flags, OS unknown. */
	static const unsigned char header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255 };
	gz->len = sizeof(header);
	gz->data = xmalloc(sizeof(header));
	memcpy(gz->data, header, sizeof(header));
	deflate_into(body, len, Z_SYNC_FLUSH, &gz->data, &gz->len);
	gz->crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)body, (uInt)len);
	gz->in_len = len;
}

unsigned char *export_gz_tail(const struct export_gz *head, const char *tail, size_t len, size_t *out_len)
{
	unsigned char *out = NULL;
	size_t n = 0;
	deflate_into(tail, len, Z_FINISH, &out, &n);
	uLong crc = crc32_combine(head->crc, crc32(crc32(0L, Z_NULL, 0), (const Bytef *)tail, (uInt)len),
				  (z_off_t)len);
	uint32_t total = (uint32_t)(head->in_len + len);   /* ISIZE is the length modulo 2^32 */
	out = xrealloc(out, n + 8);
	for (int i = 0; i < 4; i++) {
		out[n + (size_t)i] = (unsigned char)(crc >> (8 * i));
		out[n + 4 + (size_t)i] = (unsigned char)(total >> (8 * i));
	}
	*out_len = n + 8;
	return out;
}

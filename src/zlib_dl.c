/* zlib_dl.c: the zlib functions pmctop calls, by their own names, passing
 * each call on to libz loaded on first use (lib_dl.h): recordings (gzip
 * members, gzmember.c) and the exporter's gzip answers (export_gzip.c)
 * use it; a batch run does not. Unloaded, the streams' set-up fails
 * (Z_VERSION_ERROR), as with a zlib pmctop cannot use, so that nothing
 * is compressed or read, and the checksums that go with them are 0. */
#include "config.h"

#include <zlib.h>
#include <pthread.h>
#include <stdbool.h>

#include "lib_dl.h"
#include "util.h"

#ifndef ZLIB_DL_SONAME
#define ZLIB_DL_SONAME "libz.so.1"
#endif

static __typeof__(deflateInit2_) *p_deflateInit2_;
static __typeof__(deflateSetHeader) *p_deflateSetHeader;
static __typeof__(deflateBound) *p_deflateBound;
static __typeof__(deflate) *p_deflate;
static __typeof__(deflateEnd) *p_deflateEnd;
static __typeof__(inflateInit2_) *p_inflateInit2_;
static __typeof__(inflate) *p_inflate;
static __typeof__(inflateEnd) *p_inflateEnd;
static __typeof__(crc32) *p_crc32;
static __typeof__(crc32_combine) *p_crc32_combine;

static const struct lib_dl_slot slots[] = {
	LIB_DL_SLOT(deflateInit2_), LIB_DL_SLOT(deflateSetHeader), LIB_DL_SLOT(deflateBound),
	LIB_DL_SLOT(deflate), LIB_DL_SLOT(deflateEnd), LIB_DL_SLOT(inflateInit2_), LIB_DL_SLOT(inflate),
	LIB_DL_SLOT(inflateEnd), LIB_DL_SLOT(crc32), LIB_DL_SLOT(crc32_combine),
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char *why;   /* why not, once tried */

static void load(void)
{
	loaded = lib_dl_load(ZLIB_DL_SONAME, slots, ARRAY_SIZE(slots), "recordings and the exporter's gzip",
			     "zlib1g", &why);
}

static bool ready(void)
{
	pthread_once(&once, load);
	return loaded;
}

int deflateInit2_(z_streamp strm, int level, int method, int windowBits, int memLevel, int strategy, const char *version, int stream_size)
{
	return ready() ? p_deflateInit2_(strm, level, method, windowBits, memLevel, strategy, version, stream_size) : Z_VERSION_ERROR;
}

int deflateSetHeader(z_streamp strm, gz_headerp head)
{
	return ready() ? p_deflateSetHeader(strm, head) : Z_STREAM_ERROR;
}

uLong deflateBound(z_streamp strm, uLong sourceLen)
{
	return ready() ? p_deflateBound(strm, sourceLen) : 0;
}

int deflate(z_streamp strm, int flush)
{
	return ready() ? p_deflate(strm, flush) : Z_STREAM_ERROR;
}

int deflateEnd(z_streamp strm)
{
	return ready() ? p_deflateEnd(strm) : Z_STREAM_ERROR;
}

int inflateInit2_(z_streamp strm, int windowBits, const char *version, int stream_size)
{
	return ready() ? p_inflateInit2_(strm, windowBits, version, stream_size) : Z_VERSION_ERROR;
}

int inflate(z_streamp strm, int flush)
{
	return ready() ? p_inflate(strm, flush) : Z_STREAM_ERROR;
}

int inflateEnd(z_streamp strm)
{
	return ready() ? p_inflateEnd(strm) : Z_STREAM_ERROR;
}

uLong crc32(uLong crc, const Bytef *buf, uInt len)
{
	return ready() ? p_crc32(crc, buf, len) : 0;
}

uLong crc32_combine(uLong crc1, uLong crc2, z_off_t len2)
{
	return ready() ? p_crc32_combine(crc1, crc2, len2) : 0;
}

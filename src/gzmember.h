/* gzmember.h: a file made of gzip members (RFC 1952), one per record, as
 * recordings are (docs/recording.md). Each member is compressed and
 * written on its own, so a process killed while writing leaves every
 * earlier member whole, `zcat` reads the file as one text, and a reader
 * can start at any member's offset. */
#ifndef PMCTOP_GZMEMBER_H
#define PMCTOP_GZMEMBER_H

#include <stddef.h>
#include <stdint.h>

/* No member is inflated past this, whatever max a caller asks for; a
 * reader asks for less, from what the file can really need
 * (docs/recording.md, "What a replay may cost"). */
#define GZM_MAX_MEMBER ((size_t)512 << 20)
/* Nor past this many times its compressed bytes (and a little room):
 * pmctop's members inflate 2 to 4 times (docs/recording.md), deflate
 * allows over 1000, and a file made of such members would cost minutes
 * for a few megabytes. */
#define GZM_MAX_RATIO 64
#define GZM_RATIO_SLACK ((uint64_t)64 << 10)

/* Compresses len bytes of buf into one member and appends it to fd with
 * as few write() calls as the kernel allows. The member's gzip header
 * carries an extra field "PM" (RFC 1952 section 2.3.1.1) with the
 * member's compressed length and a caller's stamp (the interval's time
 * in ms), both 8-byte little-endian, so that a reader can list the
 * members of a long file without inflating them. 0, or -errno with *cause. */
int gzm_append(int fd, const void *buf, size_t len, int64_t stamp, char **cause);

/* Reads the header of the member at off in a file of size bytes: its
 * stamp and the offset after it. 0; -EAGAIN when the member runs past the
 * end of the file (truncated); -EBADMSG when there is no member header
 * with the "PM" field at off. */
int gzm_peek(int fd, uint64_t off, uint64_t size, uint64_t *next, int64_t *stamp);

/* Inflates the member that starts at byte off of fd into a new buffer
 * (NUL-terminated; *len without the NUL) and sets *next to the byte after
 * it. Inflating stops as soon as the text passes max bytes (or
 * GZM_MAX_MEMBER, or GZM_MAX_RATIO times the length in the member's "PM"
 * field), so memory follows max, not the member; no byte past that
 * length is read. Returns 0;
 * -EAGAIN when the file ends inside the member (truncated); -EBADMSG when
 * the bytes are not a whole, valid member (bad header, data or CRC);
 * -EFBIG beyond max, -E2BIG beyond the ratio; another -errno for a read error. *cause says which. */
int gzm_read_at(int fd, uint64_t off, size_t max, char **out, size_t *len, uint64_t *next, char **cause);

/* The offset of the first member at or after off whose header reads
 * whole (gzm_peek() returns 0 there, and *next and *stamp are its), or -1
 * if none: where a reader goes on after damaged bytes. One pass over the
 * bytes, whatever they hold. */
int64_t gzm_next_member(int fd, uint64_t off, uint64_t size, uint64_t *next, int64_t *stamp);

#endif

/* crypt_dl.h: libcrypt's crypt_r, loaded on first use rather than linked
 * (src/lib_dl.h). Under its own name, not crypt_r's: a sanitizer runtime
 * (ASan, TSan) defines crypt_r itself, an interceptor that would be bound
 * before this file's definition and that has no real crypt_r to call when
 * libcrypt is not linked (a jump to 0, as configure.ac's check notes). */
#ifndef PMCTOP_CRYPT_DL_H
#define PMCTOP_CRYPT_DL_H

struct crypt_data;

/* crypt_r(phrase, setting, data) of libcrypt; NULL, as crypt_r fails,
 * where libcrypt cannot be loaded. */
char *pmctop_crypt_r(const char *phrase, const char *setting, struct crypt_data *data);

#endif

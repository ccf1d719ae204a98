/* crypt_dl.c: crypt_r, the one libcrypt function pmctop calls (basic
 * authentication against --web-config's bcrypt hashes), as pmctop_crypt_r
 * (crypt_dl.h says why not under its own name), passing each call on to
 * libcrypt loaded on first use (lib_dl.h). Unloaded, it fails as crypt_r
 * does, with NULL, so no password matches. */
#include "config.h"

#include <crypt.h>
#include <pthread.h>
#include <stdbool.h>

#include "crypt_dl.h"
#include "lib_dl.h"
#include "util.h"

#ifndef CRYPT_DL_SONAME
#define CRYPT_DL_SONAME "libcrypt.so.1"
#endif

static __typeof__(crypt_r) *p_crypt_r;

static const struct lib_dl_slot slots[] = {
	LIB_DL_SLOT(crypt_r),
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char *why;   /* why not, once tried */

static void load(void)
{
	loaded = lib_dl_load(CRYPT_DL_SONAME, slots, ARRAY_SIZE(slots), "--web-config's passwords",
			     "libcrypt1", &why);
}

static bool ready(void)
{
	pthread_once(&once, load);
	return loaded;
}

char *pmctop_crypt_r(const char *phrase, const char *setting, struct crypt_data *data)
{
	return ready() ? p_crypt_r(phrase, setting, data) : NULL;
}

/* pfm_dl.c: the three libpfm4 functions pmctop calls (src/encode.c), by
 * their own names, passing each call on to libpfm4 loaded through dlopen
 * on first use. Linked, libpfm4 cost every start about 0.9 ms of CPU and
 * 290 page faults before main (its tables of every PMU it knows are
 * relocated at load: 44,000 relocations), while only a model with an
 * event named the libpfm4 way (fam10h, core2, westmere ...) ever asks it
 * to encode one; a model of raw vendor values never loads it
 * (docs/performance.md, issue 39). Unloadable, pfm_initialize fails with
 * PFM_ERR_NOINIT and pfm_strerror says why, so that the event that
 * needed it names the cause. The header still comes from libpfm4-dev. */
#include "config.h"

#include <dlfcn.h>
#include <perfmon/pfmlib.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib_dl.h"
#include "util.h"

#ifndef PFM_DL_SONAME
#define PFM_DL_SONAME "libpfm.so.4"
#endif

static __typeof__(pfm_initialize) *p_initialize;
static __typeof__(pfm_strerror) *p_strerror;
static __typeof__(pfm_get_os_event_encoding) *p_encode;

static const struct lib_dl_slot slots[] = {
	{ "pfm_initialize", &p_initialize, sizeof(p_initialize) },
	{ "pfm_strerror", &p_strerror, sizeof(p_strerror) },
	{ "pfm_get_os_event_encoding", &p_encode, sizeof(p_encode) },
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[256];   /* why not loaded, once tried */

/* Worded here rather than by lib_dl_load: pfm_strerror hands the cause
 * to the event that needed libpfm4, which names it. */
static void load(void)
{
	const char *missing;
	if (lib_dl_bind(PFM_DL_SONAME, slots, ARRAY_SIZE(slots), &missing))
		return;
	if (missing)
		snprintf(why, sizeof(why), "%s has no %s", PFM_DL_SONAME, missing);
	else
		snprintf(why, sizeof(why), "libpfm4 cannot be loaded (%s); on Debian: apt-get install libpfm4",
			 dlerror());
}

static bool ready(void)
{
	pthread_once(&once, load);
	return p_encode != NULL;
}

pfm_err_t pfm_initialize(void)
{
	return ready() ? p_initialize() : PFM_ERR_NOINIT;
}

const char *pfm_strerror(int code)
{
	return ready() ? p_strerror(code) : why;
}

pfm_err_t pfm_get_os_event_encoding(const char *str, int dfl_plm, pfm_os_t os, void *args)
{
	return ready() ? p_encode(str, dfl_plm, os, args) : PFM_ERR_NOINIT;
}

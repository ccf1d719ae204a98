/* curl_dl.c: the libcurl functions pmctop calls, by their own names,
 * passing each call on to libcurl loaded through dlopen on first use
 * (curl_dl.h says why). Unloadable, each answers as libcurl does for an
 * unusable handle or a failed allocation, and curl_dl_ready says why. */
#include "config.h"

#ifdef HAVE_LIBCURL
/* The functions themselves, not the type-checking macros that
 * <curl/curl.h> puts over some of them for gcc. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>

#include "curl_dl.h"
#include "lib_dl.h"
#include "util.h"

#ifndef CURL_DL_SONAME
#define CURL_DL_SONAME "libcurl.so.4"
#endif

/* libcurl's own, at the types this file defines for them. */
#define FN(name) static __typeof__(name) *p_##name
FN(curl_global_init);
FN(curl_easy_init);
FN(curl_easy_setopt);
FN(curl_easy_getinfo);
FN(curl_easy_strerror);
FN(curl_easy_cleanup);
FN(curl_multi_init);
FN(curl_multi_setopt);
FN(curl_multi_add_handle);
FN(curl_multi_perform);
FN(curl_multi_poll);
FN(curl_multi_info_read);
FN(curl_multi_remove_handle);
FN(curl_multi_cleanup);
FN(curl_url);
FN(curl_url_set);
FN(curl_url_get);
FN(curl_url_cleanup);
FN(curl_slist_append);
FN(curl_slist_free_all);
FN(curl_free);
#undef FN

static const struct lib_dl_slot slots[] = {
	LIB_DL_SLOT(curl_global_init), LIB_DL_SLOT(curl_easy_init), LIB_DL_SLOT(curl_easy_setopt),
	LIB_DL_SLOT(curl_easy_getinfo), LIB_DL_SLOT(curl_easy_strerror), LIB_DL_SLOT(curl_easy_cleanup),
	LIB_DL_SLOT(curl_multi_init), LIB_DL_SLOT(curl_multi_setopt), LIB_DL_SLOT(curl_multi_add_handle),
	LIB_DL_SLOT(curl_multi_perform), LIB_DL_SLOT(curl_multi_poll), LIB_DL_SLOT(curl_multi_info_read),
	LIB_DL_SLOT(curl_multi_remove_handle), LIB_DL_SLOT(curl_multi_cleanup), LIB_DL_SLOT(curl_url),
	LIB_DL_SLOT(curl_url_set), LIB_DL_SLOT(curl_url_get), LIB_DL_SLOT(curl_url_cleanup),
	LIB_DL_SLOT(curl_slist_append), LIB_DL_SLOT(curl_slist_free_all), LIB_DL_SLOT(curl_free),
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char *why;   /* why not, once tried */

/* Worded here rather than by lib_dl_load: curl_dl_ready hands the cause
 * to --fleet, which says it once. */
static void load(void)
{
	const char *missing;
	loaded = lib_dl_bind(CURL_DL_SONAME, slots, ARRAY_SIZE(slots), &missing);
	if (loaded)
		return;
	if (missing)
		why = xasprintf("%s has no %s (--fleet needs a newer libcurl)", CURL_DL_SONAME, missing);
	else
		why = xasprintf("--fleet reads with libcurl, which cannot be loaded (%s); "
				"on Debian: apt-get install libcurl3-gnutls", dlerror());
}

static bool ready(void)
{
	pthread_once(&once, load);
	return loaded;
}

bool curl_dl_ready(char **cause)
{
	if (ready())
		return true;
	if (cause)
		*cause = xstrdup(why);
	return false;
}

CURLcode curl_global_init(long flags)
{
	return ready() ? p_curl_global_init(flags) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init(void)
{
	return ready() ? p_curl_easy_init() : NULL;
}

/* An option's number says the type of its argument (curl.h's
 * CURLOPTTYPE_*, shared by the multi interface's CURLMOPT_*), as libcurl
 * itself reads it. */
#define PASS_OPTION(call, option, ap)                                            \
	((option) < CURLOPTTYPE_OBJECTPOINT	? call(va_arg(ap, long))           \
	 : (option) < CURLOPTTYPE_FUNCTIONPOINT ? call(va_arg(ap, void *))         \
	 : (option) < CURLOPTTYPE_OFF_T		? call(va_arg(ap, void (*)(void))) \
	 : (option) < CURLOPTTYPE_BLOB		? call(va_arg(ap, curl_off_t))     \
						: call(va_arg(ap, void *)))

CURLcode curl_easy_setopt(CURL *curl, CURLoption option, ...)
{
	if (!curl || !ready())
		return CURLE_BAD_FUNCTION_ARGUMENT;
	va_list ap;
	va_start(ap, option);
#define CALL(v) p_curl_easy_setopt(curl, option, v)
	CURLcode rc = PASS_OPTION(CALL, option, ap);
#undef CALL
	va_end(ap);
	return rc;
}

CURLcode curl_easy_getinfo(CURL *curl, CURLINFO info, ...)
{
	if (!curl || !ready())
		return CURLE_BAD_FUNCTION_ARGUMENT;
	/* Every CURLINFO_* takes a pointer to where the answer goes. */
	va_list ap;
	va_start(ap, info);
	CURLcode rc = p_curl_easy_getinfo(curl, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

const char *curl_easy_strerror(CURLcode code)
{
	return ready() ? p_curl_easy_strerror(code) : "libcurl is not loaded";
}

void curl_easy_cleanup(CURL *curl)
{
	if (ready())
		p_curl_easy_cleanup(curl);
}

CURLM *curl_multi_init(void)
{
	return ready() ? p_curl_multi_init() : NULL;
}

CURLMcode curl_multi_setopt(CURLM *multi, CURLMoption option, ...)
{
	if (!multi || !ready())
		return CURLM_BAD_HANDLE;
	va_list ap;
	va_start(ap, option);
#define CALL(v) p_curl_multi_setopt(multi, option, v)
	CURLMcode rc = PASS_OPTION(CALL, option, ap);
#undef CALL
	va_end(ap);
	return rc;
}

CURLMcode curl_multi_add_handle(CURLM *multi, CURL *curl)
{
	return ready() ? p_curl_multi_add_handle(multi, curl) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_perform(CURLM *multi, int *running)
{
	return ready() ? p_curl_multi_perform(multi, running) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_poll(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms,
			  int *ret)
{
	return ready() ? p_curl_multi_poll(multi, extra_fds, extra_nfds, timeout_ms, ret) : CURLM_BAD_HANDLE;
}

CURLMsg *curl_multi_info_read(CURLM *multi, int *msgs_in_queue)
{
	if (ready())
		return p_curl_multi_info_read(multi, msgs_in_queue);
	*msgs_in_queue = 0;
	return NULL;
}

CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *curl)
{
	return ready() ? p_curl_multi_remove_handle(multi, curl) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_cleanup(CURLM *multi)
{
	return ready() ? p_curl_multi_cleanup(multi) : CURLM_BAD_HANDLE;
}

CURLU *curl_url(void)
{
	return ready() ? p_curl_url() : NULL;
}

CURLUcode curl_url_set(CURLU *u, CURLUPart what, const char *part, unsigned int flags)
{
	return ready() ? p_curl_url_set(u, what, part, flags) : CURLUE_BAD_HANDLE;
}

CURLUcode curl_url_get(CURLU *u, CURLUPart what, char **part, unsigned int flags)
{
	return ready() ? p_curl_url_get(u, what, part, flags) : CURLUE_BAD_HANDLE;
}

void curl_url_cleanup(CURLU *u)
{
	if (ready())
		p_curl_url_cleanup(u);
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *data)
{
	return ready() ? p_curl_slist_append(list, data) : NULL;
}

void curl_slist_free_all(struct curl_slist *list)
{
	if (ready())
		p_curl_slist_free_all(list);
}

void curl_free(void *p)
{
	if (ready())
		p_curl_free(p);
}
#endif

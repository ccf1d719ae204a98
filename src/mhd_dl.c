/* mhd_dl.c: libmicrohttpd's functions through dlopen (mhd_dl.h). A
 * library that lacks one of them (older than the header pmctop was built
 * with) is refused as a whole, naming the function, rather than failing
 * on the first request. */
#include "config.h"
#include "mhd_dl.h"
#include "util.h"

#include <dlfcn.h>
#include <string.h>

static struct mhd_api api;
static void *handle;

/* dlsym returns void *; a function pointer is assigned through memcpy, as
 * ISO C does not convert between the two. */
static int bind_fn(void *h, const char *name, void *slot, size_t size, char **cause)
{
	void *f = dlsym(h, name);
	if (!f)
		return set_cause(cause, "%s has no %s (libmicrohttpd 0.9.74 or later is needed)", MHD_DL_SONAME, name);
	memcpy(slot, &f, size);
	return 0;
}

#define BIND(h, field, name) bind_fn(h, name, &api.field, sizeof(api.field), cause)

const struct mhd_api *mhd_dl_load(const char *soname, char **cause)
{
	if (handle)
		return &api;
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		set_cause(cause, "--listen serves HTTP with libmicrohttpd, which cannot be loaded (%s); "
			  "on Debian: apt-get install libmicrohttpd12", dlerror());
		return NULL;
	}
	if (BIND(h, start_daemon, "MHD_start_daemon") < 0 || BIND(h, stop_daemon, "MHD_stop_daemon") < 0 ||
	    BIND(h, is_feature_supported, "MHD_is_feature_supported") < 0 ||
	    BIND(h, create_response_from_buffer, "MHD_create_response_from_buffer") < 0 ||
	    BIND(h, create_response_from_iovec, "MHD_create_response_from_iovec") < 0 ||
	    BIND(h, add_response_header, "MHD_add_response_header") < 0 ||
	    BIND(h, queue_response, "MHD_queue_response") < 0 ||
	    BIND(h, destroy_response, "MHD_destroy_response") < 0 ||
	    BIND(h, lookup_connection_value, "MHD_lookup_connection_value") < 0 ||
	    BIND(h, set_connection_option, "MHD_set_connection_option") < 0 ||
	    BIND(h, add_connection, "MHD_add_connection") < 0 ||
	    BIND(h, suspend_connection, "MHD_suspend_connection") < 0 ||
	    BIND(h, resume_connection, "MHD_resume_connection") < 0 ||
	    BIND(h, get_connection_info, "MHD_get_connection_info") < 0) {
		dlclose(h);
		memset(&api, 0, sizeof(api));
		return NULL;
	}
	/* Optional: looked up through libmicrohttpd's handle, which reaches
	 * the libraries it depends on (GnuTLS on Debian). */
	void *f = dlsym(h, "gnutls_certificate_get_peers");
	void *g = dlsym(h, "gnutls_certificate_verify_peers2");
	if (f && g) {
		memcpy(&api.tls_peers, &f, sizeof(api.tls_peers));
		memcpy(&api.tls_verify_peers, &g, sizeof(api.tls_verify_peers));
	}
	handle = h;
	return &api;
}

/* lib_dl.h: a shared library that pmctop loads on first use rather than
 * links, for the wrappers that define its functions under their own names
 * (src/jansson_dl.c, src/zlib_dl.c, src/yaml_dl.c, src/crypt_dl.c,
 * ui/curses_dl.c; src/curl_dl.c and src/pfm_dl.c bind through it too).
 * Linked, every library is mapped, relocated and searched for symbols at
 * each start, though only some paths call it: libjansson, libz, libyaml
 * and libcrypt cost a one-interval batch run 0.15 ms of CPU and 23 page
 * faults that no such run uses (docs/performance.md, issue 39).
 *
 * Each wrapper file keeps a slot per function it passes on; a function of
 * the library that pmctop starts to call must be added there (the link
 * says so: an undefined reference). The Debian package depends on each
 * library by name (debian/control), since shlibs cannot see a dlopen. */
#ifndef PMCTOP_LIB_DL_H
#define PMCTOP_LIB_DL_H

#include <stdbool.h>
#include <stddef.h>

/* Where dlsym's answer for one function goes: ISO C does not convert a
 * void * to a function pointer, so it is copied into the slot. */
struct lib_dl_slot {
	const char *name;
	void *slot;
	size_t size;
};
#define LIB_DL_SLOT(fn) { #fn, &p_##fn, sizeof(p_##fn) }

/* Opens soname and fills every slot, or none: false on failure, with
 * *missing the function the library lacks, or NULL where dlopen failed
 * (dlerror() then says why). For wrappers that word the failure
 * themselves (src/curl_dl.c, src/pfm_dl.c). */
bool lib_dl_bind(const char *soname, const struct lib_dl_slot *slots, size_t n, const char **missing);

/* lib_dl_bind, and on failure says on stderr
 * (and in *why, the caller's to keep) what cannot be loaded, what needs it
 * (`needs`: "recordings") and which Debian package has it, and returns
 * false; each wrapper then answers as its library does when it fails
 * (NULL, an error code). Called once per library (pthread_once). */
bool lib_dl_load(const char *soname, const struct lib_dl_slot *slots, size_t n, const char *needs,
		 const char *package, char **why);

#endif

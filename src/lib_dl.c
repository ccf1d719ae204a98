/* lib_dl.c: opens a library whose functions pmctop passes calls on to
 * (lib_dl.h) and binds each of them, all or none. */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "lib_dl.h"
#include "util.h"

bool lib_dl_bind(const char *soname, const struct lib_dl_slot *slots, size_t n, const char **missing)
{
	*missing = NULL;
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	for (size_t i = 0; i < n; i++) {
		void *f = dlsym(h, slots[i].name);
		if (!f) {
			*missing = slots[i].name;
			for (size_t j = 0; j < i; j++)
				memset(slots[j].slot, 0, slots[j].size);
			dlclose(h);
			return false;
		}
		memcpy(slots[i].slot, &f, slots[i].size);
	}
	return true;
}

bool lib_dl_load(const char *soname, const struct lib_dl_slot *slots, size_t n, const char *needs,
		 const char *package, char **why)
{
	const char *missing;
	if (lib_dl_bind(soname, slots, n, &missing))
		return true;
	if (missing)
		*why = xasprintf("%s has no %s: %s need a newer %s", soname, missing, needs, package);
	else
		*why = xasprintf("%s cannot be loaded (%s): %s need it; on Debian: apt-get install %s", soname,
				 dlerror(), needs, package);
	fprintf(stderr, "pmctop: %s\n", *why);
	return false;
}

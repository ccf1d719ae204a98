/* lib_dl.c: opens a library whose functions pmctop passes calls on to
 * (lib_dl.h) and binds each of them, all or none. */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "lib_dl.h"
#include "util.h"

bool lib_dl_load(const char *soname, const struct lib_dl_slot *slots, size_t n, const char *needs,
		 const char *package, char **why)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		*why = xasprintf("%s cannot be loaded (%s): %s need it; on Debian: apt-get install %s", soname,
				 dlerror(), needs, package);
		fprintf(stderr, "pmctop: %s\n", *why);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		void *f = dlsym(h, slots[i].name);
		if (!f) {
			*why = xasprintf("%s has no %s: %s need a newer %s", soname, slots[i].name, needs, package);
			fprintf(stderr, "pmctop: %s\n", *why);
			for (size_t j = 0; j < i; j++)
				memset(slots[j].slot, 0, slots[j].size);
			dlclose(h);
			return false;
		}
		memcpy(slots[i].slot, &f, slots[i].size);
	}
	return true;
}

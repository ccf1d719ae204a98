/* cpuid.h: which model definition fits this CPU: vendor, family and model
 * from /proc/cpuinfo (a path, so tests can use fixtures), matched against
 * every model's "match" lines. */
#ifndef PMCTOP_CPUID_H
#define PMCTOP_CPUID_H

#include "evdef.h"

struct cpu_ident { char vendor[32]; int family; int model; int stepping; char model_name[128]; };

/* Reads the first processor block of a /proc/cpuinfo-format file. */
int cpuid_read(const char *cpuinfo_path, struct cpu_ident *id, char **cause);
/* Picks the model name for id from the models under events_dir, as
 * cpuid_pick_nearest does; "generic" when nothing else matches. Returns a
 * newly allocated name. */
char *cpuid_pick_model(const struct cpu_ident *id, const char *events_dir, char **note, char **cause);
/* The same choice among models already listed; NULL when none matches
 * (the caller then uses "generic"). */
const struct model_info *cpuid_pick(const struct cpu_ident *id, const struct model_info *l, int n);
/* cpuid_pick, but when only the catch-all matches and some model names a
 * model range of id's vendor and family, the one whose range lies nearest
 * id's model, with a one-line *note (newly allocated) saying so. */
const struct model_info *cpuid_pick_nearest(const struct cpu_ident *id, const struct model_info *l, int n,
					    char **note);

#endif

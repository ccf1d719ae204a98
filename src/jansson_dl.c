/* jansson_dl.c: the libjansson functions pmctop calls, by their own
 * names, passing each call on to libjansson loaded on first use
 * (lib_dl.h): recordings, replay, JSON fields, --fleet's answers and
 * the import of Linux perf's files read or write JSON with it; a start
 * with a hand-written model or a cached imported one does not. Unloaded,
 * constructors and parses give NULL, as jansson's do out of memory, and
 * the getters, which are then given only NULL, answer as they do for it.
 * json_pack is passed on as json_vpack_ex. */
#include "config.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdbool.h>

#include "lib_dl.h"
#include "util.h"

#ifndef JANSSON_DL_SONAME
#define JANSSON_DL_SONAME "libjansson.so.4"
#endif

static __typeof__(json_object) *p_json_object;
static __typeof__(json_array) *p_json_array;
static __typeof__(json_stringn_nocheck) *p_json_stringn_nocheck;
static __typeof__(json_integer) *p_json_integer;
static __typeof__(json_real) *p_json_real;
static __typeof__(json_true) *p_json_true;
static __typeof__(json_false) *p_json_false;
static __typeof__(json_null) *p_json_null;
static __typeof__(json_delete) *p_json_delete;
static __typeof__(json_object_get) *p_json_object_get;
static __typeof__(json_object_set_new_nocheck) *p_json_object_set_new_nocheck;
static __typeof__(json_object_update) *p_json_object_update;
static __typeof__(json_object_iter) *p_json_object_iter;
static __typeof__(json_object_key_to_iter) *p_json_object_key_to_iter;
static __typeof__(json_object_iter_next) *p_json_object_iter_next;
static __typeof__(json_object_iter_key) *p_json_object_iter_key;
static __typeof__(json_object_iter_value) *p_json_object_iter_value;
static __typeof__(json_array_size) *p_json_array_size;
static __typeof__(json_array_get) *p_json_array_get;
static __typeof__(json_array_append_new) *p_json_array_append_new;
static __typeof__(json_array_extend) *p_json_array_extend;
static __typeof__(json_string_value) *p_json_string_value;
static __typeof__(json_integer_value) *p_json_integer_value;
static __typeof__(json_real_value) *p_json_real_value;
static __typeof__(json_number_value) *p_json_number_value;
static __typeof__(json_vpack_ex) *p_json_vpack_ex;
static __typeof__(json_deep_copy) *p_json_deep_copy;
static __typeof__(json_loadb) *p_json_loadb;
static __typeof__(json_dumps) *p_json_dumps;

static const struct lib_dl_slot slots[] = {
	LIB_DL_SLOT(json_object), LIB_DL_SLOT(json_array), LIB_DL_SLOT(json_stringn_nocheck),
	LIB_DL_SLOT(json_integer), LIB_DL_SLOT(json_real), LIB_DL_SLOT(json_true),
	LIB_DL_SLOT(json_false), LIB_DL_SLOT(json_null), LIB_DL_SLOT(json_delete),
	LIB_DL_SLOT(json_object_get), LIB_DL_SLOT(json_object_set_new_nocheck),
	LIB_DL_SLOT(json_object_update), LIB_DL_SLOT(json_object_iter),
	LIB_DL_SLOT(json_object_key_to_iter), LIB_DL_SLOT(json_object_iter_next),
	LIB_DL_SLOT(json_object_iter_key), LIB_DL_SLOT(json_object_iter_value),
	LIB_DL_SLOT(json_array_size), LIB_DL_SLOT(json_array_get), LIB_DL_SLOT(json_array_append_new),
	LIB_DL_SLOT(json_array_extend), LIB_DL_SLOT(json_string_value), LIB_DL_SLOT(json_integer_value),
	LIB_DL_SLOT(json_real_value), LIB_DL_SLOT(json_number_value), LIB_DL_SLOT(json_vpack_ex),
	LIB_DL_SLOT(json_deep_copy), LIB_DL_SLOT(json_loadb), LIB_DL_SLOT(json_dumps),
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char *why;   /* why not, once tried */

static void load(void)
{
	loaded = lib_dl_load(JANSSON_DL_SONAME, slots, ARRAY_SIZE(slots), "recordings, replay, --fleet and the import of Linux perf's files",
			     "libjansson4", &why);
}

static bool ready(void)
{
	pthread_once(&once, load);
	return loaded;
}

/* Unloaded, a parse fails as one of bad input does, saying why. */
json_t *json_loadb(const char *buffer, size_t buflen, size_t flags, json_error_t *error)
{
	if (ready())
		return p_json_loadb(buffer, buflen, flags, error);
	if (error) {
		*error = (json_error_t){ .line = -1, .column = -1, .position = 0 };
		snprintf(error->text, sizeof(error->text), "%s", why);
	}
	return NULL;
}

json_t *json_pack(const char *fmt, ...)
{
	if (!ready())
		return NULL;
	va_list ap;
	va_start(ap, fmt);
	json_t *j = p_json_vpack_ex(NULL, 0, fmt, ap);
	va_end(ap);
	return j;
}

json_t *json_object(void)
{
	return ready() ? p_json_object() : NULL;
}

json_t *json_array(void)
{
	return ready() ? p_json_array() : NULL;
}

json_t *json_stringn_nocheck(const char *value, size_t len)
{
	return ready() ? p_json_stringn_nocheck(value, len) : NULL;
}

json_t *json_integer(json_int_t value)
{
	return ready() ? p_json_integer(value) : NULL;
}

json_t *json_real(double value)
{
	return ready() ? p_json_real(value) : NULL;
}

json_t *json_true(void)
{
	return ready() ? p_json_true() : NULL;
}

json_t *json_false(void)
{
	return ready() ? p_json_false() : NULL;
}

json_t *json_null(void)
{
	return ready() ? p_json_null() : NULL;
}

void json_delete(json_t *json)
{
	if (ready())
		p_json_delete(json);
}

json_t *json_object_get(const json_t *object, const char *key)
{
	return ready() ? p_json_object_get(object, key) : NULL;
}

int json_object_set_new_nocheck(json_t *object, const char *key, json_t *value)
{
	return ready() ? p_json_object_set_new_nocheck(object, key, value) : -1;
}

int json_object_update(json_t *object, json_t *other)
{
	return ready() ? p_json_object_update(object, other) : -1;
}

void *json_object_iter(json_t *object)
{
	return ready() ? p_json_object_iter(object) : NULL;
}

void *json_object_key_to_iter(const char *key)
{
	return ready() ? p_json_object_key_to_iter(key) : NULL;
}

void *json_object_iter_next(json_t *object, void *iter)
{
	return ready() ? p_json_object_iter_next(object, iter) : NULL;
}

const char *json_object_iter_key(void *iter)
{
	return ready() ? p_json_object_iter_key(iter) : NULL;
}

json_t *json_object_iter_value(void *iter)
{
	return ready() ? p_json_object_iter_value(iter) : NULL;
}

size_t json_array_size(const json_t *array)
{
	return ready() ? p_json_array_size(array) : 0;
}

json_t *json_array_get(const json_t *array, size_t index)
{
	return ready() ? p_json_array_get(array, index) : NULL;
}

int json_array_append_new(json_t *array, json_t *value)
{
	return ready() ? p_json_array_append_new(array, value) : -1;
}

int json_array_extend(json_t *array, json_t *other)
{
	return ready() ? p_json_array_extend(array, other) : -1;
}

const char *json_string_value(const json_t *string)
{
	return ready() ? p_json_string_value(string) : NULL;
}

json_int_t json_integer_value(const json_t *integer)
{
	return ready() ? p_json_integer_value(integer) : 0;
}

double json_real_value(const json_t *real)
{
	return ready() ? p_json_real_value(real) : 0.0;
}

double json_number_value(const json_t *json)
{
	return ready() ? p_json_number_value(json) : 0.0;
}

json_t *json_deep_copy(const json_t *value)
{
	return ready() ? p_json_deep_copy(value) : NULL;
}

char *json_dumps(const json_t *json, size_t flags)
{
	return ready() ? p_json_dumps(json, flags) : NULL;
}

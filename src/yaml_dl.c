/* yaml_dl.c: the libyaml functions pmctop calls, by their own names,
 * passing each call on to libyaml loaded on first use (lib_dl.h): only
 * --web-config's file and --fleet's groups are YAML. Unloaded, a
 * parser's set-up fails (0), as libyaml's does out of memory. */
#include "config.h"

#include <yaml.h>
#include <pthread.h>
#include <stdbool.h>

#include "lib_dl.h"
#include "util.h"

#ifndef YAML_DL_SONAME
#define YAML_DL_SONAME "libyaml-0.so.2"
#endif

static __typeof__(yaml_parser_initialize) *p_yaml_parser_initialize;
static __typeof__(yaml_parser_set_input_string) *p_yaml_parser_set_input_string;
static __typeof__(yaml_parser_load) *p_yaml_parser_load;
static __typeof__(yaml_parser_delete) *p_yaml_parser_delete;
static __typeof__(yaml_document_get_root_node) *p_yaml_document_get_root_node;
static __typeof__(yaml_document_get_node) *p_yaml_document_get_node;
static __typeof__(yaml_document_delete) *p_yaml_document_delete;

static const struct lib_dl_slot slots[] = {
	LIB_DL_SLOT(yaml_parser_initialize), LIB_DL_SLOT(yaml_parser_set_input_string),
	LIB_DL_SLOT(yaml_parser_load), LIB_DL_SLOT(yaml_parser_delete),
	LIB_DL_SLOT(yaml_document_get_root_node), LIB_DL_SLOT(yaml_document_get_node),
	LIB_DL_SLOT(yaml_document_delete),
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char *why;   /* why not, once tried */

static void load(void)
{
	loaded = lib_dl_load(YAML_DL_SONAME, slots, ARRAY_SIZE(slots), "--web-config and --fleet's groups",
			     "libyaml-0-2", &why);
}

static bool ready(void)
{
	pthread_once(&once, load);
	return loaded;
}

int yaml_parser_initialize(yaml_parser_t *parser)
{
	return ready() ? p_yaml_parser_initialize(parser) : 0;
}

void yaml_parser_set_input_string(yaml_parser_t *parser, const unsigned char *input, size_t size)
{
	if (ready())
		p_yaml_parser_set_input_string(parser, input, size);
}

int yaml_parser_load(yaml_parser_t *parser, yaml_document_t *document)
{
	return ready() ? p_yaml_parser_load(parser, document) : 0;
}

void yaml_parser_delete(yaml_parser_t *parser)
{
	if (ready())
		p_yaml_parser_delete(parser);
}

yaml_node_t *yaml_document_get_root_node(yaml_document_t *document)
{
	return ready() ? p_yaml_document_get_root_node(document) : NULL;
}

yaml_node_t *yaml_document_get_node(yaml_document_t *document, int index)
{
	return ready() ? p_yaml_document_get_node(document, index) : NULL;
}

void yaml_document_delete(yaml_document_t *document)
{
	if (ready())
		p_yaml_document_delete(document);
}

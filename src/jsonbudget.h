/* jsonbudget.h: what a JSON text would cost once parsed into a tree,
 * counted from its bytes before any tree is built. jansson builds the
 * whole tree of a text, and an empty object costs it about a hundred
 * times the three bytes "{}," that write it: a recording's interval of a
 * few hundred kilobytes of gzip can hold a text whose tree does not fit in
 * memory. The reader scans first and parses only what fits its budget.
 *
 * The scan is lexical: it finds strings, brackets and commas, and leaves
 * everything else (is it valid JSON?) to the parser that runs after it. */
#ifndef PMCTOP_JSONBUDGET_H
#define PMCTOP_JSONBUDGET_H

#include <stdbool.h>
#include <stddef.h>

struct json_budget {
	/* The limits, set by the caller. */
	size_t max_depth;        /* nested arrays and objects */
	size_t max_containers;   /* arrays and objects in all */
	size_t max_values;       /* elements of arrays and members of objects */
	/* What the scan found so far. */
	size_t depth, containers, values;
	size_t scanned;          /* bytes; on a refusal, the offset of the byte refused */
	bool in_string, escaped;
};

/* Scans n more bytes of the text. 0, or -1 with *what naming the limit
 * passed ("depth", "containers" or "values"); the counts then say how far
 * the scan went. */
int json_budget_scan(struct json_budget *b, const char *p, size_t n, const char **what);

#endif

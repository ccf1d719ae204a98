/* jsonbudget.c: counts the cost of a JSON text from its bytes (see
 * jsonbudget.h). */
#include "config.h"
#include "jsonbudget.h"

static int over(struct json_budget *b, size_t i, const char *limit, const char **what)
{
	b->scanned += i;
	*what = limit;
	return -1;
}

int json_budget_scan(struct json_budget *b, const char *p, size_t n, const char **what)
{
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (b->in_string) {
			if (b->escaped)
				b->escaped = false;
			else if (c == '\\')
				b->escaped = true;
			else if (c == '"')
				b->in_string = false;
			continue;
		}
		switch (c) {
		case '"':
			b->in_string = true;
			break;
		case '[':
		case '{':
			if (++b->depth > b->max_depth)
				return over(b, i, "depth", what);
			if (++b->containers > b->max_containers)
				return over(b, i, "containers", what);
			/* The first element of a container has no comma before it. */
			if (++b->values > b->max_values)
				return over(b, i, "values", what);
			break;
		case ']':
		case '}':
			if (b->depth > 0)
				b->depth--;
			break;
		case ',':
			if (++b->values > b->max_values)
				return over(b, i, "values", what);
			break;
		default:
			break;
		}
	}
	b->scanned += n;
	return 0;
}

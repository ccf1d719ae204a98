/* expr.h: the formula language of metric definitions. A formula is parsed
 * once into a tree; names in it are resolved once to references; the tree
 * is then evaluated per sample. Missing data and zero divisors give NaN,
 * and NaN propagates, so the screen can show "-" instead of a made-up 0.
 *
 * Grammar: numbers (1, 0.5, 1e9, 0x40), names ([A-Za-z_][A-Za-z0-9_.]*),
 * + - * /, parentheses, unary minus, and functions min(a,b,...),
 * max(a,b,...), abs(a). */
#ifndef PMCTOP_EXPR_H
#define PMCTOP_EXPR_H

struct expr;

/* Parses text. On error returns NULL and sets *cause to
 * "col N: expected ..." (1-based column within text) and *col to N. */
struct expr *expr_parse(const char *text, int *col, char **cause);
void expr_free(struct expr *e);

/* Lists the distinct names used in the formula, in order of first use.
 * Returns the count; *names is an array the caller frees (not the strings,
 * which belong to the tree). */
int expr_names(const struct expr *e, const char ***names);

/* Resolves each name to an integer reference with resolve(); it returns
 * >= 0 or -1 for unknown, in which case expr_resolve returns -1 and sets
 * *cause to "unknown name 'x'" and *col to its column. */
typedef int (*expr_resolve_fn)(void *ctx, const char *name);
int expr_resolve(struct expr *e, expr_resolve_fn resolve, void *ctx, int *col, char **cause);

/* Lists the distinct resolved references (after expr_resolve). */
int expr_ids(const struct expr *e, int **ids);

/* Evaluates with value(ctx, ref) for each reference (NaN = missing). */
typedef double (*expr_value_fn)(void *ctx, int ref);
double expr_eval(const struct expr *e, expr_value_fn value, void *ctx);

/* Evaluates as expr_eval and also the formula's derivatives with respect
 * to n variables (n <= EXPR_GRAD_MAX), in one walk of the tree (forward
 * mode): value(ctx, ref, g) returns the reference's value and fills g[0..n-1]
 * with its own derivatives. grad[0..n-1] receives the result's. Used to
 * carry counts' uncertainties through a formula at the cost of about one
 * evaluation. */
#define EXPR_GRAD_MAX 16
typedef double (*expr_grad_fn)(void *ctx, int ref, double *g);
double expr_eval_grad(const struct expr *e, expr_grad_fn value, void *ctx, int n, double *grad);

/* Read access to a resolved tree, for formula.c, which compiles it into a
 * flat program. The kinds mirror the grammar; a name's reference is what
 * expr_resolve gave it (-1: unresolved). */
enum expr_kind { EXPR_NUM, EXPR_NAME, EXPR_NEG, EXPR_ADD, EXPR_SUB, EXPR_MUL, EXPR_DIV, EXPR_MIN, EXPR_MAX, EXPR_ABS };
enum expr_kind expr_kind(const struct expr *e);
int expr_nargs(const struct expr *e);
const struct expr *expr_arg(const struct expr *e, int i);
double expr_num(const struct expr *e);
int expr_ref(const struct expr *e);

/* Writes the formula back as text with each name replaced by rename(ctx,
 * ref, name) (or kept when rename returns NULL). Used by --list-metrics --raw
 * to print vendor raw values. Caller frees. */
typedef const char *(*expr_rename_fn)(void *ctx, int ref, const char *name);
char *expr_format(const struct expr *e, expr_rename_fn rename, void *ctx);

#endif

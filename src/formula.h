/* formula.h: a metric's formula compiled into a flat program, for the
 * evaluations that run for every metric of every row of every interval
 * (derive.c). Walking the parsed tree with a callback per name cost most
 * of the sampler's own time; the program has its sub-metrics inlined and
 * its events numbered, runs as one loop over an array, and gives the
 * derivatives with respect to every event in one backward pass (reverse
 * mode) rather than a vector per node (expr_eval_grad's forward mode);
 * operations on constants alone are done once, at compile time.
 * It computes exactly what expr_eval and expr_eval_grad compute on the
 * same values, with the same NaN rules (tests/check_formula.c). */
#ifndef PMCTOP_FORMULA_H
#define PMCTOP_FORMULA_H

#include "evdef.h"

struct formula;

/* Metric mi of m compiled for rows of scope sc: a sub-metric that cannot
 * be evaluated there (a wider scope) is NaN, as in derive's tree walk.
 * Variables 0..md->nevents-1 are md->events in order; any other event the
 * formula names follows. A sub-metric named several times is compiled
 * once, so a program is no larger than the metrics it names; NULL only
 * when it would still exceed FORMULA_MAX_INS operations (a broken model
 * nesting sub-metrics deeper than 64 levels): the metric is then unknown. */
#define FORMULA_MAX_INS 4096
struct formula *formula_compile(const struct model *m, int mi, int sc);
void formula_free(struct formula *f);

int formula_nvars(const struct formula *f);
const int *formula_vars(const struct formula *f);    /* the event of each variable */
/* Doubles of work space that an evaluation needs; the caller puts the
 * variables' values in work[0..nvars-1] before each evaluation. */
int formula_work(const struct formula *f);

/* The value from work[0..nvars-1]; measured_s is the builtin interval_s. */
double formula_eval(const struct formula *f, double measured_s, double *work);
/* formula_eval in two parts, for many evaluations with the same interval
 * in one work space: formula_prime puts the constants and the interval in
 * it once; formula_run then takes the variables put in work[0..nvars-1]
 * and leaves the constants as they were. formula_eval is the two in turn. */
void formula_prime(const struct formula *f, double measured_s, double *work);
double formula_run(const struct formula *f, double *work);
/* formula_eval of n rows at once, each operation over all of them (one
 * dispatch per operation, not per row): work holds slot s of row i at
 * work[s * n + i], the caller having put the variables in slots
 * 0..nvars-1; it needs formula_slots(f) * n doubles. Returns the values,
 * n of them, each what formula_eval gives for that row's variables. */
const double *formula_run_rows(const struct formula *f, double measured_s, double *work, int n);
/* formula_run_rows with the variables read where they lie: row i's
 * variable k is vals[i * stride + idx[k]] (NaN where idx[k] < 0), with
 * no column of them put together first; work needs formula_slots(f) * n
 * doubles. The same values, to the bit. */
const double *formula_run_rows_at(const struct formula *f, double measured_s, const double *vals, const int *idx,
				  size_t stride, double *work, int n);
int formula_slots(const struct formula *f);
/* The value, and in grad[0..n-1] its derivatives with respect to the first
 * n variables (set where the value is finite, else 0). */
double formula_eval_grad(const struct formula *f, double measured_s, int n, double *grad, double *work);

#endif

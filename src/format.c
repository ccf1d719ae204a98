/* format.c: how pmctop writes numbers, shared by the batch table and the
 * dashboard so that both show a figure the same way (format_text.c: the
 * dashboard's other text). Pure functions. */
#include "config.h"
#include "format.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "uncertainty.h"
#include "hot_path.h"

/* printf's "%.Nf" by hand, for what every cell of every interval writes:
 * vfprintf and its exact decimal conversion were the largest part of the
 * batch table's work. The figure is the same to the byte: v is m * 2^-k
 * exactly (m < 2^53), so v * 10^prec is m * 10^prec (< 2^63) shifted
 * right by k, and the bits shifted out decide the rounding, half to even
 * as glibc's printf rounds an exact tie. Anything else goes to snprintf. */
HOT_PATH size_t format_fixed(char *buf, size_t len, double v, int prec)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000 };
	double a = fabs(v);
	if (prec < 0 || prec > 3 || !(a < 9007199254740992.0) || len < 24) {
		int n = snprintf(buf, len, "%.*f", prec, v);
		return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len ? len - 1 : 0;
	}
	uint64_t q = 0;
	if (a > 0) {
		/* a = m / 2^k from the bits (frexp and ldexp were calls of
		 * some fifty instructions each, for every figure): a
		 * subnormal's k is over 64, and q stays 0 as below. */
		uint64_t bits;
		memcpy(&bits, &a, sizeof(bits));
		int be = (int)(bits >> 52);
		uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
		if (be)
			m |= UINT64_C(1) << 52;
		int k = be ? 1075 - be : 1074;
		uint64_t p = m * pow10[prec];
		if (k <= 0) {
			q = ((uint64_t)a) * pow10[prec];
		} else if (k < 64) {
			q = p >> k;
			uint64_t r = p & ((UINT64_C(1) << k) - 1), half = UINT64_C(1) << (k - 1);
			if (r > half || (r == half && (q & 1)))
				q++;
		}
		/* k >= 64: p < 2^63 is under half of 2^k, so q stays 0. */
	}
	char digits[24];
	int nd = 0;
	do {
		digits[nd++] = (char)('0' + q % 10);
		q /= 10;
	} while (q || nd <= prec);
	size_t n = 0;
	if (signbit(v))
		buf[n++] = '-';
	for (int i = nd - 1; i >= 0; i--) {
		buf[n++] = digits[i];
		if (i == prec && prec > 0)
			buf[n++] = '.';
	}
	buf[n] = '\0';
	return n;
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

static int bits128(u128 x)
{
	uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
	return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* round(m * 10^s / 2^k), the decimal digits of m / 2^k at 10^-s, rounded
 * half to even on an exact tie as glibc's printf rounds; -1 when the
 * exact quotient does not fit 128 bits (the caller then asks snprintf). */
static int64_t scaled_round(uint64_t m, int k, int s)
{
#define P19 ((u128)10000000000000000000ULL)
	static const u128 p10[39] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
		10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL, P19,
		P19 * 10, P19 * 100, P19 * 1000, P19 * 10000, P19 * 100000, P19 * 1000000, P19 * 10000000,
		P19 * 100000000, P19 * 1000000000, P19 * 10000000000ULL, P19 * 100000000000ULL,
		P19 * 1000000000000ULL, P19 * 10000000000000ULL, P19 * 100000000000000ULL,
		P19 * 1000000000000000ULL, P19 * 10000000000000000ULL, P19 * 100000000000000000ULL,
		P19 * 1000000000000000000ULL, P19 * 10000000000000000000ULL,
	};
#undef P19
	if (s > 38 || s < -38)
		return -1;
	u128 num = m, den = 1;
	if (s > 0) {
		if (bits128(num) + bits128(p10[s]) > 127)
			return -1;
		num *= p10[s];
	} else {
		den = p10[-s];
	}
	if (k < 0) {
		if (bits128(num) - k > 127)
			return -1;
		num <<= -k;
	} else if (k > 0) {
		if (bits128(den) + k > 127)
			return -1;
		den <<= k;
	}
	u128 q, r;
	if (s >= 0) {   /* den is 2^k: shifts, not a 128-bit division */
		q = k > 0 ? num >> k : num;
		r = k > 0 ? num & (den - 1) : 0;
	} else {
		q = num / den;
		r = num % den;
	}
	if (r * 2 > den || (r * 2 == den && (q & 1)))
		q++;
	return q > 100000000 ? -1 : (int64_t)q;
}
#endif

#ifdef __SIZEOF_INT128__
/* 10^-19 .. 10^21 as doubles (the nearest to each): format_g6's
 * guess at a figure's decimal exponent. */
static const double p10_double[41] = {
	1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6,
	1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
};

/* "00" .. "99": two digits at a time. */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";
#endif

/* printf's "%.6g" by hand, what CSV and JSON write for every figure:
 * vfprintf's exact decimal conversion was most of those outputs' work.
 * The style and the digits follow C's definition of %g: X is the decimal
 * exponent that "%.5e" would print (after its rounding, so 999999.5 is
 * 1e+06), the six digits are v rounded to 10^(X-5) exactly (m / 2^k times
 * a power of ten in 128-bit integers, ties to even), written as "%.*f"
 * with 5 - X decimals when -4 <= X < 6 and as "%.5e" otherwise, trailing
 * zeros and a bare point removed. What does not fit 128 bits (below about
 * 1e-17 or above about 1e21), NaN, infinity and a short buffer go to
 * snprintf. */
HOT_PATH size_t format_g6(char *buf, size_t len, double v)
{
#ifdef __SIZEOF_INT128__
	double a = fabs(v);
	if (len >= 32 && isfinite(v)) {
		size_t n = 0;
		if (signbit(v))
			buf[n++] = '-';
		if (a == 0) {
			buf[n++] = '0';
			buf[n] = '\0';
			return n;
		}
		if (a < 1e6 && a == (double)(int64_t)a) {
			/* A whole number of six digits or fewer (coverages
			 * of 1, counts, ncpus: a third of a JSON interval's
			 * figures) is its own digits in %.6g: no exponent
			 * below 1e6, no point, nothing to round. */
			char d[8];
			int nd = 0;
			for (int64_t q = (int64_t)a; q; q /= 10)
				d[nd++] = (char)('0' + q % 10);
			while (nd)
				buf[n++] = d[--nd];
			buf[n] = '\0';
			return n;
		}
		/* a = f * 2^ex, 0.5 <= f < 1, m = f * 2^53: from the bits
		 * of a normal number (frexp and ldexp were two calls a
		 * figure), by frexp for a subnormal, which it normalises. */
		uint64_t bits;
		memcpy(&bits, &a, sizeof(bits));
		int be = (int)(bits >> 52), ex;
		uint64_t m;
		if (be) {
			ex = be - 1022;
			m = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
		} else {
			double f = frexp(a, &ex);
			m = (uint64_t)ldexp(f, 53);
		}
		int k = 53 - ex;            /* a = m / 2^k exactly */
		/* 2^(ex-1) <= a < 2^ex: X is floor((ex - 1) log10 2) or one
		 * more (78913 / 2^18 is log10 2 to within 2^-22, exact at
		 * these exponents; the shift floors a negative too), and one
		 * more where a reaches the next power of ten: a guess that
		 * the tries below correct (the rounding can still carry), a
		 * second try for a third of the figures before. */
		int x = ((ex - 1) * 78913) >> 18;
		if (x >= -19 && x < 21 && a >= p10_double[x + 1 + 19])
			x++;
		int64_t q = -1;
		for (int tries = 0; tries < 4; tries++) {
			q = scaled_round(m, k, 5 - x);
			if (q < 0)
				break;
			if (q >= 1000000)
				x++;
			else if (q < 100000)
				x--;
			else
				break;
		}
		if (q >= 100000 && q < 1000000) {
			/* The six digits two at a time. */
			char d[6];
			int hi = (int)(q / 10000), lo = (int)(q % 10000);
			memcpy(d, digit_pairs + 2 * hi, 2);
			memcpy(d + 2, digit_pairs + 2 * (lo / 100), 2);
			memcpy(d + 4, digit_pairs + 2 * (lo % 100), 2);
			int last = 5;   /* the last digit kept: trailing zeros go */
			while (last > 0 && d[last] == '0')
				last--;
			if (x < -4 || x >= 6) {
				buf[n++] = d[0];
				if (last > 0) {
					buf[n++] = '.';
					for (int i = 1; i <= last; i++)
						buf[n++] = d[i];
				}
				buf[n++] = 'e';
				buf[n++] = x < 0 ? '-' : '+';
				int e = x < 0 ? -x : x;
				if (e >= 100)
					buf[n++] = (char)('0' + e / 100);
				buf[n++] = (char)('0' + e / 10 % 10);
				buf[n++] = (char)('0' + e % 10);
			} else if (x >= 0) {
				for (int i = 0; i <= x; i++)
					buf[n++] = d[i];
				if (last > x) {
					buf[n++] = '.';
					for (int i = x + 1; i <= last; i++)
						buf[n++] = d[i];
				}
			} else {
				buf[n++] = '0';
				buf[n++] = '.';
				for (int i = -1; i > x; i--)
					buf[n++] = '0';
				for (int i = 0; i <= last; i++)
					buf[n++] = d[i];
			}
			buf[n] = '\0';
			return n;
		}
	}
#endif
	int n = snprintf(buf, len, "%.6g", v);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len ? len - 1 : 0;
}

/* As snprintf(buf, len, "%s", s): cut to fit (len > 0). */
static void copy_cut(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s);
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* The precision of a format that is exactly "%.Nf" with N in 0..3, the
 * formats of the definition files; -1 for any other. */
static int fixed_prec(const char *fmt)
{
	if (fmt && fmt[0] == '%' && fmt[1] == '.' && fmt[2] >= '0' && fmt[2] <= '3' && fmt[3] == 'f' && !fmt[4])
		return fmt[2] - '0';
	return -1;
}

bool format_is_double_fmt(const char *fmt)
{
	if (!fmt)
		return false;
	int convs = 0;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		p++;
		if (*p == '%')
			continue;
		while (*p && strchr("-+ #0", *p))
			p++;
		int digits = 0;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits++;
		}
		if (digits > 2)
			return false;
		if (*p == '.') {
			p++;
			digits = 0;
			while (isdigit((unsigned char)*p)) {
				p++;
				digits++;
			}
			if (digits > 2)
				return false;
		}
		if (!*p || !strchr("eEfFgG", *p))
			return false;
		convs++;
	}
	return convs == 1;
}

const char *format_si(char *buf, size_t len, double v)
{
	static const char suffix[] = " kMGTPE";
	double a = fabs(v);
	int i = 0;
	if (isnan(v) || isinf(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (len < 24) {
		char tmp[32];
		format_si(tmp, sizeof(tmp), v);
		copy_cut(buf, len, tmp);
		return buf;
	}
	while (a >= 999.5 && i < (int)sizeof(suffix) - 2) {
		a /= 1000;
		v /= 1000;
		i++;
	}
	/* Three significant digits at every scale (1.23, 12.3, 123, 1.23k). */
	size_t n = format_fixed(buf, len, v, a >= 100 || (i == 0 && a == floor(a)) ? 0 : a >= 10 ? 1 : 2);
	if (i > 0 && n + 1 < len) {
		buf[n] = suffix[i];
		buf[n + 1] = '\0';
	}
	return buf;
}

HOT_PATH const char *format_value(char *buf, size_t len, double v, const char *fmt, const char *unit)
{
	char num[64];
	if (len < 1)
		return buf;
	if (isnan(v) || isinf(v)) {
		copy_cut(buf, len, "-");
		return buf;
	}
	int prec = fixed_prec(fmt);
	bool dfmt = prec >= 0 || format_is_double_fmt(fmt);
	bool pct = (fmt && strcmp(fmt, "pct") == 0) || (!dfmt && unit && strcmp(unit, "ratio") == 0);
	/* "pct" on a metric that is already in percent must not scale it
	 * again: the unit says what the number is. */
	if (pct)
		format_fixed(num, sizeof(num), unit && strcmp(unit, "%") == 0 ? v : v * 100, 1);
	else if (fmt && !strcmp(fmt, "si"))
		format_si(num, sizeof(num), v);
	else if (prec >= 0)
		format_fixed(num, sizeof(num), v, prec);
	else if (dfmt) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(num, sizeof(num), fmt, v);
#pragma GCC diagnostic pop
	} else if (unit && (strcmp(unit, "GHz") == 0 || strstr(unit, "/cyc") || strcmp(unit, "ratio") == 0))
		format_fixed(num, sizeof(num), v, 2);
	else if (unit && (strcmp(unit, "cpus") == 0 || strcmp(unit, "hosts") == 0) && fabs(v) < 1e6)
		format_fixed(num, sizeof(num), v, 0); /* a count of things: 32, not 32.00 */
	else if (unit && strcmp(unit, "ns") == 0 && fabs(v) < 1e5)
		format_fixed(num, sizeof(num), v, 0);
	else if (unit && strcmp(unit, "%") == 0 && fabs(v) < 1e4)
		format_fixed(num, sizeof(num), v, 1);
	else if (v == 0)
		memcpy(num, "0", 2);
	else if (fabs(v) >= 1000 || (unit && strchr(unit, '/')) || format_unit_is_count(unit))
		format_si(num, sizeof(num), v);
	else
		format_fixed(num, sizeof(num), v, 2);
	copy_cut(buf, len, num);
	return buf;
}

bool format_unit_is_count(const char *unit)
{
	return unit && (!strcmp(unit, "count") || !strcmp(unit, "slots"));
}

const char *format_value_unit(const char *unit)
{
	if (format_unit_is_count(unit))
		return "/s";
	return unit && *unit ? unit : "";
}

/* What a heading appends for each unit; NULL: nothing (IPC, CPI and the
 * like are ratios of two counts whose label says what they are). */
static const char *heading_suffix(const char *unit)
{
	static const struct { const char *unit, *suffix; } map[] = {
		{ "ratio", "%" }, { "%", "%" }, { "count", "/s" }, { "slots", "/s" }, { "/s", "/s" },
		{ "GHz", " GHz" }, { "ns", " ns" }, { "cyc", " cyc" }, { "cycles", " cyc" },
		{ "GB/s", " GB/s" }, { "MB/s", " MB/s" }, { "GFLOP/s", " GFLOP/s" },
		{ "/kinst", "/ki" }, { "/kinsn", "/ki" },
	};
	for (size_t i = 0; unit && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(unit, map[i].unit))
			return map[i].suffix;
	return NULL;
}

void format_heading(char *buf, size_t len, const char *label, const char *unit)
{
	const char *suf = heading_suffix(unit);
	const char *word = suf && *suf == ' ' ? suf + 1 : suf;
	/* "Br/KI" already says per kilo-instruction: no "Br/KI/ki". */
	bool per_ki = strstr(label, "PKI") || strstr(label, "pki") || strstr(label, "/KI") || strstr(label, "/ki");
	if (!suf || strstr(label, word) || (!strcmp(word, "/ki") && per_ki))
		snprintf(buf, len, "%s", label);
	else
		snprintf(buf, len, "%s%s", label, suf);
}

const char *format_value_rse(char *buf, int len, double v, double rse, bool with_err, const char *fmt,
			     const char *unit)
{
	char num[64], err[24] = "";
	if (len < 1)
		return buf;
	/* On screen one rule per unit (format_value), whatever printf format
	 * a view's definition gives, so that a figure looks the same in every
	 * view and model; batch output keeps the view's format. */
	format_value(num, sizeof(num), v, fmt && !strcmp(fmt, "pct") ? fmt : NULL, unit);
	bool mark = !isinf(v) && unc_marked(v, rse);
	/* Exact figures (counted all the time) need no "+-0". */
	if (with_err && !isnan(v) && isfinite(rse) && rse > 0) {
		double pct = 196 * rse;
		snprintf(err, sizeof(err), pct < 10 ? "\u00b1%.1f%%" : "\u00b1%.0f%%", pct);
	}
	snprintf(buf, (size_t)len, "%s%s%s", mark ? "~" : "", num, err);
	return buf;
}

int format_level(double v, double warn, double crit, bool low_is_bad)
{
	if (isnan(v) || (isnan(warn) && isnan(crit)))
		return -1;
	if (low_is_bad) {
		if (!isnan(crit) && v <= crit)
			return 2;
		if (!isnan(warn) && v <= warn)
			return 1;
		return 0;
	}
	if (!isnan(crit) && v >= crit)
		return 2;
	if (!isnan(warn) && v >= warn)
		return 1;
	return 0;
}

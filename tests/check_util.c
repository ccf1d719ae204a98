/* check_util.c: the text sanitiser that stands between outside text and the
 * terminal or a CSV/JSON field: what it keeps, what it replaces, and its
 * stream form fed one byte at a time; and the name index (name_index.c). */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "name_index.h"
#include "privs.h"
#include "util.h"

static const struct { const char *in, *out; int bad; } cases[] = {
	{ "plain text\twith tab", "plain text\twith tab", -1 },
	{ "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x94\xa5", "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x94\xa5", -1 },
	{ "\033]0;pwned\007", "?]0;pwned?", 0 },
	{ "a\rb\vc", "a?b?c", 1 },
	{ "del\x7f", "del?", 3 },
	{ "c1 \xc2\x9b[31m", "c1 ??[31m", 3 },          /* U+009B, the 8-bit CSI */
	{ "raw \x9b[31m", "raw ?[31m", 4 },
	{ "\xc2\xa0nbsp", "\xc2\xa0nbsp", -1 },           /* U+00A0 is the first non-control */
	{ "overlong \xc0\xaf \xe0\x80\xaf", "overlong ?? ???", 9 },
	{ "surrogate \xed\xa0\x80", "surrogate ???", 10 },
	{ "beyond \xf4\x90\x80\x80", "beyond ????", 7 },
	{ "cut \xe2\x80", "cut ??", 4 },
	{ "\xff\xfe", "??", 0 },
};

START_TEST(test_sanitize)
{
	char *s = text_sanitize(cases[_i].in);
	ck_assert_str_eq(s, cases[_i].out);
	ck_assert_int_eq(text_bad_at(cases[_i].in), cases[_i].bad);
	ck_assert_int_eq(text_bad_at(s), -1);
	free(s);
}
END_TEST

/* The stream keeps newlines and gives the same result however the writes
 * cut the characters. */
START_TEST(test_filter_stream)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(mem);
	FILE *f = text_filter(mem);
	setvbuf(f, NULL, _IONBF, 0);
	const char *in = cases[_i].in;
	for (size_t k = 0; in[k]; k++)
		ck_assert_int_eq(fputc(in[k], f), (unsigned char)in[k]);
	fputs("\nnext\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(fclose(mem), 0);
	char *want = xasprintf("%s\nnext\n", cases[_i].out);
	ck_assert_str_eq(buf, want);
	free(want);
	free(buf);
}
END_TEST

START_TEST(test_filter_write_error)
{
	FILE *full = fopen("/dev/full", "w");
	if (!full)
		return;
	FILE *f = text_filter(full);
	for (int i = 0; i < 10000; i++)
		fputs("some text\n", f);
	ck_assert_int_ne(fclose(f), 0);
	ck_assert(ferror(full));
	fclose(full);
}
END_TEST

/* sysfs-style reads never wait on a FIFO and stop at 1 MiB. */
START_TEST(test_read_text_file_bounds)
{
	char dir[] = "/tmp/check_util.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *fifo = xasprintf("%s/fifo", dir), *big = xasprintf("%s/big", dir), *small = xasprintf("%s/n", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	errno = 0;
	ck_assert_ptr_null(read_text_file(fifo));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(read_text_file(dir));
	ck_assert_int_eq(errno, EISDIR);
	FILE *f = fopen(big, "w");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < (1 << 21) / 8; i++)
		fputs("0123456\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_null(read_text_file(big));
	ck_assert_int_eq(errno, EFBIG);
	f = fopen(small, "w");
	ck_assert_ptr_nonnull(f);
	fputs("0-3,8\n\n", f);
	ck_assert_int_eq(fclose(f), 0);
	char *s = read_text_file(small);
	ck_assert_str_eq(s, "0-3,8");
	free(s);
	unlink(fifo);
	unlink(big);
	unlink(small);
	rmdir(dir);
	free(fifo);
	free(big);
	free(small);
}
END_TEST

/* A file read again while kept open sees its new contents each time (as
 * /proc/stat is regenerated), whatever their length; the same bounds as
 * read_text_file; a read that fails opens the file again next time. */
START_TEST(test_text_reader)
{
	char dir[] = "/tmp/check_util.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *path = xasprintf("%s/stat", dir);
	struct text_reader r = TEXT_READER_INIT;
	/* The second run as /proc/stat is read: a short read ends the file.
	 * A file longer than the buffer is still read whole (each read
	 * fills what it was given), and the setting outlives a close. */
	r.short_read_ends = _i == 1;
	errno = 0;
	ck_assert_ptr_null(text_reader_read(&r, path));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_null(text_reader_read(&r, dir));
	ck_assert_int_eq(errno, EISDIR);
	FILE *f = fopen(path, "w");
	fputs("cpu0 1 2 3\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_str_eq(text_reader_read(&r, path), "cpu0 1 2 3\n");
	int fd = r.fd;
	ck_assert_int_ge(fd, 0);
	/* Longer than the first buffer, in the same file (same descriptor). */
	f = fopen(path, "r+");
	for (int i = 0; i < 1000; i++)
		fprintf(f, "cpu%d 10 20 30\n", i);
	ck_assert_int_eq(fclose(f), 0);
	const char *t = text_reader_read(&r, path);
	ck_assert_int_eq(r.fd, fd);
	ck_assert_uint_gt(strlen(t), 4096);
	ck_assert(strncmp(t, "cpu0 10 20 30\ncpu1 10 20 30\n", 28) == 0);
	ck_assert_ptr_nonnull(strstr(t, "cpu999 10 20 30\n"));
	/* Shorter again: nothing of the longer text is left behind. */
	ck_assert_int_eq(truncate(path, 0), 0);
	f = fopen(path, "w");
	fputs("cpu0 4 5 6\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_str_eq(text_reader_read(&r, path), "cpu0 4 5 6\n");
	/* Past 1 MiB, by one line: refused, and closed. */
	f = fopen(path, "w");
	for (int i = 0; i < (1 << 20) / 8 + 1; i++)
		fputs("0123456\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_null(text_reader_read(&r, path));
	ck_assert_int_eq(errno, EFBIG);
	ck_assert_int_eq(r.fd, -1);
	text_reader_close(&r);
	ck_assert(r.short_read_ends == (_i == 1));
	unlink(path);
	rmdir(dir);
	free(path);
}
END_TEST

/* The capability kept for counters: CAP_PERFMON (38) from Linux 5.8, whose
 * cap_last_cap is 38 or more; CAP_SYS_ADMIN (21) before it. */
/* -w and -o naming one file, however written. */
START_TEST(test_path_same_file)
{
	char dir[] = "/tmp/check_util.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *a = xasprintf("%s/out", dir), *a2 = xasprintf("%s/./out", dir);
	char *a3 = xasprintf("%s/../%s/out", dir, strrchr(dir, '/') + 1), *b = xasprintf("%s/other", dir);
	/* Neither exists yet. */
	ck_assert(path_same_file(a, a2));
	ck_assert(path_same_file(a, a3));
	ck_assert(!path_same_file(a, b));
	ck_assert(!path_same_file(a, "/nonexistent-dir/out"));
	/* Both exist: by inode, a second name included. */
	FILE *f = fopen(a, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(link(a, b), 0);
	ck_assert(path_same_file(a2, b));
	ck_assert(!path_same_file(a, dir));
	unlink(a);
	unlink(b);
	rmdir(dir);
	free(a);
	free(a2);
	free(a3);
	free(b);
}
END_TEST

START_TEST(test_counter_cap)
{
	ck_assert_int_eq(privs_counter_cap(40), 38);
	ck_assert_int_eq(privs_counter_cap(38), 38);
	ck_assert_int_eq(privs_counter_cap(37), 21);
	ck_assert_int_eq(privs_counter_cap(-1), 38);
}
END_TEST

/* name_index.c: every name added is found with its first value, through
 * the table's growth, whatever its length (0 to 40 bytes, across the
 * eight-byte words it is hashed by) and however much of it it shares
 * with the others; a name not added is not found. */
START_TEST(test_name_index)
{
	enum { N = 3000 };
	static char names[N][48];
	struct name_index *ix = name_index_new();
	for (int i = 0; i < N; i++) {
		/* Names that differ only in their last bytes, and in length. */
		int len = snprintf(names[i], sizeof(names[i]), "%.*s%d", i % 33, "ls_any_fills_from_sys.all_dram_io", i);
		ck_assert_int_lt(len, (int)sizeof(names[i]));
		name_index_add(ix, names[i], i);
		name_index_add(ix, names[i], -5);   /* a second add keeps the first value */
	}
	name_index_add(ix, "", 7000);
	for (int i = 0; i < N; i++) {
		char copy[48];
		memcpy(copy, names[i], sizeof(copy));   /* by content, not by pointer */
		ck_assert_int_eq(name_index_find(ix, copy), i);
		copy[strlen(copy) - 1] ^= 0x40;
		ck_assert_int_eq(name_index_find(ix, copy), -1);
	}
	ck_assert_int_eq(name_index_find(ix, ""), 7000);
	ck_assert_int_eq(name_index_find(ix, "ls_any_fills_from_sys.all_dram_io"), -1);
	ck_assert_int_eq(name_index_find(NULL, "x"), -1);
	name_index_free(ix);
}
END_TEST

/* The hashed forms (a loader's one hash a name for two look-ups and an
 * add) agree with the plain ones, in a table sized beforehand and in one
 * that grows past its size. */
START_TEST(test_name_index_hashed)
{
	enum { N = 1000 };
	static char names[N][32];
	struct name_index *sized = name_index_new_for(N), *small = name_index_new_for(10);
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "ev_%d.%.*s", i, i % 9, "abcdefghi");
		uint32_t h = name_index_hash(names[i]);
		ck_assert_int_eq(name_index_find_hashed(sized, names[i], h), -1);
		name_index_add_hashed(sized, names[i], h, i);
		name_index_add_hashed(small, names[i], h, i);
	}
	for (int i = 0; i < N; i++) {
		char copy[32];
		memcpy(copy, names[i], sizeof(copy));
		ck_assert_int_eq(name_index_find(sized, copy), i);
		ck_assert_int_eq(name_index_find(small, copy), i);
		ck_assert_int_eq(name_index_find_hashed(small, copy, name_index_hash(copy)), i);
	}
	ck_assert_int_eq(name_index_find(sized, "ev_"), -1);
	name_index_free(sized);
	name_index_free(small);
}
END_TEST

/* read_sysfs_text ends at a short read: what it reads of a small file,
 * one past the reader's first buffer and an empty one is what
 * read_text_file reads (trailing blanks dropped); a missing file is
 * ENOENT, a directory EISDIR. */
START_TEST(test_read_sysfs_text)
{
	char dir[] = "/tmp/check_util_XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	static const size_t sizes[] = { 0, 2, 4095, 4096, 4097, 10000 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *path = xasprintf("%s/f%zu", dir, i);
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		for (size_t k = 0; k < sizes[i]; k++)
			fputc(k + 1 == sizes[i] ? '\n' : 'a' + (int)(k % 26), f);
		ck_assert_int_eq(fclose(f), 0);
		char *want = read_text_file(path), *got = read_sysfs_text(path);
		ck_assert_ptr_nonnull(want);
		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got, want);
		ck_assert_uint_eq(strlen(got), sizes[i] ? sizes[i] - 1 : 0);
		free(want);
		free(got);
		unlink(path);
		free(path);
	}
	char *missing = xasprintf("%s/none", dir);
	errno = 0;
	ck_assert_ptr_null(read_sysfs_text(missing));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(read_sysfs_text(dir));
	ck_assert_int_eq(errno, EISDIR);
	free(missing);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("text");
	tcase_add_loop_test(tc, test_sanitize, 0, (int)ARRAY_SIZE(cases));
	tcase_add_loop_test(tc, test_filter_stream, 0, (int)ARRAY_SIZE(cases));
	tcase_add_test(tc, test_filter_write_error);
	tcase_add_test(tc, test_read_text_file_bounds);
	tcase_add_loop_test(tc, test_text_reader, 0, 2);
	tcase_add_test(tc, test_counter_cap);
	tcase_add_test(tc, test_path_same_file);
	tcase_add_test(tc, test_name_index);
	tcase_add_test(tc, test_name_index_hashed);
	tcase_add_test(tc, test_read_sysfs_text);
	suite_add_tcase(s, tc);
	return check_run(s);
}

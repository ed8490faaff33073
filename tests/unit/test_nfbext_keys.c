/*
 * The keys of the simulated cards (src/nfbext/proto.c): pt_ext_card_key,
 * which the extension and `ptsimd start` use, and pt_ext_card_find_key
 * (`ptsimd stop` and `status`), which must give the same key for a file
 * that exists and, for one deleted since, the key it had: through ".",
 * "..", "//", a removed folder, a link to a folder, a link whose target
 * is gone; a loop of links and a path too long are errors of one line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nfbext/proto.h"

static char dir[PATH_MAX]; /* the test's folder, resolved */

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fclose(f);
}

/* The key of device by fn, which must succeed. */
static const char *key_of(int (*fn)(const char *, char *, size_t, char *, size_t),
			  const char *device, char *key)
{
	char msg[PT_BUS_MSG_LEN] = "";
	int rc = fn(device, key, PT_EXT_KEY_MAX, msg, sizeof(msg));

	if (rc != 0)
		fail_msg("%s: %d %s", device, rc, msg);
	return key;
}

/* Both functions give "sim:" + dir + "/" + want for device. */
static void both_give(const char *device, const char *want)
{
	char key[PT_EXT_KEY_MAX], exp[PT_EXT_KEY_MAX + 256];

	snprintf(exp, sizeof(exp), "sim:%s/%s", dir, want);
	assert_string_equal(key_of(pt_ext_card_key, device, key), exp);
	assert_string_equal(key_of(pt_ext_card_find_key, device, key), exp);
}

/* The file is gone: pt_ext_card_key fails, find gives the old key. */
static void gone_gives(const char *device, const char *want)
{
	char key[PT_EXT_KEY_MAX], exp[PT_EXT_KEY_MAX + 256], msg[PT_BUS_MSG_LEN];

	snprintf(exp, sizeof(exp), "sim:%s/%s", dir, want);
	assert_int_equal(pt_ext_card_key(device, key, sizeof(key), msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "cannot open scenario file"));
	assert_string_equal(key_of(pt_ext_card_find_key, device, key), exp);
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/nfbext-keys.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, dir));
	assert_int_equal(chdir(dir), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	assert_int_equal(chdir("/"), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_presets(void **state)
{
	char key[PT_EXT_KEY_MAX], msg[PT_BUS_MSG_LEN];

	(void)state;
	assert_string_equal(key_of(pt_ext_card_find_key, "sim", key), "sim");
	assert_string_equal(key_of(pt_ext_card_find_key, "sim:tx-4K", key), "sim:tx-4K");
	assert_string_equal(key_of(pt_ext_card_find_key, "sim:nosuch", key), "sim:nosuch");
	assert_int_equal(pt_ext_card_find_key("simx", key, sizeof(key), msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "simx: not a simulated card"));
}

static void test_deleted_file(void **state)
{
	char abs[PATH_MAX + 16];

	(void)state;
	assert_int_equal(mkdir("sub", 0700), 0);
	touch("a.ini");
	both_give("sim:a.ini", "a.ini");
	both_give("sim:./sub/../a.ini", "a.ini");
	assert_int_equal(unlink("a.ini"), 0);
	gone_gives("sim:a.ini", "a.ini");
	gone_gives("sim:./a.ini", "a.ini");
	gone_gives("sim:sub/../a.ini", "a.ini");
	gone_gives("sim:sub/.//../a.ini/", "a.ini");
	gone_gives("sim:nothere/../a.ini", "a.ini"); /* lexically, as the key was */
	snprintf(abs, sizeof(abs), "sim:/..%s//./a.ini", dir); /* "/.." is "/" */
	gone_gives(abs, "a.ini");
}

static void test_deleted_folder(void **state)
{
	(void)state;
	assert_int_equal(mkdir("d", 0700), 0);
	assert_int_equal(mkdir("d/e", 0700), 0);
	touch("d/e/b.ini");
	both_give("sim:d/e/b.ini", "d/e/b.ini");
	assert_int_equal(unlink("d/e/b.ini"), 0);
	assert_int_equal(rmdir("d/e"), 0);
	assert_int_equal(rmdir("d"), 0);
	gone_gives("sim:d/e/b.ini", "d/e/b.ini");
	gone_gives("sim:d/e/../e/b.ini", "d/e/b.ini");
}

static void test_links(void **state)
{
	char target[PATH_MAX + 16];

	(void)state;
	assert_int_equal(mkdir("real", 0700), 0);
	touch("real/c.ini");
	assert_int_equal(symlink("real", "folder"), 0);
	assert_int_equal(symlink("real/c.ini", "rel.ini"), 0);
	snprintf(target, sizeof(target), "%s/real/c.ini", dir);
	assert_int_equal(symlink(target, "abs.ini"), 0);
	assert_int_equal(symlink("folder/c.ini", "chain.ini"), 0);
	both_give("sim:folder/c.ini", "real/c.ini");
	both_give("sim:rel.ini", "real/c.ini");
	both_give("sim:abs.ini", "real/c.ini");
	both_give("sim:chain.ini", "real/c.ini");
	assert_int_equal(unlink("real/c.ini"), 0);
	gone_gives("sim:folder/c.ini", "real/c.ini");
	gone_gives("sim:rel.ini", "real/c.ini"); /* dangling: its target's key */
	gone_gives("sim:abs.ini", "real/c.ini");
	gone_gives("sim:chain.ini", "real/c.ini");
	/* a link to a folder that is gone, then ".." */
	assert_int_equal(symlink("real/gone", "gonedir"), 0);
	gone_gives("sim:gonedir/../x.ini", "real/x.ini");
}

static void test_errors(void **state)
{
	char key[PT_EXT_KEY_MAX], msg[PT_BUS_MSG_LEN], *dev = malloc(PATH_MAX + 64);

	(void)state;
	assert_int_equal(symlink("loop2.ini", "loop1.ini"), 0);
	assert_int_equal(symlink("loop1.ini", "loop2.ini"), 0);
	assert_int_equal(pt_ext_card_find_key("sim:loop1.ini", key, sizeof(key), msg, sizeof(msg)),
			 -ELOOP);
	assert_non_null(strstr(msg, "loop1.ini: cannot open scenario file"));
	assert_null(strchr(msg, '\n'));
	assert_non_null(dev);
	memcpy(dev, "sim:./", 6);
	memset(dev + 6, 'x', PATH_MAX);
	dev[PATH_MAX + 6] = '\0';
	assert_int_equal(pt_ext_card_find_key(dev, key, sizeof(key), msg, sizeof(msg)),
			 -ENAMETOOLONG);
	assert_null(strchr(msg, '\n'));
	free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets),
		cmocka_unit_test_setup_teardown(test_deleted_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

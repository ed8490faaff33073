/*
 * The counter naming table (pt_counter_*, docs/counters.md): every counter
 * of many layouts has a unique name, a description and a unit; name ->
 * index -> name round-trips for every index; unknown and malformed names
 * give -ENOENT with a one-line message; the glob matcher; and the names
 * of the firmware's default layout are exactly the list below, so that a
 * rename cannot slip through (and docs/counters.md lists each of them).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/layout.h"
#include "test_util.h"
#include "test_layout_util.h"

static char msg[512];

static const struct pt_test_shape default_shape = { 1, 1, 2, 2, 2, 2, 6, 2, 4, 0, 0 };

static const struct pt_test_shape shapes[] = {
	{ 1, 1, 2, 2, 2, 2, 6, 2, 4, 0, 0 },    /* the firmware's default */
	{ 2, 2, 2, 2, 2, 2, 6, 2, 4, 0, 0 },    /* two endpoints, two ports */
	{ 16, 1, 1, 1, 1, 1, 6, 2, 4, 0, 0 },   /* 16 endpoints */
	{ 1, 16, 1, 1, 1, 1, 6, 2, 4, 0, 0 },   /* 16 DMA ports */
	{ 1, 1, 1, 4, 3, 1, 6, 2, 4, 0, 0 },    /* padded regions on every bus kind */
	{ 2, 1, 2, 2, 2, 2, 9, 3, 5, 0, 0 },    /* more reasons, histograms, bands */
	{ 1, 2, 2, 2, 2, 2, 6, 2, 4, 3, 2 },    /* DMA-probe brakes and histograms */
	{ 3, 3, 8, 5, 2, 7, 0, 0, 0, 0, 0 },    /* no reasons, no histograms */
	{ 1, 1, 1, 1, 1, 1, 1, 1, 12, 2, 1 },   /* one of each, many bands */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Unique names, round trips both ways, descriptions and units. */
static void check_layout(const struct pt_layout *l)
{
	unsigned n = pt_counter_count(l);
	char **names = calloc(n, sizeof *names);

	assert_non_null(names);
	assert_int_equal(n, l->endpoints * l->ep_channels);
	for (unsigned i = 0; i < n; i++) {
		char name[PT_COUNTER_NAME_LEN], desc[PT_COUNTER_DESC_LEN];
		struct pt_counter_info ci;
		unsigned back = ~0u;

		assert_int_equal(pt_counter_name(l, i, name, sizeof name), 0);
		assert_int_equal(pt_counter_index(l, name, &back, msg, sizeof msg), 0);
		assert_int_equal(back, i);
		assert_int_equal(pt_counter_description(l, i, desc, sizeof desc), 0);
		assert_true(strlen(desc) > 20 && !strchr(desc, '\n'));
		assert_non_null(pt_counter_unit(l, i));
		assert_int_equal(pt_counter_decode(l, i, &ci), 0);
		assert_int_equal(ci.ep, i / l->ep_channels);
		assert_string_equal(pt_counter_unit(l, i), pt_counter_unit_name(ci.unit));
		/* lower case, digits, '_' and '.' only */
		for (const char *p = name; *p; p++)
			assert_true((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' ||
				    *p == '.');
		names[i] = strdup(name);
		assert_non_null(names[i]);
		/* a buffer too short for the name says so */
		assert_int_equal(pt_counter_name(l, i, name, 4), -ERANGE);
	}
	qsort(names, n, sizeof *names, cmp_str);
	for (unsigned i = 1; i < n; i++)
		if (strcmp(names[i - 1], names[i]) == 0)
			fail_msg("two counters are named %s", names[i]);
	for (unsigned i = 0; i < n; i++)
		free(names[i]);
	free(names);
	/* beyond the named counters */
	char name[PT_COUNTER_NAME_LEN];
	struct pt_counter_info ci;
	assert_int_equal(pt_counter_name(l, n, name, sizeof name), -ENOENT);
	assert_string_equal(name, "");
	assert_int_equal(pt_counter_decode(l, n, &ci), -ENOENT);
	assert_null(pt_counter_unit(l, n));
}

static void test_every_layout(void **state)
{
	(void)state;
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		struct pt_layout l;

		pt_test_layout(&shapes[s], 48, &l);
		check_layout(&l);
	}
}

/* What the decoded struct says for some counters whose index the layout
 * helpers give. */
static void test_decode(void **state)
{
	struct pt_layout l;
	struct pt_counter_info ci;
	char name[PT_COUNTER_NAME_LEN];

	(void)state;
	pt_test_layout(&shapes[4], 48, &l); /* RQ 1, RC 4, UP 3, DOWN 1 regions */
	assert_int_equal(pt_counter_decode(&l, pt_idx_bus(&l, 0, 0, PT_F_REGION0 + 2), &ci), 0);
	assert_int_equal(ci.kind, PT_COUNTER_BUS);
	assert_int_equal(ci.bus, 0);
	assert_int_equal(ci.number, 2);
	assert_true(ci.padded);
	assert_int_equal(ci.unit, PT_UNIT_CYCLES);
	assert_int_equal(pt_counter_decode(&l, pt_idx_bus(&l, 0, 1, PT_F_REGION0 + 3), &ci), 0);
	assert_false(ci.padded);
	assert_int_equal(pt_counter_decode(&l, pt_idx_bus(&l, 0, 3, PT_F_BACKPRESSURE), &ci), 0);
	assert_int_equal(ci.field, PT_F_BACKPRESSURE);
	assert_int_equal(ci.unit, PT_UNIT_CYCLES);
	assert_int_equal(pt_counter_decode(&l, pt_idx_bus(&l, 0, 2, PT_F_TRANSACTIONS), &ci), 0);
	assert_int_equal(ci.unit, PT_UNIT_TRANSACTIONS);
	assert_int_equal(pt_counter_name(&l, pt_idx_bus(&l, 0, 3, PT_F_REGION0 + 2), name, sizeof name),
			 0);
	assert_string_equal(name, "ep0.down0.region2_cycles");

	pt_test_layout(&shapes[5], 48, &l); /* 9 driven reasons, 3 histograms of 5 bands */
	assert_int_equal(pt_counter_name(&l, pt_idx_brake(&l, 1, 8), name, sizeof name), 0);
	assert_string_equal(name, "ep1.brake.reason8_cycles");
	assert_int_equal(pt_counter_name(&l, pt_idx_hist(&l, 1, 2, 4), name, sizeof name), 0);
	assert_string_equal(name, "ep1.hist.resource2.band4_cycles");
	assert_int_equal(pt_counter_name(&l, pt_idx_hist(&l, 0, 1, 4), name, sizeof name), 0);
	assert_string_equal(name, "ep0.hist.stfifo.band4_cycles");
	assert_int_equal(pt_counter_decode(&l, pt_idx_hist(&l, 1, 2, 4), &ci), 0);
	assert_int_equal(ci.kind, PT_COUNTER_HIST);
	assert_int_equal(ci.number, 2);
	assert_int_equal(ci.band, 4);

	pt_test_layout(&shapes[6], 48, &l); /* 3 DMA brakes, 2 DMA histograms of 4 bands */
	assert_int_equal(pt_counter_name(&l, pt_idx_dma_brake(&l, 0, 2), name, sizeof name), 0);
	assert_string_equal(name, "ep0.dma_brake.reason2_cycles");
	assert_int_equal(pt_counter_name(&l, pt_idx_dma_hist(&l, 0, 1, 3), name, sizeof name), 0);
	assert_string_equal(name, "ep0.dma_hist.resource1.band3_cycles");
	assert_int_equal(pt_idx_dma_hist(&l, 0, 1, 3), l.ep_channels - 1);
	assert_int_equal(pt_counter_decode(&l, pt_idx_dma_brake(&l, 0, 2), &ci), 0);
	assert_int_equal(ci.kind, PT_COUNTER_DMA_BRAKE);
	assert_int_equal(ci.number, 2);
}

static void test_unknown_names(void **state)
{
	static const char *const bad[] = {
		"", "ep", "ep0", "ep0.", ".ep0.rq.words", "ep00.rq.words", "ep01.rq.words",
		"ep+0.rq.words", "ep-1.rq.words", "ep4294967296.rq.words", "ep99999999999.rq.words",
		"EP0.rq.words", "ep0.RQ.words", "ep0.rq.word", "ep0.rq.words.", "ep0..words",
		"ep0.rq.words ", "ep0.rq.words\n", "ep2.rq.words", "ep0.up2.words", "ep0.up00.words",
		"ep0.down.words", "ep0.rq.region2_cycles", "ep0.rq.region0", "ep0.rq.region_cycles",
		"ep0.rq.backpressure", "ep0.up0.mvb", "ep0.rq.stall_cycles_cycles",
		"ep0.brake.reason0_cycles", "ep0.brake.reason6_cycles", "ep0.brake.no_free_tag",
		"ep0.brake.no_free_tag_cycles.x", "ep0.brake._cycles", "ep0.hist.resource0.none_cycles",
		"ep0.hist.tags.band0_cycles", "ep0.hist.tags.none", "ep0.hist.resource2.none_cycles",
		"ep0.hist.tags.band4_cycles", "ep0.dma_brake.reason0_cycles",
		"ep0.dma_hist.resource0.band0_cycles", "ep0.pcie_cycles_cycles", "ep0.cycles",
		"ep0.pcie_cycles.x", "ep0.rq.words.x.y", "ep0.*.words", "*",
		"ep0.rq.wordsxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	};
	struct pt_layout l;

	(void)state;
	pt_test_layout(&shapes[1], 48, &l); /* two endpoints: ep2 is unknown */
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		unsigned idx = 12345;

		msg[0] = '\0';
		if (pt_counter_index(&l, bad[i], &idx, msg, sizeof msg) != -ENOENT)
			fail_msg("'%s' was taken for counter %u", bad[i], idx);
		assert_int_equal(idx, 12345);
		assert_non_null(strstr(msg, "counter '"));
		assert_null(strchr(msg, '\n'));
	}
	pt_test_layout(&default_shape, 48, &l);
	assert_int_equal(pt_counter_index(&l, "ep1.rq.words", &(unsigned){ 0 }, msg, sizeof msg),
			 -ENOENT);
	assert_string_equal(msg, "counter 'ep1.rq.words': no such counter in this layout (1 "
				 "endpoint, 1 DMA port; names like ep0.rq.words are listed in "
				 "docs/counters.md)");
	assert_int_equal(pt_counter_index(&l, NULL, &(unsigned){ 0 }, NULL, 0), -ENOENT);
}

static void test_glob(void **state)
{
	struct pt_layout l;
	unsigned idx[16];

	(void)state;
	pt_test_layout(&shapes[1], 48, &l); /* 2 endpoints, 2 DMA ports */
	assert_int_equal(pt_counter_glob(&l, "ep*.down*.items", idx, 16), 4);
	assert_int_equal(idx[0], pt_idx_bus(&l, 0, 3, PT_F_ITEMS));
	assert_int_equal(idx[1], pt_idx_bus(&l, 0, 5, PT_F_ITEMS));
	assert_int_equal(idx[2], pt_idx_bus(&l, 1, 3, PT_F_ITEMS));
	assert_int_equal(idx[3], pt_idx_bus(&l, 1, 5, PT_F_ITEMS));
	/* more matches than room: the count, and the first ones */
	assert_int_equal(pt_counter_glob(&l, "ep*.*.words", idx, 2), 12);
	assert_int_equal(idx[0], pt_idx_bus(&l, 0, 0, PT_F_WORDS));
	assert_int_equal(pt_counter_glob(&l, "ep1.brake.*", idx, 16), 6);
	assert_int_equal(pt_counter_glob(&l, "*", idx, 16), 0);
	assert_int_equal(pt_counter_glob(&l, "ep0.*", idx, 16), 2); /* the two cycle counters */
	assert_int_equal(pt_counter_glob(&l, "ep0.hist.*.none_cycles", idx, 16), 2);
	assert_int_equal(pt_counter_glob(&l, "ep0.rq.words", idx, 16), 1);

	assert_true(pt_counter_match("ep*", "ep"));
	assert_true(pt_counter_match("ep*", "ep12"));
	assert_true(pt_counter_match("*p*", "ep0"));
	assert_true(pt_counter_match("**.*", "a.b"));
	assert_true(pt_counter_match("e*1*2", "e1x1x2"));
	assert_true(pt_counter_match("*_cycles", "region0_cycles"));
	assert_false(pt_counter_match("*", "a.b"));
	assert_false(pt_counter_match("ep*", "ep0.rq"));
	assert_false(pt_counter_match("ep0.*", "ep0.rq.words"));
	assert_false(pt_counter_match("*.*.words", "ep0.rq.items"));
	assert_false(pt_counter_match("e*1*2", "e1x1x2x"));
	assert_false(pt_counter_match("a.b", "a.b.c"));
	assert_false(pt_counter_match("a.b.c", "a.b"));
	assert_true(pt_counter_match("", ""));
	assert_false(pt_counter_match("", "a"));
}

/* The names of the firmware's default layout, literally. */
static const char *const default_names[] = {
	"ep0.pcie_cycles",
	"ep0.rq.words",
	"ep0.rq.stall_cycles",
	"ep0.rq.transactions",
	"ep0.rq.mvb_items",
	"ep0.rq.mvb_stall_cycles",
	"ep0.rq.items",
	"ep0.rq.region0_cycles",
	"ep0.rq.region1_cycles",
	"ep0.rc.words",
	"ep0.rc.stall_cycles",
	"ep0.rc.transactions",
	"ep0.rc.mvb_items",
	"ep0.rc.mvb_stall_cycles",
	"ep0.rc.items",
	"ep0.rc.region0_cycles",
	"ep0.rc.region1_cycles",
	"ep0.brake.no_free_tag_cycles",
	"ep0.brake.tag_not_ready_cycles",
	"ep0.brake.no_completion_space_cycles",
	"ep0.brake.no_completion_header_cycles",
	"ep0.brake.down_mfb_hold_cycles",
	"ep0.brake.down_mvb_hold_cycles",
	"ep0.hist.tags.none_cycles",
	"ep0.hist.tags.le_eighth_cycles",
	"ep0.hist.tags.le_half_cycles",
	"ep0.hist.tags.rest_cycles",
	"ep0.hist.stfifo.none_cycles",
	"ep0.hist.stfifo.le_eighth_cycles",
	"ep0.hist.stfifo.le_half_cycles",
	"ep0.hist.stfifo.rest_cycles",
	"ep0.dma_cycles",
	"ep0.up0.words",
	"ep0.up0.stall_cycles",
	"ep0.up0.transactions",
	"ep0.up0.mvb_items",
	"ep0.up0.mvb_stall_cycles",
	"ep0.up0.items",
	"ep0.up0.region0_cycles",
	"ep0.up0.region1_cycles",
	"ep0.down0.words",
	"ep0.down0.stall_cycles",
	"ep0.down0.transactions",
	"ep0.down0.mvb_items",
	"ep0.down0.mvb_stall_cycles",
	"ep0.down0.items",
	"ep0.down0.region0_cycles",
	"ep0.down0.region1_cycles",
};

static void test_default_names(void **state)
{
	struct pt_layout l;
	char name[PT_COUNTER_NAME_LEN], quoted[PT_COUNTER_NAME_LEN + 2];
	char *doc = pt_test_slurp(PT_TEST_DATA "/../docs/counters.md", NULL);

	(void)state;
	assert_non_null(doc);
	pt_test_layout(&default_shape, 48, &l);
	assert_int_equal(pt_counter_count(&l), sizeof default_names / sizeof default_names[0]);
	for (unsigned i = 0; i < pt_counter_count(&l); i++) {
		assert_int_equal(pt_counter_name(&l, i, name, sizeof name), 0);
		assert_string_equal(name, default_names[i]);
		snprintf(quoted, sizeof quoted, "`%s`", name);
		if (!strstr(doc, quoted))
			fail_msg("docs/counters.md does not list %s", quoted);
	}
	free(doc);
}

static void test_descriptions_and_units(void **state)
{
	struct pt_layout l;
	char d[PT_COUNTER_DESC_LEN];
	unsigned i;

	(void)state;
	pt_test_layout(&default_shape, 48, &l);
	assert_int_equal(pt_counter_index(&l, "ep0.brake.no_free_tag_cycles", &i, msg, sizeof msg), 0);
	assert_int_equal(pt_counter_description(&l, i, d, sizeof d), 0);
	assert_string_equal(d, "endpoint 0: PCIe clock cycles in which a read waited for a free "
			       "PCIe tag (UP stream: no free PCIe tag)");
	assert_int_equal(pt_counter_index(&l, "ep0.down0.items", &i, msg, sizeof msg), 0);
	assert_string_equal(pt_counter_unit(&l, i), "items");
	assert_int_equal(pt_counter_description(&l, i, d, sizeof d), 0);
	assert_string_equal(d, "endpoint 0, PTC -> DMA0 (DOWN): MFB items transferred (4 bytes each)");
	assert_int_equal(pt_counter_index(&l, "ep0.hist.tags.le_eighth_cycles", &i, msg, sizeof msg),
			 0);
	assert_int_equal(pt_counter_description(&l, i, d, sizeof d), 0);
	assert_string_equal(d, "endpoint 0: PCIe clock cycles with at most 1/8 (but some) of the "
			       "PCIe tags free (of 256)");
	assert_int_equal(pt_counter_index(&l, "ep0.rq.words", &i, msg, sizeof msg), 0);
	assert_string_equal(pt_counter_unit(&l, i), "words");
	assert_int_equal(pt_counter_index(&l, "ep0.rc.transactions", &i, msg, sizeof msg), 0);
	assert_string_equal(pt_counter_unit(&l, i), "transactions");
	assert_int_equal(pt_counter_index(&l, "ep0.dma_cycles", &i, msg, sizeof msg), 0);
	assert_string_equal(pt_counter_unit(&l, i), "cycles");
	pt_test_layout(&shapes[4], 48, &l);
	assert_int_equal(pt_counter_index(&l, "ep0.rq.region3_cycles", &i, msg, sizeof msg), 0);
	assert_int_equal(pt_counter_description(&l, i, d, sizeof d), 0);
	assert_non_null(strstr(d, "padding"));
	/* the JSON keys of upstream, beside the machine names */
	assert_string_equal(pt_bus_field_info(PT_F_BACKPRESSURE)->json_key, "backpressure");
	assert_string_equal(pt_bus_field_info(PT_F_BACKPRESSURE)->name, "stall_cycles");
	assert_null(pt_bus_field_info(PT_F_REGION0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_layout),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_default_names),
		cmocka_unit_test(test_descriptions_and_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

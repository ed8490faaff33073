/*
 * In-process conformance of the renderers against the golden outputs of the
 * upstream tool (tests/conformance/report/): every case is replayed through
 * the image backend with the register sequence of the tool
 * (register-image.md section 4), rendered, and compared byte for byte with
 * NAME.out (NAME.mod.out where it exists).  Must-fail cases must fail in
 * the reader with a one-line message.
 *
 * Then every reading is written back as a register image
 * (pt_render_regs_header/image), replayed again, and must give identical
 * readings and an identical report.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/render.h"
#include "pcie_telemetry/telemetry.h"
#include "test_report_util.h"

static char *render_report(const struct measured *m, bool json, int *rc)
{
	struct pt_report rep = {
		.layout = &m->dev.layout,
		.reading = m->interval ? &m->diff : &m->second,
		.interval = m->interval,
		.seconds = m->seconds,
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	*rc = json ? pt_render_json(f, &rep) : pt_render_text(f, &rep);
	fclose(f);
	return text;
}

/* First differing line of two texts, for the failure message. */
static void report_diff(const char *name, const char *got, const char *want)
{
	unsigned line = 1;
	const char *g = got, *w = want;
	while (*g && *g == *w) {
		if (*g == '\n')
			line++;
		g++;
		w++;
	}
	while (g > got && g[-1] != '\n') {
		g--;
		w--;
	}
	print_message("%s: line %u differs\n  got:  %.*s\n  want: %.*s\n", name, line,
		      (int)strcspn(g, "\n"), g, (int)strcspn(w, "\n"), w);
}

static bool readings_equal(const struct pt_reading *a, const struct pt_reading *b, unsigned eps)
{
	if (a->entries != b->entries || a->status != b->status || a->time != b->time)
		return false;
	if (memcmp(a->cnt, b->cnt, a->entries * sizeof a->cnt[0]) != 0)
		return false;
	for (unsigned ep = 0; ep < eps; ep++)
		if (a->pcie_status[ep] != b->pcie_status[ep] || a->pcie_tags[ep] != b->pcie_tags[ep] ||
		    a->pcie_stfifo[ep] != b->pcie_stfifo[ep])
			return false;
	return true;
}

/* Record the readings of m as an image, replay it, compare. */
static bool roundtrip(const char *name, const struct measured *m, bool json, const char *report)
{
	char *img = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&img, &len);
	assert_non_null(f);
	int rc = pt_render_regs_header(f, PT_VERSION_STRING, "nfb-pcie-telemetry -t 1", name);
	if (rc == 0 && m->interval)
		rc = pt_render_regs_image(f, &m->dev.layout, &m->first);
	if (rc == 0)
		rc = pt_render_regs_image(f, &m->dev.layout, &m->second);
	fclose(f);
	bool ok = false;
	char msg[PT_BUS_MSG_LEN] = "";
	struct pt_bus *bus = NULL;
	struct measured again;
	memset(&again, 0, sizeof again);
	if (rc) {
		print_message("%s: recording failed: %d\n", name, rc);
		goto out;
	}
	rc = pt_bus_open_image_mem("recorded.regs", img, len, &bus, msg, sizeof msg);
	if (rc) {
		print_message("%s: the recorded image is refused: %s\n", name, msg);
		goto out;
	}
	rc = measure(bus, m->interval, &again, msg, sizeof msg);
	if (rc) {
		print_message("%s: replay of the recorded image failed: %s\n", name, msg);
		goto out;
	}
	unsigned eps = m->dev.layout.endpoints;
	if (memcmp(again.dev.layout.cfg, m->dev.layout.cfg, sizeof m->dev.layout.cfg) != 0 ||
	    !readings_equal(&again.second, &m->second, eps) ||
	    (m->interval && !readings_equal(&again.first, &m->first, eps))) {
		print_message("%s: the recorded image gives different readings\n", name);
		goto out;
	}
	int rrc;
	char *text = render_report(&again, json, &rrc);
	if (rrc || strcmp(text, report) != 0) {
		print_message("%s: the recorded image gives a different report\n", name);
		free(text);
		goto out;
	}
	free(text);
	ok = true;
out:
	measured_free(&again);
	if (bus)
		pt_bus_close(bus);
	free(img);
	return ok;
}

static void test_report_cases(void **state)
{
	(void)state;
	char *names[512];
	unsigned n = pt_test_report_cases(names, 512);

	unsigned passed = 0, failed = 0, skipped = 0;
	for (unsigned i = 0; i < n; i++) {
		const char *name = names[i];
		char path[1024];
		struct args a;
		int want_rc;
		pt_test_case_args(name, &a, &want_rc);
		if (a.clear) {
			/* -c takes no reading and renders nothing: the command's test */
			skipped++;
			continue;
		}
		snprintf(path, sizeof path, "%s/%s.regs", CASE_DIR, name);
		char msg[PT_BUS_MSG_LEN] = "";
		struct pt_bus *bus = NULL;
		struct measured m;
		memset(&m, 0, sizeof m);
		int rc = pt_bus_open_image(path, &bus, msg, sizeof msg);
		if (rc == 0)
			rc = measure(bus, a.interval_mode, &m, msg, sizeof msg);
		bool ok;
		if (want_rc != 0) {
			/* must fail, with a one-line message */
			ok = rc < 0 && msg[0] && !strchr(msg, '\n');
			if (!ok)
				print_message("%s: must fail, got rc %d, message '%s'\n", name, rc, msg);
		} else if (rc < 0) {
			ok = false;
			print_message("%s: %s\n", name, msg);
		} else {
			char *want = pt_test_case_golden(name);
			int rrc;
			char *got = render_report(&m, a.json, &rrc);
			ok = rrc == 0 && strcmp(got, want) == 0;
			if (rrc)
				print_message("%s: renderer returned %d\n", name, rrc);
			else if (!ok)
				report_diff(name, got, want);
			if (ok)
				ok = roundtrip(name, &m, a.json, got);
			free(got);
			free(want);
		}
		measured_free(&m);
		if (bus)
			pt_bus_close(bus);
		if (ok)
			passed++;
		else
			failed++;
	}
	for (unsigned i = 0; i < n; i++)
		free(names[i]);
	print_message("report conformance: %u passed, %u failed, %u left to the command test\n",
		      passed, failed, skipped);
	assert_int_equal(failed, 0);
	assert_true(passed > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

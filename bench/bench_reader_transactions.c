/*
 * Bus transactions of one reading (SNAPSHOT, busy poll, the counter
 * window, STATUS and the per-endpoint registers) of the four_ep_wide case
 * (4 endpoints, 256 counters), against a word-by-word read-out of the
 * same data: 2 x ENTRIES counter words plus STATUS and the three
 * registers of each endpoint.
 *
 * Usage: bench_reader_transactions REPO_ROOT
 */
#include <stdio.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/telemetry.h"

int main(int argc, char **argv)
{
	char path[4096], msg[PT_BUS_MSG_LEN];
	struct pt_bus *b;
	struct pt_dev d;
	struct pt_reading r;
	unsigned long before;

	if (argc != 2) {
		fprintf(stderr, "usage: %s REPO_ROOT\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/tests/conformance/report/four_ep_wide.regs", argv[1]);
	if (pt_bus_open_image(path, &b, msg, sizeof(msg)) != 0 ||
	    pt_dev_init(&d, b, msg, sizeof(msg)) != 0 ||
	    pt_reading_init(&r, d.layout.entries) != 0) {
		fprintf(stderr, "bench_reader_transactions: %s\n", msg);
		return 1;
	}
	before = pt_bus_transactions(b);
	if (pt_dev_read(&d, &r, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "bench_reader_transactions: %s\n", msg);
		return 1;
	}
	printf("reading_bus_transactions %lu count\n", pt_bus_transactions(b) - before);
	printf("reading_naive_transactions %u count\n",
	       2 * d.layout.entries + 1 + 3 * d.layout.endpoints);
	pt_reading_free(&r);
	pt_bus_close(b);
	return 0;
}

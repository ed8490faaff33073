/*
 * pt_filecard: a card that two processes share, for the tests of the
 * exporter.  A simulated card lives inside one process, so a clear by
 * another process (nfb-pcie-telemetry -c) can only be tried on a card
 * that is outside both: this program keeps the counters of a component
 * file (mkdev of tests/sh/component_dev.sh, opened with -d mmap:FILE)
 * running in real time, and acts as the firmware does on a CLEAR written
 * to COMMAND by anyone: every counter starts again from 0.
 *
 * Counters: every cycle counter counts HZ per second on the PCIe clock
 * and HZ/2 on the DMA clock, every MFB items counter 8 per cycle of its
 * clock, every other counter k a fixed share of its probe's cycles
 * ((k mod 5) + 1 tenths), all modulo 2^CNT_WIDTH of the file's layout
 * (CNT_WIDTH, when given, replaces the file's).
 *
 * As the firmware, it writes the counter window only on a SNAPSHOT and
 * shows STATUS busy until then: a reader (SNAPSHOT, wait while busy, read)
 * never sees a counter half written.  Busy comes back 20 ms after a
 * SNAPSHOT or CLEAR was served, long after any read-out ended.
 *
 * Usage: pt_filecard FILE HZ SECONDS [CNT_WIDTH]
 * Prints "ready" once the counters run and "clear N" after each clear;
 * ends after SECONDS (or on SIGTERM/SIGINT).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pcie_telemetry/layout.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Is counter i on the DMA clock? */
static int dma_domain(const struct pt_layout *l, unsigned i)
{
	struct pt_counter_info ci;

	pt_counter_decode(l, i, &ci);
	return ci.kind == PT_COUNTER_DMA_CYCLES || ci.kind == PT_COUNTER_DMA_BRAKE ||
	       ci.kind == PT_COUNTER_DMA_HIST || (ci.kind == PT_COUNTER_BUS && ci.bus >= 2);
}

static void write_counters(const struct pt_layout *l, volatile uint32_t *regs, double t,
			   double hz)
{
	uint64_t mask = l->cnt_width >= 64 ? UINT64_MAX : (UINT64_C(1) << l->cnt_width) - 1;
	unsigned n = pt_counter_count(l);

	for (unsigned i = 0; i < n; i++) {
		struct pt_counter_info ci;
		double cycles = t * (dma_domain(l, i) ? hz / 2 : hz);
		uint64_t v;

		pt_counter_decode(l, i, &ci);
		if (ci.kind == PT_COUNTER_PCIE_CYCLES || ci.kind == PT_COUNTER_DMA_CYCLES)
			v = (uint64_t)cycles;
		else if (ci.kind == PT_COUNTER_BUS && ci.field == PT_F_ITEMS)
			v = (uint64_t)(cycles * 8);
		else
			v = (uint64_t)(cycles * (double)(i % 5 + 1) / 10.0);
		*(volatile uint64_t *)(void *)(regs + pt_addr_counter(l->cnt_base, i, 0) / 4) =
			v & mask;
	}
}

/* The file's layout, with CNT_WIDTH replaced when width is not 0. */
static int layout_of(volatile uint32_t *regs, unsigned width, struct pt_layout *l, char *msg,
		     size_t msglen)
{
	uint32_t cfg[PT_CFG_REGS];
	unsigned w = PT_REG_NUM(pt_field_reg(PT_FIELD_LAYOUT_CNT_WIDTH));

	if (width) {
		uint32_t mask = pt_field_put(PT_FIELD_LAYOUT_CNT_WIDTH, pt_field_max(PT_FIELD_LAYOUT_CNT_WIDTH));

		regs[w] = (regs[w] & ~mask) | pt_field_put(PT_FIELD_LAYOUT_CNT_WIDTH, width);
	}
	for (unsigned i = 0; i < PT_CFG_REGS; i++)
		cfg[i] = regs[i];
	return pt_layout_decode(cfg, l, msg, msglen);
}

int main(int argc, char **argv)
{
	volatile uint32_t *regs, *command, *status;
	struct pt_layout l;
	char msg[256];
	double hz, end, t0, ready = 0;
	unsigned clears = 0;
	int fd;

	if ((argc != 4 && argc != 5) || (hz = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: pt_filecard FILE HZ SECONDS [CNT_WIDTH]\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	regs = fd < 0 ? MAP_FAILED : mmap(NULL, PT_COMP_SPAN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (regs == MAP_FAILED) {
		perror(argv[1]);
		return 1;
	}
	if (layout_of(regs, argc == 5 ? (unsigned)atoi(argv[4]) : 0, &l, msg, sizeof msg) < 0) {
		fprintf(stderr, "pt_filecard: %s: %s\n", argv[1], msg);
		return 1;
	}
	command = regs + PT_REG_NUM(PT_REG_COMMAND);
	status = regs + PT_REG_NUM(PT_REG_STATUS);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	t0 = now();
	end = t0 + atof(argv[3]);
	write_counters(&l, regs, 0, hz);
	*status = PT_STATUS_BUSY;
	printf("ready\n");
	fflush(stdout);
	while (!stop && now() < end) {
		struct timespec ms = { 0, 1000000 };
		uint32_t cmd = *command;

		if (cmd & PT_CMD_CLEAR) {
			t0 = now();
			printf("clear %u\n", ++clears);
			fflush(stdout);
		}
		if (cmd & (PT_CMD_CLEAR | PT_CMD_SNAPSHOT)) {
			write_counters(&l, regs, now() - t0, hz);
			ready = now();
			*status = 0;
		}
		if (cmd)
			*command = 0;
		if (ready > 0 && now() - ready > 0.02) {
			*status = PT_STATUS_BUSY;
			ready = 0;
		}
		nanosleep(&ms, NULL);
	}
	return 0;
}

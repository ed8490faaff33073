/*
 * pcie-telemetry: the presets of the simulated card and the defaults
 * every scenario starts from.
 *
 * A preset is a scenario text, parsed by scenario.c like a file, so a
 * preset is exactly what a user could write (docs/scenarios.md lists
 * them).  The defaults are the values of every key before any text, then
 * the default load of plain `sim` on top.
 */
#include <stdio.h>
#include <string.h>

#include "env/env_priv.h"

/* ---- presets --------------------------------------------------------- */

struct preset {
	const char *name, *summary, *text;
};

static const struct preset presets[] = {
	{ "idle", "link up, no DMA traffic",
	  "[card]\nname = idle\n[dma]\nread_gbps = 0\nwrite_gbps = 0\n" },
	{ "rx-line-rate", "card writes 4 KiB buffers to host memory as fast as a Gen3 x16 link allows",
	  "[card]\nname = rx-line-rate\n"
	  "[generics]\nDMA_UP_MFB_REGIONS = 4\nDMA_DOWN_MFB_REGIONS = 4\nDMA_EOF_POS_WIDTH = 3\n"
	  "[endpoint]\nlink_gen = 3\nlink_width = 16\nmps = 256\n"
	  "[dma]\nread_gbps = 0\nwrite_gbps = max\nwrite_size = 4096\nalign = 4096\n" },
	{ "tx-64B", "card reads 64 B blocks from host memory as fast as it can",
	  "[card]\nname = tx-64B\n"
	  "[dma]\nread_gbps = max\nread_size = 64\nwrite_gbps = 0\n" },
	{ "tx-1500B", "card reads 1500 B packets from host memory as fast as it can",
	  "[card]\nname = tx-1500B\n"
	  "[dma]\nread_gbps = max\nread_size = 1500\nalign = 2048\nwrite_gbps = 0\n" },
	{ "tx-4K", "card reads 4 KiB blocks through a 4-region DMA bus, the RC bus limits",
	  "[card]\nname = tx-4K\n"
	  "[generics]\nDMA_UP_MFB_REGIONS = 4\nDMA_DOWN_MFB_REGIONS = 4\n"
	  "[dma]\nread_gbps = max\nread_size = 4096\nalign = 4096\nwrite_gbps = 0\n" },
	{ "mixed", "two DMA ports, reads and writes of mixed sizes",
	  "[card]\nname = mixed\n[generics]\nDMA_PORTS = 2\n"
	  "[dma]\nread_gbps = 35\nwrite_gbps = 35\nread_size = 64:4,256:2,1500:3,4096:1\n"
	  "write_size = 64:4,512:1,1500:4\n" },
	{ "tags-starved", "no extended tags (32 tags) and a 2 us host latency starve the reads",
	  "[card]\nname = tags-starved\n"
	  "[endpoint]\next_tag = no\nhost_latency_ns = 2000\nhost_latency_jitter_ns = 200\n"
	  "[dma]\nread_gbps = max\nread_size = 4096\nalign = 4096\nwrite_gbps = 0\n" },
	{ "completion-space-starved", "a 64-word storage FIFO limits the reads in flight",
	  "[card]\nname = completion-space-starved\n[generics]\nSTFIFO_CAPACITY = 64\n"
	  "[endpoint]\nhost_latency_ns = 1000\n"
	  "[dma]\nread_gbps = max\nread_size = 4096\nalign = 4096\nwrite_gbps = 0\n" },
	{ "slow-dma-consumer", "the DMA takes DOWN data in only 30 % of its cycles",
	  "[card]\nname = slow-dma-consumer\n"
	  "[dma]\nread_gbps = max\nread_size = 64:1,1500:2\nwrite_gbps = 0\ndown_ready_pct = 30\n" },
	{ "link-down", "the PCIe link is down, nothing moves",
	  "[card]\nname = link-down\n[endpoint]\nlink_up = no\n" },
	{ "two-endpoints", "two PCIe endpoints (x8 each): 40+30 and 20+50 Gbit/s of reads+writes",
	  "[card]\nname = two-endpoints\n[generics]\nPCIE_ENDPOINTS = 2\n"
	  "[endpoint]\nlink_width = 8\n"
	  "[dma]\nread_gbps = 40\nwrite_gbps = 30\nread_size = 1500\nwrite_size = 1500\n"
	  "[dma 1.0]\nread_gbps = 20\nwrite_gbps = 50\n" },
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

size_t pte_preset_count(void)
{
	return NPRESETS;
}

const char *pte_preset_name(size_t i)
{
	return i < NPRESETS ? presets[i].name : NULL;
}

const char *pte_preset_summary(size_t i)
{
	return i < NPRESETS ? presets[i].summary : NULL;
}

const char *pte_preset_text(const char *name)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (name && strcmp(name, presets[i].name) == 0)
			return presets[i].text;
	return NULL;
}

/* The default scenario: the realistic mixed load of plain `sim`. */
static const char default_text[] = "[dma]\n"
				   "read_gbps = 30\n"
				   "write_gbps = 30\n"
				   "read_size = 64:3,256:2,1500:4,4096:1\n"
				   "write_size = 64:3,512:1,1500:4\n";

void pte_scenario_default(struct pte_scenario *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "sim");
	ptm_generics_default(&s->g);
	s->pcie_mhz = 400.0;
	s->dma_mhz = 200.0;
	s->mi_mhz = 125.0;
	s->seed = 1;
	s->warmup_us = 50.0;
	s->mmio_read_ns = 800.0;
	s->mmio_write_ns = 100.0;
	for (unsigned e = 0; e < PTM_MAX_ENDPOINTS; e++) {
		struct pte_ep_cfg *c = &s->ep[e];
		c->link_gen = 4;
		c->link_width = 16;
		c->link_up = 1;
		c->mps = 256;
		c->mrrs = 512;
		c->rcb = 64;
		c->ext_tag = 1;
		c->tag10b = 0;
		c->tags = 0;
		c->cpl_headers = 0;
		c->tag_ready_delay = 4;
		c->latency_ns = 800.0;
		c->jitter_ns = 200.0;
		c->lat_kind = PTE_LAT_UNIFORM;
		c->host_cpl_bytes = 0;
		c->dllp_overhead = 0.03;
		c->tx_buffer_bytes = 8192;
		c->ptc_requests = 64;
		c->ptc_read_group = 8;
		c->ptc_data_bytes = 8192;
		c->down_fifo_words = 128;
		c->down_fifo_headers = 32;
		for (unsigned p = 0; p < PTM_MAX_DMA_PORTS; p++) {
			struct pte_port_cfg *q = &c->port[p];
			q->read_gbps = 0;
			q->write_gbps = 0;
			q->read_size.n = q->write_size.n = 1;
			q->read_size.size[0] = q->write_size.size[0] = 1500;
			q->read_size.weight[0] = q->write_size.weight[0] = 1.0;
			q->align = 64;
			q->down_ready = 1.0;
			q->down_hdr_ready = 1.0;
		}
	}
}

const char *pte_scenario_default_text(void)
{
	return default_text;
}

void pte_preset_list(char *out, size_t len)
{
	if (!len)
		return;
	out[0] = 0;
	for (size_t i = 0; i < NPRESETS; i++) {
		strncat(out, i ? ", " : "", len - strlen(out) - 1);
		strncat(out, presets[i].name, len - strlen(out) - 1);
	}
}

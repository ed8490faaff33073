/*
 * pcie-telemetry: the names of the directions and causes of the diagnosis,
 * and the advice line of each cause (docs/diagnosis.md lists them).
 */
#include "pcie_telemetry/diagnose.h"

static const char *const dir_names[PT_DIAG_DIRS] = { "read", "write" };

const char *pt_diag_dir_name(enum pt_diag_dir d)
{
	return (unsigned)d < PT_DIAG_DIRS ? dir_names[d] : NULL;
}

/* Name and advice (read, write) of every cause. */
static const struct {
	const char *name;
	const char *advice[PT_DIAG_DIRS];
} causes[PT_DIAG_CAUSES] = {
	[PT_CAUSE_IDLE] = { "idle",
			    { "nothing to tune in this direction",
			      "nothing to tune in this direction" } },
	[PT_CAUSE_LINK_DOWN] = { "link-down",
				 { "the PCIe link is down: check the slot, the card's PCIe core and "
				   "the host (lspci, dmesg); nothing else in the report matters",
				   "the PCIe link is down: check the slot, the card's PCIe core and "
				   "the host (lspci, dmesg); nothing else in the report matters" } },
	[PT_CAUSE_SOURCE] = { "source",
			      { "no stage is full and the DMA's reads do not wait: the card "
				"reads what the DMA asks for; more load would go through",
				"no stage is full and the writes do not wait: the card writes what "
				"the DMA offers; more load would go through" } },
	[PT_CAUSE_PCIE_LINK] = { "pcie-link",
				 { "the completions fill the PCIe side (the RC bus or the link in "
				   "either direction): only more PCIe bandwidth helps (a wider or "
				   "faster link, a second endpoint); tags and MRRS will not",
				   "the endpoint takes writes only as fast as the link sends them: "
				   "a larger MPS carries fewer headers per byte, otherwise only more "
				   "PCIe bandwidth (a wider or faster link, a second endpoint) helps" } },
	[PT_CAUSE_PCIE_ENDPOINT] = { "pcie-endpoint",
				     { "the endpoint refuses requests although RQ is not kept "
				       "busy: its own limit (the host's flow-control credits, the "
				       "Hard IP's buffers), not the link's bandwidth",
				       "the endpoint refuses writes although RQ is not kept busy: "
				       "its own limit (the host's posted credits, the Hard IP's "
				       "buffers), not the link's bandwidth" } },
	[PT_CAUSE_PCIE_TAGS] = { "pcie-tags",
				 { "reads wait for a free tag: more tags in flight (extended or "
				   "10-bit tags) or larger reads (MRRS) carry more data per round "
				   "trip, a shorter round trip (local NUMA node, IOMMU pass-through) "
				   "frees them sooner",
				   "writes wait behind reads that wait for a free tag: more tags, "
				   "larger reads or a shorter round trip help both" } },
	[PT_CAUSE_TAG_FIFO] = { "tag-fifo",
				{ "tags are free but the tag FIFO has not delivered them yet: a "
				  "property of the PTC's tag FIFO latency, not a shortage; more tags "
				  "will not help",
				  "writes wait behind reads held by the tag FIFO's latency: a "
				  "property of the PTC, not a shortage" } },
	[PT_CAUSE_COMPLETION_SPACE] = { "completion-space",
					{ "no room can be reserved for more completions although the "
					  "storage FIFO drains: it is small for bandwidth x round trip; "
					  "a larger STFIFO_CAPACITY, smaller reads or a shorter round "
					  "trip help, more tags will not",
					  "writes wait behind reads that find no room for their "
					  "completions: a larger storage FIFO or a shorter round trip "
					  "help both" } },
	[PT_CAUSE_COMPLETION_HEADERS] = { "completion-headers",
					  { "the Hard IP's completion header buffer is full: fewer, "
					    "larger completions (RCB 128 B, the host's completion "
					    "size) or more header credits in the Hard IP help",
					    "writes wait behind reads that find no completion header "
					    "entry: more header credits in the Hard IP help both" } },
	[PT_CAUSE_DMA_CONSUMER] = { "dma-consumer",
				    { "the DMA side does not take the read data: look at the "
				      "consumer behind the DMA port (its buffer towards the "
				      "network, descriptors refilled too late); PCIe settings "
				      "will not help",
				      "writes wait behind reads whose data the DMA side does not "
				      "take: the consumer behind the DMA port limits both" } },
	[PT_CAUSE_DMA_BUS] = { "dma-bus",
			       { "the DMA bus moves a word in every cycle: its width at the DMA "
				 "clock is the limit; a wider bus, a faster DMA clock or another "
				 "DMA port would help, PCIe settings will not",
				 "the DMA bus moves a word in every cycle: its width at the DMA "
				 "clock is the limit; a wider bus, a faster DMA clock or another "
				 "DMA port would help, PCIe settings will not" } },
};

const char *pt_diag_cause_name(enum pt_diag_cause c)
{
	return (unsigned)c < PT_DIAG_CAUSES ? causes[c].name : NULL;
}

const char *pt_diag_cause_advice(enum pt_diag_cause c, enum pt_diag_dir d)
{
	if ((unsigned)c >= PT_DIAG_CAUSES || (unsigned)d >= PT_DIAG_DIRS)
		return NULL;
	return causes[c].advice[d];
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * SMMUv3 command encoding, and the range cover for range invalidation
 * (SMMUv3.2 RIL): pure functions, no device.
 */
#include <linux/bitops.h>
#include <linux/string.h>

#include "smmuv3.h"

static void smmuv3_cmd_init(u64 *cmd, u8 op)
{
	cmd[0] = FIELD_PREP(CMD_0_OP, op);
	cmd[1] = 0;
}

/**
 * smmuv3_cmd_tlbi_nh_va() - CMD_TLBI_NH_VA for one address
 * @cmd: two double words
 * @asid: the context's ASID
 * @iova: the address
 * @leaf: last-level entries only
 */
void smmuv3_cmd_tlbi_nh_va(u64 *cmd, u16 asid, unsigned long iova, bool leaf)
{
	smmuv3_cmd_init(cmd, CMD_OP_TLBI_NH_VA);
	cmd[0] |= FIELD_PREP(CMD_TLBI_0_ASID, asid);
	cmd[1] |= (iova & CMD_TLBI_1_ADDR) | (leaf ? CMD_TLBI_1_LEAF : 0);
}
EXPORT_SYMBOL_GPL(smmuv3_cmd_tlbi_nh_va);

/**
 * smmuv3_cmd_tlbi_nh_va_range() - CMD_TLBI_NH_VA for a RIL range
 * @cmd: two double words
 * @asid: the context's ASID
 * @r: the span, from smmuv3_range_next()
 * @tg: log2 of the translation granule (12, 14 or 16)
 * @ttl: level of the leaf entries, or 0 if not known
 * @leaf: last-level entries only
 */
void smmuv3_cmd_tlbi_nh_va_range(u64 *cmd, u16 asid,
				 const struct smmuv3_range *r, unsigned int tg,
				 unsigned int ttl, bool leaf)
{
	smmuv3_cmd_tlbi_nh_va(cmd, asid, r->iova, leaf);
	cmd[0] |= FIELD_PREP(CMD_TLBI_0_NUM, r->num) |
		  FIELD_PREP(CMD_TLBI_0_SCALE, r->scale);
	/* TG encodes 4K, 16K, 64K as 1, 2, 3; 0 would mean "not a range". */
	cmd[1] |= FIELD_PREP(CMD_TLBI_1_TG, (tg - 10) / 2) |
		  FIELD_PREP(CMD_TLBI_1_TTL, ttl);
}
EXPORT_SYMBOL_GPL(smmuv3_cmd_tlbi_nh_va_range);

/**
 * smmuv3_cmd_tlbi_nh_asid() - CMD_TLBI_NH_ASID
 * @cmd: two double words
 * @asid: the ASID whose entries all go
 */
void smmuv3_cmd_tlbi_nh_asid(u64 *cmd, u16 asid)
{
	smmuv3_cmd_init(cmd, CMD_OP_TLBI_NH_ASID);
	cmd[0] |= FIELD_PREP(CMD_TLBI_0_ASID, asid);
}
EXPORT_SYMBOL_GPL(smmuv3_cmd_tlbi_nh_asid);

/**
 * smmuv3_cmd_tlbi_s2_ipa() - CMD_TLBI_S2_IPA for one address
 * @cmd: two double words
 * @vmid: the context's VMID
 * @ipa: the address
 * @leaf: last-level entries only
 */
void smmuv3_cmd_tlbi_s2_ipa(u64 *cmd, u16 vmid, unsigned long ipa, bool leaf)
{
	smmuv3_cmd_init(cmd, CMD_OP_TLBI_S2_IPA);
	cmd[0] |= FIELD_PREP(CMD_TLBI_0_VMID, vmid);
	cmd[1] |= ((u64)ipa & CMD_TLBI_1_IPA) | (leaf ? CMD_TLBI_1_LEAF : 0);
}
EXPORT_SYMBOL_GPL(smmuv3_cmd_tlbi_s2_ipa);

/**
 * smmuv3_cmd_tlbi_s12_vmall() - CMD_TLBI_S12_VMALL
 * @cmd: two double words
 * @vmid: the VMID whose entries all go
 */
void smmuv3_cmd_tlbi_s12_vmall(u64 *cmd, u16 vmid)
{
	smmuv3_cmd_init(cmd, CMD_OP_TLBI_S12_VMALL);
	cmd[0] |= FIELD_PREP(CMD_TLBI_0_VMID, vmid);
}
EXPORT_SYMBOL_GPL(smmuv3_cmd_tlbi_s12_vmall);

/**
 * smmuv3_cmd_tlbi_nh_all() - CMD_TLBI_NH_ALL: every non-hyp stage-1 entry
 * @cmd: two double words
 */
void smmuv3_cmd_tlbi_nh_all(u64 *cmd)
{
	smmuv3_cmd_init(cmd, CMD_OP_TLBI_NH_ALL);
}
EXPORT_SYMBOL_GPL(smmuv3_cmd_tlbi_nh_all);

/**
 * smmuv3_cmd_tlbi_nsnh_all() - CMD_TLBI_NSNH_ALL: everything, at reset
 * @cmd: two double words
 */
void smmuv3_cmd_tlbi_nsnh_all(u64 *cmd)
{
	smmuv3_cmd_init(cmd, CMD_OP_TLBI_NSNH_ALL);
}
EXPORT_SYMBOL_GPL(smmuv3_cmd_tlbi_nsnh_all);

/**
 * smmuv3_cmd_cfgi_ste() - CMD_CFGI_STE: forget a cached stream table entry
 * @cmd: two double words
 * @sid: the stream
 */
void smmuv3_cmd_cfgi_ste(u64 *cmd, u32 sid)
{
	smmuv3_cmd_init(cmd, CMD_OP_CFGI_STE);
	cmd[0] |= FIELD_PREP(CMD_CFGI_0_SID, sid);
}
EXPORT_SYMBOL_GPL(smmuv3_cmd_cfgi_ste);

/**
 * smmuv3_cmd_cfgi_all() - CMD_CFGI_ALL: forget every cached configuration
 * @cmd: two double words
 */
void smmuv3_cmd_cfgi_all(u64 *cmd)
{
	smmuv3_cmd_init(cmd, CMD_OP_CFGI_ALL);
	cmd[1] |= FIELD_PREP(CMD_CFGI_1_RANGE, 31);
}
EXPORT_SYMBOL_GPL(smmuv3_cmd_cfgi_all);

/**
 * smmuv3_cmd_sync() - CMD_SYNC, completion seen by polling the queue
 * @cmd: two double words
 */
void smmuv3_cmd_sync(u64 *cmd)
{
	smmuv3_cmd_init(cmd, CMD_OP_SYNC);
	cmd[0] |= FIELD_PREP(CMD_SYNC_0_CS, CMD_SYNC_0_CS_NONE);
}
EXPORT_SYMBOL_GPL(smmuv3_cmd_sync);

/**
 * smmuv3_range_start() - begin covering [@iova, @iova + @size)
 * @it: the iterator
 * @iova: start, aligned to the granule
 * @size: length, a multiple of the granule
 * @tg: log2 of the translation granule
 */
void smmuv3_range_start(struct smmuv3_range_iter *it, unsigned long iova,
			size_t size, unsigned int tg)
{
	it->iova = iova;
	it->pages = size >> tg;
	it->tg = tg;
}
EXPORT_SYMBOL_GPL(smmuv3_range_start);

/**
 * smmuv3_range_next() - the next range command of the cover
 * @it: the iterator
 * @r: filled with the next span
 *
 * A RIL command covers (NUM + 1) * 2^SCALE granules with NUM and SCALE
 * below 32, so the page count is peeled from its lowest set bit, five bits
 * at a time: an exact cover, never invalidating past the range, in one
 * command per 5-bit window of the count (one for any power of two).
 *
 * Return: false when the range is covered.
 */
bool smmuv3_range_next(struct smmuv3_range_iter *it, struct smmuv3_range *r)
{
	unsigned long chunk;

	if (!it->pages)
		return false;
	r->iova = it->iova;
	r->scale = min(__ffs(it->pages), 31UL);
	if (r->scale < 31)
		chunk = (it->pages >> r->scale) & CMD_TLBI_RANGE_NUM_MAX;
	else	/* beyond what SCALE reaches: 32 of the largest steps */
		chunk = min(it->pages >> 31, CMD_TLBI_RANGE_NUM_MAX + 1UL);
	r->num = chunk - 1;
	chunk <<= r->scale;
	it->pages -= chunk;
	it->iova += chunk << it->tg;
	return true;
}
EXPORT_SYMBOL_GPL(smmuv3_range_next);

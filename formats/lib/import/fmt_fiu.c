/* FIU SRCMap/IODedup traces: "ts pid process lba size rw major minor md5",
 * ts in ns, lba and size in 512-byte sectors, rw W or R, one hash per
 * 4 KiB (ignored). One event per IO (D) at ts, no response time; the
 * process name becomes a notify process record for pid, so tools show it
 * like a blktrace capture's; major,minor is the device. */
#include "fmt_num.h"
#include "fmt_text.h"

static int parse(void *state, fmt_ctx *c, char *line, size_t len)
{
	(void)state;
	const char *p = line, *end = line + len;
	fmt_skip_ws(&p);
	if (p == end || *p == '#')
		return FMT_OK;
	uint64_t t, lba, size;
	uint32_t pid, ma, mi;
	if (!fmt_u64(&p, &t) || !fmt_is_space(*p))
		return fmt_bad(c, "bad timestamp");
	fmt_skip_ws(&p);
	if (!fmt_u32(&p, &pid) || !fmt_is_space(*p))
		return fmt_bad(c, "bad pid");
	fmt_skip_ws(&p);
	const char *name;
	size_t nlen;
	fmt_token(&p, 0, &name, &nlen);
	if (!nlen)
		return fmt_bad(c, "missing process name");
	fmt_skip_ws(&p);
	if (!fmt_u64(&p, &lba) || lba > (UINT64_MAX >> 9))
		return fmt_bad(c, "bad lba");
	fmt_skip_ws(&p);
	if (!fmt_u64(&p, &size) || size > UINT32_MAX / 512)
		return fmt_bad(c, "bad size (sectors)");
	fmt_skip_ws(&p);
	uint32_t cat;
	if ((*p == 'W' || *p == 'w') && fmt_is_space(p[1]))
		cat = BLK_TC_WRITE;
	else if ((*p == 'R' || *p == 'r') && fmt_is_space(p[1]))
		cat = BLK_TC_READ;
	else
		return fmt_bad(c, "bad rw (want R or W)");
	p++;
	fmt_skip_ws(&p);
	if (!fmt_u32(&p, &ma) || ma >= (1u << 12))
		return fmt_bad(c, "bad major");
	fmt_skip_ws(&p);
	if (!fmt_u32(&p, &mi) || mi >= (1u << BR_MINORBITS))
		return fmt_bad(c, "bad minor");
	fmt_skip_ws(&p);
	const char *hash;
	size_t hlen;
	fmt_token(&p, 0, &hash, &hlen);
	for (size_t i = 0; i < hlen; i++) {
		char h = hash[i];
		if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')))
			return fmt_bad(c, "bad md5 (want hex)");
	}
	if (!fmt_at_end(p, end))
		return fmt_bad(c, "trailing characters after md5");
	uint32_t dev = BR_MKDEV(ma, mi);
	int rc = fmt_emit_comm(c, t, pid, dev, name, nlen);
	if (rc)
		return rc;
	return fmt_emit_io(c, t, dev, lba, (uint32_t)(size * 512), cat, pid, false, 0);
}

bool fmt_fiu_probe(const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	uint64_t v;
	const char *tok;
	size_t n;
	fmt_skip_ws(&p);
	if (!fmt_u64(&p, &v) || !fmt_is_space(*p))
		return false;
	fmt_skip_ws(&p);
	if (!fmt_u64(&p, &v) || !fmt_is_space(*p))
		return false;
	fmt_skip_ws(&p);
	fmt_token(&p, 0, &tok, &n);
	fmt_skip_ws(&p);
	if (!n || !fmt_u64(&p, &v))
		return false;
	fmt_skip_ws(&p);
	if (!fmt_u64(&p, &v))
		return false;
	fmt_skip_ws(&p);
	if ((*p != 'W' && *p != 'R') || !fmt_is_space(p[1]))
		return false;
	p += 2;
	fmt_skip_ws(&p);
	if (!fmt_u64(&p, &v))
		return false;
	fmt_skip_ws(&p);
	if (!fmt_u64(&p, &v))
		return false;
	fmt_skip_ws(&p);
	fmt_token(&p, 0, &tok, &n);
	return n > 0 && fmt_at_end(p, end);
}

const fmt_format fmt_fiu = {
	.name = "FIU trace",
	.note = "one event per IO: D at ts (ns), no completion (the format has no response "
		"time); process names become process records for their pid; major,minor is the "
		"device; sectors of 512 bytes",
	.parse = parse,
};

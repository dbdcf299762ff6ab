#include "io.h"

const char *replay_kind_name(enum replay_kind k)
{
	static const char *const names[RK_COUNT] = { "read", "write", "flush", "discard" };
	return k < RK_COUNT ? names[k] : "?";
}

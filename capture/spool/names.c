#include "spool/names.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cap_names {
	cap_name *slots; /* open addressing on pid; load kept under 1/2 */
	size_t cap, used;
};

cap_names *cap_names_new(void)
{
	cap_names *n = calloc(1, sizeof *n);
	if (!n)
		return NULL;
	n->cap = 1024;
	n->slots = calloc(n->cap, sizeof *n->slots);
	if (!n->slots) {
		free(n);
		return NULL;
	}
	return n;
}

void cap_names_free(cap_names *n)
{
	if (n)
		free(n->slots);
	free(n);
}

static cap_name *slot_for(cap_name *slots, size_t cap, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (cap - 1);
	while (slots[i].used && slots[i].pid != pid)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(cap_names *n)
{
	size_t ncap = n->cap * 2;
	cap_name *ns = calloc(ncap, sizeof *ns);
	if (!ns)
		return -1;
	for (size_t i = 0; i < n->cap; i++)
		if (n->slots[i].used)
			*slot_for(ns, ncap, n->slots[i].pid) = n->slots[i];
	free(n->slots);
	n->slots = ns;
	n->cap = ncap;
	return 0;
}

cap_name *cap_names_get(cap_names *n, uint32_t pid)
{
	cap_name *e = slot_for(n->slots, n->cap, pid);
	if (e->used)
		return e;
	if ((n->used + 1) * 2 > n->cap) {
		if (grow(n))
			return NULL;
		e = slot_for(n->slots, n->cap, pid);
	}
	memset(e, 0, sizeof *e);
	e->used = true;
	e->pid = pid;
	n->used++;
	return e;
}

void cap_names_set(cap_name *e, const char *comm)
{
	char tmp[CAP_COMM_LEN] = { 0 };
	memcpy(tmp, comm, strnlen(comm, CAP_COMM_LEN - 1));
	if (e->named && strcmp(tmp, e->comm) == 0)
		return;
	memcpy(e->comm, tmp, CAP_COMM_LEN);
	e->named = true;
	e->announced = false;
}

bool cap_names_from_proc(uint32_t pid, char *name)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%u/comm", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t r = read(fd, name, CAP_COMM_LEN - 1);
	close(fd);
	if (r <= 0)
		return false;
	name[r] = 0;
	char *nl = strchr(name, '\n');
	if (nl)
		*nl = 0;
	return name[0] != 0;
}

void cap_names_unannounce(cap_names *n)
{
	for (size_t i = 0; i < n->cap; i++)
		n->slots[i].announced = false;
}

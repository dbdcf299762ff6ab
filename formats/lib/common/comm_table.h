/* comm_table.h (internal) — pid → process name, learned from notify
 * records. Names are interned for the table's lifetime, so pointers handed
 * out stay valid after a pid's name changes (exec). */
#ifndef BLKREEL_COMM_TABLE_H
#define BLKREEL_COMM_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct br_comm_table br_comm_table;

br_comm_table *br_comm_table_new(void);
void br_comm_table_free(br_comm_table *t);
/* Record name (len bytes, need not be NUL terminated). 0 or BR_ENOMEM. */
int br_comm_table_set(br_comm_table *t, uint32_t pid, const char *name, size_t len);
const char *br_comm_table_get(const br_comm_table *t, uint32_t pid);

#endif

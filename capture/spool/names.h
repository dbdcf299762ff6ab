/* names.h — process names for the pids seen in a capture.
 *
 * The tracefs and perf interfaces give no process-name records, so the
 * capture looks each new pid up once, as soon as it is seen (the process
 * may exit soon after): a name the backend carried with the record, else
 * /proc/PID/comm, else the backend's own table (the tracer's saved command
 * lines). The core then writes a BLK_TN_PROCESS record before the pid's
 * first event, as the kernel's relay interface does. */
#ifndef BLKREEL_CAPTURE_NAMES_H
#define BLKREEL_CAPTURE_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#define CAP_COMM_LEN 16 /* TASK_COMM_LEN: what the kernel's records carry */

typedef struct cap_names cap_names;

cap_names *cap_names_new(void);
void cap_names_free(cap_names *n);

/* The entry for pid, created (unnamed) if new; NULL when out of memory. */
typedef struct cap_name {
	uint32_t pid;
	bool used, named, announced;
	char comm[CAP_COMM_LEN];
} cap_name;
cap_name *cap_names_get(cap_names *n, uint32_t pid);

/* Set the name (a later exec renames; announced is cleared so the new name
 * is written too). */
void cap_names_set(cap_name *e, const char *comm);

/* Every name is to be written again before its pid's next event (a new
 * file of a rotated capture starts: each file names its processes). */
void cap_names_unannounce(cap_names *n);

/* /proc/PID/comm into name (CAP_COMM_LEN bytes); false if gone. */
bool cap_names_from_proc(uint32_t pid, char *name);

#endif

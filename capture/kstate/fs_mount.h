/* fs_mount.h — mounting a kernel pseudo-filesystem (tracefs, debugfs) at its
 * usual place when it is not mounted, and unmounting it again. One piece of
 * logic for the capture (which records the mount in its state file before
 * going on) and for the kernel test suites (which set up what the tool would
 * and put it back); it depends on nothing but the error convention. */
#ifndef BLKREEL_CAPTURE_FS_MOUNT_H
#define BLKREEL_CAPTURE_FS_MOUNT_H

#include <stdbool.h>

#include "blkreel/error.h"

/* Whether the running kernel knows fstype at all (/proc/filesystems). */
bool cap_fs_supported(const char *fstype);

/* Is it mounted at dir? Judged by dir/probe, a file only the mounted
 * filesystem has ("current_tracer" for tracefs). */
bool cap_fs_mounted(const char *dir, const char *probe);

/* Mount fstype at dir unless dir/probe is there already. *mounted says
 * whether this call mounted it (so that the caller unmounts only that). */
int cap_fs_mount_if_absent(const char *dir, const char *probe, const char *fstype, bool *mounted,
			   br_error *err);

/* Unmount dir lazily: a reader that still has a file open does not keep the
 * mount visible. Not mounted any more is not an error. */
int cap_fs_unmount(const char *dir, br_error *err);

#endif

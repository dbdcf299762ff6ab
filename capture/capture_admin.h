/* capture_admin.h — the two things blkreel-capture does besides capturing:
 * --list-backends and --cleanup. Both return the exit code. */
#ifndef BLKREEL_CAPTURE_ADMIN_H
#define BLKREEL_CAPTURE_ADMIN_H

#include "capture_config.h"

/* With devices in cfg (ndevices > 0) each backend is started and stopped
 * for real on them; otherwise only probed (relay's lockdown refusal shows
 * only in a real start). */
int capture_list_backends(const cap_config *cfg);
int capture_cleanup(void);

#endif

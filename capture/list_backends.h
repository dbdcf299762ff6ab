/* list_backends.h — blkreel-capture --list-backends: which backends this
 * machine has, and (with -d) which of them really start on the devices. */
#ifndef BLKREEL_CAPTURE_LIST_BACKENDS_H
#define BLKREEL_CAPTURE_LIST_BACKENDS_H

#include "capture_config.h"

/* With devices in cfg (ndevices > 0) each backend is started and stopped
 * for real on them; otherwise only probed (relay's lockdown refusal shows
 * only in a real start). Returns the exit code. */
int capture_list_backends(const cap_config *cfg);

#endif

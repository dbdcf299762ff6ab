/* capture_admin.h — the two things blkreel-capture does besides capturing:
 * --list-backends and --cleanup. Both return the exit code. */
#ifndef BLKREEL_CAPTURE_ADMIN_H
#define BLKREEL_CAPTURE_ADMIN_H

int capture_list_backends(void);
int capture_cleanup(void);

#endif

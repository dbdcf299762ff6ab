/* Count the completed IOs in any trace blkreel reads, with libblkreel:
 *   cc count_ios.c $(pkg-config --cflags --libs blkreel) -o count_ios
 *   ./count_ios run.blktrace.gz          (or a per-CPU set, a dump, -) */
#include <blkreel/reader.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	br_reader *r = NULL;
	br_error err;
	br_event ev;
	unsigned long long ios = 0;
	char msg[512];
	int rc = br_reader_open(&r, (const char *const *)argv + 1, (size_t)argc - 1, NULL, &err);
	while (rc == 0 && (rc = br_reader_next(r, &ev, &err)) == 1) {
		ios += !br_event_is_notify(&ev) && br_event_code(&ev) == __BLK_TA_COMPLETE;
		rc = 0;
	}
	if (rc < 0)
		fprintf(stderr, "count_ios: %s\n", br_error_format(&err, msg, sizeof msg));
	else
		printf("%llu IOs completed\n", ios);
	br_reader_close(r);
	return rc < 0;
}

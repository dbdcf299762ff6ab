/* cli.h — blkreel-replay's options. */
#ifndef REPLAY_CLI_H
#define REPLAY_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "plan.h"
#include "tool/exit.h"

typedef struct cli_map {
	uint32_t dev;
	bool any;
	const char *path;
} cli_map;

typedef struct replay_opts {
	const char **inputs;
	size_t ninputs, inputs_cap;
	cli_map *maps;
	size_t nmaps, maps_cap;
	bool write, force, source_q, no_stall, closed, buffered, stop_on_error;
	bool progress, quiet;
	enum plan_fit fit;
	uint64_t offset;
	double speed;
	unsigned max_inflight;    /* 0 = default */
	unsigned threads;         /* thread engine workers, 0 = default */
	const char *engine;       /* NULL = best available */
	uint64_t spin_ns;
	const char *output;       /* -o */
	const char *report;       /* --report */
} replay_opts;

/* Fills o and sets *run when the tool is to run; otherwise what main
 * returns now (0 after --help/--version, a usage error said on stderr, 1
 * when out of memory). */
tool_exit cli_read(int argc, char **argv, replay_opts *o, bool *run);
void cli_free(replay_opts *o);

#endif

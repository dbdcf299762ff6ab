/* tool/exit.h — what every blkreel tool's main returns. */
#ifndef BLKREEL_TOOL_EXIT_H
#define BLKREEL_TOOL_EXIT_H

typedef enum tool_exit {
	TOOL_EXIT_OK = 0,     /* done (also after --help and --version) */
	TOOL_EXIT_FAIL = 1,   /* a runtime failure, said on stderr */
	TOOL_EXIT_USAGE = 2,  /* a usage error, said on stderr with "Try ... --help" */
} tool_exit;

#endif

/* cmd_check.c - `collc check FILE...`: parse and check, report, exit 0/1. */
#include "driver/command.h"

/* check instantiates nothing: -D is accepted, unused. */
static Status check_options(Cmd *c) {
    c->o.common.defines_unused = 1;
    return EXIT_GO_ON;
}

int cmd_check(int argc, char **argv) {
    Cmd c = {0};
    Status st = cmd_begin(&c, CMD_check, argc, argv, check_options);
    /* An empty file is valid but almost certainly a mistake. */
    for (size_t f = 0; st == EXIT_GO_ON && f < c.s.ninputs; f++) {
        int found = 0;
        for (int k = 0; k < c.s.prog.nalgorithms && !found; k++) found = c.s.prog.algorithms[k]->span.file == (uint32_t)f;
        for (int k = 0; k < c.s.prog.ntopologies && !found; k++) found = c.s.prog.topologies[k]->span.file == (uint32_t)f;
        if (!found) {
            Span sp = {(uint32_t)f, 0, 0};
            diag_warning(c.s.dx, sp, "empty-file", "no algorithm or topology in file");
        }
    }
    return cmd_end(&c, st);
}

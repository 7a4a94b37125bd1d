/* cmd_check.c - `collc check FILE...`: parse and check, report, exit 0/1. */
#include "driver/options.h"

int cmd_check(int argc, char **argv) {
    DriverOptions o;
    int status = options_parse(&o, CMD_check, argc, argv);
    if (status >= 0) return status;
    o.common.defines_unused = 1; /* check instantiates nothing: -D is accepted, unused */

    Session s;
    int st = session_open(&s, &o.common, o.files, o.nfiles);
    if (st == 0) {
        /* An empty file is valid but almost certainly a mistake. */
        for (size_t f = 0; f < s.ninputs; f++) {
            int found = 0;
            for (int k = 0; k < s.prog.nalgorithms && !found; k++)
                found = s.prog.algorithms[k]->span.file == (uint32_t)f;
            for (int k = 0; k < s.prog.ntopologies && !found; k++)
                found = s.prog.topologies[k]->span.file == (uint32_t)f;
            if (!found) {
                Span sp = {(uint32_t)f, 0, 0};
                diag_warning(s.dx, sp, "empty-file", "no algorithm or topology in file");
            }
        }
    }
    options_free(&o);
    return session_close(&s, st ? EXIT_INPUT : EXIT_OK);
}

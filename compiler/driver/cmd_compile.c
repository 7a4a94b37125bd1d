/* cmd_compile.c - `collc compile`: selects the target of --target in the
 * table of targets (targets.def) and hands the command to it: its options
 * (compile's page, or its own), its checks, its compile. Nothing here knows
 * a particular target. */
#include "driver/target.h"

int cmd_compile(int argc, char **argv) {
    /* The target decides which options the command line has, so it is
     * found first, as the parser would find it (the last --target wins). */
    const char *name = options_value(argc, argv, OPT_TARGET), *triple;
    const Target *t = target_find(name, &triple);
    if (!t) {
        /* an unknown target: the command line's own errors come first, as
         * for any option */
        DriverOptions o;
        Status st = options_parse(&o, CMD_compile, argc, argv);
        if (st != EXIT_GO_ON) return st;
        options_free(&o);
        return target_select("compile", name, &t, &triple);
    }
    Cmd c = {.target = t, .triple = triple};
    Status st = cmd_begin(&c, target_page(t), argc, argv, t->options);
    if (st == EXIT_GO_ON) st = t->compile(&c);
    return cmd_end(&c, st);
}

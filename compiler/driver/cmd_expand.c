/* cmd_expand.c - `collc expand` (initial stub). */
#include "driver.h"

int cmd_expand(int argc, char **argv) {
    (void)argc; (void)argv;
    return usage_error("expand", "not implemented yet");
}

/* dtype-names.c - the runtime's names of the element types (coll.h's
 * coll_dtype_from_name, which collmpi's configuration and programs read) and
 * collc's (--dtype: options.def's DTYPE rows) are one vocabulary: every
 * spelling collc accepts for a type the runtime has parses in the runtime
 * to the same coll_dtype, and every runtime name is a spelling of that row.
 * Prints one line per disagreement, then "N spellings, M problems". */
#include <coll.h>
#include <stdio.h>
#include <string.h>

static const struct { const char *name, *spellings; int coll; } rows[] = {
#define DTYPE(id, name, spellings, coll) {name, spellings, coll},
#include "driver/options.def"
};

int main(void) {
    int n = 0, bad = 0;
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        if (rows[k].coll < 0) continue; /* a type the runtime does not have */
        char buf[128];
        snprintf(buf, sizeof buf, "%s", rows[k].spellings);
        for (char *w = strtok(buf, "|"); w; w = strtok(NULL, "|")) {
            coll_dtype dt;
            n++;
            if (coll_dtype_from_name(w, &dt) != 0) {
                printf("%s: collc's spelling of %s, unknown to the runtime\n", w, rows[k].name);
                bad++;
            } else if ((int)dt != rows[k].coll) {
                printf("%s: %s in collc, %s in the runtime\n", w, rows[k].name, coll_dtype_name(dt));
                bad++;
            }
        }
        const char *rt = coll_dtype_name((coll_dtype)rows[k].coll);
        if (strcmp(rt, rows[k].name) != 0) {
            printf("%s: the runtime calls %s '%s'\n", rows[k].name, rows[k].name, rt);
            bad++;
        }
    }
    printf("%d spellings, %d problems\n", n, bad);
    return 0;
}

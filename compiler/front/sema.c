/* sema.c - name resolution, scopes, placement rules and constant folding.
 * (Initial version: lookup helpers only; the checker follows.) */
#include <string.h>
#include "front.h"

Algorithm *program_find_algorithm(const Program *prog, const char *name) {
    for (int i = 0; i < prog->nalgorithms; i++)
        if (strcmp(prog->algorithms[i]->name, name) == 0) return prog->algorithms[i];
    return NULL;
}

Topology *program_find_topology(const Program *prog, const char *name) {
    for (int i = 0; i < prog->ntopologies; i++)
        if (strcmp(prog->topologies[i]->name, name) == 0) return prog->topologies[i];
    return NULL;
}

int front_edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return 1000;
    int row[65];
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int prev = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cur = row[j];
            int best = prev + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[lb];
}

int sema_check(Arena *arena, DiagEngine *dx, Program *prog) {
    (void)arena; (void)dx; (void)prog;
    return 0;
}

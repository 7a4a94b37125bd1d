/* emit_mpi.c - the MPI signature of a collective for the --target=mpi
 * wrappers of both emitters (emit_mpi.h), read from the collective table. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "emit/emit_mpi.h"
#include "support/util.h"

static EmitMpiParam param_kind(const char *type, size_t n) {
    while (n && type[n - 1] == ' ') n--;
    if (n == 12 && strncmp(type, "const void *", n) == 0) return EMIT_MPI_CONST_PTR;
    if (n == 6 && strncmp(type, "void *", n) == 0) return EMIT_MPI_PTR;
    if (n == 3 && strncmp(type, "int", n) == 0) return EMIT_MPI_INT;
    if (n > 4 && strncmp(type, "MPI_", 4) == 0 && !memchr(type, '*', n)) return EMIT_MPI_HANDLE;
    COLLC_UNREACHABLE("coll_collectives.def: an MPI parameter type the emitters do not know");
}

void emit_mpi_sig(Collective c, EmitMpiSig *out) {
    const CollectiveInfo *ci = &collective_info[c];
    memset(out, 0, sizeof *out);
    int len = snprintf(out->entry, sizeof out->entry, "collmpi_%s", ci->mpi);
    COLLC_ASSERT(len > 0 && (size_t)len < sizeof out->entry);
    for (char *p = out->entry; *p; p++) *p = (char)tolower((unsigned char)*p);
    /* "(T1 name1, T2 name2, ...)": each parameter is its type up to a
     * trailing identifier, the name */
    const char *p = ci->mpi_params;
    COLLC_ASSERT(*p == '(');
    p++;
    for (;;) {
        while (*p == ' ') p++;
        size_t n = strcspn(p, ",)");
        size_t name_at = n;
        while (name_at && p[name_at - 1] == ' ') name_at--;
        size_t name_end = name_at;
        while (name_at && (isalnum((unsigned char)p[name_at - 1]) || p[name_at - 1] == '_')) name_at--;
        int k = out->nparams++;
        COLLC_ASSERT(k < EMIT_MPI_MAX_PARAMS && name_at > 0 && name_end > name_at &&
                     name_at < sizeof out->type[k] && name_end - name_at < sizeof out->name[k]);
        out->kind[k] = param_kind(p, name_at);
        memcpy(out->type[k], p, name_at);
        memcpy(out->name[k], p + name_at, name_end - name_at);
        p += n;
        if (*p == ')') break;
        COLLC_ASSERT(*p == ',');
        p++;
    }
}

/* target.c - the table of targets (targets.def) and what the driver asks of
 * a row; see target.h. */
#include "driver/target.h"
#include "support/suggest.h"
#include "support/util.h"

#include <stdlib.h>
#include <string.h>

const Target *const targets[] = {
#define TARGET(name) &target_##name,
#include "driver/targets.def"
};
const size_t ntargets = ARRAY_LEN(targets);

/* The page and the name of each row, as targets.def spells them. */
static const struct { const char *name; CommandId page; } rows[] = {
#define TARGET(name) {#name, CMD_compile},
#define TARGET_PAGE(name, args, description, exit1) {#name, CMD_compile_##name},
#include "driver/targets.def"
};
_Static_assert(ARRAY_LEN(rows) == ARRAY_LEN(targets), "one page per row");

static size_t row_of(const Target *t) {
    for (size_t k = 0; k < ntargets; k++)
        if (targets[k] == t) {
            /* a target's object carries the name of its row */
            COLLC_ASSERT(strcmp(t->name, rows[k].name) == 0);
            return k;
        }
    COLLC_UNREACHABLE("a target without a row in targets.def");
}

CommandId target_page(const Target *t) { return rows[row_of(t)].page; }

/* The targets' names joined by '|', for options_prose. */
static const char *target_names(char *buf, size_t size) {
    size_t n = 0;
    buf[0] = 0;
    for (size_t k = 0; k < ntargets && n < size; k++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", k ? "|" : "", targets[k]->name);
    return buf;
}

const Target *target_find(const char *name, const char **triple) {
    *triple = NULL;
    if (!name) return targets[0];
    for (size_t k = 0; k < ntargets; k++)
        if (strcmp(targets[k]->name, name) == 0) return targets[k];
    /* an LLVM triple (x86_64-linux-gnu): a cross-compile of the first
     * target that takes one; LLVM says whether it knows it */
    if (strchr(name, '-'))
        for (size_t k = 0; k < ntargets; k++)
            if (targets[k]->triple) {
                *triple = name;
                return targets[k];
            }
    return NULL;
}

Status target_select(const char *cmd, const char *name, const Target **out, const char **triple) {
    *out = target_find(name, triple);
    if (*out) return EXIT_GO_ON;
    Suggest sg;
    suggest_init(&sg, name, SUGGEST_NAME);
    for (size_t k = 0; k < ntargets; k++) suggest_offer(&sg, targets[k]->name, NULL);
    if (sg.best) return usage_error(cmd, "unknown target '%s'; did you mean '%s'?", name, sg.best);
    char names[256], list[300];
    return usage_error(cmd, "unknown target '%s' (expected %s or an LLVM triple)", name,
                       options_prose(target_names(names, sizeof names), ", ", list, sizeof list));
}

Status target_emit(const char *cmd, const Target *t, const char *name, const TargetEmit **out) {
    for (size_t k = 0; t->emits[k].name; k++)
        if (strcmp(t->emits[k].name, name) == 0) {
            *out = &t->emits[k];
            return EXIT_GO_ON;
        }
    /* on a page of its own the target is named: " for --target=NAME" */
    char where[96] = "";
    if (target_page(t) != CMD_compile) snprintf(where, sizeof where, " for --target=%s", t->name);
    Suggest sg;
    suggest_init(&sg, name, SUGGEST_NAME);
    for (size_t k = 0; t->emits[k].name; k++) suggest_offer(&sg, t->emits[k].name, NULL);
    if (sg.best) return usage_error(cmd, "unknown --emit kind '%s'%s; did you mean '%s'?", name, where, sg.best);
    char names[256] = "", list[300];
    for (size_t k = 0, n = 0; t->emits[k].name && n < sizeof names; k++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", k ? "|" : "", t->emits[k].name);
    return usage_error(cmd, "unknown --emit kind '%s'%s (expected %s)", name, where,
                       options_prose(names, " or ", list, sizeof list));
}

static const char *dtype_name(const Target *t, int k) {
    return t->dtype_name ? t->dtype_name((DriverDtype)k) : driver_dtypes[k].name;
}

const char *target_dtype_list(const Target *t, char *buf, size_t size) {
    char names[256] = "";
    for (int k = 0, n = 0; k < DT__COUNT && (size_t)n < sizeof names; k++)
        if (t->dtype((DriverDtype)k) >= 0)
            n += snprintf(names + n, sizeof names - (size_t)n, "%s%s", n ? "|" : "", dtype_name(t, k));
    return options_prose(names, " and ", buf, size);
}

static const char *op_list(const Target *t, char *buf, size_t size) {
    char names[256] = "";
    for (int k = 0, n = 0; k < OP__COUNT && (size_t)n < sizeof names; k++)
        if (t->op((DriverOp)k) >= 0)
            n += snprintf(names + n, sizeof names - (size_t)n, "%s%s", n ? "|" : "", driver_ops[k].name);
    return options_prose(names, " and ", buf, size);
}

Status target_check_dtype(const char *cmd, const Target *t, DriverDtype dtype) {
    if (t->dtype(dtype) >= 0) return EXIT_GO_ON;
    char list[256];
    return usage_error(cmd, "%s has no %s; its element types are %s", t->engine, driver_dtypes[dtype].name,
                       target_dtype_list(t, list, sizeof list));
}

/* The target whose commands (or page) cmd is, or NULL. */
static const Target *target_of(CommandId cmd) {
    for (size_t k = 0; k < ntargets; k++)
        if (((targets[k]->commands >> cmd) & 1) || (cmd != CMD_compile && rows[k].page == cmd))
            return targets[k];
    return NULL;
}

size_t target_option_note(OptionId id, CommandId cmd, char *buf, size_t size) {
    size_t n = 0;
    buf[0] = 0;
    if (id == OPT_TARGET && cmd == CMD_compile) {
        n += (size_t)snprintf(buf, size, "; T:");
        for (size_t k = 0; k < ntargets && n < size; k++) {
            const Target *t = targets[k];
            n += (size_t)snprintf(buf + n, size - n, " %s (%s%s", t->name, k ? "" : "the default; ", t->summary);
            if (t->runtime && n < size)
                n += (size_t)snprintf(buf + n, size - n, "; links %s%s%s", t->runtime, t->cmake ? ", CMake " : "",
                                      t->cmake ? t->cmake : "");
            if (n < size) n += (size_t)snprintf(buf + n, size - n, "),");
        }
        for (size_t k = 0; k < ntargets && n < size; k++)
            if (targets[k]->triple) {
                n += (size_t)snprintf(buf + n, size - n, " or an LLVM target triple (%s for that machine)",
                                      targets[k]->name);
                break;
            }
    } else if (id == OPT_TARGET) {
        const Target *t = target_of(cmd);
        if (t) n += (size_t)snprintf(buf, size, "; %s on this page", t->name);
    } else if (id == OPT_EMIT && (cmd == CMD_compile || cmd > CMD__BEFORE_PAGES)) {
        /* compile's page: the kinds of the default target (those that share
         * the page share its kinds) */
        const Target *t = cmd == CMD_compile ? targets[0] : target_of(cmd);
        for (size_t k = 0; cmd == CMD_compile && k < ntargets; k++)
            COLLC_ASSERT(rows[k].page != CMD_compile || targets[k]->emits == t->emits);
        for (size_t k = 0; t && t->emits[k].name && n < size; k++)
            n += (size_t)snprintf(buf + n, size - n, "; --emit=%s: %s", t->emits[k].name, t->emits[k].help);
    } else if (id == OPT_DTYPE || id == OPT_OP) {
        const Target *t = target_of(cmd);
        char list[256];
        if (t)
            n += (size_t)snprintf(buf, size, "; %s has %s", t->engine,
                                  id == OPT_DTYPE ? target_dtype_list(t, list, sizeof list)
                                                  : op_list(t, list, sizeof list));
    }
    return n < size ? n : size - 1;
}

const TargetMachine *target_machine(const char *arg) {
    for (size_t k = 0; k < ntargets; k++)
        if (targets[k]->machine && targets[k]->machine->claims && targets[k]->machine->claims(arg))
            return targets[k]->machine;
    for (size_t k = 0; k < ntargets; k++)
        if (targets[k]->machine && !targets[k]->machine->claims) return targets[k]->machine;
    return NULL;
}

const TopoExtra *target_boards(size_t *n) {
    static TopoExtra *all;
    static size_t nall;
    if (!all) {
        for (size_t k = 0; k < ntargets; k++)
            if (targets[k]->machine) nall += targets[k]->machine->nboards;
        all = xcalloc(nall ? nall : 1, sizeof *all);
        size_t j = 0;
        for (size_t k = 0; k < ntargets; k++)
            for (size_t b = 0; targets[k]->machine && b < targets[k]->machine->nboards; b++)
                all[j++] = targets[k]->machine->boards[b];
    }
    *n = nall;
    return all;
}

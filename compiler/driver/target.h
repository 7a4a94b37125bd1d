/* target.h - the targets of `collc compile --target=NAME`, one Target object
 * per target (QBE's struct Target): each target's folder defines its object
 * (driver/NAME/target.c), driver/targets.def lists them, and the driver
 * dispatches through the row it selects, never on a target's name. A
 * command that runs on one target (collc run, collc sim) lives in that
 * target's folder and uses its object directly.
 *
 * How to add a target: docs/architecture.md, "Adding things". */
#ifndef COLLC_TARGET_H
#define COLLC_TARGET_H

#include <stddef.h>
#include "analysis/cost.h"
#include "analysis/topology.h"
#include "driver/command.h"

/* An output kind, --emit=NAME. */
typedef struct TargetEmit {
    const char *name;    /* --emit=NAME */
    int kind;            /* the target's own value for it */
    const char *suffix;  /* of the output named after the first input ("ring.o");
                            NULL: standard output */
    const char *help;    /* what --emit's help says of it */
} TargetEmit;

/* The machine files of a target (--machine FILE, or the name of one shipped
 * with collc), as the cost model sees them (collc cost, compare, draw,
 * synth). The analysis/ folder never sees a target: the target turns its
 * machine into α, β, γ and a topology. */
typedef struct TargetMachine {
    /* Is the file at path one of this target's machine files (by its
     * content)? NULL: the target takes every file no other target claims,
     * and the names of the machines it ships. */
    int (*claims)(const char *path);
    /* Reads the machine; NULL after printing the usage error "collc CMD: ...". */
    void *(*load)(const char *cmd, const char *path);
    void (*free)(void *machine);
    /* α, β and γ of the machine into *out (M is left alone). */
    void (*cost_params)(const void *machine, CostMachine *out);
    /* The topology of the machine for N ranks, as topo_build returns it. */
    TopoStatus (*topology)(const void *machine, int64_t N, int64_t ports, TopoModel **out, char *err,
                           size_t errsz);
    /* The job's shape the machine was measured on (nodes of ppn ranks),
     * for the rules of collc tune; NULL: the machine has none. */
    void (*shape)(const void *machine, int64_t *nodes, int64_t *ppn);
    /* The boards --topo names (built-in machines), and how many. */
    const TopoExtra *boards;
    size_t nboards;
} TargetMachine;

typedef struct Target {
    const char *name;          /* --target=NAME: the row's name (targets.def) */
    const char *summary;       /* what the help of --target says of it */
    const char *runtime;       /* the library its output links against ("libcollrt");
                                  NULL: none (the output stands alone) */
    const char *cmake;         /* the CMake name of that library for
                                  collc_add_algorithm(... TARGET NAME); NULL: none */
    int triple;                /* an LLVM target triple given as --target=TRIPLE
                                  selects it (the first row that says so) */
    const char *fixed_n;       /* NULL: its output works for any N; else it is made
                                  for one N, and this is what N counts ("chips") */
    const TargetEmit *emits;   /* its --emit kinds, in the order messages list them,
                                  ending with a row whose name is NULL */
    unsigned commands;         /* the commands that run on it (C(run)): their help
                                  lists its element types and operators */
    const char *engine;        /* what messages call it: "the cpu target" */
    /* Its value of element type t / operator op, -1 when it has none; and
     * its own name for t in messages (NULL: options.def's canonical name). */
    int (*dtype)(DriverDtype t);
    int (*op)(DriverOp op);
    const char *(*dtype_name)(DriverDtype t);
    const TargetMachine *machine; /* NULL: it reads no machine files */
    /* compile --target=NAME: checks the target's options after they are
     * parsed, before the files are read (NULL: nothing to check); then
     * compiles the session's algorithms. Both return as cmd_begin does. */
    Status (*options)(Cmd *c);
    Status (*compile)(Cmd *c);
    const void *data;          /* what its entry points share with a related target */
} Target;

/* Each target's object (target_cpu, ...), declared from targets.def. */
#define TARGET(name) extern const Target target_##name;
#include "driver/targets.def"

/* The rows of targets.def in order; the first is the default target. */
extern const Target *const targets[];
extern const size_t ntargets;

/* The page compile --target=t->name parses its options with: CMD_compile,
 * or the target's own (TARGET_PAGE). */
CommandId target_page(const Target *t);

/* The target of --target=NAME (NULL: the default): a row's name, or an LLVM
 * triple (a word with '-') for the first target that takes one, which goes
 * to *triple (else NULL). NULL when there is no such target. */
const Target *target_find(const char *name, const char **triple);
/* target_find, or EXIT_USAGE after "unknown target" (with the nearest name,
 * or the list of them). Returns EXIT_GO_ON with *out set. */
Status target_select(const char *cmd, const char *name, const Target **out, const char **triple);

/* The emit kind --emit=NAME of t: EXIT_GO_ON with *out set, or EXIT_USAGE
 * after "unknown --emit kind" (with the nearest kind, or the list). */
Status target_emit(const char *cmd, const Target *t, const char *name, const TargetEmit **out);

/* "f32, f16 and i8": t's own names of the element types it has. */
const char *target_dtype_list(const Target *t, char *buf, size_t size);
/* Is --dtype/--op usable on t? EXIT_GO_ON, or EXIT_USAGE after "the cpu
 * target has no i16; its element types are ..." */
Status target_check_dtype(const char *cmd, const Target *t, DriverDtype dtype);

/* The text the help of option id adds for command cmd from the targets
 * ("; T: cpu (...), mpi (...)" for --target, the --emit kinds of the page,
 * the element types of run's target), appended at buf; returns its length
 * (0: nothing to add). */
size_t target_option_note(OptionId id, CommandId cmd, char *buf, size_t size);

/* The machine files of the cost commands for --machine ARG: the first
 * target whose machines claim the file, else the first that reads machine
 * files without claiming them, or NULL. */
const TargetMachine *target_machine(const char *arg);
/* The boards every target's machine offers to --topo. */
const TopoExtra *target_boards(size_t *n);

#endif

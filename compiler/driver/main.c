/* main.c - the collc command line: dispatch to the subcommands listed in
 * commands.def. Nothing here knows about a particular command, so adding a
 * command is one line in commands.def plus its cmd_<name>.c file.
 *
 * Conventions every command follows (docs/cli.md): argv[0] is the command
 * name; `--help`/`-h` prints its help on stdout and returns 0 (that is what
 * `collc help CMD` runs); exit status 0 ok, 1 errors in the input, 2 usage. */
#include "driver/driver.h"
#include "driver/options.h"
#include "support/suggest.h"

#include <string.h>

#ifndef COLLC_VERSION
#define COLLC_VERSION "unknown"
#endif
#ifndef COLLC_LLVM_VERSION
#define COLLC_LLVM_VERSION "unknown"
#endif

typedef struct Command {
    const char *name;
    int (*fn)(int argc, char **argv);
} Command;

static const Command commands[] = {
#define X(name, fn, args, summary, description, exit1) {#name, fn},
#define XS(name, shown, fn, args, summary, description, exit1) {shown, fn},
#include "driver/commands.def"
#undef X
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static void print_version(void) {
    printf("collc version %s\n", COLLC_VERSION);
    printf("LLVM version %s\n", COLLC_LLVM_VERSION);
}

static const Command *find_command(const char *name) {
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

static int unknown_command(const char *name) {
    Suggest sg;
    suggest_init(&sg, name, SUGGEST_COMMAND);
    for (int i = 0; i < NCOMMANDS; i++) suggest_offer(&sg, commands[i].name, NULL);
    if (sg.best)
        return usage_error(NULL, "unknown command '%s'; did you mean '%s'?", name, sg.best);
    return usage_error(NULL, "unknown command '%s'", name);
}

static int run_help(int argc, char **argv) {
    if (argc < 2) {
        options_usage(stdout);
        return EXIT_OK;
    }
    /* the option tables of docs/cli.md (scripts/gen-cli-doc.py) */
    if (strcmp(argv[1], "--markdown") == 0) {
        if (argc != 3) return usage_error("help", "--markdown takes one page: a command, 'compile --target=NAME' or 'common'");
        if (options_doc_table(stdout, argv[2]) < 0) return usage_error("help", "no page '%s'", argv[2]);
        return EXIT_OK;
    }
    if (argc > 2) return usage_error("help", "expected one command name");
    if (strcmp(argv[1], "help") == 0) {
        printf("usage: collc help COMMAND\n\nShows the options of COMMAND.\n");
        return EXIT_OK;
    }
    const Command *c = find_command(argv[1]);
    if (!c) return unknown_command(argv[1]);
    char help[] = "--help";
    char *sub[3] = {(char *)c->name, help, NULL};
    return c->fn(2, sub);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        options_usage(stderr);
        return EXIT_USAGE;
    }
    const char *a = argv[1];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        options_usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(a, "--version") == 0 || strcmp(a, "version") == 0) {
        print_version();
        return EXIT_OK;
    }
    if (strcmp(a, "help") == 0) return run_help(argc - 1, argv + 1);
    if (a[0] == '-') return usage_error(NULL, "unknown option '%s' (a command must come first)", a);
    const Command *c = find_command(a);
    if (!c) return unknown_command(a);
    return c->fn(argc - 1, argv + 1);
}

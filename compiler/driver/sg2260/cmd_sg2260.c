/* cmd_sg2260.c - `collc sg2260 dump BUNDLE` and `collc sg2260 link BUNDLE
 * NAME=ADDR... [-o FILE]`: the bundle image of `collc compile
 * --target=sg2260 --emit=cdma` shown (header, bases, each chip's launch
 * struct, the programs' directory) and placed at new base addresses
 * (docs/sg2260.md "Bundle image"). */
#include "driver/command.h"
#include "driver/driver.h"
#include "sg2260.h"
#include "support/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static Status sg2260_options(Cmd *c) {
    c->nargs = c->o.nfiles; /* the verb, the bundle and the bases: read here */
    c->o.common.defines_unused = 1;
    const char *verb = c->o.nfiles ? c->o.files[0] : "";
    if (strcmp(verb, "dump") && strcmp(verb, "link"))
        return usage_error(c->o.name, "the first argument is 'dump' or 'link'%s%s%s", *verb ? ", not '" : "", verb,
                           *verb ? "'" : "");
    if (c->o.nfiles < 2) return usage_error(c->o.name, "%s needs a bundle image", verb);
    if (!strcmp(verb, "dump") && c->o.nfiles > 2)
        return usage_error(c->o.name, "dump reads one bundle image, got %d", c->o.nfiles - 1);
    if (!strcmp(verb, "dump") && c->o.output) return usage_error(c->o.name, "dump writes to standard output; -o is link's");
    if (!strcmp(verb, "link") && c->o.nfiles < 3)
        return usage_error(c->o.name, "link needs the new place of a base, NAME=ADDR (image=ADDR places the image)");
    return EXIT_GO_ON;
}

/* The file's bytes in *out (malloc'd), or NULL after reporting. */
static uint8_t *read_image(Cmd *c, const char *path, size_t *n) {
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        diag_error(c->s.dx, span_none(), "cannot-open", "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = xmalloc(cap);
    for (size_t k; (k = fread(buf + len, 1, cap - len, f)) > 0;) {
        len += k;
        if (len == cap) buf = xrealloc(buf, cap *= 2);
    }
    int bad = ferror(f);
    if (f != stdin) fclose(f);
    if (bad) {
        diag_error(c->s.dx, span_none(), "io", "cannot read '%s'", path);
        free(buf);
        return NULL;
    }
    *n = len;
    return buf;
}

/* NAME=ADDR, ADDR decimal or 0x hex, l2:OFFSET for L2 SRAM. 0, or 1 after
 * reporting. */
static int parse_base(Cmd *c, const char *arg, char *name, size_t cap, uint64_t *addr) {
    const char *eq = strchr(arg, '=');
    const char *v = eq ? eq + 1 : "";
    int l2 = !strncmp(v, "l2:", 3);
    char *end;
    errno = 0;
    unsigned long long a = strtoull(l2 ? v + 3 : v, &end, 0);
    if (!eq || eq == arg || (size_t)(eq - arg) >= cap || !*v || *end || errno || (l2 && a > SG2260_L2_MAX_OFFSET)) {
        diag_error(c->s.dx, span_none(), "bad-base",
                   "'%s' is not NAME=ADDR (ADDR in decimal or 0x hex, l2:OFFSET for L2 SRAM)", arg);
        return 1;
    }
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = 0;
    *addr = l2 ? SG2260_L2(a) : (uint64_t)a;
    return 0;
}

static Status link_image(Cmd *c, const char *path, Sg2260Bundle *b) {
    Sg2260Error err;
    int n_moves = c->o.nfiles - 2;
    char(*names)[SG2260_BASE_NAME + 8] = xmalloc((size_t)n_moves * sizeof *names);
    const char **name_of = xmalloc((size_t)n_moves * sizeof *name_of);
    uint64_t *addrs = xmalloc((size_t)n_moves * sizeof *addrs);
    int bad = 0;
    for (int i = 0; i < n_moves; i++) {
        bad |= parse_base(c, c->o.files[i + 2], names[i], sizeof names[i], &addrs[i]);
        name_of[i] = names[i];
    }
    if (!bad && sg2260_bundle_relocate_all(b, n_moves, name_of, addrs, &err)) {
        diag_error(c->s.dx, span_none(), err.code, "%s: %s", path, err.msg);
        bad = 1;
    }
    free(names);
    free(name_of);
    free(addrs);
    if (bad) return EXIT_INPUT;
    uint8_t *img;
    long n = sg2260_bundle_encode(b, &img, &err);
    if (n < 0) {
        diag_error(c->s.dx, span_none(), err.code, "%s: %s", path, err.msg);
        return EXIT_INPUT;
    }
    const char *out = c->o.output ? c->o.output : "-";
    FILE *f = session_output(&c->s, out, "wb");
    bad = !f;
    if (f) {
        fwrite(img, 1, (size_t)n, f);
        bad = session_output_close(&c->s, f, out);
    }
    free(img);
    return bad ? EXIT_INPUT : EXIT_GO_ON;
}

static Status run(Cmd *c) {
    const char *path = c->o.files[1];
    size_t n;
    uint8_t *bytes = read_image(c, path, &n);
    if (!bytes) return EXIT_INPUT;
    Sg2260Error err;
    Status st = EXIT_GO_ON;
    if (!strcmp(c->o.files[0], "dump")) {
        if (sg2260_bundle_dump(stdout, bytes, n, &err)) {
            diag_error(c->s.dx, span_none(), err.code, "%s: %s", path, err.msg);
            st = EXIT_INPUT;
        }
    } else {
        Sg2260Bundle b;
        if (sg2260_bundle_decode(bytes, n, &b, &err)) {
            diag_error(c->s.dx, span_none(), err.code, "%s: %s", path, err.msg);
            st = EXIT_INPUT;
        } else {
            st = link_image(c, path, &b);
            sg2260_bundle_free(&b);
        }
    }
    free(bytes);
    return st;
}

int cmd_sg2260(int argc, char **argv) {
    Cmd c = {0};
    Status st = cmd_begin(&c, CMD_sg2260, argc, argv, sg2260_options);
    if (st == EXIT_GO_ON) st = run(&c);
    return cmd_end(&c, st);
}

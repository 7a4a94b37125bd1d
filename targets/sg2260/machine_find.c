/* machine_find.c - `--machine NAME`: the machine files shipped with collc,
 * found by name (sg2260_machine_find in sg2260.h).
 *
 * The folder is found relative to the running program, so an installed
 * prefix can be moved and the build tree works as well: the build places
 * its programs and a copy of machines/ in the installed layout
 * (cmake/CollcInstall.cmake sets COLLC_DATA_RELDIR, the path from the
 * programs' folder to share/collc, and stages the build tree's copy). */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#ifndef COLLC_DATA_RELDIR
#error "COLLC_DATA_RELDIR (the path from bin/ to share/collc) is set by the build"
#endif

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Calls fn(dir, dirlen, ctx) for each folder --machine NAME searches, in
 * order, until fn returns 1 (then returns 1): the folders of
 * $COLLC_MACHINE_PATH, then <folder of this program>/COLLC_DATA_RELDIR/machines. */
static int each_dir(int (*fn)(const char *dir, size_t dirlen, void *ctx), void *ctx) {
    const char *env = getenv("COLLC_MACHINE_PATH");
    for (const char *p = env; p && *p;) {
        size_t k = strcspn(p, ":");
        if (k && fn(p, k, ctx)) return 1;
        p += k + (p[k] == ':');
    }
    char exe[4096];
    ssize_t m = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (m <= 0) return 0;
    exe[m] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return 0;
    char dir[4096 + 64], real[PATH_MAX];
    int d = snprintf(dir, sizeof dir, "%.*s/" COLLC_DATA_RELDIR "/machines", (int)(slash - exe), exe);
    /* without the "bin/../" when the folder exists */
    if (d > 0 && (size_t)d < sizeof dir && realpath(dir, real)) d = snprintf(dir, sizeof dir, "%s", real);
    return d > 0 && (size_t)d < sizeof dir && fn(dir, (size_t)d, ctx);
}

typedef struct FindCtx {
    const char *file;
    char *path;
    size_t size;
    char tried[2048];
} FindCtx;

/* Appends the folder to the ones tried; 1 when it holds the file. */
static int try_dir(const char *dir, size_t dirlen, void *ctx) {
    FindCtx *f = ctx;
    size_t used = strlen(f->tried);
    snprintf(f->tried + used, sizeof f->tried - used, "%s%.*s", used ? ", " : "", (int)dirlen, dir);
    int n = snprintf(f->path, f->size, "%.*s/%s", (int)dirlen, dir, f->file);
    return n > 0 && (size_t)n < f->size && is_file(f->path);
}

int sg2260_machine_find(const char *arg, char *path, size_t size, Sg2260Error *err) {
    if (strchr(arg, '/') || is_file(arg)) {
        int n = snprintf(path, size, "%s", arg);
        if (n < 0 || (size_t)n >= size) return sg_err(err, "io", arg, 0, "machine file path too long");
        return 0;
    }
    /* A name: NAME.machine (or NAME as given when it has the suffix). */
    size_t len = strlen(arg);
    const char *suffix = ".machine";
    int has_suffix = len > strlen(suffix) && strcmp(arg + len - strlen(suffix), suffix) == 0;
    char file[512];
    int n = snprintf(file, sizeof file, "%s%s", arg, has_suffix ? "" : suffix);
    if (len == 0 || n < 0 || (size_t)n >= sizeof file)
        return sg_err(err, "unknown-machine", arg, 0, "not a machine name");
    FindCtx f = {.file = file, .path = path, .size = size, .tried = ""};
    if (each_dir(try_dir, &f)) return 0;
    return sg_err(err, "unknown-machine", arg, 0,
                  "no such file, and no machine file %s in %s (COLLC_MACHINE_PATH adds folders)", file,
                  f.tried[0] ? f.tried : "any folder");
}

typedef struct ListCtx {
    void (*fn)(const char *name, void *ctx);
    void *ctx;
} ListCtx;

static int list_dir(const char *dir, size_t dirlen, void *ctx) {
    ListCtx *l = ctx;
    char path[4096];
    int n = snprintf(path, sizeof path, "%.*s", (int)dirlen, dir);
    DIR *d = n > 0 && (size_t)n < sizeof path ? opendir(path) : NULL;
    if (!d) return 0;
    const char *suffix = ".machine";
    size_t sl = strlen(suffix);
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= sl || strcmp(e->d_name + len - sl, suffix)) continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len - sl), e->d_name);
        l->fn(name, l->ctx);
    }
    closedir(d);
    return 0;
}

void sg2260_machine_names(void (*fn)(const char *name, void *ctx), void *ctx) {
    ListCtx l = {fn, ctx};
    each_dir(list_dir, &l);
}

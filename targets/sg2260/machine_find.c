/* machine_find.c - `--machine NAME`: the machine files shipped with collc,
 * found by name (sg2260_machine_find in sg2260.h).
 *
 * The folder is found relative to the running program, so an installed
 * prefix can be moved and the build tree works as well: the build places
 * its programs and a copy of machines/ in the installed layout
 * (cmake/CollcInstall.cmake sets COLLC_DATA_RELDIR, the path from the
 * programs' folder to share/collc, and stages the build tree's copy). */
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

/* Appends "<dir>/<file>" to the candidates; returns 1 when it is a file. */
static int try_dir(const char *dir, size_t dirlen, const char *file, char *path, size_t size,
                   char *tried, size_t tried_size) {
    if (dirlen == 0) return 0;
    size_t used = strlen(tried);
    snprintf(tried + used, tried_size - used, "%s%.*s", used ? ", " : "", (int)dirlen, dir);
    int n = snprintf(path, size, "%.*s/%s", (int)dirlen, dir, file);
    return n > 0 && (size_t)n < size && is_file(path);
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
    char tried[2048] = "";
    /* $COLLC_MACHINE_PATH: folders separated by ':', searched first. */
    const char *env = getenv("COLLC_MACHINE_PATH");
    for (const char *p = env; p && *p;) {
        size_t k = strcspn(p, ":");
        if (try_dir(p, k, file, path, size, tried, sizeof tried)) return 0;
        p += k + (p[k] == ':');
    }
    /* <folder of this program>/COLLC_DATA_RELDIR/machines */
    char exe[4096];
    ssize_t m = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (m > 0) {
        exe[m] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            char dir[4096 + 64], real[PATH_MAX];
            int d = snprintf(dir, sizeof dir, "%.*s/" COLLC_DATA_RELDIR "/machines", (int)(slash - exe), exe);
            /* without the "bin/../" when the folder exists */
            if (d > 0 && (size_t)d < sizeof dir && realpath(dir, real)) d = snprintf(dir, sizeof dir, "%s", real);
            if (d > 0 && (size_t)d < sizeof dir && try_dir(dir, (size_t)d, file, path, size, tried, sizeof tried))
                return 0;
        }
    }
    return sg_err(err, "unknown-machine", arg, 0,
                  "no such file, and no machine file %s in %s (COLLC_MACHINE_PATH adds folders)", file,
                  tried[0] ? tried : "any folder");
}

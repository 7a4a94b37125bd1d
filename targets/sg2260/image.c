/* image.c - the bundle image (docs/sg2260.md "Bundle image"), version 4.
 *
 * Little-endian throughout. Header, 32 bytes: 0-11 magic "SG2260CDMA\0\0",
 * 12 u16 version (4), 14 u16 program count P, 16 u16 launch record count
 * R, 18 u8 base count B, 19 u8 flags (bit 0: linked), 20 u32 relocation
 * count L, 24 u64 image address (linked: where the image sits in every
 * chip's DDR; else 0). Then, from byte 32:
 *   P directory entries of 24 bytes { u8 chip, u8 engine (0 CDMA, 1 GDMA,
 *     2 VSDMA), u8 index (port or core), u8 0, u32 size in bytes, u64 offset
 *     from the image start, u32 command count (up to and including END),
 *     u16 base message id, u16 0 };
 *   B bases of 48 bytes { char name[32] (NUL-padded), u64 address, u64 bytes };
 *   R launch records of 256 bytes: { u8 chip, u8 rank, u8 port count, u8
 *     flags (bit 0: launchable), u8 ports[4], u8 peer chip of each port[4],
 *     u8 ring neighbour without a link (0xff: none), 3 bytes 0 }, then at byte 16 the firmware's sg_api_c2c_descriptor_t
 *     (packed, 240 bytes; LAUNCH_* below);
 *   L relocations of 12 bytes { u16 program (directory index), u8 field (0
 *     source, 1 destination), u8 base, u32 descriptor index, u32 byte offset
 *     of the descriptor in its program };
 * padded to a multiple of 128 bytes. Then the programs, each padded to 128
 * bytes, and, when a launch slot below the last used one has no program,
 * one SYS END program per engine kind that needs it (not in the directory). */
#include <inttypes.h>
#include <string.h>

#include "internal.h"

static const uint8_t bundle_magic[12] = {'S', 'G', '2', '2', '6', '0', 'C', 'D', 'M', 'A', 0, 0};
enum { BUNDLE_VERSION = 4, HEAD = 32, DIR_ENTRY = 24, BASE_ENTRY = 48, LAUNCH_ENTRY = 256, RELOC_ENTRY = 12 };
/* sg_api_c2c_descriptor_t (docs/references.md [SG-fw]): byte offsets in the
 * packed struct, which starts at byte 16 of a launch record. */
enum {
    LAUNCH_STRUCT = 16,
    LAUNCH_REDUCE_DATA = 0,   /* u64 reduce_data_addr (0) */
    LAUNCH_CDMA_ADDR = 8,     /* u64 cdma_cmd_addr[3] */
    LAUNCH_VSDMA_ADDR = 32,   /* u64 vsdma_cmd_addr[8] */
    LAUNCH_GDMA_ADDR = 96,    /* u64 gdma_cmd_addr */
    LAUNCH_CDMA_NUM = 104,    /* i32 cdma_cmd_num[3] */
    LAUNCH_VSDMA_NUM = 116,   /* i32 vsdma_cmd_num[8] */
    LAUNCH_GDMA_NUM = 148,    /* i32 gdma_cmd_num */
    LAUNCH_CDMA_ENGINES = 152, /* i32 cdma_engine_num */
    LAUNCH_VSDMA_ENGINES = 156, /* i32 vsdma_engine_num */
    LAUNCH_LOOP = 160,        /* i32 loop (1) */
    LAUNCH_NRANKS = 164,      /* sccl_args_t: i32 nranks, rank, use_ring (1), chip_map[16] */
    LAUNCH_RANK = 168,
    LAUNCH_USE_RING = 172,
    LAUNCH_CHIP_MAP = 176,
    LAUNCH_SIZE = 240,
};
_Static_assert(LAUNCH_STRUCT + LAUNCH_SIZE == LAUNCH_ENTRY, "a launch record is its prefix and the struct");

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static size_t round_up(size_t n) { return (n + SG2260_ALIGN - 1) / SG2260_ALIGN * SG2260_ALIGN; }

int sg2260_bundle_is_binary(const uint8_t *bytes, size_t n) {
    return n >= sizeof bundle_magic && !memcmp(bytes, bundle_magic, sizeof bundle_magic);
}

/* ---- relocations ------------------------------------------------------- */

typedef struct Reloc {
    int prog, field, base;
    uint32_t desc, offset;
} Reloc;

/* The relocations of b (every descriptor address inside a base), in
 * program, descriptor, field order; *n their count. */
static Reloc *relocs_of(const Sg2260Bundle *b, size_t *n) {
    Reloc *r = NULL;
    size_t cnt = 0, cap = 0;
    for (int s = 0; s < b->nslots; s++) {
        const Sg2260ProgramSlot *sl = &b->slots[s];
        uint32_t off = 0;
        for (int i = 0; i < sl->prog.ndescs; i++) {
            Sg2260Desc d = sl->prog.descs[i];
            uint64_t *f[2];
            int nf = sg2260_desc_addrs(&d, f);
            for (int j = 0; j < nf; j++) {
                int k = sg2260_bundle_base_of(b, *f[j]);
                if (k < 0) continue;
                if (cnt == cap) r = sg_xrealloc(r, (cap = cap ? 2 * cap : 64) * sizeof *r);
                r[cnt++] = (Reloc){s, f[j] == &d.dst, k, (uint32_t)i, off};
            }
            off += (uint32_t)sg2260_desc_words(sl->engine, d.cmd) * 16;
        }
    }
    *n = cnt;
    return r;
}

/* ---- launch records ---------------------------------------------------- */

/* The directory index of (chip, engine, index), or -1. */
static int slot_of(const Sg2260Bundle *b, int chip, Sg2260Engine e, int index) {
    for (int i = 0; i < b->nslots; i++)
        if (b->slots[i].chip == chip && b->slots[i].engine == e && b->slots[i].index == index) return i;
    return -1;
}

/* The launch slots of rank r: prog[] the directory index of each CDMA slot
 * (then VSDMA core) program, -1 for none; *ncdma, *nvsdma the engine counts. */
static void launch_slots(const Sg2260Bundle *b, int r, int *cdma, int *ncdma, int *vsdma, int *nvsdma) {
    const Sg2260Launch *l = &b->launch[r];
    *ncdma = 0, *nvsdma = 0;
    for (int i = 0; i < SG2260_LAUNCH_CDMA; i++) {
        cdma[i] = i < l->nports ? slot_of(b, l->chip, SG2260_CDMA, l->ports[i]) : -1;
        if (cdma[i] >= 0) *ncdma = i + 1;
    }
    for (int k = 0; k < SG2260_MAX_CORES; k++) {
        vsdma[k] = slot_of(b, l->chip, SG2260_VSDMA, k);
        if (vsdma[k] >= 0) *nvsdma = k + 1;
    }
}

/* Whether some rank needs an END program for an empty CDMA / VSDMA slot. */
static void fillers_needed(const Sg2260Bundle *b, int *cdma_filler, int *vsdma_filler) {
    *cdma_filler = *vsdma_filler = 0;
    for (int r = 0; r < b->nranks; r++) {
        int c[SG2260_LAUNCH_CDMA], v[SG2260_MAX_CORES], nc, nv;
        launch_slots(b, r, c, &nc, v, &nv);
        for (int i = 0; i < nc; i++) *cdma_filler |= c[i] < 0;
        for (int i = 0; i < nv; i++) *vsdma_filler |= v[i] < 0;
    }
}

/* Writes rank r's launch record at rec; dir is the image's directory, the
 * fillers' offsets are given. */
static void write_launch(const Sg2260Bundle *b, int r, uint8_t *rec, const uint8_t *dir, uint64_t cdma_filler,
                         uint64_t vsdma_filler) {
    const Sg2260Launch *l = &b->launch[r];
    int c[SG2260_LAUNCH_CDMA], v[SG2260_MAX_CORES], nc, nv;
    launch_slots(b, r, c, &nc, v, &nv);
    char why[256];
    rec[0] = (uint8_t)l->chip, rec[1] = (uint8_t)r, rec[2] = (uint8_t)l->nports;
    rec[3] = sg2260_launch_problem(b, r, why, sizeof why) ? 0 : 1;
    for (int i = 0; i < SG2260_LAUNCH_PORTS; i++) {
        rec[4 + i] = i < l->nports ? (uint8_t)l->ports[i] : 0xff;
        rec[8 + i] = 0xff;
    }
    for (int i = 0; i < l->nports; i++) rec[8 + i] = (uint8_t)l->peers[i];
    rec[12] = l->missing >= 0 ? (uint8_t)l->missing : 0xff;
    uint8_t *st = rec + LAUNCH_STRUCT;
    uint64_t at = b->linked ? b->image_addr : 0;
    for (int i = 0; i < nc; i++) {
        const uint8_t *d = c[i] >= 0 ? dir + (size_t)c[i] * DIR_ENTRY : NULL;
        put_le(st + LAUNCH_CDMA_ADDR + 8 * i, at + (d ? get_le(d + 8, 8) : cdma_filler), 8);
        put_le(st + LAUNCH_CDMA_NUM + 4 * i, d ? get_le(d + 16, 4) : 1, 4);
    }
    for (int i = 0; i < nv; i++) {
        const uint8_t *d = v[i] >= 0 ? dir + (size_t)v[i] * DIR_ENTRY : NULL;
        put_le(st + LAUNCH_VSDMA_ADDR + 8 * i, at + (d ? get_le(d + 8, 8) : vsdma_filler), 8);
        put_le(st + LAUNCH_VSDMA_NUM + 4 * i, d ? get_le(d + 16, 4) : 1, 4);
    }
    int g = slot_of(b, l->chip, SG2260_GDMA, 0);
    if (g >= 0) {
        put_le(st + LAUNCH_GDMA_ADDR, at + get_le(dir + (size_t)g * DIR_ENTRY + 8, 8), 8);
        put_le(st + LAUNCH_GDMA_NUM, get_le(dir + (size_t)g * DIR_ENTRY + 16, 4), 4);
    }
    put_le(st + LAUNCH_CDMA_ENGINES, (uint64_t)nc, 4);
    put_le(st + LAUNCH_VSDMA_ENGINES, (uint64_t)nv, 4);
    put_le(st + LAUNCH_LOOP, 1, 4);
    put_le(st + LAUNCH_NRANKS, (uint64_t)b->nranks, 4);
    put_le(st + LAUNCH_RANK, (uint64_t)r, 4);
    put_le(st + LAUNCH_USE_RING, 1, 4);
    for (int q = 0; q < b->nranks; q++) put_le(st + LAUNCH_CHIP_MAP + 4 * q, (uint64_t)b->launch[q].chip, 4);
}

/* ---- encode ------------------------------------------------------------ */

/* The header: magic, version, counts, image address. */
static void write_head(const Sg2260Bundle *b, uint8_t *img, size_t nrelocs) {
    memcpy(img, bundle_magic, sizeof bundle_magic);
    put_le(img + 12, BUNDLE_VERSION, 2);
    put_le(img + 14, (uint64_t)b->nslots, 2);
    put_le(img + 16, (uint64_t)b->nranks, 2);
    img[18] = (uint8_t)b->nbases;
    img[19] = b->linked ? 1 : 0;
    put_le(img + 20, nrelocs, 4);
    put_le(img + 24, b->linked ? b->image_addr : 0, 8);
}

/* Appends an END-only program of engine e at *size; returns its offset. */
static uint64_t append_filler(uint8_t **img, size_t *size, Sg2260Engine e, Sg2260Error *err) {
    Sg2260Program p = {0};
    Sg2260Desc end = {.cmd = SG2260_CMD_SYS, .sys = SG2260_SYS_END};
    sg2260_program_push(&p, &end);
    uint8_t *bytes;
    long n = sg2260_program_encode(e, &p, &bytes, err);
    sg2260_program_free(&p);
    if (n < 0) abort(); /* SYS END encodes on every engine */
    *img = sg_xrealloc(*img, *size + (size_t)n);
    memcpy(*img + *size, bytes, (size_t)n);
    free(bytes);
    uint64_t at = *size;
    *size += (size_t)n;
    return at;
}

long sg2260_bundle_encode(const Sg2260Bundle *b, uint8_t **out, Sg2260Error *err) {
    size_t nrel;
    Reloc *rel = relocs_of(b, &nrel);
    size_t dir0 = HEAD, base0 = dir0 + (size_t)b->nslots * DIR_ENTRY, launch0 = base0 + (size_t)b->nbases * BASE_ENTRY,
           rel0 = launch0 + (size_t)b->nranks * LAUNCH_ENTRY;
    size_t head = round_up(rel0 + nrel * RELOC_ENTRY), size = head;
    uint8_t *img = sg_xcalloc(head, 1);
    write_head(b, img, nrel);
    for (int i = 0; i < b->nslots; i++) {
        const Sg2260ProgramSlot *sl = &b->slots[i];
        uint8_t *prog;
        long n = sg2260_program_encode(sl->engine, &sl->prog, &prog, err);
        if (n < 0) {
            free(img);
            free(rel);
            return -1;
        }
        img = sg_xrealloc(img, size + (size_t)n);
        memcpy(img + size, prog, (size_t)n);
        free(prog);
        uint8_t *dir = img + dir0 + (size_t)i * DIR_ENTRY;
        dir[0] = (uint8_t)sl->chip, dir[1] = (uint8_t)sl->engine, dir[2] = (uint8_t)sl->index, dir[3] = 0;
        put_le(dir + 4, (uint64_t)n, 4);
        put_le(dir + 8, size, 8);
        put_le(dir + 16, (uint64_t)sl->prog.ndescs, 4);
        put_le(dir + 20, (uint64_t)sl->msg_base, 2);
        size += (size_t)n;
    }
    int need_c, need_v;
    fillers_needed(b, &need_c, &need_v);
    uint64_t fill_c = need_c ? append_filler(&img, &size, SG2260_CDMA, err) : 0;
    uint64_t fill_v = need_v ? append_filler(&img, &size, SG2260_VSDMA, err) : 0;
    for (int k = 0; k < b->nbases; k++) {
        uint8_t *e = img + base0 + (size_t)k * BASE_ENTRY;
        memcpy(e, b->bases[k].name, strlen(b->bases[k].name));
        put_le(e + 32, b->bases[k].addr, 8);
        put_le(e + 40, b->bases[k].bytes, 8);
    }
    for (int r = 0; r < b->nranks; r++)
        write_launch(b, r, img + launch0 + (size_t)r * LAUNCH_ENTRY, img + dir0, fill_c, fill_v);
    for (size_t i = 0; i < nrel; i++) {
        uint8_t *e = img + rel0 + i * RELOC_ENTRY;
        put_le(e, (uint64_t)rel[i].prog, 2);
        e[2] = (uint8_t)rel[i].field, e[3] = (uint8_t)rel[i].base;
        put_le(e + 4, rel[i].desc, 4);
        put_le(e + 8, rel[i].offset, 4);
    }
    free(rel);
    *out = img;
    return (long)size;
}

/* ---- decode ------------------------------------------------------------ */

static int bad(Sg2260Bundle *b, Sg2260Error *err, const char *what, unsigned i) {
    sg2260_bundle_free(b);
    return sg_err(err, "bad-image", NULL, 0, "bundle image: %s %u is invalid", what, i);
}

/* The directory entries and their programs. */
static int decode_programs(const uint8_t *bytes, size_t n, unsigned count, Sg2260Bundle *b, Sg2260Error *err) {
    for (unsigned i = 0; i < count; i++) {
        const uint8_t *dir = bytes + HEAD + (size_t)i * DIR_ENTRY;
        uint64_t size = get_le(dir + 4, 4), off = get_le(dir + 8, 8), ncmds = get_le(dir + 16, 4);
        uint64_t base = get_le(dir + 20, 2);
        int max_index = dir[1] == SG2260_CDMA ? SG2260_MAX_PORTS : dir[1] == SG2260_VSDMA ? SG2260_MAX_CORES : 1;
        if (dir[0] >= SG2260_MAX_CHIPS || dir[1] > SG2260_VSDMA || dir[2] >= max_index || dir[3] ||
            off % SG2260_ALIGN || off > n || size > n - off || base >= SG2260_MSG_IDS - 1 || get_le(dir + 22, 2))
            return bad(b, err, "directory entry", i);
        int before = b->nslots;
        Sg2260Program *p = sg2260_bundle_program(b, dir[0], (Sg2260Engine)dir[1], dir[2]);
        if (b->nslots == before) {
            sg2260_bundle_free(b);
            return sg_err(err, "duplicate-program", NULL, 0, "two programs for chip %d %s %d", dir[0],
                          sg2260_engine_name((Sg2260Engine)dir[1]), dir[2]);
        }
        b->slots[b->nslots - 1].msg_base = (int)base;
        if (sg2260_program_decode((Sg2260Engine)dir[1], bytes + off, (size_t)size, p, err)) {
            sg2260_bundle_free(b);
            return -1;
        }
        if ((uint64_t)p->ndescs != ncmds) {
            sg2260_bundle_free(b);
            return sg_err(err, "bad-image", NULL, 0,
                          "bundle directory entry %u counts %llu commands, its program has %d up to END", i,
                          (unsigned long long)ncmds, p->ndescs);
        }
    }
    return 0;
}

/* The bases and the launch records' prefixes (the struct is what encode
 * writes from them; decode checks it is). */
static int decode_tables(const uint8_t *bytes, size_t base0, size_t launch0, unsigned nbases, unsigned nranks,
                         Sg2260Bundle *b, Sg2260Error *err) {
    for (unsigned k = 0; k < nbases; k++) {
        const uint8_t *e = bytes + base0 + (size_t)k * BASE_ENTRY;
        char name[SG2260_BASE_NAME + 1] = {0};
        memcpy(name, e, SG2260_BASE_NAME);
        for (size_t j = strlen(name); j < SG2260_BASE_NAME; j++)
            if (e[j]) return bad(b, err, "base", k);
        if (sg2260_bundle_add_base(b, name, get_le(e + 32, 8), get_le(e + 40, 8), err)) return bad(b, err, "base", k);
    }
    for (unsigned r = 0; r < nranks; r++) {
        const uint8_t *e = bytes + launch0 + (size_t)r * LAUNCH_ENTRY;
        Sg2260Launch *l = &b->launch[r];
        l->chip = e[0], l->rank = e[1], l->nports = e[2], l->missing = e[12] == 0xff ? -1 : e[12];
        if (l->chip >= SG2260_MAX_CHIPS || l->rank != (int)r || l->nports > SG2260_LAUNCH_PORTS || e[3] > 1 ||
            l->missing >= SG2260_MAX_CHIPS)
            return bad(b, err, "launch record", r);
        for (int i = 0; i < l->nports; i++) {
            l->ports[i] = e[4 + i], l->peers[i] = e[8 + i];
            if (l->ports[i] >= SG2260_MAX_PORTS || l->peers[i] >= SG2260_MAX_CHIPS) return bad(b, err, "launch record", r);
        }
        for (unsigned q = 0; q < r; q++)
            if (b->launch[q].chip == l->chip) return bad(b, err, "launch record", r);
    }
    b->nranks = (int)nranks;
    return 0;
}

int sg2260_bundle_decode(const uint8_t *bytes, size_t n, Sg2260Bundle *b, Sg2260Error *err) {
    memset(b, 0, sizeof *b);
    if (!sg2260_bundle_is_binary(bytes, n) || n < HEAD)
        return sg_err(err, "bad-image", NULL, 0, "not an SG2260 bundle image");
    if (get_le(bytes + 12, 2) != BUNDLE_VERSION)
        return sg_err(err, "bad-image", NULL, 0, "bundle image version %u is not %d", (unsigned)get_le(bytes + 12, 2),
                      BUNDLE_VERSION);
    unsigned count = (unsigned)get_le(bytes + 14, 2), nranks = (unsigned)get_le(bytes + 16, 2), nbases = bytes[18];
    uint64_t nrel = get_le(bytes + 20, 4);
    size_t base0 = HEAD + (size_t)count * DIR_ENTRY, launch0 = base0 + (size_t)nbases * BASE_ENTRY,
           rel0 = launch0 + (size_t)nranks * LAUNCH_ENTRY;
    if (nranks > SG2260_MAX_CHIPS || nbases > SG2260_MAX_BASES || bytes[19] > 1 || rel0 > n ||
        nrel > (n - rel0) / RELOC_ENTRY)
        return sg_err(err, "bad-image", NULL, 0, "bundle image header is invalid or the image is truncated");
    b->linked = bytes[19], b->image_addr = get_le(bytes + 24, 8);
    if (!b->linked && b->image_addr) return sg_err(err, "bad-image", NULL, 0, "bundle image header is invalid");
    if (decode_programs(bytes, n, count, b, err) || decode_tables(bytes, base0, launch0, nbases, nranks, b, err))
        return -1;
    /* what encode would write from this bundle: the launch records and the
     * relocation table must be exactly that */
    uint8_t *again;
    long m = sg2260_bundle_encode(b, &again, err);
    if (m < 0) {
        sg2260_bundle_free(b);
        return -1;
    }
    int same = (size_t)m == n && !memcmp(again + launch0, bytes + launch0, (size_t)(rel0 - launch0) + nrel * RELOC_ENTRY) &&
               get_le(again + 20, 4) == nrel;
    free(again);
    if (!same) {
        sg2260_bundle_free(b);
        return sg_err(err, "bad-image", NULL, 0,
                      "bundle image: its launch records or relocation table do not match its programs and bases");
    }
    return 0;
}

int sg2260_bundle_write_c(FILE *out, const Sg2260Bundle *b, const char *name, Sg2260Error *err) {
    int ok = name && (name[0] == '_' || ((name[0] | 32) >= 'a' && (name[0] | 32) <= 'z'));
    for (const char *p = name; ok && *p; p++)
        ok = *p == '_' || ((*p | 32) >= 'a' && (*p | 32) <= 'z') || (*p >= '0' && *p <= '9');
    if (!ok) return sg_err(err, "bad-name", NULL, 0, "'%s' is not a C identifier", name ? name : "");
    uint8_t *img;
    long n = sg2260_bundle_encode(b, &img, err);
    if (n < 0) return -1;
    fprintf(out, "/* SG2260 descriptor bundle image: %d program(s), %ld bytes (docs/sg2260.md). */\n", b->nslots, n);
    fprintf(out, "const unsigned char %s[%ld] __attribute__((aligned(128))) = {", name, n);
    for (long i = 0; i < n; i++) fprintf(out, "%s0x%02x,", i % 16 ? " " : "\n    ", img[i]);
    fprintf(out, "\n};\nconst unsigned long %s_size = %ldul;\n", name, n);
    free(img);
    return ferror(out) ? -1 : 0;
}

/* ---- dump -------------------------------------------------------------- */

static void print_addr(FILE *out, uint64_t a) {
    if (SG2260_ADDR_TAG(a) == SG2260_TAG_L2) fprintf(out, "l2:0x%" PRIx64, SG2260_ADDR_OFFSET(a));
    else fprintf(out, "0x%" PRIx64, a);
}

/* One launch record: its ports, then the struct's fields. */
static void dump_launch(FILE *out, const Sg2260Bundle *b, int r, const uint8_t *rec) {
    const uint8_t *st = rec + LAUNCH_STRUCT;
    char why[256];
    fprintf(out, "chip %d: rank %d of %d, CDMA ports", rec[0], r, b->nranks);
    for (int i = 0; i < rec[2]; i++) fprintf(out, "%s %d (to chip %d)", i ? "," : "", rec[4 + i], rec[8 + i]);
    if (!rec[2]) fprintf(out, " none");
    if (rec[3]) fprintf(out, "; launchable\n");
    else fprintf(out, "; not launchable: %s\n", sg2260_launch_problem(b, r, why, sizeof why) ? why : "?");
    int nc = (int)get_le(st + LAUNCH_CDMA_ENGINES, 4), nv = (int)get_le(st + LAUNCH_VSDMA_ENGINES, 4);
    fprintf(out, "  cdma_engine_num %d", nc);
    for (int i = 0; i < nc; i++)
        fprintf(out, "  [%d] port %d addr 0x%" PRIx64 " cmds %u", i, rec[4 + i], get_le(st + LAUNCH_CDMA_ADDR + 8 * i, 8),
                (unsigned)get_le(st + LAUNCH_CDMA_NUM + 4 * i, 4));
    fprintf(out, "\n  gdma addr 0x%" PRIx64 " cmds %u\n", get_le(st + LAUNCH_GDMA_ADDR, 8),
            (unsigned)get_le(st + LAUNCH_GDMA_NUM, 4));
    fprintf(out, "  vsdma_engine_num %d", nv);
    for (int i = 0; i < nv; i++)
        fprintf(out, "  [%d] addr 0x%" PRIx64 " cmds %u", i, get_le(st + LAUNCH_VSDMA_ADDR + 8 * i, 8),
                (unsigned)get_le(st + LAUNCH_VSDMA_NUM + 4 * i, 4));
    fprintf(out, "\n  loop %u, sccl nranks %u rank %u use_ring %u chip_map", (unsigned)get_le(st + LAUNCH_LOOP, 4),
            (unsigned)get_le(st + LAUNCH_NRANKS, 4), (unsigned)get_le(st + LAUNCH_RANK, 4),
            (unsigned)get_le(st + LAUNCH_USE_RING, 4));
    for (int q = 0; q < b->nranks; q++) fprintf(out, "%s%u", q ? "," : " ", (unsigned)get_le(st + LAUNCH_CHIP_MAP + 4 * q, 4));
    fputc('\n', out);
}

int sg2260_bundle_dump(FILE *out, const uint8_t *bytes, size_t n, Sg2260Error *err) {
    Sg2260Bundle b;
    if (sg2260_bundle_decode(bytes, n, &b, err)) return -1;
    uint64_t nrel = get_le(bytes + 20, 4);
    size_t launch0 = HEAD + (size_t)b.nslots * DIR_ENTRY + (size_t)b.nbases * BASE_ENTRY,
           rel0 = launch0 + (size_t)b.nranks * LAUNCH_ENTRY;
    fprintf(out, "SG2260 bundle image version %d: %zu bytes, %d programs, %d bases, %d launch records, %" PRIu64
                 " relocations\n",
            BUNDLE_VERSION, n, b.nslots, b.nbases, b.nranks, nrel);
    if (b.linked) fprintf(out, "linked: the image at 0x%" PRIx64 " on every chip\n", b.image_addr);
    else fprintf(out, "not linked: command addresses are offsets in the image\n");
    for (int k = 0; k < b.nbases; k++) {
        unsigned uses = 0;
        for (uint64_t i = 0; i < nrel; i++) uses += bytes[rel0 + i * RELOC_ENTRY + 3] == k;
        fprintf(out, "base %s at ", b.bases[k].name);
        print_addr(out, b.bases[k].addr);
        fprintf(out, ", %" PRIu64 " bytes, %u relocations\n", b.bases[k].bytes, uses);
    }
    for (int r = 0; r < b.nranks; r++) dump_launch(out, &b, r, bytes + launch0 + (size_t)r * LAUNCH_ENTRY);
    for (int i = 0; i < b.nslots; i++) {
        const uint8_t *d = bytes + HEAD + (size_t)i * DIR_ENTRY;
        fprintf(out, "program %d: chip %d %s", i, d[0], sg2260_engine_name((Sg2260Engine)d[1]));
        if (d[1] != SG2260_GDMA) fprintf(out, " %s %d", d[1] == SG2260_CDMA ? "port" : "core", d[2]);
        fprintf(out, " at offset 0x%" PRIx64 ", %u bytes, %u commands, msg_base %u\n", get_le(d + 8, 8),
                (unsigned)get_le(d + 4, 4), (unsigned)get_le(d + 16, 4), (unsigned)get_le(d + 20, 2));
    }
    sg2260_bundle_free(&b);
    return ferror(out) ? -1 : 0;
}

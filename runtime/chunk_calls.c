/* chunk_calls.c - the chunk-level transfer calls of coll.h (what generated
 * code uses), built on the byte-level calls: each resolves its chunk
 * ranges, lets deferred copies (deferral.c) and copy-on-write (cow.c) say
 * where to read and write, and posts the byte-level operation. */
#include <stdint.h>
#include "collrt_internal.h"

void coll_send(coll_call *call, int64_t peer, int buf, int64_t lo, int64_t hi) {
    collrt_call *c = COLLRT_CALL(call);
    char *p;
    size_t n;
    int64_t l = lo, len = lo >= 0 && hi >= lo ? hi - lo : -1;
    int b = collrt_read_source(c, buf, &l, len);
    int64_t h = b == buf ? hi : l + len;
    if (collrt_range(c, b, l, h, &p, &n)) coll_send_bytes(call, peer, collrt_cow_read(c, b, l, h, p), n);
}

void coll_recv(coll_call *call, int64_t peer, int buf, int64_t lo, int64_t hi) {
    collrt_call *c = COLLRT_CALL(call);
    char *p;
    size_t n;
    if (collrt_range(c, buf, lo, hi, &p, &n)) {
        collrt_clear_pending(c, buf, lo, hi);
        coll_recv_bytes(call, peer, collrt_cow_write(c, buf, lo, hi, p), n);
    }
}

void coll_recv_reduce(coll_call *call, int64_t peer, int buf, int64_t lo, int64_t hi) {
    collrt_call *c = COLLRT_CALL(call);
    char *p;
    size_t n;
    if (!collrt_range(c, buf, lo, hi, &p, &n)) return;
    const char *in = collrt_fused_operand(c, buf, lo, hi - lo, n);
    if (in) {
        coll_recv_reduce_bytes(call, peer, p, in, n); /* buf := in (+) remote */
        return;
    }
    coll_recv_reduce_bytes(call, peer, collrt_cow_write(c, buf, lo, hi, p), p, n);
}

/* A length n from the program that lo + n cannot overflow for either
 * range (else sticky COLL_ERR_INTERNAL). */
static bool length_ok(collrt_call *c, int64_t slo, int64_t dlo, int64_t n) {
    if (n < 0 || slo > INT64_MAX - n || dlo > INT64_MAX - n) {
        collrt_fail(c, COLL_ERR_INTERNAL);
        return false;
    }
    return true;
}

/* The operands of a local operation (or receive-reduce-copy) of n chunks
 * src_buf[*src_lo ..] -> dst_buf[dst_lo ..]: the buffer to read from
 * (`in` when the source chunks are deferred copies of it: *src_lo moves
 * there), both byte ranges, which have the same size (the chunk position
 * rule makes that so for verified programs). -1 (sticky
 * COLL_ERR_INTERNAL) when a range is invalid or the sizes differ. */
static int operands(collrt_call *c, int src_buf, int64_t *src_lo, int dst_buf, int64_t dst_lo,
                    int64_t n, char **sp, char **dp, size_t *bytes) {
    if (!length_ok(c, *src_lo, dst_lo, n)) return -1;
    int sb = collrt_read_source(c, src_buf, src_lo, n);
    size_t sn, dn;
    if (!collrt_range(c, sb, *src_lo, *src_lo + n, sp, &sn) ||
        !collrt_range(c, dst_buf, dst_lo, dst_lo + n, dp, &dn))
        return -1;
    if (sn != dn) {
        collrt_fail(c, COLL_ERR_INTERNAL);
        return -1;
    }
    *bytes = sn;
    return sb;
}

void coll_recv_reduce_copy(coll_call *call, int64_t peer, int src_buf, int64_t src_lo,
                           int dst_buf, int64_t dst_lo, int64_t n) {
    collrt_call *c = COLLRT_CALL(call);
    char *s, *d;
    size_t bytes;
    int sb = operands(c, src_buf, &src_lo, dst_buf, dst_lo, n, &s, &d, &bytes);
    if (sb < 0) return;
    collrt_clear_pending(c, dst_buf, dst_lo, dst_lo + n);
    const char *src = collrt_cow_read(c, sb, src_lo, src_lo + n, s);
    coll_recv_reduce_bytes(call, peer, collrt_cow_write(c, dst_buf, dst_lo, dst_lo + n, d), src, bytes);
}

void coll_copy(coll_call *call, int src_buf, int64_t src_lo, int dst_buf,
               int64_t dst_lo, int64_t n) {
    collrt_call *c = COLLRT_CALL(call);
    char *s, *d;
    size_t bytes;
    int sb = operands(c, src_buf, &src_lo, dst_buf, dst_lo, n, &s, &d, &bytes);
    if (sb < 0) return;
    if (s == d && collrt_cow_intact(c, sb, src_lo, src_lo + n)) return; /* in place: nothing to move */
    if (collrt_defer_copy(c, sb, src_lo, dst_buf, dst_lo, n)) return;
    collrt_clear_pending(c, dst_buf, dst_lo, dst_lo + n);
    const char *src = collrt_cow_read(c, sb, src_lo, src_lo + n, s);
    coll_copy_bytes(call, collrt_cow_write(c, dst_buf, dst_lo, dst_lo + n, d), src, bytes);
}

void coll_reduce(coll_call *call, int src_buf, int64_t src_lo, int dst_buf,
                 int64_t dst_lo, int64_t n) {
    collrt_call *c = COLLRT_CALL(call);
    char *s, *d;
    size_t bytes;
    int sb = operands(c, src_buf, &src_lo, dst_buf, dst_lo, n, &s, &d, &bytes);
    if (sb < 0) return;
    const char *in = collrt_fused_operand(c, dst_buf, dst_lo, n, bytes);
    if (in) {
        coll_reduce_bytes(call, d, in, s, bytes); /* dst := in (+) src, one pass */
        return;
    }
    const char *src = collrt_cow_read(c, sb, src_lo, src_lo + n, s);
    coll_reduce_bytes(call, collrt_cow_write(c, dst_buf, dst_lo, dst_lo + n, d), d, src, bytes);
}

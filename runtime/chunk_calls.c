/* chunk_calls.c - the chunk-level transfer calls of coll.h (what generated
 * code uses), built on the byte-level calls: each resolves its chunk
 * ranges, lets deferred copies (deferral.c) and copy-on-write (cow.c) say
 * where to read and write, and posts the byte-level operation. While
 * coll_start records a program (request.c), each only appends itself. */
#include <stdint.h>
#include "collrt_internal.h"

void coll_send(coll_call *call, int64_t peer, int buf, int64_t lo, int64_t hi) {
    if (__builtin_expect(COLLRT_CALL(call)->rec != NULL, 0)) {
        collrt_rec_add(COLLRT_CALL(call), COLLRT_REC_SEND, peer, buf, lo, 0, hi, 0);
        return;
    }
    collrt_call *c = COLLRT_CALL(call);
    char *p;
    size_t n;
    int64_t l = lo, len = lo >= 0 && hi >= lo ? hi - lo : -1;
    int b = collrt_read_source(c, buf, &l, len);
    int64_t h = b == buf ? hi : l + len;
    if (collrt_range(c, b, l, h, &p, &n)) coll_send_bytes(call, peer, collrt_cow_read(c, b, l, h, p), n);
}

void coll_recv(coll_call *call, int64_t peer, int buf, int64_t lo, int64_t hi) {
    if (__builtin_expect(COLLRT_CALL(call)->rec != NULL, 0)) {
        collrt_rec_add(COLLRT_CALL(call), COLLRT_REC_RECV, peer, buf, lo, 0, hi, 0);
        return;
    }
    collrt_call *c = COLLRT_CALL(call);
    char *p;
    size_t n;
    if (collrt_range(c, buf, lo, hi, &p, &n)) {
        collrt_clear_pending(c, buf, lo, hi);
        coll_recv_bytes(call, peer, collrt_cow_write(c, buf, lo, hi, p), n);
    }
}

void coll_recv_reduce(coll_call *call, int64_t peer, int buf, int64_t lo, int64_t hi) {
    if (__builtin_expect(COLLRT_CALL(call)->rec != NULL, 0)) {
        collrt_rec_add(COLLRT_CALL(call), COLLRT_REC_RECV_REDUCE, peer, buf, lo, 0, hi, 0);
        return;
    }
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
 * src_buf[src_lo ..] -> dst_buf[dst_lo ..]. */
typedef struct operands {
    collrt_call *c;
    int sbuf;              /* where to read: `in` when the source chunks are
                              deferred copies of it */
    int64_t slo;           /* ... from chunk slo */
    char *s, *d;           /* source and destination bytes */
    size_t bytes;          /* the same on both sides (the chunk position
                              rule makes that so for verified programs) */
} operands;

/* False (sticky COLL_ERR_INTERNAL) when a range is invalid or the sizes
 * differ. */
static bool get_operands(coll_call *call, int src_buf, int64_t src_lo, int dst_buf,
                         int64_t dst_lo, int64_t n, operands *o) {
    collrt_call *c = o->c = COLLRT_CALL(call);
    if (!length_ok(c, src_lo, dst_lo, n)) return false;
    o->slo = src_lo;
    o->sbuf = collrt_read_source(c, src_buf, &o->slo, n);
    size_t sn, dn;
    if (!collrt_range(c, o->sbuf, o->slo, o->slo + n, &o->s, &sn) ||
        !collrt_range(c, dst_buf, dst_lo, dst_lo + n, &o->d, &dn))
        return false;
    if (sn != dn) {
        collrt_fail(c, COLL_ERR_INTERNAL);
        return false;
    }
    o->bytes = sn;
    return true;
}

/* Where a local operation reads its source, copy-on-write considered. */
static const char *source(operands *o, int64_t n) {
    return collrt_cow_read(o->c, o->sbuf, o->slo, o->slo + n, o->s);
}

/* Where it writes dst_buf[dst_lo, dst_lo + n): pending copies there are
 * dropped (overwritten), copy-on-write considered. */
static char *destination(operands *o, int dst_buf, int64_t dst_lo, int64_t n) {
    collrt_clear_pending(o->c, dst_buf, dst_lo, dst_lo + n);
    return collrt_cow_write(o->c, dst_buf, dst_lo, dst_lo + n, o->d);
}

void coll_recv_reduce_copy(coll_call *call, int64_t peer, int src_buf, int64_t src_lo,
                           int dst_buf, int64_t dst_lo, int64_t n) {
    if (__builtin_expect(COLLRT_CALL(call)->rec != NULL, 0)) {
        collrt_rec_add(COLLRT_CALL(call), COLLRT_REC_RECV_REDUCE_COPY, peer, src_buf, src_lo, dst_buf,
                       dst_lo, n);
        return;
    }
    operands o;
    if (!get_operands(call, src_buf, src_lo, dst_buf, dst_lo, n, &o)) return;
    const char *src = source(&o, n);
    coll_recv_reduce_bytes(call, peer, destination(&o, dst_buf, dst_lo, n), src, o.bytes);
}

void coll_copy(coll_call *call, int src_buf, int64_t src_lo, int dst_buf,
               int64_t dst_lo, int64_t n) {
    if (__builtin_expect(COLLRT_CALL(call)->rec != NULL, 0)) {
        collrt_rec_add(COLLRT_CALL(call), COLLRT_REC_COPY, 0, src_buf, src_lo, dst_buf, dst_lo, n);
        return;
    }
    operands o;
    if (!get_operands(call, src_buf, src_lo, dst_buf, dst_lo, n, &o)) return;
    if (o.s == o.d && collrt_cow_intact(o.c, o.sbuf, o.slo, o.slo + n))
        return; /* in place: nothing to move */
    if (collrt_defer_copy(o.c, o.sbuf, o.slo, dst_buf, dst_lo, n)) return;
    const char *src = source(&o, n);
    coll_copy_bytes(call, destination(&o, dst_buf, dst_lo, n), src, o.bytes);
}

void coll_reduce(coll_call *call, int src_buf, int64_t src_lo, int dst_buf,
                 int64_t dst_lo, int64_t n) {
    if (__builtin_expect(COLLRT_CALL(call)->rec != NULL, 0)) {
        collrt_rec_add(COLLRT_CALL(call), COLLRT_REC_REDUCE, 0, src_buf, src_lo, dst_buf, dst_lo, n);
        return;
    }
    operands o;
    if (!get_operands(call, src_buf, src_lo, dst_buf, dst_lo, n, &o)) return;
    const char *in = collrt_fused_operand(o.c, dst_buf, dst_lo, n, o.bytes);
    if (in) {
        coll_reduce_bytes(call, o.d, in, o.s, o.bytes); /* dst := in (+) src, one pass */
        return;
    }
    const char *src = source(&o, n);
    coll_reduce_bytes(call, collrt_cow_write(o.c, dst_buf, dst_lo, dst_lo + n, o.d), o.d, src,
                      o.bytes);
}

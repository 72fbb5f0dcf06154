/* SPDX-License-Identifier: Apache-2.0 */
/* trace_read_ohdr.c — the attribute messages of an object header, checked in
 * the file's own bytes before the HDF5 library decodes them
 * (trace_read_impl.h). HDF5 1.10.8 copies an attribute's name with strdup
 * before it compares the length with the stored one (H5O_attr_decode): a
 * crafted name without its terminating NUL makes it read past the header's
 * buffer (found by the trace fuzzer, tests/fuzz/corpus/trace/
 * hdf5-attr-name-overread.h5). Every way to an attribute (H5Aexists_by_name,
 * H5Aopen_by_idx, H5Aiterate) decodes the messages the same way, so the
 * names are checked here first: the superblock (versions 0 to 3) for the
 * sizes of offsets and lengths, then the object header (version 1, or 2:
 * "OHDR") and its continuation chunks, each attribute message's name
 * terminated within its stored length. Attributes in dense storage (a
 * fractal heap) are not reached here. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/trace/trace_read_impl.h"

enum { MAX_CHUNKS = 256, MSG_ATTR = 0x000C, MSG_CONT = 0x0010, MSG_SHARED = 0x02 };

typedef struct Hdr {
    int fd;
    uint64_t size, base;   /* the file's size; the superblock's base address */
    unsigned so, sl;       /* sizes of offsets and lengths */
    uint64_t cont[MAX_CHUNKS][2]; /* continuation chunks still to read: address, length */
    size_t ncont;
} Hdr;

static uint64_t le(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* n bytes at off (relative to the base) into a new buffer, or NULL when they
 * are not all in the file. */
static unsigned char *get(const Hdr *h, uint64_t off, uint64_t n)
{
    if (n == 0 || off > h->size || h->base > h->size - off || n > h->size - off - h->base)
        return NULL;
    unsigned char *b = malloc((size_t)n);
    if (b && pread(h->fd, b, (size_t)n, (off_t)(h->base + off)) != (ssize_t)n) {
        free(b);
        return NULL;
    }
    return b;
}

/* The superblock: at 0, 512, 1024, ... */
static int superblock(Hdr *h)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    for (uint64_t at = 0; at + 16 <= h->size; at = at ? at * 2 : 512) {
        unsigned char b[16];
        if (pread(h->fd, b, sizeof b, (off_t)at) != (ssize_t)sizeof b || memcmp(b, sig, 8) != 0)
            continue;
        h->base = at;
        if (b[8] <= 1) {
            h->so = b[13];
            h->sl = b[14];
        } else {
            h->so = b[9];
            h->sl = b[10];
        }
        return (h->so == 2 || h->so == 4 || h->so == 8) && (h->sl == 2 || h->sl == 4 || h->sl == 8) ? 0 : -1;
    }
    return -1;
}

/* The attribute's datatype (after its name; version 1 pads both to 8
 * bytes): a fixed-point, IEEE floating-point or fixed-length string type
 * of datatype version 1 to 3, its message exactly as long as its class's
 * properties (the only classes wanka writes); another class HDF5 knows
 * (0 to 10) only by its version, for the reader to name it. HDF5 1.10.8 releases a
 * half-decoded attribute when any later step of its decode fails and then
 * dereferences NULL in H5A__close while the file closes (found by the
 * trace fuzzer: an unknown datatype version, tests/fuzz/corpus/trace/
 * hdf5-attr-dtype-null.h5; a rank its dataspace cannot hold,
 * hdf5-attr-rank-null.h5), so every part it decodes is checked here. The
 * type's size in bytes goes to *size. */
static int datatype(const unsigned char *t, uint64_t n, uint64_t *size, const char **why)
{
    static const unsigned char f32[12] = {0, 0, 32, 0, 23, 8, 0, 23, 127, 0, 0, 0};
    static const unsigned char f64[12] = {0, 0, 64, 0, 52, 11, 0, 52, 0xff, 3, 0, 0};
    unsigned cls = t[0] & 15, ver = t[0] >> 4;
    *size = n >= 8 ? le(t + 4, 4) : 0;
    int ok = n >= 8 && ver >= 1 && ver <= 3 && *size > 0;
    if (ok && cls == 0) /* fixed-point: bit offset 0, all bits significant */
        ok = n == 12 && (*size == 1 || *size == 2 || *size == 4 || *size == 8) && le(t + 8, 2) == 0 &&
             le(t + 10, 2) == 8 * *size && (t[1] & ~0x0fu) == 0;
    else if (ok && cls == 1) /* IEEE binary32 or binary64, either byte order */
        ok = n == 20 && (t[1] & ~0x01u) == 0x20 && t[3] == 0 &&
             ((*size == 4 && t[2] == 31 && memcmp(t + 8, f32, 12) == 0) ||
              (*size == 8 && t[2] == 63 && memcmp(t + 8, f64, 12) == 0));
    else if (ok && cls == 3) /* string: padding 0-2, ASCII or UTF-8 */
        ok = n == 8 && (t[1] & 15) <= 2 && (t[1] >> 4) <= 1 && t[2] == 0 && t[3] == 0;
    else /* a class wanka never writes but HDF5 knows (the reader names it), its size left to the data check */
        ok = ok && cls <= 10;
    if (!ok)
        *why = "an attribute's datatype is of an unknown version or class, or a malformed integer, IEEE float or string";
    return ok ? 0 : -1;
}

/* The attribute's datatype, dataspace and data (after its name; version 1
 * pads name, datatype and dataspace to 8 bytes): the datatype as above; a
 * version 1 or 2 dataspace of at most 32 dimensions whose sizes (and
 * maximum sizes, when flagged) fit in its stored length, with no flag but
 * "maximum sizes present"; the data (elements x type size; HDF5 1.10.8
 * copies that many bytes without comparing them with the message) within
 * the message. */
static int dataspace(const Hdr *h, const unsigned char *d, uint64_t n, uint64_t name_at, uint64_t name_len,
                     const char **why)
{
    uint64_t dt = le(d + 4, 2), ds = le(d + 6, 2), tsize = 0;
    int pad = d[0] == 1;
    uint64_t tat = name_at + (pad ? (name_len + 7) / 8 * 8 : name_len);
    if (tat > n || dt > n - tat) {
        *why = "an attribute's datatype does not fit in its message";
        return -1;
    }
    if (datatype(d + tat, dt, &tsize, why) < 0)
        return -1;
    uint64_t at = tat + (pad ? (dt + 7) / 8 * 8 : dt);
    if (at > n || ds > n - at || ds < 4) {
        *why = "an attribute's datatype or dataspace does not fit in its message";
        return -1;
    }
    const unsigned char *p = d + at;
    unsigned ver = p[0], rank = p[1], fl = p[2];
    uint64_t hdr = ver == 1 ? 8 : 4;
    if ((ver != 1 && ver != 2) || rank > 32 || (fl & ~1u) || (ver == 2 && p[3] > 2) ||
        hdr + (uint64_t)rank * h->sl * (1 + (fl & 1u)) > ds) {
        *why = "an attribute's dataspace is of an unknown version or holds more dimensions than its length";
        return -1;
    }
    uint64_t elems = ver == 2 && p[3] == 2 ? 0 : 1;
    for (unsigned i = 0; i < rank && elems; i++) {
        uint64_t dim = le(p + hdr + (uint64_t)i * h->sl, h->sl);
        elems = dim && elems > UINT64_MAX / dim ? UINT64_MAX : elems * dim;
    }
    uint64_t data_at = at + (pad ? (ds + 7) / 8 * 8 : ds);
    uint64_t left = data_at <= n ? n - data_at : 0;
    if (elems && (elems > left / tsize || elems * tsize > left)) {
        *why = "an attribute's data runs past its message";
        return -1;
    }
    return 0;
}

/* One message: an attribute's name must end within its stored length; a
 * continuation is queued. 0, or -1 with why set. */
static int message(Hdr *h, unsigned type, unsigned flags, const unsigned char *d, uint64_t n, const char **why)
{
    if (type == MSG_CONT) {
        if (n < (uint64_t)h->so + h->sl || h->ncont == MAX_CHUNKS) {
            *why = "a continuation message is cut short, or there are too many";
            return -1;
        }
        h->cont[h->ncont][0] = le(d, h->so);
        h->cont[h->ncont][1] = le(d + h->so, h->sl);
        h->ncont++;
        return 0;
    }
    if (type != MSG_ATTR)
        return 0;
    if (flags & MSG_SHARED) {
        *why = "an attribute stored as a shared message (wanka never writes one)";
        return -1;
    }
    uint64_t name_at = n && d[0] == 3 ? 9 : 8;
    if (n < name_at || (d[0] < 1 || d[0] > 3)) {
        *why = "an attribute message of an unknown version or cut short";
        return -1;
    }
    uint64_t len = le(d + 2, 2);
    if (len == 0 || len > n - name_at || !memchr(d + name_at, '\0', (size_t)len)) {
        *why = "an attribute's name is not terminated within its stored length";
        return -1;
    }
    return dataspace(h, d, n, name_at, len, why);
}

/* The messages of one chunk [p, end): version 1 (8-byte headers, aligned)
 * or 2 (4 or 6 bytes). */
static int chunk(Hdr *h, int v2, int order, const unsigned char *p, const unsigned char *end, const char **why)
{
    size_t hs = v2 ? 4 + (order ? 2 : 0) : 8;
    while ((size_t)(end - p) >= hs) {
        unsigned type = v2 ? p[0] : (unsigned)le(p, 2);
        uint64_t n = le(p + (v2 ? 1 : 2), 2);
        unsigned flags = v2 ? p[3] : p[4];
        p += hs;
        if (n > (uint64_t)(end - p)) {
            *why = "a message runs past its chunk";
            return -1;
        }
        if (message(h, type, flags, p, n, why) < 0)
            return -1;
        p += n;
    }
    return 0;
}

/* The header at addr and its continuation chunks. */
static int header(Hdr *h, uint64_t addr, const char **why)
{
    unsigned char *b = get(h, addr, 16);
    int v2 = b && memcmp(b, "OHDR", 4) == 0, order = 0, rc = 0;
    uint64_t first, len;
    if (!b || (!v2 && b[0] != 1) || (v2 && b[4] != 2)) {
        free(b);
        *why = "the object header is not one of version 1 or 2";
        return -1;
    }
    if (v2) {
        unsigned fl = b[5], w = 1u << (fl & 3);
        first = 6 + (fl & 0x20 ? 16 : 0) + (fl & 0x10 ? 4 : 0);
        order = (fl & 0x04) != 0;
        free(b);
        unsigned char *s = get(h, addr + first, w);
        if (!s) {
            *why = "the object header is cut short";
            return -1;
        }
        len = le(s, w);
        free(s);
        first = addr + first + w;
    } else {
        len = le(b + 8, 4);
        first = addr + 16;
        free(b);
    }
    h->ncont = 0;
    /* chunk 0 from the header, then each queued continuation ("OCHK" and a checksum in version 2) */
    for (size_t next = 0;; next++) {
        if (len > 0) {
            unsigned char *c = get(h, first, len);
            if (!c) {
                *why = "an object header chunk lies outside the file";
                return -1;
            }
            rc = chunk(h, v2, order, c, c + len, why);
            free(c);
            if (rc < 0)
                return rc;
        }
        if (next >= h->ncont)
            return 0;
        if (v2 && h->cont[next][1] < 8) {
            *why = "a continuation chunk is too short";
            return -1;
        }
        first = h->cont[next][0] + (v2 ? 4 : 0);
        len = h->cont[next][1] - (v2 ? 8 : 0);
    }
}

int wk_trace_read_attr_names_check(WkTraceRead *r, hid_t obj, const char *what, WkError *err)
{
    const char *env = getenv("WANKA_TRACE_PRECHECK"); /* 0: leave the bytes to HDF5 (and the probe, trace_read.c) */
    if (env && strcmp(env, "0") == 0)
        return 0;
    H5O_info_t info;
#if H5_VERSION_GE(1, 12, 0)
    if (H5Oget_info3(obj, &info, H5O_INFO_BASIC) < 0)
        return wk_trace_read_io_fail(r, err, "%s: cannot read the object", what);
    haddr_t addr;
    if (H5VLnative_token_to_addr(obj, info.token, &addr) < 0)
        return wk_trace_read_io_fail(r, err, "%s: cannot read the object", what);
#else
    if (H5Oget_info2(obj, &info, H5O_INFO_BASIC) < 0)
        return wk_trace_read_io_fail(r, err, "%s: cannot read the object", what);
    haddr_t addr = info.addr;
#endif
    Hdr *h = calloc(1, sizeof *h);
    if (!h)
        return wk_error_nomem(err, "trace");
    const char *why = "the file's superblock cannot be read";
    int rc = -1;
    h->fd = open(r->path, O_RDONLY | O_CLOEXEC);
    off_t end = h->fd >= 0 ? lseek(h->fd, 0, SEEK_END) : -1;
    if (end > 0) {
        h->size = (uint64_t)end;
        if (superblock(h) == 0)
            rc = header(h, (uint64_t)addr, &why);
    }
    if (h->fd >= 0)
        close(h->fd);
    free(h);
    if (rc < 0)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s: %s (a corrupt or crafted file)", r->path, what, why);
    return 0;
}

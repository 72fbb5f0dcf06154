/* SPDX-License-Identifier: Apache-2.0 */
/* node.h — a scenario document as a tree of positioned nodes, and typed,
 * range-checked readers over it. The YAML parser (node_yaml.c, the one file
 * that includes <yaml.h>) builds the tree; every reader error names
 * file:line:col and the dotted key path ("workload.duration.median"), and
 * wk_node_expect_keys turns an unread key into "unknown key" with the list of
 * known ones. Models read their own sections with these readers. */
#ifndef WK_NODE_H
#define WK_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"
#include "sim/core/time.h"

typedef enum WkNodeType {
    WK_NODE_NULL = 0, /* "~", "null", or an empty value */
    WK_NODE_SCALAR,
    WK_NODE_MAP,
    WK_NODE_SEQ,
} WkNodeType;

typedef struct WkNode WkNode;
struct WkNode {
    WkNodeType type;
    const char *file;  /* borrowed from the WkDoc: name used in errors */
    long line, col;    /* 1-based position of the value */
    char *key;         /* key when this node is a map value, else NULL */
    long key_line, key_col; /* 1-based position of the key */
    long index;        /* position in the parent sequence, -1 otherwise */
    char *str;         /* scalar text (NULL for maps, sequences, NULL nodes) */
    int quoted;        /* scalar was written quoted: a string, never a number */
    WkNode *parent;    /* NULL for the root */
    WkNode **kids;     /* map entries (in file order) or sequence items */
    size_t nkids, capkids;
};

typedef struct WkDoc {
    WkNode *root;      /* a map for a scenario; NULL for an empty document */
    char *file;        /* name used in error positions */
    char *text;        /* the document's text as read (NUL-terminated) */
    size_t text_len;
    char *dir;         /* directory of file, for resolving relative paths ("." if none) */
    char **inputs;     /* the files include: read into it, as opened (owned; set by
                          wk_compose_resolve, NULL without includes) */
    size_t ninputs;
} WkDoc;

/** Parse a YAML file. Returns 0 and a new document the caller owns
 * (wk_doc_free), or WK_E_IO (missing/unreadable: "path: No such file or
 * directory") / WK_E_INVAL (YAML syntax, duplicate key, non-scalar key,
 * anchors/aliases/tags, several documents), with err->where = file:line:col. */
int wk_doc_load_file(WkDoc **out, const char *path, WkError *err);

/** Parse YAML from memory; `name` is used in positions and copied; text is
 * copied (len bytes; need not be NUL-terminated). Errors as wk_doc_load_file. */
int wk_doc_load_string(WkDoc **out, const char *name, const char *text, size_t len, WkError *err);

/** Release a document and all its nodes. NULL is a no-op. */
void wk_doc_free(WkDoc *doc);

/** Apply one `--set key.path=value` override: walk the dotted path from the root
 * map (a numeric segment indexes a sequence), creating map entries that do not
 * exist, and replace the target with a scalar parsed from value (YAML flow
 * syntax is accepted: "[1,2]" or "{a: 1}" become a sequence/map). Nodes created
 * or replaced carry file "--set", line = n (1-based index of the override among
 * those given), col = column of the value in the assignment text. Returns 0 or
 * WK_E_INVAL ("--set 'x': expected key.path=value", path through a scalar, ...). */
int wk_doc_set(WkDoc *doc, const char *assignment, long n, WkError *err);

/** Append kid (taken) to parent's kids and set kid->parent (the caller sets
 * key or index). Returns 0 or WK_E_NOMEM (kid untouched, still the caller's). */
int wk_node_push(WkNode *parent, WkNode *kid);

/** The items of the node *np as a list: a sequence's kids, else the node
 * itself (count 1). np points at the caller's own node pointer, which must
 * outlive the returned array when it is not a sequence. */
const WkNode *const *wk_node_items(const WkNode *const *np, size_t *count);

/** Free a node and its subtree (the tree owns keys, strings and kids).
 * NULL is a no-op. Every module that builds or edits trees frees with this. */
void wk_node_free(WkNode *n);

/** Seeds from n: one seed, a list of seeds, or {from, to} (inclusive). At
 * most max of them (WK_E_RANGE "more than N seeds"); unique != 0 refuses a
 * seed listed twice. *out (malloc'd, caller frees, also on error) receives
 * *nout seeds. Errors are positioned at n or the offending item. */
int wk_node_seeds(const WkNode *n, size_t max, int unique, uint64_t **out, size_t *nout, WkError *err);

/** Dotted path of node from the root into buf ("cluster.nodes", "workload.jobs[3].gpus").
 * Returns buf. */
const char *wk_node_path(const WkNode *node, char *buf, size_t n);

/** Record an error positioned at node: "file:line:col" + "path: message". */
int wk_node_error(const WkNode *node, int code, WkError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/** Child of a map by key, or NULL (also when map is NULL or not a map). */
const WkNode *wk_node_get(const WkNode *map, const char *key);

/** Check that map is a map (error "expected a mapping") and that every key is
 * in the NULL-terminated list `known`; the first other key gives WK_E_INVAL
 * "unknown key 'k' (known: a, b, c)" at the key's position. */
int wk_node_expect_keys(const WkNode *map, const char *const *known, WkError *err);

/* Typed readers. Each looks up `key` in `map`. When the key is absent (or its
 * value null) they return 0 leaving *out unchanged if !required, else
 * WK_E_INVAL "missing required key". A wrong type or out-of-range value gives
 * WK_E_INVAL / WK_E_RANGE positioned at the value, naming the key path, the
 * allowed range and the value found. */
int wk_node_int(const WkNode *map, const char *key, int required, int64_t min, int64_t max,
                int64_t *out, WkError *err);
int wk_node_double(const WkNode *map, const char *key, int required, double min, double max,
                   double *out, WkError *err);
int wk_node_bool(const WkNode *map, const char *key, int required, int *out, WkError *err);
/** *out borrows the scalar text (lives as long as the document). */
int wk_node_str(const WkNode *map, const char *key, int required, const char **out, WkError *err);
/** One of the NULL-terminated `names`; *out = its index. Error lists them. */
int wk_node_enum(const WkNode *map, const char *key, int required, const char *const *names,
                 int *out, WkError *err);
/** A duration: a number of seconds (int or float) or a number with a unit
 * suffix ns, us, ms, s, m/min, h, d, w ("90s", "1.5h", "2d"). */
int wk_node_duration(const WkNode *map, const char *key, int required, WkTime min, WkTime max,
                     WkTime *out, WkError *err);
/** A rate in bits per second: a number (bit/s) or a number with a unit
 * bps, kbps, Mbps, Gbps, Tbps (or b/s, kb/s, Mb/s, Gb/s, Tb/s), or bytes
 * per second B/s, kB/s, MB/s, GB/s, TB/s ("400Gbps", "12.5 GB/s"). */
int wk_node_rate(const WkNode *map, const char *key, int required, double min, double max,
                 double *bits_per_s, WkError *err);

/* The same conversions applied to a scalar node itself (for sequence items). */
int wk_node_as_int(const WkNode *n, int64_t min, int64_t max, int64_t *out, WkError *err);
int wk_node_as_double(const WkNode *n, double min, double max, double *out, WkError *err);
int wk_node_as_duration(const WkNode *n, WkTime min, WkTime max, WkTime *out, WkError *err);
int wk_node_as_rate(const WkNode *n, double min, double max, double *bits_per_s, WkError *err);

/** Parse a duration string as wk_node_duration does, without a node. Returns 0,
 * WK_E_INVAL (not a duration) or WK_E_RANGE (overflows int64 ns). */
int wk_parse_duration(const char *s, WkTime *out);

/** Parse a rate string as wk_node_rate does, without a node: bits per
 * second. Returns 0, WK_E_INVAL (not a rate) or WK_E_RANGE (not finite). */
int wk_parse_rate(const char *s, double *bits_per_s);

#endif

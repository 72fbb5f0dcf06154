/* SPDX-License-Identifier: Apache-2.0 */
/* section.h — the one table of top-level keys of wanka's documents: a
 * scenario (`wanka run`, `topo`, `validate`, `sweep`'s base), a single-job
 * evaluation (`wanka perf`) and a sweep file (`wanka sweep`). Every command
 * checks a document's top-level keys here, so the lists cannot drift. The
 * sections are parsed by their owners (models/, models/run, sim/batch); this
 * table says which keys exist, in which kind of document, and what each is
 * for (docs/scenarios.md has the full reference). */
#ifndef WK_SECTION_H
#define WK_SECTION_H

#include "sim/scenario/node.h"

/* Kinds of document, as a bit mask. */
enum {
    WK_DOC_SCENARIO = 1, /* a cluster simulation: run, topo, validate */
    WK_DOC_PERF = 2,     /* one job evaluated: `wanka perf` */
    WK_DOC_SWEEP = 4,    /* a sweep file: `wanka sweep` */
};

typedef struct WkSection {
    const char *key;     /* top-level key */
    unsigned docs;       /* WK_DOC_* kinds it may appear in */
    const char *summary; /* one line, for `wanka help scenario` and errors */
} WkSection;

/** The table, terminated by a row with key NULL. */
const WkSection *wk_section_table(void);

/** Check that root (a document's root, may be NULL) is a map whose every key
 * belongs to a document of kind `doc` (one WK_DOC_* bit). An unknown key gives
 * WK_E_INVAL "unknown key 'k' (known: ...)" at the key, listing that kind's
 * keys in table order. */
int wk_section_check(const WkNode *root, unsigned doc, WkError *err);

/** The kind of a document by its keys: WK_DOC_SWEEP when it has `base:`,
 * WK_DOC_PERF when it has `model:` or `gpus:` at the top, else
 * WK_DOC_SCENARIO. */
unsigned wk_section_kind(const WkNode *root);

#endif

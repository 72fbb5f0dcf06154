/* SPDX-License-Identifier: Apache-2.0 */
/* sweep.h — `wanka sweep`: a base scenario and axes (schedulers, seeds, any
 * key path over a list or a range) expanded into the cross product of
 * points, run in parallel (sim/batch/batch.h), one trace per point and an index
 * (sim/sweep_index.h). Sharding selects the points with id ≡ I (mod N).
 * The sweep file format is in docs/batch.md. Never prints. */
#ifndef WK_SWEEP_H
#define WK_SWEEP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "models/sched/plugin.h"
#include "sim/batch/batch.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"
#include "sim/trace/sweep_index.h"

#define WK_SWEEP_MAX_POINTS 1000000

typedef struct WkSweepAxis {
    char *path;            /* key path into the scenario */
    const WkNode **values; /* its values (borrowed from the sweep file or the generated ones) */
    char **text;           /* each value as one-line flow YAML (owned) */
    size_t n;
} WkSweepAxis;

typedef struct WkSweepPoint {
    size_t id;             /* index in the cross product (axes outermost, then scheduler, then seed) */
    const char *scheduler; /* NULL: the scenario's own */
    int has_seed;
    uint64_t seed;
    size_t *pick;          /* value index on each axis (owned) */
    char **sets;           /* "key.path=value" for the fixed `set:` entries then each axis (owned) */
    size_t nsets;
    char *label;           /* "scheduler=fifo seed=3 cluster.nodes=64" (owned) */
    char trace[64];        /* trace file name within the output directory, "" for none */
    int status;            /* WkSweepStatus */
    char *error;           /* "where: message" of a failed point (owned; NULL when none:
                              read it through wk_sweep_point_error) */
    WkSummary *sum;        /* when status is WK_SWEEP_OK and the point ran (owned, its n metrics
                              only: wk_summary_dup_used; NULL for
                              --dry-run): only the points' outcomes are kept per point, so
                              a sweep's memory grows by about 200 bytes per point */
} WkSweepPoint;

/** The error text of point p, "" when it has none. */
const char *wk_sweep_point_error(const WkSweepPoint *p);

typedef struct WkSweep {
    char *file;            /* the sweep file as given (owned) */
    WkDoc *spec;           /* the sweep file's document (owned) */
    WkDoc *base;           /* the base scenario, includes resolved, `set:` applied (owned) */
    WkDoc *gen;            /* nodes generated from ranges (owned) */
    char *name;            /* `name:` or the file's base name (owned) */
    char id[24];           /* fingerprint of the sweep and base texts (hex) */
    WkSchedPlugins plugins; /* the base's `plugins:`, for the names in `schedulers:` */
    const char **scheds;   /* `schedulers:` (names borrowed from the table of
                              built-ins and plugins), nsched 0: the scenario's */
    size_t nsched;
    uint64_t *seeds;       /* `seeds:` (owned), nseeds 0: the scenario's */
    size_t nseeds;
    WkSweepAxis *axes;
    size_t naxes;
    char **fixed;          /* `set:` entries as "key.path=value" (owned) */
    size_t nfixed;
    WkSweepPoint *points;
    size_t npoints;
} WkSweep;

/** Read a sweep file: its base (a path relative to the sweep file, or an
 * inline scenario; includes resolved), `set:`, `schedulers:`, `seeds:` and
 * `axes:`, and expand the points. Nothing runs. Returns 0 and a sweep the
 * caller owns (wk_sweep_free), or a positioned WK_E_INVAL / WK_E_IO /
 * WK_E_NOTFOUND (unknown scheduler) / WK_E_RANGE (too many points). */
int wk_sweep_load(WkSweep **out, const char *path, WkError *err);

typedef struct WkSweepRunOpts {
    const char *dir;          /* output directory (created if missing) */
    int threads;              /* 0: OpenMP's default */
    int shard_i, shard_n;     /* run points with id % shard_n == shard_i; shard_n 0 or 1: all */
    int no_traces;            /* 1: only the index */
    int dry_run;              /* 1: check every point's scenario, run nothing, write nothing */
    WkBatchProgressFn progress;
    void *progress_user;
    const volatile sig_atomic_t *interrupt; /* optional: non-zero stops every running point at its
                                               next event, starts no new one, writes no index */
} WkSweepRunOpts;

/** Run the sweep's points (the shard's) and, unless dry_run, write their
 * traces ("p0007.h5") and the index into dir: "sweep.h5", or for a shard
 * "sweep-shard-I-of-N.h5" (the name wk_sweep_index_path gives). A failing
 * point is recorded (status, error) and the rest go on. *failed receives
 * the number of failed points. When o->interrupt turns non-zero, points
 * still running stop and write no trace, the rest do not start (all of
 * them WK_SWEEP_NOT_RUN), no index is written and *interrupted (may be
 * NULL) is set to 1: the traces of points that finished stay. Returns 0, or
 * WK_E_IO when dir or the index cannot be written, WK_E_NOMEM. */
int wk_sweep_run_stoppable(WkSweep *s, const WkSweepRunOpts *o, size_t *failed, int *interrupted, WkError *err);

/** wk_sweep_run_stoppable without the interrupted flag (o->interrupt NULL
 * or never raised). */
int wk_sweep_run(WkSweep *s, const WkSweepRunOpts *o, size_t *failed, WkError *err);

/** Path of the index for dir and shard (shard_n <= 1: the whole sweep) into
 * buf. Returns buf. */
const char *wk_sweep_index_path(const char *dir, int shard_i, int shard_n, char *buf, size_t n);

/* MPI (built with -Dmpi=enabled; WK_HAVE_MPI): `mpirun -np N wanka sweep`
 * deals points out dynamically to ranks 1..N-1, each running its points
 * with its OpenMP threads and writing their traces; rank 0 gathers the
 * results and writes the index, byte-identical to a one-process sweep. */

/** Start MPI (thread level FUNNELED) and give this process's rank and the
 * world size. Returns 0 or -1. */
int wk_sweep_mpi_begin(int *rank, int *size);

/** Finalize MPI (no-op if already finalized). */
void wk_sweep_mpi_end(void);

/** As wk_sweep_run, across the MPI world (size >= 2): on rank 0 the points
 * of the (shard's) selection end with their results and the index is
 * written; other ranks' *failed count their own points. */
int wk_sweep_run_mpi(WkSweep *s, const WkSweepRunOpts *o, size_t *failed, WkError *err);

/** Release s. NULL is a no-op. */
void wk_sweep_free(WkSweep *s);

#endif

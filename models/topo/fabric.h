/* SPDX-License-Identifier: Apache-2.0 */
/* fabric.h — the inter-node network: a folded-Clos fat-tree of 2 or 3 tiers,
 * either rail-optimized (NIC r of every node in a pod goes to the pod's rail-r
 * leaves, as in the DGX SuperPOD) or a plain k-ary fat-tree (a node's NICs on
 * consecutive edge ports, Al-Fares et al. SIGCOMM'08). Switch counts, links,
 * optics, bisection bandwidth, and for any two NICs their path class and the
 * directed links a flow between them crosses (deterministic ECMP by hash).
 * Wiring is arithmetic: nothing per link is stored, so a 100k-GPU fabric
 * builds in microseconds. The cluster layer maps GPUs to NICs. */
#ifndef WK_TOPO_FABRIC_H
#define WK_TOPO_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"

typedef enum WkFabricKind {
    WK_FABRIC_NONE = 0,     /* no inter-node network (single node or NVLink only) */
    WK_FABRIC_RAIL,         /* rail-optimized fat-tree */
    WK_FABRIC_FATTREE,      /* plain fat-tree: NICs fill edge switches in order */
} WkFabricKind;

typedef enum WkPathClass {
    WK_PATH_LOCAL = 0,  /* same NIC (or no fabric needed): no links */
    WK_PATH_LEAF,       /* same leaf switch: NIC→leaf→NIC */
    WK_PATH_POD,        /* same pod, different leaf: via a spine */
    WK_PATH_CROSS_POD,  /* different pods: via spine and core (3 tiers), or a spine (2 tiers) */
} WkPathClass;

/* What the builder needs. Units in names. */
typedef struct WkFabricSpec {
    WkFabricKind kind;
    int tiers;                 /* 2 or 3 */
    uint32_t radix;            /* ports per switch, >= 4 and even */
    double link_bytes_per_s;   /* per link, per direction */
    double link_latency_s;     /* per hop, for later models */
    uint32_t nics;             /* NIC slots: NIC ids are [0, nics). Rail: a multiple of
                                  nics_per_pod (the cluster pads partial pods: switches are
                                  built per whole pod, as SuperPODs are built per SU) */
    uint32_t nics_present;     /* NICs actually cabled (<= nics): counts NIC-leaf links and optics */
    uint32_t nics_per_pod;     /* rail: NICs per pod (nodes_per_pod * rails); fat-tree: ignored (derived from radix) */
    uint32_t rails;            /* rail: NICs per node; NIC n is rail n % rails */
    double oversub[2];         /* down:up ratio at leaf [0] and spine [1] (3 tiers); 1 = non-blocking */
} WkFabricSpec;

typedef struct WkFabric {
    WkFabricSpec spec;
    /* derived port split */
    uint32_t leaf_down, leaf_up;   /* ports per leaf */
    uint32_t spine_down, spine_up; /* ports per spine (3 tiers; 2 tiers: spine_down = radix, spine_up = 0) */
    /* counts */
    uint32_t pods;                 /* fabric pods (rail: cluster pods; fat-tree: k pods) */
    uint32_t leaves_per_pod;       /* rail: rails * leaves per rail */
    uint32_t leaves_per_rail;      /* rail only: leaves for one rail of a pod */
    uint32_t leaves, spines, cores;
    uint32_t spines_per_pod;       /* 3 tiers; 2 tiers: 0 (spines are shared by all pods) */
    uint32_t cores_per_group;      /* 3 tiers: cores that each spine index connects to */
    uint64_t links_nic_leaf, links_leaf_spine, links_spine_core; /* physical links */
    uint64_t links;                /* total */
    uint64_t optics;               /* optical modules: 2 per link */
    double bisection_bytes_per_s;  /* min cut between two halves, one direction */
} WkFabric;

/* A directed link id: 2 * physical link + direction (0 = up, towards the
 * core; 1 = down). Physical links are numbered tier by tier:
 * [0, nics): NIC n ↔ its leaf; then leaf l uplink u at nics + l*leaf_up + u;
 * then spine s uplink v at nics + leaves*leaf_up + s*spine_up + v. The
 * functions below are the only place that numbering is written out. */
typedef uint64_t WkLinkId;

/** Directed id of physical link phys: towards the core (down = 0) or away. */
static inline WkLinkId wk_fabric_directed(uint64_t phys, int down) { return 2 * phys + (down ? 1 : 0); }

/** Physical link of a directed id. */
static inline uint64_t wk_fabric_physical(WkLinkId id) { return id / 2; }

#define WK_FABRIC_MAX_HOPS 8

/** Build the fabric for spec. Returns 0, or WK_E_RANGE with a message saying
 * which limit is exceeded ("radix 16 with 3 tiers holds at most 1024 NICs,
 * the cluster has 4096"; "a pod needs 40 leaves but a spine has only 32 down
 * ports"), WK_E_INVAL for bad parameters (odd radix, tiers not 2/3). err->where
 * is left empty: the caller positions the error at the scenario key. */
int wk_fabric_build(const WkFabricSpec *spec, WkFabric *out, WkError *err);

/** Leaf switch of NIC n. */
uint32_t wk_fabric_leaf_of(const WkFabric *f, uint32_t nic);

/** Pod of NIC n. */
uint32_t wk_fabric_pod_of(const WkFabric *f, uint32_t nic);

/** Path class between NICs a and b. */
WkPathClass wk_fabric_class(const WkFabric *f, uint32_t a, uint32_t b);

/** The directed links a flow from NIC a to NIC b crosses, into out (room for
 * WK_FABRIC_MAX_HOPS); returns the count (0 for a == b). Equal-cost choices
 * are taken by a hash of (a, b), so the same pair always takes the same path
 * and different pairs spread over the uplinks. */
int wk_fabric_path(const WkFabric *f, uint32_t a, uint32_t b, WkLinkId *out);

/** wk_fabric_path with the equal-cost choices re-drawn by salt (salt 0 =
 * wk_fabric_path): a flow re-routed around a failed link tries salts 1, 2, ...
 * until its path avoids the failure. */
int wk_fabric_path_salted(const WkFabric *f, uint32_t a, uint32_t b, uint64_t salt, WkLinkId *out);

/** The directed links a flow from NIC a climbs to the fabric's top tier
 * (the spines with 2 tiers, the cores with 3): its NIC link up, one leaf
 * uplink, and with 3 tiers one spine uplink, the equal-cost choices taken by
 * a hash of (a, key), into out (room for WK_FABRIC_MAX_HOPS); returns the
 * count (1 when its leaf has no uplinks). Storage nodes hang off the top
 * tier (models/topo/storage.c). */
int wk_fabric_path_top(const WkFabric *f, uint32_t a, uint64_t key, WkLinkId *out);

/** Switches are numbered globally: leaves [0, leaves), spines [leaves,
 * leaves + spines), cores after. The switch at the upper end of physical link
 * `phys` (a NIC link's leaf, a leaf uplink's spine, a spine uplink's core),
 * and at its lower end (-1 for a NIC link); -1 for an id out of range. */
int64_t wk_fabric_link_upper(const WkFabric *f, uint64_t phys);
int64_t wk_fabric_link_lower(const WkFabric *f, uint64_t phys);

/** Physical link ids are [0, wk_fabric_link_ids(f)): every NIC slot (cabled
 * or not, so it is f->links plus the slots of absent NICs) and every
 * switch-to-switch cable; 0 without a fabric. */
uint64_t wk_fabric_link_ids(const WkFabric *f);

/** Switch-to-switch cables: leaves x leaf_up + spines x spine_up (0 without
 * a fabric). */
uint64_t wk_fabric_uplinks(const WkFabric *f);

/** Physical id of the i-th switch-to-switch cable, i < wk_fabric_uplinks(f):
 * leaf uplinks first, then spine uplinks. */
uint64_t wk_fabric_uplink(const WkFabric *f, uint64_t i);

/** Physical id of NIC n's cable to its leaf. */
uint64_t wk_fabric_nic_link(const WkFabric *f, uint32_t nic);

/** Physical id of uplink u (< leaf_up) of leaf l, and of uplink v (< spine_up)
 * of spine s (index among the spines, from 0). */
uint64_t wk_fabric_leaf_uplink(const WkFabric *f, uint32_t leaf, uint32_t u);
uint64_t wk_fabric_spine_uplink(const WkFabric *f, uint32_t spine, uint32_t v);

/** Switches: leaves + spines + cores (0 without a fabric). */
uint64_t wk_fabric_switches(const WkFabric *f);

/** Path class between two different NICs on leaves la and lb: same leaf,
 * same pod, or across pods (wk_fabric_class once the leaves are known). */
static inline WkPathClass wk_fabric_leaf_class(const WkFabric *f, uint32_t la, uint32_t lb)
{
    if (la == lb)
        return WK_PATH_LEAF;
    return la / f->leaves_per_pod == lb / f->leaves_per_pod ? WK_PATH_POD : WK_PATH_CROSS_POD;
}

/** Human name of a class: "local", "leaf", "pod", "cross-pod". */
const char *wk_path_class_name(WkPathClass c);

#endif

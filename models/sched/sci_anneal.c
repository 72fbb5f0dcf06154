/* SPDX-License-Identifier: Apache-2.0 */
/* sci_anneal.c — the `sci` annealer's moves (place, exchange, unplace, move,
 * swap) and Metropolis loop, keeping the best configuration. State and
 * energy: sci_state.c; the policy that drives it: sci.c. */
#include "models/sched/sci_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SWEEP_MIN 16 /* moves per temperature at least; 2 per job in play otherwise */

/* --- moves --- */

/* Metropolis at temperature t per GPU the move touches (gpus): a move of a
 * large job is judged by its energy change per GPU, so one schedule serves
 * jobs of 1 and of 4,096 GPUs. */
static int metropolis(WkRng *rng, double de, double t, uint32_t gpus)
{
    return de <= 0 || wk_rng_uniform(rng) < exp(-de / (t * gpus));
}

static int move_place(WkSciState *s, WkRng *rng, uint32_t i, double t)
{
    Item *it = &s->it[i];
    if ((it->fenced && it->n > s->spare) || wk_sci_propose(s, rng, wk_sci_random_how(s, rng), it->n) < 0 ||
        !wk_sci_fits(s, it, s->cand))
        return 0;
    double d = wk_sci_take_all(s, s->cand, it->n);
    double e = wk_sci_block_energy(s, it, s->cand), de = e - it->wait_term + d;
    if (!metropolis(rng, de, t, it->n)) {
        wk_sci_give_quiet(s, s->cand, it->n);
        return 0;
    }
    memcpy(it->blk, s->cand, (size_t)it->n * sizeof *it->blk);
    it->e = e;
    it->moved = (uint8_t)wk_sci_differs(it, it->blk);
    wk_sci_mark_placed(s, i);
    if (it->fenced)
        s->spare -= it->n;
    s->e += de;
    return 1;
}

static int move_unplace(WkSciState *s, WkRng *rng, uint32_t i, double t)
{
    Item *it = &s->it[i];
    double d = wk_sci_give_all(s, it->blk, it->n), de = it->wait_term - it->e + d;
    if (!metropolis(rng, de, t, it->n)) {
        wk_sci_take_quiet(s, it->blk, it->n);
        return 0;
    }
    wk_sci_mark_unplaced(s, i);
    if (it->fenced)
        s->spare += it->n;
    s->e += de;
    return 1;
}

/* 1 when every GPU of job it's real placement is free (it may go home). */
static int home_free(const WkSciState *s, const Item *it)
{
    for (uint32_t k = 0; k < it->n; k++)
        if (s->gs[it->real[k]] != WK_SCI_FREE)
            return 0;
    return 1;
}

/* Move job i to another block: a proposal, or — for a running job already
 * moved in this round, half of the time — back to where it runs, so a
 * migration tried while hot can be undone. t = 0: only the way home, only
 * downhill (the final quench). */
static int move_block(WkSciState *s, WkRng *rng, uint32_t i, double t)
{
    Item *it = &s->it[i];
    double d = wk_sci_give_all(s, it->blk, it->n);
    int home = it->moved && (t == 0 || wk_rng_uniform(rng) < 0.5) && home_free(s, it);
    if (home) {
        memcpy(s->cand, it->real, (size_t)it->n * sizeof *s->cand);
    } else if (t == 0 || wk_sci_propose(s, rng, wk_sci_random_how(s, rng), it->n) < 0 ||
               !wk_sci_fits(s, it, s->cand)) {
        wk_sci_take_quiet(s, it->blk, it->n);
        return 0;
    }
    d += wk_sci_take_all(s, s->cand, it->n);
    double e = wk_sci_block_energy(s, it, s->cand), de = e - it->e + d;
    if (t == 0 ? de >= 0 : !metropolis(rng, de, t, it->n)) {
        wk_sci_give_quiet(s, s->cand, it->n);
        wk_sci_take_quiet(s, it->blk, it->n);
        return 0;
    }
    memcpy(it->blk, s->cand, (size_t)it->n * sizeof *it->blk);
    it->e = e;
    it->moved = (uint8_t)wk_sci_differs(it, it->blk);
    s->e += de;
    return 1;
}

/* Swap the blocks of i and a placed movable job of the same size (ranks keep
 * the block's order). Occupancy does not change, so only the job terms do. */
static int move_swap(WkSciState *s, WkRng *rng, uint32_t i, double t)
{
    Item *a = &s->it[i];
    uint32_t span = a->size_hi - a->size_lo, k = NONE;
    for (int tries = 0; span > 1 && tries < 4 && k == NONE; tries++) {
        uint32_t c = s->bysize[a->size_lo + wk_rng_uint(rng, span)];
        if (c != i && s->it[c].plpos != NONE)
            k = c;
    }
    if (k == NONE)
        return move_block(s, rng, i, t);
    Item *b = &s->it[k];
    if (!wk_sci_fits(s, a, b->blk) || !wk_sci_fits(s, b, a->blk))
        return 0;
    double ea = wk_sci_block_energy(s, a, b->blk), eb = wk_sci_block_energy(s, b, a->blk);
    double de = ea + eb - a->e - b->e;
    if (!metropolis(rng, de, t, a->n + b->n))
        return 0;
    uint32_t *tmp = a->blk;
    a->blk = b->blk, b->blk = tmp;
    a->e = ea, b->e = eb;
    a->moved = (uint8_t)wk_sci_differs(a, a->blk);
    b->moved = (uint8_t)wk_sci_differs(b, b->blk);
    s->e += de;
    return 1;
}

static int placeable(const WkSciState *s, const Item *it)
{
    return it->n <= s->free_total && (!it->fenced || it->n <= s->spare);
}

/* Exchange: waiting job i takes the place of v, a job placed in this round
 * (not pinned), which goes back to waiting — one move for what would
 * otherwise need an uphill unplace first. */
static int move_exchange(WkSciState *s, WkRng *rng, uint32_t i, double t)
{
    Item *q = &s->it[i], *v = NULL;
    for (int tries = 0; tries < 4 && !v; tries++) {
        Item *c = &s->it[s->placed[wk_rng_uint(rng, s->nplaced)]];
        if (!c->real && !c->pinned)
            v = c;
    }
    if (!v)
        return 0;
    uint32_t spare = s->spare == NONE ? NONE : s->spare + (v->fenced ? v->n : 0);
    if (q->n > s->free_total + v->n || (q->fenced && q->n > spare))
        return 0;
    double d = wk_sci_give_all(s, v->blk, v->n);
    if (wk_sci_propose(s, rng, wk_sci_random_how(s, rng), q->n) < 0 || !wk_sci_fits(s, q, s->cand)) {
        wk_sci_take_quiet(s, v->blk, v->n);
        return 0;
    }
    d += wk_sci_take_all(s, s->cand, q->n);
    double e = wk_sci_block_energy(s, q, s->cand);
    double de = (e - q->wait_term) + (v->wait_term - v->e) + d;
    if (!metropolis(rng, de, t, q->n + v->n)) {
        wk_sci_give_quiet(s, s->cand, q->n);
        wk_sci_take_quiet(s, v->blk, v->n);
        return 0;
    }
    wk_sci_mark_unplaced(s, (uint32_t)(v - s->it));
    memcpy(q->blk, s->cand, (size_t)q->n * sizeof *q->blk);
    q->e = e;
    q->moved = 0;
    wk_sci_mark_placed(s, i);
    if (s->spare != NONE)
        s->spare = spare - (q->fenced ? q->n : 0);
    s->e += de;
    return 1;
}

static int one_move(WkSciState *s, WkRng *rng, double t)
{
    if (s->nunplaced && (!s->nplaced || wk_rng_uniform(rng) < 0.5)) {
        uint32_t i = s->unplaced[wk_rng_uint(rng, s->nunplaced)];
        for (int tries = 1; tries < 4 && !placeable(s, &s->it[i]); tries++)
            i = s->unplaced[wk_rng_uint(rng, s->nunplaced)];
        if (s->nplaced && (!placeable(s, &s->it[i]) || wk_rng_uniform(rng) < 0.25))
            return move_exchange(s, rng, i, t);
        return move_place(s, rng, i, t);
    }
    if (!s->nplaced)
        return 0;
    uint32_t i = s->placed[wk_rng_uint(rng, s->nplaced)];
    double u = wk_rng_uniform(rng);
    if (u < 0.2 && !s->it[i].real && !s->it[i].pinned)
        return move_unplace(s, rng, i, t);
    if (u < 0.6)
        return move_block(s, rng, i, t);
    return move_swap(s, rng, i, t);
}

/* Save the configuration as the best so far. Returns 0 or WK_E_NOMEM. */
static int save_best(WkSciState *s)
{
    size_t pool = 0;
    for (uint32_t i = 0; i < s->nit; i++)
        pool += s->it[i].n;
    size_t nc = 2 * ((size_t)s->nodes + s->pods);
    if (!s->best.gs && (!(s->best.gs = malloc(s->G)) || !(s->best.counts = malloc(nc * sizeof *s->best.counts))))
        return WK_E_NOMEM;
    if (pool > s->best.poolcap) {
        uint32_t *np = realloc(s->best.pool, pool * sizeof *np);
        if (!np)
            return WK_E_NOMEM;
        s->best.pool = np, s->best.poolcap = pool;
    }
    if (s->nit > s->best.capit) {
        Item *ni = realloc(s->best.it, (size_t)s->nit * sizeof *ni);
        if (!ni)
            return WK_E_NOMEM;
        s->best.it = ni, s->best.capit = s->nit;
    }
    memcpy(s->best.pool, s->pool, pool * sizeof *s->pool);
    memcpy(s->best.it, s->it, (size_t)s->nit * sizeof *s->it);
    memcpy(s->best.gs, s->gs, s->G);
    uint32_t *c = s->best.counts;
    memcpy(c, s->node_used, s->nodes * sizeof *c), c += s->nodes;
    memcpy(c, s->node_free, s->nodes * sizeof *c), c += s->nodes;
    memcpy(c, s->pod_used, s->pods * sizeof *c), c += s->pods;
    memcpy(c, s->pod_free, s->pods * sizeof *c);
    s->best.free_total = s->free_total, s->best.spare = s->spare, s->best.e = s->e;
    return 0;
}

static void restore_best(WkSciState *s)
{
    size_t pool = 0;
    for (uint32_t i = 0; i < s->nit; i++)
        pool += s->it[i].n;
    memcpy(s->pool, s->best.pool, pool * sizeof *s->pool);
    memcpy(s->it, s->best.it, (size_t)s->nit * sizeof *s->it);
    memcpy(s->gs, s->best.gs, s->G);
    const uint32_t *c = s->best.counts;
    memcpy(s->node_used, c, s->nodes * sizeof *c), c += s->nodes;
    memcpy(s->node_free, c, s->nodes * sizeof *c), c += s->nodes;
    memcpy(s->pod_used, c, s->pods * sizeof *c), c += s->pods;
    memcpy(s->pod_free, c, s->pods * sizeof *c);
    wk_sci_bucket_build(s);
    s->free_total = s->best.free_total, s->spare = s->best.spare, s->e = s->best.e;
    s->nplaced = s->nunplaced = 0; /* the lists, rebuilt in item order */
    for (uint32_t i = 0; i < s->nit; i++) {
        s->it[i].plpos = s->it[i].uppos = NONE;
        if (s->it[i].placed)
            wk_sci_mark_placed(s, i);
        else
            wk_sci_mark_unplaced(s, i);
    }
}

static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int wk_sci_anneal(WkSciState *s, WkRng *rng, WkSciAnnealStats *st)
{
    const WkSciParams *p = &s->p;
    *st = (WkSciAnnealStats){.e_before = s->e, .e_after = s->e};
    uint32_t active = s->nplaced;
    for (uint32_t k = 0; k < s->nunplaced; k++)
        active += placeable(s, &s->it[s->unplaced[k]]);
    if (!active || !p->moves)
        return 0;
    /* S sweeps of L moves at T = t0 alpha^k, k < S, with t0 alpha^(S-1) >= t_min */
    uint32_t sweeps = 1;
    if (p->t0 > p->t_min)
        sweeps = (uint32_t)floor(log(p->t_min / p->t0) / log(p->alpha)) + 1;
    uint32_t len = p->moves / sweeps, want = 2 * active < SWEEP_MIN ? SWEEP_MIN : 2 * active;
    if (len > want)
        len = want;
    if (len < 1)
        len = 1;
    uint64_t total = (uint64_t)sweeps * len;
    if (total > p->moves)
        total = p->moves;
    double t = p->t0, start = p->budget_us > 0 ? cpu_us() : 0;
    /* with running jobs in play a hot start can scatter them further than
     * the budget undoes: keep the best sweep end (the start included) */
    int keep = 0;
    for (uint32_t k = 0; k < s->nplaced && !keep; k++)
        keep = s->it[s->placed[k]].real != NULL;
    if (keep && save_best(s) < 0)
        keep = 0; /* out of memory: anneal without the safety net */
    for (uint64_t k = 0; k < total; k++) {
        if (k && k % len == 0) {
            t *= p->alpha;
            if (keep && s->e < s->best.e - 1e-9 && save_best(s) < 0)
                keep = 0;
        }
        if (p->budget_us > 0 && (k & 31) == 31 && cpu_us() - start > (double)p->budget_us)
            break;
        st->accepted += (uint32_t)one_move(s, rng, t);
        st->moves++;
    }
    /* quench: a moved job whose old GPUs are free goes home if that is lower */
    for (uint32_t k = 0; k < s->nplaced && st->moves < p->moves; k++)
        if (s->it[s->placed[k]].moved) {
            st->accepted += (uint32_t)move_block(s, rng, s->placed[k], 0);
            st->moves++;
        }
    if (keep && s->best.e < s->e - 1e-9)
        restore_best(s);
    st->e_after = s->e;
    return 0;
}

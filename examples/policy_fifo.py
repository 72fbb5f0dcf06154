# SPDX-License-Identifier: Apache-2.0
"""policy_fifo.py — first in, first out, as a Python policy: the rules of
the built-in fifo (models/sched/fifo.c). Jobs start in arrival order, placed
by the scenario's `placement:`; the queue head blocks everything behind it
until it fits; jobs hit by an incident go to the very front; only a job
larger than the cluster is rejected.

    wanka run scenarios/quickstart.yaml --plugin examples/policy_fifo.py --scheduler fifo-py
    wanka conformance examples/policy_fifo.py

Guide: docs/writing-a-scheduler.md, "Policies in Python"."""
from collections import deque

import wanka


class Fifo(wanka.Policy):
    name = "fifo-py"
    description = "first in, first out (Python); gang placement by `placement:`; the queue head blocks the rest"

    def init(self, params, ctx):
        params.expect_keys()  # only the keys every policy accepts
        self.queue = deque()

    def on_submit(self, ctx, job):
        if ctx.job_gpus(job) > ctx.gpus():
            ctx.reject(job, "needs more GPUs than the cluster has")
            return
        self.queue.append(job)
        if len(self.queue) == 1:  # alone: try it now (otherwise the head blocks it)
            self.drain(ctx)

    def on_release(self, ctx):
        self.drain(ctx)

    def on_incident(self, ctx, jobs):
        self.queue.extendleft(reversed(jobs))  # jobs[0] ends up at the head
        self.drain(ctx)

    def queued(self):
        return len(self.queue)

    def drain(self, ctx):
        """Start queue heads while they fit."""
        while self.queue:
            job = self.queue[0]
            if ctx.job_gpus(job) > ctx.free_gpus():
                return
            gpus = ctx.place_job(job)
            if gpus is None or not ctx.start(job, gpus):
                return  # no room (or no power budget) for the head: wait
            self.queue.popleft()

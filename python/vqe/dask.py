# SPDX-License-Identifier: BSD-2-Clause
"""Batches on a Dask cluster (Debian's python3-distributed).

    import distributed, vqe.dask
    client = distributed.Client("tcp://scheduler:8786")
    records = vqe.dask.score_many(client, "manifest.csv")

Each ladder of the manifest (rows sharing a reference and options, see vqe.batch) is one Dask
task; GPU rows (--backend cuda or auto) ask for the worker resource ``{"GPU": 1}``, so only
workers started with ``--resources GPU=1`` take them. The workers read the paths of the
manifest: put the videos and outputs where every worker sees them at the same path (a shared
file system, as in practice). A worker that dies while scoring has its task run again on
another worker by the scheduler; outputs are written whole or not at all (a rerun replaces
them), and each row appears once in the summary.
"""

from __future__ import annotations

import os
import uuid

from vqe import batch


def _run(rows, threads):
    # On the worker: vqe is imported there; the rows are plain data.
    from vqe import batch as worker_batch
    return worker_batch.run_ladder(rows, threads)


def score_many(client, manifest, *, threads: int = 1, resume: bool = True, progress=None):
    """Scores a manifest (a path, or rows from vqe.batch.read_manifest) on the workers of
    `client` (a distributed.Client). `threads`: worker threads of each ladder's jobs (start each
    Dask worker with as many threads as it runs ladders at once, e.g. ``--nthreads 1`` and give
    threads=cores). Rows whose output exists are skipped when `resume`. Returns the summary
    records in manifest order (see vqe.batch.run_ladder); `progress(record)` is called as rows
    finish."""
    import distributed

    rows = batch.read_manifest(manifest) if isinstance(manifest, (str, os.PathLike)) else manifest
    ladders, records = batch.plan(rows, resume)
    ladder_of = {}
    for ladder in ladders:
        resources = {"GPU": 1} if ladder[0].gpu else None
        future = client.submit(_run, ladder, threads, key=f"vqe-ladder-{ladder[0].index}-"
                               f"{uuid.uuid4().hex}", pure=False, resources=resources)
        ladder_of[future] = ladder
    for future in distributed.as_completed(list(ladder_of)):
        try:
            got = future.result()
        except Exception as e:  # the task itself failed (e.g. its workers kept dying)
            got = [dict(index=r.index, reference=r.reference, distorted=r.distorted,
                        output=r.output, status="failed", frames=0, seconds=0.0, fps=0.0,
                        scores={}, error=f"dask: {type(e).__name__}: {e}")
                   for r in ladder_of[future]]
        records.extend(got)
        if progress:
            for rec in got:
                progress(rec)
    return sorted(records, key=lambda r: r["index"])

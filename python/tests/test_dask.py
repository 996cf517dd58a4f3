# SPDX-License-Identifier: BSD-2-Clause
"""vqe.dask.score_many on a LocalCluster of 3 worker processes (loopback only), one of them
killed while it scores a row: every row is done once, with the values of a local run."""

import json
import os
import signal
import threading
import time

import pytest

import vqe
from conftest import longer_clip

distributed = pytest.importorskip("distributed", reason="python3-distributed is not installed")
import vqe.dask  # noqa: E402  (needs distributed)
from vqe import batch  # noqa: E402

ROWS = 9


@pytest.mark.timeout(300)
def test_score_many_survives_a_killed_worker(clips, tmp_path):
    ref = longer_clip(clips / "ref/bbb_576x324_420p8_8f.y4m", tmp_path / "ref.y4m", 24)
    dist = longer_clip(clips / "dist/bbb_576x324_420p8_8f__x264_crf23.y4m", tmp_path / "d.y4m", 24)
    manifest = tmp_path / "m.csv"
    # Rows with different options: one ladder (one Dask task) each.
    with open(manifest, "w") as f:
        f.write("reference,distorted,output,options\n")
        for i in range(ROWS):
            f.write(f"{ref},{dist},o{i}.json,--feature psnr --subsample {i % 3 + 1} "
                    f"--frame_cnt {24 - i} --precision max\n")

    done = {}

    def run(client):
        done["records"] = vqe.dask.score_many(client, str(manifest), threads=1)

    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster, timeout="60s") as client:
        pids = client.run(os.getpid)
        worker = threading.Thread(target=run, args=(client,))
        worker.start()

        def executing(dask_worker):
            return [str(ts.key) for ts in dask_worker.state.executing]

        victim, key = None, None
        deadline = time.monotonic() + 120
        while victim is None and worker.is_alive() and time.monotonic() < deadline:
            for address, keys in client.run(executing).items():
                if keys and address in pids:
                    victim, key = address, keys[0]
                    break
            time.sleep(0.02)
        assert victim is not None, "no worker was seen scoring a row"
        time.sleep(0.1)  # well inside the row (each takes about a second)
        os.kill(pids[victim], signal.SIGKILL)
        worker.join(timeout=240)
        assert not worker.is_alive(), "score_many did not finish"
        # The killed worker's row was run again elsewhere.
        assert victim not in client.scheduler_info()["workers"]

    records = done["records"]
    assert [r["index"] for r in records] == list(range(1, ROWS + 1))  # each row once
    assert [r["status"] for r in records] == ["done"] * ROWS, [r["error"] for r in records]
    assert key.startswith("vqe-ladder-")
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".")]  # no temporaries left
    # The cluster's outputs hold what a local run computes, bit for bit.
    for row in batch.read_manifest(manifest):
        local = vqe.score(ref, dist, **{k: v for k, v in row.score_options.items()
                                        if k not in ("width", "height", "pixel_format",
                                                     "bitdepth")})
        written = json.loads(open(row.output).read())
        assert len(written["frames"]) == len(list(local.scored_frames()))
        for frame in written["frames"]:
            for name, value in frame["metrics"].items():
                assert value == local[name][frame["frameNum"]], (row.index, name)
        assert records[row.index - 1]["scores"]["vmaf"] == local.pooled["vmaf"]["mean"]

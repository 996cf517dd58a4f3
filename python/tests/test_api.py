# SPDX-License-Identifier: BSD-2-Clause
"""vqe.score, vqe.Job and vqe.Result against the CLI's JSON, bit for bit; bad arguments; the
GIL released while scoring."""

import json
import math
import struct
import threading
import time

import numpy
import pytest

import vqe
from conftest import cli_json, read_y4m, without_fps

# (reference, distorted, raw options or None): 8, 10 and 12 bits, Y4M and raw.
PAIRS = [
    ("ref/carphone_176x144_420p8_20f.y4m", "dist/carphone_176x144_420p8_20f__x264_crf35.y4m", None),
    ("ref/ciscovt2people_320x192_420p10_9f.y4m",
     "dist/ciscovt2people_320x192_420p10_9f__x265_crf30.y4m", None),
    ("ref/ciscovt2people_320x192_420p12_9f.yuv",
     "dist/ciscovt2people_320x192_420p12_9f__x265_crf30_lowbits.yuv", (320, 192, "420", 12)),
]
FEATURES = ["psnr=enable_mse=true:enable_apsnr=true", "float_ssim", "float_moment"]


def bits(x):
    return struct.pack("<d", x)


def assert_same_as_cli(result, cli_out):
    """Every per-frame value, pooled value and aggregate equal as doubles (bits)."""
    frames = cli_out["frames"]
    assert result.frames == len(frames)
    names = list(frames[0]["metrics"])
    assert result.names == names
    for name in names:
        got = result[name]
        want = [f["metrics"][name] for f in frames]
        assert [bits(v) for v in got] == [bits(v) for v in want], name
        for method, value in cli_out["pooled_metrics"][name].items():
            assert bits(result.pooled[name][method]) == bits(value), (name, method)
    assert {k: bits(v) for k, v in result.aggregates.items()} == \
        {k: bits(v) for k, v in cli_out["aggregate_metrics"].items()}


@pytest.mark.parametrize("ref,dist,raw", PAIRS, ids=lambda p: str(p).split("/")[-1][:24])
def test_score_equals_cli_json(clips, cli, tmp_path, ref, dist, raw):
    raw_kw = dict(zip(("width", "height", "pixel_format", "bitdepth"), raw)) if raw else {}
    raw_args = ["-w", raw[0], "-h", raw[1], "-p", raw[2], "-b", raw[3]] if raw else []
    feature_args = [a for f in FEATURES for a in ("--feature", f)]
    want = cli_json(cli, tmp_path, "-r", clips / ref, "-d", clips / dist, *raw_args, *feature_args)
    r = vqe.score(clips / ref, clips / dist, features=FEATURES, threads=2, **raw_kw)
    assert_same_as_cli(r, want)
    # The writers are the CLI's: the same file but for the speed line.
    out = tmp_path / "py.json"
    r.write(out, precision="max")
    cli_text = (tmp_path / "cli_0.json").read_text()
    assert without_fps(out.read_text()) == without_fps(cli_text)
    assert without_fps(r.dumps("json", "max")) == without_fps(cli_text)
    # to_dict has the JSON layout, with the same values.
    d = r.to_dict()
    assert [f["metrics"] for f in d["frames"]] == [f["metrics"] for f in want["frames"]]
    assert d["pooled_metrics"] == want["pooled_metrics"]


def test_score_options_models_subsample_and_pandas(clips, cli, tmp_path):
    ref = clips / "ref/carphone_176x144_420p8_20f.y4m"
    dist = clips / "dist/carphone_176x144_420p8_20f__x264_crf45.y4m"
    want = cli_json(cli, tmp_path, "-r", ref, "-d", dist, "-m", "version=vmaf_v0.6.1",
                    "-m", "version=vmaf_b_v0.6.3:name=vb", "--subsample", "3",
                    "--feature", "float_ssim", "--frame_cnt", "14")
    r = vqe.score(ref, dist, models=["vmaf_v0.6.1", "version=vmaf_b_v0.6.3:name=vb"],
                  features=[("float_ssim", {})], subsample=3, frame_cnt=14)
    assert r.frames == 14
    assert list(r.scored_frames()) == [f["frameNum"] for f in want["frames"]]
    vmaf = r["vmaf"]
    assert math.isnan(vmaf[1]) and not math.isnan(vmaf[3])
    assert [bits(vmaf[f["frameNum"]]) for f in want["frames"]] == \
        [bits(f["metrics"]["vmaf"]) for f in want["frames"]]
    assert bits(r.pooled["vb_ci_p95_hi"]["mean"]) == bits(want["pooled_metrics"]["vb_ci_p95_hi"]["mean"])
    try:
        import pandas  # noqa: F401
    except ImportError:
        pytest.skip("pandas is not installed (python3-pandas): to_pandas untested")
    df = r.to_pandas()
    assert list(df.index) == [0, 3, 6, 9, 12]
    assert list(df.columns) == r.names
    assert df.loc[3, "vmaf"] == vmaf[3]


def test_result_pickles_whole(clips, tmp_path):
    # Results travel between processes (multiprocessing, Dask): a pickled result gives the
    # same names, frame values (NaN off the subsample grid), pooled values, aggregates and
    # output files, and still refuses to overwrite the files it scored.
    import pickle
    ref = tmp_path / "ref.y4m"
    ref.write_bytes((clips / "ref/carphone_176x144_420p8_20f.y4m").read_bytes())
    dist = clips / "dist/carphone_176x144_420p8_20f__x264_crf45.y4m"
    r = vqe.score(ref, dist, models=["vmaf_v0.6.1"], subsample=3, frame_cnt=14,
                  features=["psnr=enable_apsnr=true", "float_ssim"])
    back = pickle.loads(pickle.dumps(r))
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # 0 and 1 aborted the interpreter
        again = pickle.loads(pickle.dumps(r, protocol))
        assert again._native.dumps("json", "max") == r._native.dumps("json", "max"), protocol
    assert (back.names, back.frames, back.width, back.height, back.bit_depth, back.chroma,
            back.subsample, back.seconds, back.gpu_extractors) == \
        (r.names, r.frames, r.width, r.height, r.bit_depth, r.chroma, r.subsample, r.seconds,
         r.gpu_extractors)
    assert "apsnr_y" in back.aggregates
    for name in r.names:
        assert [bits(v) for v in back[name]] == [bits(v) for v in r[name]], name
    assert back.pooled == r.pooled and back.aggregates == r.aggregates
    for fmt in ("json", "xml", "csv"):
        assert back._native.dumps(fmt, "max") == r._native.dumps(fmt, "max"), fmt
    before = ref.read_bytes()
    with pytest.raises(vqe.VqeError, match="ref.y4m"):
        back.write(ref)
    assert ref.read_bytes() == before
    # States no result gives are refused with a message, never used.
    state = r._native.__reduce__()[1][0]
    for item, value in ((0, 99), (1, -5), (3, 9), (4, b"420"), (6, 0), (5, 2), (5, 2**70),
                        (9, [("x", "not a list")])):
        bad = list(state)
        bad[item] = value
        with pytest.raises(vqe.VqeError, match="pickled state not understood"):
            vqe._native_result(tuple(bad))
    with pytest.raises(vqe.VqeError, match="not a tuple"):
        vqe._native_result([])
    # A native result exists only with its C++ object: no empty instance.
    native = type(r._native)
    with pytest.raises(TypeError, match="cannot be created directly"):
        native.__new__(native)


def push_frames(job, ref_frames, dist_frames, chunk=None):
    for rf, df in zip(ref_frames, dist_frames):
        job.submit(rf, df)


@pytest.mark.parametrize("ref,dist,raw", PAIRS[:2], ids=["8bit", "10bit"])
def test_job_pushing_numpy_planes_equals_score(clips, ref, dist, raw):
    fields, ref_frames = read_y4m(clips / ref)
    _, dist_frames = read_y4m(clips / dist)
    depth = 10 if "p10" in fields.get("C", "") else 8
    job = vqe.Job(bit_depth=depth, features=FEATURES, threads=2)
    push_frames(job, ref_frames, dist_frames)
    assert job.frames_submitted == len(ref_frames)
    pushed = job.finish()
    scored = vqe.score(clips / ref, clips / dist, features=FEATURES)
    assert pushed.names == scored.names
    for name in scored.names:
        assert pushed[name].tobytes() == scored[name].tobytes(), name
    assert pushed.aggregates == scored.aggregates


def test_job_strided_views_luma_only_and_backpressure(clips):
    _, ref_frames = read_y4m(clips / "ref/carphone_176x144_420p8_20f.y4m")
    _, dist_frames = read_y4m(clips / "dist/carphone_176x144_420p8_20f__x264_crf23.y4m")
    # Luma only (4:0:0) from views of a wider buffer: rows with padding.
    job = vqe.Job(models=[], features=["psnr", "float_ssim"], threads=1)
    reference = vqe.Job(models=[], features=["psnr", "float_ssim"])
    full = 0
    for rf, df in zip(ref_frames, dist_frames):
        wide_r = numpy.zeros((144, 256), numpy.uint8)
        wide_d = numpy.zeros((144, 256), numpy.uint8)
        wide_r[:, :176] = rf[0]
        wide_d[:, :176] = df[0]
        while not job.try_submit(wide_r[:, :176], [wide_d[:, :176]]):  # backpressure
            full += 1
            time.sleep(0.001)
        reference.submit(numpy.ascontiguousarray(rf[0]), df[0].copy())
    a, b = job.finish(), reference.finish()
    assert a.chroma == "400" and a.frames == 20
    assert a["psnr_y"].tobytes() == b["psnr_y"].tobytes()
    assert a["float_ssim"].tobytes() == b["float_ssim"].tobytes()
    assert "psnr_cb" not in a.names


def test_split_planes_of_a_packed_frame(clips):
    _, frames = read_y4m(clips / "ref/carphone_176x144_420p8_20f.y4m")
    y, u, v = frames[0]
    packed = numpy.concatenate([y.ravel(), u.ravel(), v.ravel()]).reshape(-1, 176)  # PyAV's shape
    y2, u2, v2 = vqe.split_planes(packed, 176, 144, "420")
    assert (y2 == y).all() and (u2 == u).all() and (v2 == v).all()
    with pytest.raises(ValueError, match="needs"):
        vqe.split_planes(packed[:-1], 176, 144)


def test_bad_arguments_raise_clear_errors(clips, tmp_path):
    ref = clips / "ref/carphone_176x144_420p8_20f.y4m"
    dist = clips / "dist/carphone_176x144_420p8_20f__x264_crf23.y4m"
    missing = tmp_path / "missing.y4m"
    with pytest.raises(vqe.VqeError, match="missing.y4m"):
        vqe.score(ref, missing)
    with pytest.raises(vqe.VqeError, match="unknown feature 'nope'"):
        vqe.score(ref, dist, features=["nope"])
    with pytest.raises(vqe.VqeError, match="differ in size"):
        vqe.score(ref, clips / "dist/bbb_576x324_420p8_8f__x264_crf23.y4m")
    with pytest.raises(vqe.VqeError, match="needs width"):
        vqe.score(clips / "ref/carphone_176x144_420p8_20f.yuv", dist)
    with pytest.raises(vqe.VqeError, match="nothing to compute"):
        vqe.score(ref, dist, models=[])
    with pytest.raises(vqe.VqeError, match="backend 'gpu'"):
        vqe.score(ref, dist, backend="gpu")
    with pytest.raises(TypeError, match="lists of names"):
        vqe.score(ref, dist, models="vmaf_v0.6.1")
    with pytest.raises(ValueError, match="threads"):
        vqe.score(ref, dist, threads=-1)
    for subsample in (0, 2**30 + 1):  # the CLI's --subsample range
        with pytest.raises(ValueError, match=r"subsample must be an integer in 1\.\.1073741824"):
            vqe.score(ref, dist, subsample=subsample)
    with pytest.raises(vqe.VqeError, match="unknown level"):
        vqe.score(ref, dist, cpu_level="sse9")
    with pytest.raises(ValueError, match="format 'pdf'"):
        vqe.score(ref, dist, models=[], features=["psnr"]).write(tmp_path / "x.pdf", "pdf")
    # Nothing was written on failure.
    assert not missing.exists()

    y = numpy.zeros((16, 16), numpy.uint8)
    c = numpy.zeros((8, 8), numpy.uint8)
    job = vqe.Job(models=[], features=["psnr"])
    with pytest.raises(TypeError, match="dtype float64 for 8-bit"):
        job.submit((y.astype(float), c, c), (y, c, c))
    with pytest.raises(TypeError, match="uint8"):
        job.submit((y.astype(numpy.uint16), c, c), (y, c, c))
    with pytest.raises(ValueError, match="3 dimensions"):
        job.submit(numpy.zeros((16, 16, 3), numpy.uint8), y)
    with pytest.raises(ValueError, match="give 1 .* or 3"):
        job.submit((y, c), (y, c))
    with pytest.raises(ValueError, match="chroma planes 5x8 do not fit luma 16x16"):
        job.submit((y, c[:, :5], c[:, :5]), (y, c, c))
    with pytest.raises(ValueError, match="Cb is 8x8 but Cr is 5x8"):
        job.submit((y, c, c[:, :5]), (y, c, c))
    with pytest.raises(TypeError, match="expected a numpy array"):
        job.submit("frame", y)
    with pytest.raises(ValueError, match="one format"):
        job.submit((y, c, c), y)
    job.submit((y, c, c), (y, c, c))
    with pytest.raises(vqe.VqeError, match="started with 16x16 8-bit 420; got 8x8"):
        job.submit(numpy.zeros((8, 8), numpy.uint8), numpy.zeros((8, 8), numpy.uint8))
    job.finish()
    with pytest.raises(vqe.VqeError, match="finished"):
        job.submit((y, c, c), (y, c, c))

    deep = vqe.Job(bit_depth=10, models=[], features=["psnr"])
    too_high = numpy.full((16, 16), 1024, numpy.uint16)
    with pytest.raises(vqe.VqeError, match="above 1023"):
        deep.submit(too_high, too_high)
    with pytest.raises(vqe.VqeError, match="bit_depth 9"):
        vqe.Job(bit_depth=9, features=["psnr"])
    with pytest.raises(vqe.VqeError, match="received no frame"):
        vqe.Job(models=[], features=["psnr"]).finish()
    for depth in (10.7, "10", True):
        with pytest.raises(TypeError, match="bit_depth must be an integer"):
            vqe.Job(bit_depth=depth, models=[], features=["psnr"])

    # A Y4M file's header gives its shape: width and height that say otherwise are refused,
    # as the CLI refuses -w/-h; agreeing ones are accepted.
    with pytest.raises(vqe.VqeError, match="header says 176x144 420 8-bit, but width=100 "
                       "height=100 say otherwise"):
        vqe.score(ref, dist, width=100, height=100)
    with pytest.raises(vqe.VqeError, match="but bitdepth=10 says otherwise"):
        vqe.score(ref, dist, width=176, height=144, bitdepth=10)
    assert vqe.score(ref, dist, width=176, height=144, models=[], features=["psnr"]).frames == 20
    # pixel_format and bitdepth alone are checked too (as the CLI's -p, -b), and bad values
    # are refused whatever the file.
    with pytest.raises(vqe.VqeError, match="but pixel_format=444 says otherwise"):
        vqe.score(ref, dist, pixel_format="444")
    with pytest.raises(vqe.VqeError, match="but bitdepth=10 says otherwise"):
        vqe.score(ref, dist, bitdepth=10)
    for kwargs, message in ((dict(pixel_format="yuv420p"), "pixel_format must be"),
                            (dict(pixel_format="411"), "pixel_format must be"),
                            (dict(bitdepth=9), "bitdepth must be")):
        with pytest.raises(ValueError, match=message):
            vqe.score(ref, dist, **kwargs)
    assert vqe.score(ref, dist, pixel_format=420, bitdepth=8, models=[],
                     features=["psnr"]).frames == 20

    # A name the job does not compute is a KeyError, not "not final yet" (None).
    named = vqe.Job(models=[], features=["psnr"])
    named.submit((y, c, c), (y, c, c))
    named.flush()
    assert named.score("psnr_y", 0) is not None
    with pytest.raises(KeyError, match="'psnr' is not computed by this job"):
        named.score("psnr", 0)
    named.finish()


def test_gil_is_released_while_scoring(clips):
    """A second Python thread keeps running while a score is in progress."""
    ref = clips / "ref/bbb_576x324_420p8_8f.y4m"
    dist = clips / "dist/bbb_576x324_420p8_8f__x264_crf23.y4m"
    features = ["float_ssim", "float_ms_ssim", "float_vif", "float_adm"]
    state = {"running": False, "seconds": 0.0}

    def work():
        state["running"] = True
        t0 = time.monotonic()
        for _ in range(3):
            vqe.score(ref, dist, features=features)
        state["seconds"] = time.monotonic() - t0
        state["running"] = False

    ticks = []
    t = threading.Thread(target=work)
    t.start()
    while not state["running"]:
        time.sleep(0.0005)
    while state["running"]:
        ticks.append(time.monotonic())
        time.sleep(0.001)
    t.join()
    gaps = numpy.diff(ticks)
    # While C++ scores for state["seconds"], this thread woke up every few ms. Had the GIL been
    # held, it would have stalled for a whole score (> 0.1 s each).
    assert state["seconds"] > 0.2, "the score was too short to tell"
    assert len(ticks) > 20
    assert gaps.max() < max(0.05, state["seconds"] / 6), (gaps.max(), state["seconds"])


def test_paths_outputs_and_counts_are_checked(clips, tmp_path):
    ref = tmp_path / "ref.y4m"
    ref.write_bytes((clips / "ref/carphone_176x144_420p8_20f.y4m").read_bytes())
    dist = clips / "dist/carphone_176x144_420p8_20f__x264_crf23.y4m"
    r = vqe.score(ref, dist, models=[], features=["psnr"])
    before = ref.read_bytes()
    with pytest.raises(vqe.VqeError, match="ref.y4m"):
        r.write(ref)  # the scored reference: refused, untouched
    assert ref.read_bytes() == before
    with pytest.raises(ValueError, match="NUL"):
        vqe.score(str(ref) + "\0x", dist)
    for kwargs, message in ((dict(threads=10**6), "threads must be"),
                            (dict(frame_cnt=2**64), "frame_cnt must be"),
                            (dict(frame_skip_ref=2**32), "frame_skip_ref must be")):
        with pytest.raises(ValueError, match=message):
            vqe.score(ref, dist, **kwargs)
    with pytest.raises(ValueError, match="width must be"):
        vqe.score(ref, dist, width=2**40, height=16)

    # A Job's frame_cnt scores the first frames only, as the CLI's --frame_cnt does.
    _, frames = read_y4m(ref)
    _, dframes = read_y4m(dist)
    job = vqe.Job(models=[], features=["psnr"], frame_cnt=2)
    for a, b in zip(frames[:5], dframes[:5]):
        job.submit(a, b)
    with pytest.raises(ValueError, match="index must be"):
        job.score("psnr_y", -1)
    result = job.finish()
    assert result.frames == 2
    assert list(result["psnr_y"]) == list(vqe.score(ref, dist, models=[], features=["psnr"],
                                                   frame_cnt=2)["psnr_y"])

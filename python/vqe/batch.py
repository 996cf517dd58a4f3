# SPDX-License-Identifier: BSD-2-Clause
"""Batches: many pairs from a manifest, rows sharing a reference run as a ladder.

A manifest is CSV (a header row, then one row per pair) or JSON (a list of objects, or
``{"rows": [...]}``) with the fields

    reference   path of the reference video
    distorted   path of the distorted video
    output      path of the row's output file (optional; without it the row always runs)
    options     the vqe CLI's options for the row, e.g. "--feature psnr --subsample 2 --json"
                (JSON: a string or a list of strings)

Relative paths are taken from the manifest's folder, also a model's ``path=`` in the options.
Options are split as a shell would (quote a path with spaces: ``-m "path=my models/m.json"``).
Blank rows are skipped. Rows with the same reference and the same
scoring options run as one ladder (the reference read once). A row whose output file exists is
complete and skipped (outputs are written whole or not at all, so an interrupted row leaves no
partial file); a failed row is reported and the batch goes on.

Command line: ``vqe batch MANIFEST [--jobs N] [--threads N] [--summary PATH]
[--scheduler tcp://HOST:8786]`` (also ``python3 -m vqe.batch``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import glob
import json
import os
import re
import shlex
import sys
import time
from dataclasses import dataclass, field

import vqe

# The vqe CLI's options that a manifest row may carry.
_parser = argparse.ArgumentParser(prog="options", add_help=False, allow_abbrev=False,
                                  exit_on_error=False)
_parser.add_argument("-m", "--model", action="append", default=None)
_parser.add_argument("--feature", action="append", default=[])
_parser.add_argument("-n", "--no_prediction", action="store_true")
_parser.add_argument("--subsample", type=int, default=1)
_parser.add_argument("--threads", type=int, default=None)
_parser.add_argument("--frame_cnt", type=int, default=0)
_parser.add_argument("--frame_skip_ref", type=int, default=0)
_parser.add_argument("--frame_skip_dist", type=int, default=0)
_parser.add_argument("--backend", choices=("cpu", "cuda", "vulkan", "auto"), default="cpu")
_parser.add_argument("--gpu", type=int, default=0)
_parser.add_argument("--cpu-level", dest="cpu_level", default=None,
                     choices=("scalar", "sse4", "avx2", "avx512", "neon"))
_parser.add_argument("--precision", default=None)
for _f in ("xml", "json", "csv", "sub"):
    _parser.add_argument("--" + _f, dest="format", action="store_const", const=_f)
_parser.add_argument("-w", "--width", type=int, default=None)
_parser.add_argument("-h", "--height", type=int, default=None)
# Not given: None (raw files then read as 420 and 8 bits; Y4M files are not checked).
_parser.add_argument("-p", "--pixel_format", choices=("400", "420", "422", "444"), default=None)
_parser.add_argument("-b", "--bitdepth", type=int, choices=(8, 10, 12, 16), default=None)


class ManifestError(vqe.VqeError):
    """A manifest that cannot be read or has a bad row (the message names file and row)."""


@dataclass
class Row:
    """One pair of a manifest: paths resolved, options parsed."""
    index: int                 # 1-based row number in the manifest
    reference: str
    distorted: str
    output: str | None
    options: str
    score_options: dict = field(default_factory=dict)  # vqe.score_ladder's keyword arguments
    format: str = "json"
    precision: str | None = None

    def ladder_key(self):
        """Rows with the same key run as one ladder (a row's own --threads included: the
        ladder runs with it)."""
        items = tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                             for k, v in self.score_options.items()))
        return (self.reference, items)

    @property
    def gpu(self) -> bool:
        return self.score_options.get("backend", "cpu") != "cpu"


def _model_paths(models, base, where):
    """The -m values with a relative path=... taken from `base` (the manifest's folder);
    a model file that does not exist is refused now, not when its row runs."""
    if not models:
        return models
    out = []
    for m in models:
        parts = m.split(":")
        for i, part in enumerate(parts):
            if part.startswith("path="):
                path = part[len("path="):]
                if path and not os.path.isabs(path):
                    path = os.path.normpath(os.path.join(base, path))
                if not os.path.isfile(path):
                    raise ManifestError(f"{where}: options: model file {path}: "
                                        + ("is a directory" if os.path.isdir(path)
                                           else "does not exist"))
                parts[i] = "path=" + path
        out.append(":".join(parts))
    return out


def _parse_options(text, where, base="."):
    if isinstance(text, list) and all(isinstance(a, str) for a in text):
        args = text
    elif isinstance(text, str):
        try:
            args = shlex.split(text)
        except ValueError as e:
            raise ManifestError(f"{where}: options: {e} (in {text!r})") from None
    else:
        raise ManifestError(f"{where}: options: expected a string or a list of strings, got "
                            f"{json.dumps(text)}")
    try:
        o, extra = _parser.parse_known_args(args)
    except (argparse.ArgumentError, ValueError) as e:
        raise ManifestError(f"{where}: options: {e}") from None
    if extra:
        hint = (" (a path with spaces needs quotes: -m \"path=my models/m.json\")"
                if any(not a.startswith("-") for a in extra) else "")
        raise ManifestError(f"{where}: options: not a batch row option: {' '.join(extra)}{hint}")
    if o.precision is not None and not (
            o.precision == "max" or (o.precision.isdigit() and 1 <= int(o.precision) <= 17)):
        raise ManifestError(f"{where}: options: --precision: expected 'max' or 1..17 "
                            f"significant digits, got {o.precision!r}")
    formats = [a for a in args if a in ("--xml", "--json", "--csv", "--sub")]
    if len(set(formats)) > 1:
        raise ManifestError(f"{where}: options: one output format, not {' and '.join(formats)}")
    # The CLI's ranges, so that a row fails here and not halfway through the batch.
    for name, value, low, high in (("--subsample", o.subsample, 1, 2**30),
                                   ("--frame_cnt", o.frame_cnt, 0, 2**32 - 1),
                                   ("--frame_skip_ref", o.frame_skip_ref, 0, 2**32 - 1),
                                   ("--frame_skip_dist", o.frame_skip_dist, 0, 2**32 - 1),
                                   ("--threads", o.threads, 0, 1024),
                                   ("--gpu", o.gpu, 0, 1023),
                                   ("--width", o.width, 1, 32768),
                                   ("--height", o.height, 1, 32768)):
        if value is not None and not low <= value <= high:
            raise ManifestError(f"{where}: options: {name} {value} is outside {low}..{high}")
    score_options = dict(models=_model_paths(o.model, base, where), features=o.feature,
                         no_prediction=o.no_prediction,
                         subsample=o.subsample, frame_cnt=o.frame_cnt,
                         frame_skip_ref=o.frame_skip_ref, frame_skip_dist=o.frame_skip_dist,
                         backend=o.backend, gpu=o.gpu, cpu_level=o.cpu_level,
                         pixel_format=o.pixel_format, bitdepth=o.bitdepth)
    if o.width is not None or o.height is not None:
        score_options.update(width=o.width, height=o.height)
    if o.threads is not None:
        score_options["threads"] = o.threads
    return score_options, o.format, o.precision


def read_manifest(path: str) -> list[Row]:
    """Reads a CSV or JSON manifest (by extension; .json is JSON, anything else CSV). Raises
    ManifestError naming the file and row for a missing field, bad options, or two rows
    writing one output."""
    path = os.fspath(path)
    base = os.path.dirname(os.path.abspath(path))
    try:
        # utf-8-sig: a byte-order mark (as spreadsheets write one) is not part of the header.
        with open(path, newline="", encoding="utf-8-sig") as f:
            if path.lower().endswith(".json"):
                data = json.load(f)
                items = data.get("rows") if isinstance(data, dict) else data
                if not isinstance(items, list):
                    raise ManifestError(f"{path}: expected a list of rows or {{\"rows\": [...]}}")
            else:
                reader = csv.DictReader(f, skipinitialspace=True)
                items = list(reader)
                _check_header(path, reader.fieldnames)
    except OSError as e:
        raise ManifestError(f"{path}: cannot read the manifest: {e.strerror or e}") from None
    except (json.JSONDecodeError, csv.Error, UnicodeDecodeError) as e:
        raise ManifestError(f"{path}: not a valid manifest: {e}") from None
    except RecursionError:
        raise ManifestError(f"{path}: not a valid manifest: nested too deeply") from None

    def resolve(p):
        return p if os.path.isabs(p) else os.path.normpath(os.path.join(base, p))

    rows, outputs = [], {}
    for i, item in enumerate(items, start=1):
        where = f"{path}: row {i}"
        if not isinstance(item, dict):
            raise ManifestError(f"{where}: expected an object with reference and distorted")
        if item and None not in item and not any(isinstance(v, str) and v.strip()
                                                 for v in item.values()):
            continue  # a blank row (a spreadsheet's trailing ",,,")
        if None in item:  # csv.DictReader's key for values past the header's columns
            raise ManifestError(f"{where}: more values than the header's columns (a comma "
                                "inside a field needs quotes)")
        item = {str(k).strip().lower(): v for k, v in item.items()}
        missing = [k for k in ("reference", "distorted") if not item.get(k)]
        if missing:
            raise ManifestError(f"{where}: no {' or '.join(missing)}")
        for k in ("reference", "distorted", "output"):
            if item.get(k) is not None and not isinstance(item[k], str):
                raise ManifestError(f"{where}: {k} must be a path (a string), got "
                                    f"{json.dumps(item[k])}")
            if isinstance(item.get(k), str) and "\0" in item[k]:
                raise ManifestError(f"{where}: {k} holds a NUL character")
        unknown = set(item) - {"reference", "distorted", "output", "options"}
        if unknown:
            raise ManifestError(f"{where}: unknown fields {sorted(unknown)} (fields: reference, "
                                "distorted, output, options)")
        options = item.get("options") or ""
        score_options, fmt, precision = _parse_options(options, where, base)
        output = resolve(str(item["output"]).strip()) if item.get("output") else None
        if output is not None:
            if output in outputs:
                raise ManifestError(f"{where}: writes {output}, as row {outputs[output]} does")
            outputs[output] = i
            if fmt is None:
                ext = os.path.splitext(output)[1].lstrip(".").lower()
                fmt = ext if ext in ("json", "xml", "csv", "sub") else "json"
        rows.append(Row(i, resolve(str(item["reference"]).strip()),
                        resolve(str(item["distorted"]).strip()), output,
                        options if isinstance(options, str) else " ".join(options),
                        score_options, fmt or "json", precision))
    if not rows:
        raise ManifestError(f"{path}: no rows")
    _check_outputs(path, rows)
    return rows


def _check_header(path, fieldnames):
    """Refuses a CSV header without the reference and distorted columns, saying what it has
    (no header row, another delimiter, other names)."""
    if not fieldnames:
        return  # an empty file: "no rows"
    names = [str(n).strip().lower() for n in fieldnames if n is not None]
    if "reference" in names and "distorted" in names:
        return
    first = ",".join(str(n) for n in fieldnames)
    hint = ""
    if ";" in first or "\t" in first:
        hint = "; columns are separated by commas, not ';' or tabs"
    elif first.lstrip().startswith(("[", "{")):
        hint = "; it looks like JSON: name the file .json"
    elif any(os.sep in n or "." in n for n in names):
        hint = "; the first row must be the header (reference,distorted,output,options)"
    raise ManifestError(f"{path}: the header row has columns {names}; a CSV manifest needs "
                        f"reference and distorted (and optionally output, options){hint}")


def _file_key(path):
    """What names one file: (device, inode) of an existing file (hard and symbolic links
    agree), else the path with its folders' links resolved."""
    try:
        st = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return (st.st_dev, st.st_ino)


def _protected(manifest, rows):
    """{(device, inode) or real path: what it is} of the files a batch must not overwrite."""
    files = {}
    def add(p, what):
        files.setdefault(_file_key(p), what)
    add(manifest, "the manifest")
    for r in rows:
        add(r.reference, f"row {r.index}'s reference")
        add(r.distorted, f"row {r.index}'s distorted video")
    return files


def _check_outputs(manifest, rows):
    """Refuses, before anything runs, an output that is an input, the manifest, or another
    row's output under another spelling (a symbolic link, a hard link)."""
    protected = _protected(manifest, rows)
    seen = {}
    for r in rows:
        if r.output is None:
            continue
        key = _file_key(r.output)
        if key in protected:
            raise ManifestError(f"{manifest}: row {r.index}: output {r.output} is "
                                f"{protected[key]}; refusing to overwrite it")
        real = os.path.realpath(r.output)
        for k in (key, real):
            if k in seen:
                raise ManifestError(f"{manifest}: row {r.index}: writes {r.output}, the same "
                                    f"file as row {seen[k]}'s output")
        seen[key] = seen[real] = r.index


def check_summary_path(summary, manifest, rows):
    """Refuses a --summary path that is an input, the manifest or an output, or that cannot be
    written (a missing folder, a directory), before anything runs."""
    protected = _protected(manifest, rows)
    for r in rows:
        if r.output is not None:
            protected.setdefault(_file_key(r.output), f"row {r.index}'s output")
    key = _file_key(summary)
    if key in protected:
        raise ManifestError(f"--summary {summary}: is {protected[key]}; refusing to overwrite it")
    if os.path.isdir(summary):
        raise ManifestError(f"--summary {summary}: is a directory")
    folder = os.path.dirname(os.path.abspath(summary))
    if not os.path.isdir(folder):
        raise ManifestError(f"--summary {summary}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ManifestError(f"--summary {summary}: the folder {folder} is not writable")


def group_ladders(rows: list[Row]) -> list[list[Row]]:
    """Rows sharing a reference and scoring options, in manifest order of their first row."""
    ladders: dict = {}
    for r in rows:
        ladders.setdefault(r.ladder_key(), []).append(r)
    return list(ladders.values())


def is_complete(row: Row) -> bool:
    """A row is complete when its output exists (outputs appear whole or not at all)."""
    return row.output is not None and os.path.isfile(row.output)


def _remove_stale_temporaries(output: str):
    # The temporary name of an output being written (vqe::OutputFile):
    # ".<name>.vqe-XXXXXX" beside it; one left by a killed process is removed.
    folder, name = os.path.split(output)
    pattern = os.path.join(folder or ".", "." + glob.escape(name) + ".vqe-" + "?" * 6)
    for stale in glob.glob(pattern):
        try:
            os.unlink(stale)
        except OSError:
            pass


def _scores(result: vqe.Result) -> dict:
    """Pooled means of the outputs named vmaf* (the models' default names), else of every
    feature (features only, -n)."""
    models = [n for n in result.names if n.startswith("vmaf")]
    names = models or result.names
    return {n: result.pooled[n]["mean"] for n in names}


def run_ladder(rows: list[Row], threads: int | None = None) -> list[dict]:
    """Scores the rows of one ladder (same reference and options) and writes their outputs.
    Returns one summary record per row: index, reference, distorted, output, status ("done" or
    "failed"), frames, seconds, fps, scores (pooled means), error. Never raises for a bad row
    or a bad reference: those rows are "failed". Used by the local batch and by Dask workers."""
    options = dict(rows[0].score_options)
    if threads is not None and "threads" not in options:  # a row's own --threads wins
        options["threads"] = threads
    options.setdefault("threads", 0)
    records = [dict(index=r.index, reference=r.reference, distorted=r.distorted,
                    output=r.output, status="failed", frames=0, seconds=0.0, fps=0.0,
                    scores={}, error="") for r in rows]
    start = time.monotonic()
    try:
        outcomes = vqe.score_ladder(rows[0].reference, [r.distorted for r in rows],
                                    raise_errors=False, **options)
    except (vqe.VqeError, ValueError, TypeError, OverflowError) as e:
        for rec in records:
            rec["error"] = str(e)
        return records
    seconds = time.monotonic() - start
    for row, rec, outcome in zip(rows, records, outcomes):
        rec["seconds"] = seconds
        if isinstance(outcome, Exception):
            rec["error"] = str(outcome)
            continue
        try:
            if row.output is not None:
                _remove_stale_temporaries(row.output)
                folder = os.path.dirname(row.output)
                if folder:
                    try:
                        os.makedirs(folder, exist_ok=True)
                    except (FileExistsError, NotADirectoryError):
                        raise OSError(f"cannot create the folder {folder} for {row.output}: "
                                      "a file of that name is in the way") from None
                outcome.write(row.output, row.format, row.precision)
        except (vqe.VqeError, OSError) as e:
            rec["error"] = str(e)
            continue
        rec.update(status="done", frames=outcome.frames,
                   fps=outcome.frames / seconds if seconds > 0 else 0.0,
                   scores=_scores(outcome))
    return records


def _skipped(row: Row) -> dict:
    """The summary record of a complete row, with the pooled means its output holds (JSON and
    XML outputs; CSV and SUB hold per-frame values only)."""
    scores = {}
    frames = 0
    try:
        if row.format == "json":
            with open(row.output, encoding="utf-8") as f:
                data = json.load(f)
            frames = len(data.get("frames", []))
            pooled = {n: v["mean"] for n, v in data.get("pooled_metrics", {}).items()}
        elif row.format == "xml":
            import xml.etree.ElementTree as ElementTree
            pooled = {m.get("name"): float(m.get("mean"))
                      for m in ElementTree.parse(row.output).getroot().iter("metric")
                      if m.get("mean") is not None}
        else:
            pooled = {}
        names = [n for n in pooled if n.startswith("vmaf")] or list(pooled)
        scores = {n: pooled[n] for n in names}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, SyntaxError):
        pass
    return dict(index=row.index, reference=row.reference, distorted=row.distorted,
                output=row.output, status="skipped", frames=frames, seconds=0.0, fps=0.0,
                scores=scores, error="")


def plan(rows: list[Row], resume: bool = True):
    """(ladders to run, summary records of complete rows) for a batch."""
    skipped = [_skipped(r) for r in rows if resume and is_complete(r)]
    for r in rows:
        if resume and is_complete(r):
            _remove_stale_temporaries(r.output)  # left by a run killed while rewriting it
    done = {s["index"] for s in skipped}
    return group_ladders([r for r in rows if r.index not in done]), skipped


def run_local(rows: list[Row], jobs: int = 1, threads: int | None = None, resume: bool = True,
              progress=None) -> list[dict]:
    """Runs a batch on this machine: `jobs` ladders at once on the CPU (each with `threads`
    worker threads; default: the cores shared between them), GPU rows (--backend cuda/auto)
    one ladder at a time beside them. Returns the summary records in manifest order."""
    ladders, records = plan(rows, resume)
    cores = os.cpu_count() or 1
    jobs = max(1, jobs)
    if threads is None:
        threads = max(1, cores // jobs)
    cpu = [l for l in ladders if not l[0].gpu]
    gpu = [l for l in ladders if l[0].gpu]
    cpu_pool = concurrent.futures.ThreadPoolExecutor(jobs)
    gpu_pool = concurrent.futures.ThreadPoolExecutor(1)
    interrupted = True
    try:
        futures = [cpu_pool.submit(run_ladder, l, threads) for l in cpu]
        futures += [gpu_pool.submit(run_ladder, l, threads) for l in gpu]
        for f in concurrent.futures.as_completed(futures):
            got = f.result()
            records.extend(got)
            if progress:
                for rec in got:
                    progress(rec)
        interrupted = False
    finally:
        # Interrupted (Ctrl-C): ladders not started are dropped at once; the caller ends the
        # process without waiting for those in progress.
        for pool in (cpu_pool, gpu_pool):
            pool.shutdown(wait=not interrupted, cancel_futures=interrupted)
    return sorted(records, key=lambda r: r["index"])


# --- summary ---------------------------------------------------------------------------------

def _score_text(scores: dict) -> str:
    return " ".join(f"{k}={v:.6f}" for k, v in scores.items() if v is not None)


def _display_names(paths: list[str]) -> list[str]:
    """The file names of `paths`, or, where two rows share a file name (the same encode name in
    two folders), each path relative to the folder they all share."""
    names = [os.path.basename(p) for p in paths]
    if len(set(names)) == len(set(paths)):
        return names
    absolute = [os.path.abspath(p) for p in paths]
    common = os.path.commonpath([os.path.dirname(p) for p in absolute])
    return [os.path.relpath(p, common) for p in absolute]


def format_summary(records: list[dict], seconds: float | None = None) -> str:
    """A plain-text table: one line per row (row, status, frames, fps, pooled scores, pair)."""
    lines = [f"{'row':>4}  {'status':<7} {'frames':>6} {'fps':>8}  scores / error"]
    shown = _display_names([r["distorted"] for r in records])
    for r, name in zip(records, shown):
        what = r["error"] if r["status"] == "failed" else _score_text(r["scores"])
        lines.append(f"{r['index']:>4}  {r['status']:<7} {r['frames']:>6} {r['fps']:>8.2f}  "
                     f"{name}: {what}")
    counts = {s: sum(1 for r in records if r["status"] == s) for s in ("done", "skipped", "failed")}
    tail = f"{counts['done']} done, {counts['skipped']} skipped, {counts['failed']} failed"
    if seconds:
        frames = sum(r["frames"] for r in records if r["status"] == "done")
        tail += f"; {frames} frames in {seconds:.2f} s ({frames / seconds:.2f} frames/s)"
    lines.append(tail)
    return "\n".join(lines)


def write_summary(path: str, records: list[dict]) -> None:
    """The summary as CSV (a column per pooled score) or JSON (by extension)."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        _write_summary_to(tmp, path, records)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_summary_to(tmp, path, records):
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        if path.lower().endswith(".json"):
            json.dump(records, f, indent=2)
        else:
            names = []
            for r in records:
                names += [n for n in r["scores"] if n not in names]
            fields = ["index", "status", "frames", "fps", "seconds", "reference", "distorted",
                      "output"] + names + ["error"]
            w = csv.DictWriter(f, fields, extrasaction="ignore")
            w.writeheader()
            for r in records:
                w.writerow({**r, **r["scores"], "output": r["output"] or ""})


class _Parser(argparse.ArgumentParser):
    """Usage errors exit with status 1, as the vqe CLI's do (argparse's default is 2)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def main(argv=None) -> int:
    p = _Parser(
        prog="vqe batch", description="Scores the pairs of a manifest (CSV or JSON); rows "
        "sharing a reference run as a ladder; complete rows (output exists) are skipped.")
    p.add_argument("manifest")
    p.add_argument("--jobs", type=_int_in(1, 1024), default=1, help="ladders at once (local runs)")
    p.add_argument("--threads", type=_int_in(0, 1024), default=None,
                   help="worker threads per ladder (default: the cores shared by --jobs; "
                   "with --scheduler: 1); a row's own --threads wins")
    p.add_argument("--summary", default=None, help="also write the summary table (.csv or .json)")
    p.add_argument("--no-resume", dest="resume", action="store_false",
                   help="score every row, also those whose output exists")
    p.add_argument("--scheduler", default=None,
                   help="Dask scheduler address (tcp://HOST:8786): run the rows on its workers")
    p.add_argument("-q", "--quiet", action="store_true", help="no line per finished row")
    a = p.parse_args(argv)
    try:
        rows = read_manifest(a.manifest)
        if a.summary:
            check_summary_path(a.summary, a.manifest, rows)
        start = time.monotonic()

        def progress(rec):
            if not a.quiet:
                print(f"row {rec['index']}: {rec['status']}"
                      + (f": {rec['error']}" if rec["error"] else ""), file=sys.stderr)

        if a.scheduler:
            from vqe.dask import score_many
            import distributed
            try:
                client = distributed.Client(a.scheduler, timeout="20s")
            except (ValueError, TypeError, OSError) as e:
                raise ManifestError(f"--scheduler {a.scheduler}: cannot connect: {e}") from None
            with client:
                records = score_many(client, rows, threads=a.threads or 1, resume=a.resume,
                                     progress=progress)
        else:
            records = run_local(rows, jobs=a.jobs, threads=a.threads, resume=a.resume,
                                progress=progress)
        print(format_summary(records, time.monotonic() - start))
        if a.summary:
            write_summary(a.summary, records)
    except vqe.VqeError as e:
        print(f"vqe batch: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"vqe batch: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # Rows in progress run in the engine's threads, which Python cannot stop: leave now.
        # Their outputs were not written (a row's output appears whole or not at all; a
        # temporary file of one being written is removed by the next run).
        print("vqe batch: interrupted", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    return 1 if any(r["status"] == "failed" for r in records) else 0


def _int_in(low, high):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is outside {low}..{high}")
        return value
    return parse


if __name__ == "__main__":
    sys.exit(main())

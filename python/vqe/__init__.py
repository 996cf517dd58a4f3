# SPDX-License-Identifier: BSD-2-Clause
"""VQE: full-reference video quality metrics (VMAF, PSNR, SSIM, ...) with libvmaf's numbers.

    >>> import vqe
    >>> r = vqe.score("ref.y4m", "dist.y4m", features=["psnr"])
    >>> r["vmaf"]                 # numpy array, one value per frame
    >>> r.pooled["vmaf"]["mean"]  # min, max, mean, harmonic_mean
    >>> r.write("out.json")       # libvmaf's JSON layout (also xml, csv, sub)

`score_ladder` scores several encodes of one reference, reading it once.
`Job` takes frames pushed as numpy planes from any decoder. Scoring runs in C++
with the GIL released; VQE's errors raise `VqeError` with the engine's message.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Iterable, Mapping, Sequence

try:
    import numpy  # noqa: F401  (frame values are numpy arrays: fail here, not at the first one)
except ImportError as e:  # pragma: no cover - depends on the interpreter
    raise ImportError(f"vqe needs numpy, which this Python ({sys.executable}) cannot import "
                      "(Debian: apt-get install python3-numpy; or run /usr/bin/python3)") from e

from . import _vqe

VqeError = _vqe.VqeError
__version__ = _vqe.__version__

__all__ = [
    "VqeError", "Result", "Job", "score", "score_ladder", "split_planes", "list_features",
    "builtin_models", "__version__",
]

_POOLS = ("min", "max", "mean", "harmonic_mean")
_FORMATS = ("json", "xml", "csv", "sub")


def _native_result(state):
    """A native result from the state its __reduce__ gave (pickle calls this)."""
    return _vqe._result_from_state(state)


def list_features() -> list[str]:
    """Names of every feature extractor of this build (as `--feature` takes them)."""
    return _vqe.list_features()


def builtin_models() -> list[str]:
    """Versions of the VMAF models built into the library (default first)."""
    return _vqe.builtin_models()


def _feature_text(feature) -> str:
    if isinstance(feature, str):
        return feature
    if isinstance(feature, tuple) and len(feature) == 2 and isinstance(feature[1], Mapping):
        name, options = feature
        if not options:
            return str(name)
        def text(v):
            return ("true" if v else "false") if isinstance(v, bool) else str(v)
        return str(name) + "=" + ":".join(f"{k}={text(v)}" for k, v in options.items())
    raise TypeError(f"feature {feature!r}: give 'name', 'name=opt=val:opt=val' or "
                    "(name, {option: value})")


def _config(models, features, no_prediction, threads, subsample, frame_cnt, frame_skip_ref,
            frame_skip_dist, backend, gpu, cpu_level):
    if isinstance(models, str) or isinstance(features, str):
        raise TypeError("models and features are lists of names, e.g. models=['vmaf_v0.6.1']")
    models = ["vmaf_v0.6.1"] if models is None else [str(m) for m in models]
    features = [_feature_text(f) for f in (features or [])]
    # The CLI's ranges (threads as --threads, subsample as --subsample; counts fit 32 bits).
    for name, value, low, high in (("threads", threads, 0, 1024),
                                   ("subsample", subsample, 1, 2**30),
                                   ("frame_cnt", frame_cnt, 0, 2**32 - 1),
                                   ("frame_skip_ref", frame_skip_ref, 0, 2**32 - 1),
                                   ("frame_skip_dist", frame_skip_dist, 0, 2**32 - 1),
                                   ("gpu", gpu, 0, 1023)):
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"{name} must be an integer in {low}..{high}, got {value!r}")
    return _vqe.make_config(models, features, bool(no_prediction), threads, subsample, frame_cnt,
                            frame_skip_ref, frame_skip_dist, str(backend), gpu, cpu_level or "")


def _raw(width, height, pixel_format, bitdepth):
    """The raw-shape arguments as the native call takes them: None when none is given, else a
    tuple (width, height, pixel_format, bitdepth) holding None for those not given (a raw file
    needs width and height; for a Y4M file, any given must agree with its header)."""
    if pixel_format is not None:
        if isinstance(pixel_format, int) and not isinstance(pixel_format, bool):
            pixel_format = str(pixel_format)
        if pixel_format not in ("400", "420", "422", "444"):
            raise ValueError(f"pixel_format must be '400', '420', '422' or '444', "
                             f"got {pixel_format!r}")
    if bitdepth is not None and (isinstance(bitdepth, bool) or bitdepth not in (8, 10, 12, 16)):
        raise ValueError(f"bitdepth must be 8, 10, 12 or 16, got {bitdepth!r}")
    if width is None and height is None:
        if pixel_format is None and bitdepth is None:
            return None
        return (None, None, pixel_format, None if bitdepth is None else int(bitdepth))
    if not width or not height:
        raise ValueError("raw input needs both width and height")
    for name, value in (("width", width), ("height", height)):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 32768:
            raise ValueError(f"{name} must be an integer in 1..32768, got {value!r}")
    return (int(width), int(height), pixel_format, None if bitdepth is None else int(bitdepth))


def _path(path) -> str:
    """A path argument as a str; a NUL character (which would cut it short) is refused."""
    p = os.fspath(path)
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    if "\0" in p:
        raise ValueError(f"path {p!r} holds a NUL character")
    return p


class Result:
    """What scoring a pair gave: per-frame values, pooled values, aggregates.

    - ``result[name]`` / ``result.frame_values(name)``: a float64 numpy array of one value per
      frame (NaN for frames off the ``subsample`` grid); ``result.names``: every feature and
      model output, in output order.
    - ``result.pooled[name]``: ``{"min", "max", "mean", "harmonic_mean"}`` over the scored frames.
    - ``result.aggregates``: whole-video values (e.g. ``apsnr_y``).
    - ``to_dict()``, ``to_pandas()``, ``write(path, format)``.
    """

    def __init__(self, native: _vqe.Result, name: str | None = None):
        self._native = native
        self.name = name
        self.names: list[str] = native.names()
        self.frames: int = native.frames
        self.width: int = native.width
        self.height: int = native.height
        self.bit_depth: int = native.bit_depth
        self.chroma: str = native.chroma
        self.subsample: int = native.subsample
        self.seconds: float = native.seconds
        self.gpu_extractors: list[str] = native.gpu_extractors
        self.aggregates: dict[str, float] = dict(native.aggregates())
        self.pooled: dict[str, dict[str, float | None]] = {
            n: {m: native.pooled(n, m) for m in _POOLS} for n in self.names}

    @property
    def fps(self) -> float:
        """Frames scored per second of the scoring call."""
        return self.frames / self.seconds if self.seconds > 0 else 0.0

    def frame_values(self, name: str):
        """Per-frame values of `name` as a float64 numpy array (a copy)."""
        return self._native.values(name)

    def __getitem__(self, name: str):
        return self.frame_values(name)

    def __contains__(self, name: str) -> bool:
        return name in self.names

    def __repr__(self) -> str:
        main = next((n for n in self.names if n.startswith("vmaf")), self.names[0] if self.names else None)
        head = f"{main}={self.pooled[main]['mean']:.6f}, " if main else ""
        return f"<vqe.Result {head}{self.frames} frames {self.width}x{self.height}>"

    def scored_frames(self) -> range:
        """Indices of the frames that carry values (every `subsample`-th)."""
        return range(0, self.frames, self.subsample)

    def to_dict(self) -> dict:
        """The layout of the CLI's JSON output (frames, pooled_metrics, aggregate_metrics), with
        every value as a Python float (NaN where the engine wrote none)."""
        columns = {n: self.frame_values(n) for n in self.names}
        frames = [{"frameNum": i, "metrics": {n: float(columns[n][i]) for n in self.names
                                              if not math.isnan(columns[n][i])}}
                  for i in self.scored_frames()]
        return {"version": f"vqe {__version__}", "fps": self.fps, "frames": frames,
                "pooled_metrics": {n: dict(p) for n, p in self.pooled.items()},
                "aggregate_metrics": dict(self.aggregates)}

    def to_pandas(self):
        """A pandas DataFrame: one row per scored frame (index `frame`), one column per name.
        Needs pandas (Debian: python3-pandas)."""
        try:
            import pandas
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise ImportError("Result.to_pandas() needs pandas (apt-get install python3-pandas)") from e
        rows = list(self.scored_frames())
        data = {n: self.frame_values(n)[rows] for n in self.names}
        return pandas.DataFrame(data, index=pandas.Index(rows, name="frame"))

    def dumps(self, format: str = "json", precision: str | int | None = None) -> str:
        """The output file's text (see write)."""
        return self._native.dumps(_format(format), _precision(precision))

    def write(self, path: str | os.PathLike, format: str | None = None,
              precision: str | int | None = None) -> None:
        """Writes libvmaf's output layout to `path`: format json, xml, csv or sub (default: from
        the extension, else json); precision None (libvmaf's %.6f), "max" (round-trips) or a
        number of significant digits. The file appears complete or not at all; a path that is
        one of the scored files is refused (VqeError)."""
        path = _path(path)
        if format is None:
            ext = os.path.splitext(path)[1].lstrip(".").lower()
            format = ext if ext in _FORMATS else "json"
        self._native.write(path, _format(format), _precision(precision))


def _format(format: str) -> str:
    if format not in _FORMATS:
        raise ValueError(f"format {format!r}: use one of {', '.join(_FORMATS)}")
    return format


def _precision(precision) -> str:
    return "" if precision is None else str(precision)


def score(reference: str | os.PathLike, distorted: str | os.PathLike, *,
          models: Sequence[str] | None = None, features: Iterable = (), no_prediction: bool = False,
          backend: str = "cpu", gpu: int = 0, threads: int = 0, subsample: int = 1,
          frame_cnt: int = 0, frame_skip_ref: int = 0, frame_skip_dist: int = 0,
          cpu_level: str | None = None, width: int | None = None, height: int | None = None,
          pixel_format: str | None = None, bitdepth: int | None = None) -> Result:
    """Scores `distorted` against `reference` (paths: .y4m, or raw planar YUV with width, height,
    pixel_format (default "420") and bitdepth (default 8)) and returns a Result. Given with a
    Y4M file, these must agree with its header (VqeError otherwise), as the CLI's -w/-h/-p/-b.

    models: VMAF model versions ("vmaf_v0.6.1", the default) or the CLI's -m specs
    ("version=vmaf_4k_v0.6.1:name=vmaf4k", "path=model.json"); [] for none.
    features: extra extractors, "psnr", "psnr=enable_mse=true" or ("psnr", {"enable_mse": True}).
    The other arguments are the CLI's options of the same names. Raises VqeError with the
    engine's message on bad input; the GIL is released while frames are scored.
    """
    config = _config(models, features, no_prediction, threads, subsample, frame_cnt,
                     frame_skip_ref, frame_skip_dist, backend, gpu, cpu_level)
    native = _vqe.score(_path(reference), _path(distorted), config,
                        _raw(width, height, pixel_format, bitdepth))
    return Result(native, _path(distorted))


def score_ladder(reference: str | os.PathLike, distorted: Sequence[str | os.PathLike], *,
                 raise_errors: bool = True, **options) -> list:
    """Scores every encode of `distorted` against `reference`, reading the reference once and
    computing its reference-only work (motion, VIF's reference statistics, ADM's reference DWT)
    once per frame. Returns one Result per encode,
    in order, each the same values as score(reference, d, **options) gives. `threads` is the
    ladder's total (each encode's job gets at least one worker).

    A problem of one encode (other size, truncated file) raises VqeError naming it, unless
    raise_errors is False: then its place in the list holds a VqeError instead of a Result.
    Problems of the reference or the options always raise. Options are score()'s."""
    if isinstance(distorted, (str, os.PathLike)):
        raise TypeError("score_ladder takes a list of distorted paths")
    raw = _raw(options.pop("width", None), options.pop("height", None),
               options.pop("pixel_format", None), options.pop("bitdepth", None))
    defaults = dict(models=None, features=(), no_prediction=False, threads=0, subsample=1,
                    frame_cnt=0, frame_skip_ref=0, frame_skip_dist=0, backend="cpu", gpu=0,
                    cpu_level=None)
    unknown = set(options) - set(defaults)
    if unknown:
        raise TypeError(f"score_ladder: unknown options {sorted(unknown)}")
    defaults.update(options)
    config = _config(**defaults)
    paths = [_path(d) for d in distorted]
    outcomes = _vqe.score_ladder(_path(reference), paths, config, raw)
    results = []
    for path, outcome in zip(paths, outcomes):
        if isinstance(outcome, str):
            error = VqeError(outcome)
            if raise_errors:
                raise error
            results.append(error)
        else:
            results.append(Result(outcome, path))
    return results


def split_planes(frame, width: int, height: int, pixel_format: str = "420"):
    """Splits one packed planar frame (a 2-D or 1-D numpy array holding Y, then Cb, then Cr, as
    PyAV's ``frame.to_ndarray()`` gives for yuv420p or OpenCV's I420 buffers) into the
    (Y, Cb, Cr) views that Job.submit takes. No copy."""
    import numpy
    a = numpy.asarray(frame).reshape(-1)
    cw = {"420": (width + 1) // 2, "422": (width + 1) // 2, "444": width, "400": 0}
    if pixel_format not in cw:
        raise ValueError(f"pixel_format {pixel_format!r}: use 420, 422, 444 or 400")
    ch = {"420": (height + 1) // 2, "422": height, "444": height, "400": 0}[pixel_format]
    luma = width * height
    chroma = cw[pixel_format] * ch
    if a.size != luma + 2 * chroma:
        raise ValueError(f"frame has {a.size} samples; {width}x{height} {pixel_format} needs "
                         f"{luma + 2 * chroma}")
    y = a[:luma].reshape(height, width)
    if pixel_format == "400":
        return (y,)
    u = a[luma:luma + chroma].reshape(ch, cw[pixel_format])
    v = a[luma + chroma:].reshape(ch, cw[pixel_format])
    return (y, u, v)


class Job:
    """A scoring job fed frame by frame from any decoder (PyAV, OpenCV, imageio, ...).

        job = vqe.Job(models=["vmaf_v0.6.1"], threads=2)
        for ref, dist in frames:            # each a (Y, Cb, Cr) tuple of numpy arrays
            job.submit(ref, dist)           # waits while the job is full
        result = job.finish()

    Planes are uint8 arrays for 8-bit video, uint16 (native byte order, values below
    2**bit_depth) for bit_depth 10, 12 or 16; one plane is 4:0:0, three planes give 4:2:0,
    4:2:2 or 4:4:4 by the chroma planes' shape. The first frame fixes the format. Options are
    score()'s (frame_skip_* do not apply); with frame_cnt, frames submitted past the first
    frame_cnt are not scored (as the CLI's --frame_cnt stops reading). One producer thread at a
    time.
    """

    def __init__(self, *, bit_depth: int = 8, models: Sequence[str] | None = None,
                 features: Iterable = (), no_prediction: bool = False, backend: str = "cpu",
                 gpu: int = 0, threads: int = 0, subsample: int = 1, frame_cnt: int = 0,
                 cpu_level: str | None = None):
        config = _config(models, features, no_prediction, threads, subsample, frame_cnt, 0, 0,
                         backend, gpu, cpu_level)
        if not isinstance(bit_depth, int) or isinstance(bit_depth, bool):
            raise TypeError(f"bit_depth must be an integer (8, 10, 12 or 16), got {bit_depth!r}")
        self._native = _vqe.Job(config, bit_depth)
        self._frame_cnt = frame_cnt
        self._names = None  # the job's output names (a set), once it has started

    def _past_frame_cnt(self) -> bool:
        # The native job counts frames; a finished job still raises there.
        return bool(self._frame_cnt) and self._native.frames_submitted >= self._frame_cnt

    def submit(self, reference, distorted) -> None:
        """Copies one frame pair into the job (waits, GIL released, while every frame slot is
        busy). Raises TypeError/ValueError for planes of a wrong type or shape, VqeError for a
        frame of another format than the first or an engine error. Past frame_cnt frames it
        returns without scoring the pair."""
        if self._past_frame_cnt():
            return
        self._native.submit(reference, distorted, True)

    def try_submit(self, reference, distorted) -> bool:
        """As submit(), but returns False at once (nothing copied) while the job is full. Past
        frame_cnt frames it returns True without scoring the pair."""
        if self._past_frame_cnt():
            return True
        return self._native.submit(reference, distorted, False)

    @property
    def frames_submitted(self) -> int:
        return self._native.frames_submitted

    @property
    def frames_final(self) -> int:
        """Leading frames whose values are final (score() returns them)."""
        return self._native.frames_final

    def score(self, name: str, index: int) -> float | None:
        """Frame `index`'s value of `name` once final, else None. KeyError for a name the
        job does not compute (once it has started)."""
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 2**32:
            raise ValueError(f"index must be a frame number >= 0, got {index!r}")
        if self._names is None:
            names = self._native.feature_names()  # empty until the first frame
            self._names = set(names) if names else None
        if self._names is not None and name not in self._names:
            raise KeyError(f"{name!r} is not computed by this job (it computes "
                           f"{', '.join(self._native.feature_names())})")
        return self._native.score(name, index)

    def feature_names(self) -> list[str]:
        return self._native.feature_names()

    def flush(self) -> None:
        """Waits until every submitted frame is computed."""
        self._native.flush()

    def finish(self) -> Result:
        """Ends the video and returns the Result. The job takes no frame afterwards."""
        return Result(self._native.finish())

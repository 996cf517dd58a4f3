# SPDX-License-Identifier: BSD-2-Clause
"""Shared fixtures: the shared clips (../shared or $VQE_SHARED; tests skip without them), the
vqe CLI of the same build ($VQE_CLI, else build/release/vqe), small Y4M helpers."""

import json
import os
import pathlib
import subprocess

import numpy
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _shared():
    env = os.environ.get("VQE_SHARED")
    path = pathlib.Path(env) if env else ROOT.parent / "shared"
    return path if (path / "testdata" / "clips").is_dir() else None


@pytest.fixture(scope="session")
def clips():
    shared = _shared()
    if shared is None:
        pytest.skip("../shared not found (set VQE_SHARED): skipping")
    return shared / "testdata" / "clips"


@pytest.fixture(scope="session")
def cli():
    path = pathlib.Path(os.environ.get("VQE_CLI", ROOT / "build" / "release" / "vqe"))
    if not path.is_file():
        pytest.skip(f"the vqe CLI is not built ({path}; set VQE_CLI)")
    return path


def run_cli(cli, *args, check=True):
    """Runs the CLI; returns the CompletedProcess (text)."""
    p = subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True, timeout=300)
    if check and p.returncode != 0:
        raise AssertionError(f"vqe {' '.join(map(str, args))} exited {p.returncode}: {p.stderr}")
    return p


def cli_json(cli, tmp_path, *args):
    """The CLI's JSON output (--precision max) for the given options, parsed."""
    out = tmp_path / f"cli_{len(list(tmp_path.iterdir()))}.json"
    run_cli(cli, *args, "--json", "--precision", "max", "-q", "-o", out)
    return json.loads(out.read_text())


def without_fps(text: str) -> str:
    """An output file's text without its processing-speed line (which differs run to run)."""
    return "\n".join(l for l in text.splitlines() if '"fps"' not in l and "<fyi fps" not in l)


def read_y4m(path):
    """(header fields, list of (Y, Cb, Cr) numpy planes) of a 4:2:0 / 4:2:2 / 4:4:4 Y4M file,
    8-bit (uint8) or deeper (uint16), for pushing frames into a vqe.Job."""
    data = pathlib.Path(path).read_bytes()
    end = data.index(b"\n")
    fields = {t[:1].decode(): t[1:].decode() for t in data[:end].split()[1:]}
    w, h = int(fields["W"]), int(fields["H"])
    c = fields.get("C", "420jpeg")
    deep = "p1" in c
    sub = {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h), "444": (w, h)}[c[:3]]
    dtype = numpy.dtype("<u2") if deep else numpy.dtype(numpy.uint8)
    size = dtype.itemsize
    frames, pos = [], end + 1
    while pos < len(data):
        pos = data.index(b"\n", pos) + 1
        planes = []
        for pw, ph in ((w, h), sub, sub):
            n = pw * ph * size
            planes.append(numpy.frombuffer(data, dtype, pw * ph, pos).reshape(ph, pw)
                          .astype(numpy.uint16 if deep else numpy.uint8))
            pos += n
        frames.append(tuple(planes))
    return fields, frames


def write_y4m(path, header_line: bytes, frames):
    """Writes frames (tuples of planes) under a Y4M header line."""
    with open(path, "wb") as f:
        f.write(header_line.rstrip(b"\n") + b"\n")
        for planes in frames:
            f.write(b"FRAME\n")
            for p in planes:
                f.write(numpy.ascontiguousarray(p).astype(p.dtype.newbyteorder("<")).tobytes())


def longer_clip(src, dst, frames: int):
    """A Y4M of `frames` frames cycling through `src`'s (a longer job for timing-sensitive
    tests); kept when it already exists."""
    dst = pathlib.Path(dst)
    if not dst.exists():
        header = pathlib.Path(src).read_bytes().split(b"\n", 1)[0]
        _, source = read_y4m(src)
        write_y4m(dst, header, [source[i % len(source)] for i in range(frames)])
    return dst

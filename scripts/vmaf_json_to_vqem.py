#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Convert libvmaf JSON model files to VQE's .vqem text format. (CMake embeds
models/*.vqem into the library: cmake/EmbedModels.cmake.)

  # JSON -> .vqem (one output per input, named <version>.vqem)
  scripts/vmaf_json_to_vqem.py convert --license ../shared/models/LICENSE-upstream.txt \
      --out models ../shared/models/*.json

Every number is copied as the JSON file writes it (the JSON is read with the
numbers kept as text), so the .vqem file holds exactly the published numbers
and the C++ readers of both formats produce the same doubles. The format is
described in models/README.md.
"""

import argparse
import json
import pathlib
import re
import sys


NUMBER = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$")


class Num(str):
    """A JSON number, kept as the text the file writes."""


def fail(msg):
    raise SystemExit(f"vmaf_json_to_vqem: {msg}")


def load_json(path):
    def bad_constant(name):
        fail(f"{path}: {name} is not a valid model number")

    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_float=Num, parse_int=Num, parse_constant=bad_constant)


def num(v, what):
    if not isinstance(v, Num) or not NUMBER.match(v):
        fail(f"{what}: expected a number, got {v!r}")
    return str(v)


def option_text(v, what):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Num):
        return str(v)
    if isinstance(v, str):
        if not v or re.search(r'[\s"]', v):
            fail(f"{what}: string option values must be non-empty, without spaces or quotes")
        return f'"{v}"'
    fail(f"{what}: unsupported option value {v!r}")


SVM_TYPES = {"nu_svr", "epsilon_svr"}
KERNELS = {"linear", "polynomial", "rbf", "sigmoid"}


def svm_lines(text, what):
    """libsvm model text -> .vqem 'svm' statements (numbers verbatim)."""
    lines = text.split("\n")
    header = {}
    i = 0
    while i < len(lines):
        words = lines[i].split()
        i += 1
        if not words:
            continue
        if words == ["SV"]:
            break
        header[words[0]] = words[1:]
    else:
        fail(f"{what}: libsvm text has no SV line")
    for key in header:
        if key not in {"svm_type", "kernel_type", "gamma", "coef0", "degree", "nr_class",
                       "total_sv", "rho"}:
            fail(f"{what}: unsupported libsvm key {key!r}")
    svm_type = header.get("svm_type", [None])[0]
    kernel = header.get("kernel_type", [None])[0]
    if svm_type not in SVM_TYPES or kernel not in KERNELS:
        fail(f"{what}: unsupported svm_type/kernel_type {svm_type}/{kernel}")
    if header.get("nr_class") != ["2"]:
        fail(f"{what}: nr_class must be 2")
    total = int(header["total_sv"][0])
    out = [f"svm {svm_type} {kernel}"]
    for key in ("gamma", "coef0", "degree", "rho"):
        if key in header:
            if len(header[key]) != 1:
                fail(f"{what}: {key} needs one value")
            out.append(f"svm.{key} {header[key][0]}")
    out.append(f"svm.vectors {total}")
    vectors = [ln.split() for ln in lines[i:] if ln.split()]
    if len(vectors) != total:
        fail(f"{what}: total_sv {total} but {len(vectors)} vectors")
    for words in vectors:
        out.append("sv " + " ".join(words))
    return out


def model_lines(index, root, what):
    if not isinstance(root, dict) or "model_dict" not in root:
        fail(f"{what}: no model_dict")
    md = root["model_dict"]
    out = [f"model {index}"]
    if "model_type" in md:
        out.append(f"type {md['model_type']}")
    norm = md.get("norm_type")
    if norm not in ("linear_rescale", "none"):
        fail(f"{what}: norm_type {norm!r}")
    out.append(f"norm {norm}")
    names = md.get("feature_names") or fail(f"{what}: no feature_names")
    slopes = md.get("slopes", [])
    intercepts = md.get("intercepts", [])
    if norm == "linear_rescale":
        if len(slopes) != len(names) + 1 or len(intercepts) != len(names) + 1:
            fail(f"{what}: slopes/intercepts must have {len(names) + 1} entries")
        out.append(f"score_rescale {num(slopes[0], what)} {num(intercepts[0], what)}")
    if "score_clip" in md:
        lo, hi = md["score_clip"]
        out.append(f"clip {num(lo, what)} {num(hi, what)}")
    if "score_transform" in md:
        t = md["score_transform"]
        out.append("transform " + ("enabled" if t.get("enabled") is True else "disabled"))
        for p in ("p0", "p1", "p2"):
            if t.get(p) is not None:
                out.append(f"transform.{p} {num(t[p], what)}")
        if t.get("knots") is not None:
            flat = []
            for k in t["knots"]:
                flat += [num(k[0], what), num(k[1], what)]
            out.append(" ".join(["transform.knots"] + flat))
        for flag in ("out_lte_in", "out_gte_in"):
            if t.get(flag) in ("true", True):
                out.append(f"transform.{flag}")
    if "chroma_correction_parameter" in md:
        out.append(f"chroma_correction {num(md['chroma_correction_parameter'], what)}")
    opts = md.get("feature_opts_dicts", [])
    for i, name in enumerate(names):
        out.append(f"feature {name}")
        if norm == "linear_rescale":
            out.append(f"  rescale {num(slopes[i + 1], what)} {num(intercepts[i + 1], what)}")
        if i < len(opts):
            for key, value in opts[i].items():
                out.append(f"  option {key} {option_text(value, f'{what}.{name}.{key}')}")
    out += svm_lines(md["model"], what)
    out.append("end")
    return out


def convert(json_path, license_text, version):
    data = load_json(json_path)
    lines = ["vqem 1"]
    lines.append(f"# VMAF model {version}, converted from {json_path.name} (libvmaf 3.2.0,")
    lines.append("# Netflix/vmaf) by scripts/vmaf_json_to_vqem.py. The numbers are Netflix's")
    lines.append("# published model numbers, copied digit for digit; their licence follows.")
    lines.append("#")
    for ln in license_text.rstrip("\n").split("\n"):
        lines.append(("# " + ln).rstrip())
    lines.append("")
    lines.append(f"version {version}")
    lines.append("license BSD-2-Clause-Patent (Copyright (c) 2020 Netflix, Inc.)")
    if "model_dict" in data:
        lines.append("")
        lines += model_lines(0, data, str(json_path))
    else:
        n = 0
        while str(n) in data:
            n += 1
        if n < 2:
            fail(f"{json_path}: neither a model nor a bootstrap collection")
        lines.append(f"collection {n - 1}")
        for i in range(n):
            lines.append("")
            lines += model_lines(i, data[str(i)], f"{json_path} model {i}")
    return "\n".join(lines) + "\n"


def cmd_convert(args):
    license_text = pathlib.Path(args.license).read_text(encoding="utf-8")
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in map(pathlib.Path, args.json):
        version = path.stem
        text = convert(path, license_text, version)
        (out_dir / f"{version}.vqem").write_text(text, encoding="utf-8")
        print(f"{path} -> {out_dir / (version + '.vqem')}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("convert", help="JSON model(s) -> .vqem")
    c.add_argument("--license", required=True, help="upstream licence text to carry")
    c.add_argument("--out", required=True, help="output directory")
    c.add_argument("json", nargs="+")
    args = ap.parse_args()
    cmd_convert(args)


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-2-Clause
"""Builds the _vqe extension with the project's CMake build (the `_vqe` target of the
repository one folder up) and puts it into the package. Configuration: $VQE_CMAKE_ARGS (extra
-D options, e.g. "-DVQE_ENABLE_CUDA=OFF"), $VQE_BUILD_DIR (default build/python beside this
file's repository), $CMAKE_BUILD_PARALLEL_LEVEL (jobs)."""

import os
import pathlib
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not (ROOT / "CMakeLists.txt").is_file():
            raise RuntimeError(f"{ROOT}: the VQE repository's CMakeLists.txt is not there; build "
                               "from the repository (pip install ./python)")
        build = pathlib.Path(os.environ.get("VQE_BUILD_DIR", ROOT / "build" / "python"))
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
                     "-DCMAKE_BUILD_TYPE=Release", "-DVQE_BUILD_TESTS=OFF",
                     "-DVQE_BUILD_MICROBENCH=OFF", f"-DPython_EXECUTABLE={sys.executable}"]
        configure += shlex.split(os.environ.get("VQE_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "_vqe"], check=True)
        built = next((build / "python" / "vqe").glob("_vqe*.so"))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(ext_modules=[CMakeExtension("vqe._vqe")], cmdclass={"build_ext": CMakeBuild})

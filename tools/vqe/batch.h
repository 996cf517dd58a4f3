// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// `vqe batch MANIFEST [...]`: many pairs from a CSV or JSON manifest, locally
// or on a Dask cluster (--scheduler). The batch runner is the Python
// package's (vqe.batch, on the same engine through its bindings); this
// command starts it.

namespace vqe::cli {

/// Runs `python3 -m vqe.batch ARGS...` in place of this process, with the
/// Python package of this build first on PYTHONPATH when it sits beside the
/// executable (build trees) — else the installed package. $VQE_PYTHON
/// chooses the interpreter. Returns only on failure (exit status 1, with a
/// message).
int run_batch_command(int argc, char** argv);

}  // namespace vqe::cli

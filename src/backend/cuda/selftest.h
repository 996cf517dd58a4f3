// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Entry points that run the reduction primitives of reduce.cuh on
/// host data, for the unit tests in tests/gpu/ (CUDA builds only; the
/// functions are not defined without CUDA). Each call allocates, copies,
/// runs, copies back and frees: test use only.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vqe::cuda::selftest {

/// Σ data[i] through per-thread uint64 sums, block_sum and sum_partials, with
/// `block` threads per block (multiple of 32, <= 1024) and at most
/// `max_blocks` blocks. Throws vqe::Error on a CUDA failure.
std::uint64_t sum_u64(const std::vector<std::uint64_t>& data, int block, int max_blocks);
/// The same for signed values.
std::int64_t sum_i64(const std::vector<std::int64_t>& data, int block, int max_blocks);
/// Σx and Σx² of 16-bit samples (block_sum_k<2>); returns {Σx, Σx²}.
std::vector<std::uint64_t> sum_u16_moments(const std::vector<std::uint16_t>& data, int block,
                                           int max_blocks);
/// Σ data[i] in double through the same fixed-order trees.
double sum_f64(const std::vector<double>& data, int block, int max_blocks);

}  // namespace vqe::cuda::selftest

// SPDX-License-Identifier: BSD-2-Clause
// The CPU's long sequential double sums, `double s = 0; for (i) s += x_i;`,
// bit for bit, by one workgroup of 256 invocations, for VQE_SEQ_K sums at
// once (define it before including; needs vqe_softdouble.glsl). The values
// come 256 at a time, one per invocation in order (vqe_seq_chunk); the sums
// are in vqe_seq_sum[] (binary64 bits, the same in every invocation) after
// the last chunk.
//
// Why it is exact. Let the running sum S be nonzero with exponent e, so the
// doubles of its binade [2^e, 2^(e+1)) are the multiples of u = 2^(e−52).
// If S + x_i lies in that binade (same sign) the CPU's rounded sum is
// S + round_u(x_i): x_i rounded to a multiple of u, which does not depend
// on S unless x_i is exactly halfway between two multiples (a tie, whose
// rounding to even would). So as long as the sums stay in S's binade, the
// CPU's sums are S + P_i·u, where P_i is an exact integer prefix sum of
// k_i = round_u(x_i)/u. One round of a chunk: every invocation computes its
// k_i (or flags a tie, or an x_i too large to stay in the binade), an
// inclusive prefix sum gives every candidate S + P_i·u, and each is checked
// to lie strictly inside the binade, one u away from both ends, which
// guarantees that the exact S + x_i was in the binade too. Up to the first
// failing element the candidates are the CPU's sums; that element is added
// with sd_add (rounded as the CPU does), the binade is taken anew and the
// next round starts after it. Rounds = chunks plus the events (binade
// changes, ties, the first element), a few dozen per million-element sum
// of positive terms.
//
// Every invocation keeps the running sums in registers and updates them
// alike from workgroup memory (uniform work, no single-invocation section).
// Cost per round: six workgroup barriers; the prefix sums are taken in
// 32-element runs by one invocation each, then offset by the runs before;
// the flags become 32-bit masks, then one first index per sum, so that each
// invocation reads few words (workgroup memory is slow on lavapipe). The
// prefix sums alternate between two buffers so that the next round may
// start while others still read this one's. Workgroup memory: VQE_SEQ_K ×
// 6.1 KiB + 1 KiB (25.4 KiB for four sums). No atomics, no subgroup
// operations.
//
// Loop budget: Mesa's lavapipe ends every loop of a shader invocation once
// 65,535 iterations have run in all (gallivm's loop limiter), silently. The
// inner loops here have constant trip counts and are unrolled, so a round
// costs one iteration and a chunk at most 257 (an event at every element).
// A caller summing long sequences splits them over several dispatches
// (vqe_seq_begin takes the sums so far) so that no invocation comes near
// the limit.
#ifndef VQE_SEQ_K
#error "define VQE_SEQ_K (the number of sums) before including vqe_seqsum.glsl"
#endif

const uint kSeqLanes = 256u;
uint64_t vqe_seq_sum[VQE_SEQ_K];  // the running sums (binary64 bits), per invocation
shared uint64_t vqe_seq_x[VQE_SEQ_K][kSeqLanes];
shared int64_t vqe_seq_prefix[2][VQE_SEQ_K][kSeqLanes];
shared int64_t vqe_seq_runs[VQE_SEQ_K][8];  // run totals, then the runs' offsets
shared uint vqe_seq_bad[kSeqLanes];  // bit q: element needs an exact step in sum q
shared uint vqe_seq_mask[VQE_SEQ_K][8];
shared uint vqe_seq_first[VQE_SEQ_K];  // per sum: the first element needing an exact step

// Starts the sums at `start` (binary64 bits; +0 = uint64_t(0) for a new
// sum, or the sums of an earlier dispatch). Every invocation passes the
// same values.
void vqe_seq_begin(uint64_t start[VQE_SEQ_K]) {
  [[unroll]] for (int q = 0; q < VQE_SEQ_K; ++q) vqe_seq_sum[q] = start[q];
}

// x rounded to a multiple of u = 2^(e − 52), in units of u (k): false
// where that cannot stand for the CPU's step (|x| >= 2^(e+1), or x halfway
// between two multiples).
bool vqe_seq_units(uint64_t x, int e, out int64_t k) {
  k = int64_t(0);
  if (sd_is_zero(x)) return true;
  const int ex = sd_exp(x);
  if (ex > e) return false;
  const int d = e - ex;  // x = mx · 2^−d units
  const uint64_t mx = sd_mant(x);
  uint64_t q;
  if (d == 0) {
    q = mx;
  } else if (d >= 54) {
    q = uint64_t(0);  // |x| < u/2
  } else {
    q = mx >> d;
    const uint64_t low = mx & ((uint64_t(1) << d) - uint64_t(1));
    const uint64_t tie = uint64_t(1) << (d - 1);
    if (low == tie) return false;  // a tie: rounding depends on S
    if (low > tie) q += uint64_t(1);
  }
  k = (x >> 63) != uint64_t(0) ? -int64_t(q) : int64_t(q);
  return true;
}

// S + P·u for a candidate P that keeps S's binade and sign (see above).
uint64_t vqe_seq_advance(uint64_t s, int64_t p) {
  const int64_t ms = int64_t(sd_mant(s));
  const bool neg = (s >> 63) != uint64_t(0);
  const int64_t c = (neg ? -ms : ms) + p;
  const uint64_t mag = uint64_t(neg ? -c : c);  // in (2^52, 2^53)
  return (s & ~kSdFracMask) | (mag & kSdFracMask);
}

// Adds elements 0..count−1 of a chunk (element i is x[] of invocation i;
// count <= 256) to the sums, in order. Call from every invocation, in
// uniform control flow, with the same count.
void vqe_seq_chunk(uint64_t x[VQE_SEQ_K], uint count) {
  const uint lane = gl_LocalInvocationIndex;
  [[unroll]] for (int q = 0; q < VQE_SEQ_K; ++q) vqe_seq_x[q][lane] = x[q];
  uint pos[VQE_SEQ_K];
  [[unroll]] for (int q = 0; q < VQE_SEQ_K; ++q) pos[q] = 0u;
  barrier();
  for (uint b = 0u;; b ^= 1u) {
    // 1. Every element's units and its flags (ties, too large, zero sum).
    bool pending = false;
    uint bad = 0u;
    [[unroll]] for (int q = 0; q < VQE_SEQ_K; ++q) {
      pending = pending || pos[q] < count;
      int64_t k = int64_t(0);
      if (lane >= pos[q] && lane < count) {
        // From a zero sum the first element is exact (0 + x = x): an event.
        const uint64_t s = vqe_seq_sum[q];
        if (sd_is_zero(s) || !vqe_seq_units(x[q], sd_exp(s), k)) bad |= 1u << q;
      }
      vqe_seq_prefix[b][q][lane] = k;
    }
    if (!pending) break;  // uniform: the positions are the same everywhere
    barrier();
    // 2. Inclusive prefix sums of each run of 32 elements, one invocation per
    // run; then each run's offset (the totals of the runs before it).
    if (lane < 8u * uint(VQE_SEQ_K)) {
      const uint q = lane >> 3, first = (lane & 7u) * 32u;
      int64_t run = int64_t(0);
      [[unroll]] for (uint i = 0u; i < 32u; ++i) {
        run += vqe_seq_prefix[b][q][first + i];
        vqe_seq_prefix[b][q][first + i] = run;
      }
      vqe_seq_runs[q][lane & 7u] = run;
    }
    barrier();
    if (lane < uint(VQE_SEQ_K)) {
      int64_t offset = int64_t(0);
      [[unroll]] for (uint r = 0u; r < 8u; ++r) {
        const int64_t total = vqe_seq_runs[lane][r];
        vqe_seq_runs[lane][r] = offset;
        offset += total;
      }
    }
    barrier();
    // 3. Every candidate sum S + P·u must stay one u inside S's binade.
    [[unroll]] for (int q = 0; q < VQE_SEQ_K; ++q) {
      const int64_t p = vqe_seq_prefix[b][q][lane] + vqe_seq_runs[q][lane >> 5];
      vqe_seq_prefix[b][q][lane] = p;
      if (lane >= pos[q] && lane < count && (bad & (1u << q)) == 0u) {
        const uint64_t s = vqe_seq_sum[q];
        const int64_t ms = int64_t(sd_mant(s));
        const bool neg = (s >> 63) != uint64_t(0);
        const int64_t c = (neg ? -ms : ms) + p;
        const int64_t mag = neg ? -c : c;
        if (mag <= (int64_t(1) << 52) || mag >= (int64_t(1) << 53) - int64_t(1)) bad |= 1u << q;
      }
    }
    vqe_seq_bad[lane] = bad;
    barrier();
    // 4. The flags as 32-bit masks, one invocation per word; then per sum
    // the first flagged element.
    if (lane < 8u * uint(VQE_SEQ_K)) {
      const uint q = lane >> 3, first = (lane & 7u) * 32u;
      uint mask = 0u;
      [[unroll]] for (uint i = 0u; i < 32u; ++i) mask |= ((vqe_seq_bad[first + i] >> q) & 1u) << i;
      vqe_seq_mask[q][lane & 7u] = mask;
    }
    barrier();
    if (lane < uint(VQE_SEQ_K)) {
      uint f = count;
      [[unroll]] for (uint w = 0u; w < 8u; ++w) {
        const uint mask = vqe_seq_mask[lane][w];
        if (mask != 0u) f = min(f, w * 32u + uint(findLSB(mask)));
      }
      vqe_seq_first[lane] = f;
    }
    barrier();
    // 5. Every invocation advances every sum alike: the candidates up to the
    // first flagged element, then that element with a rounded step.
    [[unroll]] for (int q = 0; q < VQE_SEQ_K; ++q) {
      if (pos[q] >= count) continue;
      const uint f = vqe_seq_first[q];
      uint64_t s = vqe_seq_sum[q];
      if (f > pos[q]) s = vqe_seq_advance(s, vqe_seq_prefix[b][q][f - 1u]);
      if (f < count) s = sd_add(s, vqe_seq_x[q][f]);
      pos[q] = min(f + 1u, count);
      vqe_seq_sum[q] = s;
    }
  }
  // Every invocation has read this chunk's values before the next chunk's.
  barrier();
}

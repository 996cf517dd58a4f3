// SPDX-License-Identifier: BSD-2-Clause
// Declarations shared by the integer ADM shaders (adm_level.comp,
// adm_rows.comp): the per-frame scratch and the host's level table.
//
// Scratch of one frame (one frame per grid z of a chunk): per level 15
// arrays of the band's w x h samples, one int32 word each (level 0's int16
// values sign-extended): 0 LL of the reference, 1 LL of the distorted, 2..4
// reference h/v/d, 5..7 restored h/v/d, 8..10 additive h/v/d, 11/12 the
// additive's mask/centre terms, 13/14 the restored's. Level 0's arrays are
// in one buffer (kFrameWords0 words per frame), levels 1..3's in another
// (kFrameWords123), so that each binding stays within the device's
// storage-buffer range (128 MiB on some devices; a 2160p frame's level 0
// takes 124 MB). The includer defines ADM_SCRATCH_ACCESS (e.g. readonly)
// and the two binding numbers ADM_SCRATCH0 and ADM_SCRATCH123.
//
// Level table (host-made, adm_vulkan.cpp): kLevelWords words per level at
// tables[kLevelBase + level * kLevelWords]: see the L_* offsets.

layout(constant_id = 24) const uint kFrameWords0 = 1u;
layout(constant_id = 25) const uint kLevelBase = 65537u;  // after the reciprocal table
layout(constant_id = 30) const uint kFrameWords123 = 1u;

layout(std430, set = 0, binding = ADM_SCRATCH0) ADM_SCRATCH_ACCESS buffer Scratch0 { int scratch0[]; };
layout(std430, set = 0, binding = ADM_SCRATCH123) ADM_SCRATCH_ACCESS buffer Scratch123 { int scratch123[]; };

const uint kLevelWords = 24u;
const uint L_IN_W = 0u, L_IN_H = 1u, L_W = 2u, L_H = 3u, L_BASE = 4u;  // band words at BASE
const uint L_WTOP = 5u, L_WBOTTOM = 6u, L_WLEFT = 7u, L_WRIGHT = 8u;  // work region
const uint L_TOP = 9u, L_BOTTOM = 10u, L_LEFT = 11u, L_RIGHT = 12u;   // scored region
const uint L_FIXED = 13u;                                              // 3 weights
const uint L_FIRST_ROW = 16u;  // the level's first row block (adm_rows.comp)
const uint L_CUB_SHIFT = 17u;  // 3 shifts of the masked cubes
const uint L_DEN_SHIFT_SQ = 20u, L_DEN_SHIFT_CUB = 21u;  // levels 1..3

uint level_word(int level, uint field) { return tables[kLevelBase + uint(level) * kLevelWords + field]; }
int level_int(int level, uint field) { return int(level_word(level, field)); }

// Word index of array `a` (0..14) of `level`, sample (i, j), frame z, in
// that level's scratch buffer.
uint band_at(uint z, int level, uint a, int i, int j) {
  const uint n = level_word(level, L_W) * level_word(level, L_H);
  return z * (level == 0 ? kFrameWords0 : kFrameWords123) + level_word(level, L_BASE) + a * n +
         uint(i) * level_word(level, L_W) + uint(j);
}
int band(uint z, int level, uint a, int i, int j) {
  const uint at = band_at(z, level, a, i, j);
  return level == 0 ? scratch0[at] : scratch123[at];
}

// static_cast<int16_t> of an int (two's complement wrap).
int i16(int x) { return (x << 16) >> 16; }

// |x| with x86's wrap-around at INT32_MIN.
int wrap_abs(int x) { return x < 0 ? int(0u - uint(x)) : x; }

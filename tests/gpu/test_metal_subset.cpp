// SPDX-License-Identifier: BSD-2-Clause
// The Metal subset as a checked rule (docs/vulkan.md, DESIGN.md GPU rule 6):
// every embedded Vulkan shader, as SPIR-V and as the Metal Shading Language
// that spirv-cross made of it at build time (<build>/shaders/msl), uses no
// 64-bit atomics, no double, at most 32 KiB of workgroup memory, at most 1024
// invocations per workgroup and no subgroup operations; float_moment's
// reduction has the exact shape (uint64 threadgroup scratch of 256 lanes per
// sum, summed serially by lane 0, stored as lo/hi uint32 words). Nothing
// here runs Metal: no Apple device has run these shaders.

#include <gtest/gtest.h>

#if defined(VQE_HAVE_VULKAN)

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <span>
#include <sstream>
#include <string>

#include "backend/vulkan/shaders.h"

namespace {

constexpr std::uint32_t kOpCapability = 17, kOpTypeFloat = 22, kOpTypeInt = 21;
constexpr std::uint32_t kOpExecutionMode = 16, kOpAtomicFirst = 227, kOpAtomicLast = 242;
constexpr std::uint32_t kCapFloat64 = 10, kCapInt64Atomics = 12;
constexpr std::uint32_t kCapGroupNonUniformFirst = 61, kCapGroupNonUniformLast = 68;

// The MSL folder: $VQE_MSL_DIR (a packed build, scripts/gpu-pack), else the
// build's own.
std::string msl_dir() {
  const char* env = std::getenv("VQE_MSL_DIR");
  return env && *env ? env : VQE_MSL_DIR;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What one SPIR-V module declares (walks the instruction stream).
struct SpirvFacts {
  bool float64 = false, int64_atomics = false, subgroups = false, atomics = false;
  bool valid = true;
};

SpirvFacts inspect(std::span<const std::uint32_t> words) {
  SpirvFacts f;
  if (words.size() < 5 || words[0] != 0x07230203u) {
    f.valid = false;
    return f;
  }
  for (std::size_t i = 5; i < words.size();) {
    const std::uint32_t count = words[i] >> 16, op = words[i] & 0xffffu;
    if (count == 0 || i + count > words.size()) {
      f.valid = false;
      break;
    }
    if (op == kOpCapability) {
      const std::uint32_t cap = words[i + 1];
      f.float64 |= cap == kCapFloat64;
      f.int64_atomics |= cap == kCapInt64Atomics;
      f.subgroups |= cap >= kCapGroupNonUniformFirst && cap <= kCapGroupNonUniformLast;
    }
    if (op == kOpTypeFloat && words[i + 2] == 64) f.float64 = true;
    if (op >= kOpAtomicFirst && op <= kOpAtomicLast) f.atomics = true;
    i += count;
  }
  (void)kOpTypeInt;
  (void)kOpExecutionMode;
  return f;
}

// Bytes of every `threadgroup T name[a][b]...;` declaration in MSL source.
long threadgroup_bytes(const std::string& msl) {
  static const std::regex decl(R"(threadgroup\s+(\w+)\s+\w+((\[\d+\])+);)");
  static const std::regex dim(R"(\[(\d+)\])");
  long total = 0;
  for (auto it = std::sregex_iterator(msl.begin(), msl.end(), decl); it != std::sregex_iterator();
       ++it) {
    const std::string type = (*it)[1];
    long bytes = type == "ulong" || type == "long" ? 8
                 : type == "ushort" || type == "short" || type == "half" ? 2
                 : type == "uchar" || type == "char" || type == "bool" ? 1
                                                                         : 4;
    const std::string dims = (*it)[2];
    for (auto d = std::sregex_iterator(dims.begin(), dims.end(), dim); d != std::sregex_iterator();
         ++d)
      bytes *= std::stol((*d)[1]);
    total += bytes;
  }
  return total;
}

TEST(MetalSubset, EveryShaderAsSpirvAndMsl) {
  int checked = 0;
  for (const vqe::vulkan::EmbeddedShader& s : vqe::vulkan::embedded_shaders()) {
    const std::string name(s.name);
    const SpirvFacts f = inspect(s.words);
    EXPECT_TRUE(f.valid) << name << ": not a SPIR-V module";
    EXPECT_FALSE(f.float64) << name << ": uses 64-bit floats";
    EXPECT_FALSE(f.int64_atomics) << name << ": uses 64-bit atomics";
    EXPECT_FALSE(f.atomics) << name << ": uses atomics (sums must be in a fixed order)";
    EXPECT_FALSE(f.subgroups) << name << ": uses subgroup operations";

    const std::string path = msl_dir() + "/" + name + ".metal";
    const std::string msl = read_text(path);
    ASSERT_FALSE(msl.empty()) << path << " missing (built by the vqe_msl target)";
    EXPECT_NE(msl.find("kernel void main0"), std::string::npos) << path;
    EXPECT_FALSE(std::regex_search(msl, std::regex(R"(\bdouble\b)"))) << path << ": double";
    EXPECT_FALSE(std::regex_search(msl, std::regex(R"(atomic_u?long|atomic<\s*u?long)")))
        << path << ": 64-bit atomic";
    EXPECT_FALSE(std::regex_search(msl, std::regex(R"(\bsimd_\w+\(|\bquad_\w+\(|simdgroup)")))
        << path << ": SIMD-group operation";
    EXPECT_LE(threadgroup_bytes(msl), 32768) << path << ": threadgroup memory";
    // uint3(x, y, z), or uint3(x) for all three.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        msl, m, std::regex(R"(gl_WorkGroupSize[^=]*=\s*uint3\((\d+)u(,\s*(\d+)u,\s*(\d+)u)?\))")))
        << path << ": no workgroup size";
    const long x = std::stol(m[1]);
    const long invocations = m[2].matched ? x * std::stol(m[3]) * std::stol(m[4]) : x * x * x;
    EXPECT_LE(invocations, 1024) << path;
    ++checked;
  }
  EXPECT_GT(checked, 0);
  std::cout << "[metal subset] shaders checked as SPIR-V and MSL: " << checked << "\n";
}

// float_moment's exact reduction, in the MSL: a threadgroup uint64 scratch
// of 4 sums x 256 lanes, lane 0 adding each sum's 256 values in order into a
// 64-bit total, stored as the low and the high 32-bit word.
TEST(MetalSubset, FloatMomentReductionShape) {
  const std::string msl = read_text(msl_dir() + "/float_moment_sums.metal");
  ASSERT_FALSE(msl.empty());
  std::smatch scratch;
  ASSERT_TRUE(std::regex_search(msl, scratch, std::regex(R"(threadgroup ulong (\w+)\[4\]\[256\];)")))
      << "no threadgroup ulong[4][256] scratch";
  const std::string s = scratch[1];
  const auto lane0 = msl.find("if (gl_LocalInvocationIndex == 0u)");
  ASSERT_NE(lane0, std::string::npos) << "no lane-0 section";
  const std::string tail = msl.substr(lane0);
  std::smatch loop;
  ASSERT_TRUE(std::regex_search(
      tail, loop,
      std::regex(R"(ulong (\w+);\s*\1 = 0ul;\s*for \(uint (\w+) = 0u; \2 < 256u; \)\s*\{\s*\1 \+= )" + s +
                 R"(\[\w+\]\[\2\];)")))
      << "lane 0 does not add the 256 lanes serially into a ulong";
  const std::string total = loop[1];
  EXPECT_TRUE(std::regex_search(tail, std::regex("= uint\\(" + total + " & 4294967295ul\\);")))
      << "no low word";
  EXPECT_TRUE(std::regex_search(tail, std::regex("= uint\\(" + total + " >> ulong\\(32\\)\\);")))
      << "no high word";
  // Before lane 0 sums: every lane stores its four 64-bit sums, then a barrier.
  const std::string head = msl.substr(0, lane0);
  EXPECT_TRUE(std::regex_search(head, std::regex(s + R"(\[\w+\]\[gl_LocalInvocationIndex\] = )")));
  EXPECT_NE(head.rfind("threadgroup_barrier(mem_flags::mem_threadgroup);"), std::string::npos);
}

}  // namespace

#else
TEST(MetalSubset, NeedsTheVulkanBackend) { GTEST_SKIP() << "this build has no Vulkan backend"; }
#endif

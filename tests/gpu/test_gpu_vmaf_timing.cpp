// SPDX-License-Identifier: BSD-2-Clause
// Per-kernel timings of the CUDA VIF and ADM kernels (CUDA events) at 1080p
// 8-bit and 2160p 10-bit, frames already on the device, plus a bit-exactness
// check of the same frames against the CPU scalar kernels. Runs only with
// VQE_GPU_TIMING=1 (it is a measurement, not a unit test).

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "features/adm/adm_cuda.h"
#include "backend/cuda/device.h"
#include "features/vif/vif_cuda.h"
#include "core/simd.h"
#include "test_util.h"

namespace {

using namespace vqe;

#define CK(x) ASSERT_EQ((x), cudaSuccess) << #x

float elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  return ms;
}

TEST(CudaVmafTiming, PerKernelAndExactness) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  if (std::getenv("VQE_GPU_TIMING") == nullptr) GTEST_SKIP() << "set VQE_GPU_TIMING=1";
  struct Cfg {
    int w, h, bpc;
  };
  for (const Cfg c : {Cfg{1920, 1080, 8}, Cfg{3840, 2160, 10}}) {
    VideoFormat f;
    f.width = c.w;
    f.height = c.h;
    f.bit_depth = c.bpc;
    f.chroma = ChromaFormat::k400;
    const Picture ref = test::synthetic_picture(f, 11, test::Fill::smooth);
    const Picture dis = test::distort_picture(ref, 12, c.bpc == 8 ? 5 : 20);
    const Plane& rp = ref.plane(0);
    const Plane& dp = dis.plane(0);
    void *d_ref = nullptr, *d_dis = nullptr;
    CK(cudaMalloc(&d_ref, rp.stride * c.h));
    CK(cudaMalloc(&d_dis, dp.stride * c.h));
    CK(cudaMemcpy(d_ref, rp.data, rp.stride * c.h, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_dis, dp.data, dp.stride * c.h, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cuda::VifCudaKernel vif(100.0, false);
    vif.init(c.w, c.h, c.bpc);
    cuda::AdmCudaKernel adm(c.w, c.h, c.bpc, adm::AdmParams{});
    adm.bind();
    cuda::VifSums* d_vs = nullptr;
    cuda::AdmSums* d_as = nullptr;
    CK(cudaMalloc(&d_vs, sizeof(cuda::VifSums)));
    CK(cudaMalloc(&d_as, sizeof(cuda::AdmSums)));

    // Exactness of this frame (twice: the running sums must be cleared
    // between frames) against the CPU kernels at the scalar level.
    cuda::VifSums vs{};
    cuda::AdmSums as{};
    for (int rep = 0; rep < 2; ++rep) {
      vif.enqueue(d_ref, rp.stride, d_dis, dp.stride, s, d_vs);
      adm.enqueue(d_ref, rp.stride, d_dis, dp.stride, s, d_as);
    }
    CK(cudaMemcpyAsync(&vs, d_vs, sizeof vs, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(&as, d_as, sizeof as, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    {
      vif::IntegerVifKernel cpu_vif(100.0, false, simd::Level::scalar);
      cpu_vif.init(c.w, c.h, c.bpc);
      const vif::VifValues cv = cpu_vif.compute(rp, dp);
      const vif::VifValues gv = cuda::vif_values_from_sums(vs, false);
      for (int k = 0; k < vif::kNumScales; ++k) {
        EXPECT_EQ(std::memcmp(&cv.scale[k].num, &gv.scale[k].num, sizeof(float)), 0) << k;
        EXPECT_EQ(std::memcmp(&cv.scale[k].den, &gv.scale[k].den, sizeof(float)), 0) << k;
      }
      adm::IntegerAdm cpu_adm(c.w, c.h, c.bpc, adm::AdmParams{}, simd::Level::scalar);
      const adm::AdmResult ca = cpu_adm.compute(rp, dp);
      const adm::AdmResult ga = adm.result(as);
      EXPECT_EQ(std::memcmp(&ca.adm2, &ga.adm2, sizeof(double)), 0) << ca.adm2 << " " << ga.adm2;
      EXPECT_EQ(std::memcmp(&ca.aim, &ga.aim, sizeof(double)), 0) << ca.aim << " " << ga.aim;
      for (int k = 0; k < adm::kNumScales; ++k) {
        EXPECT_EQ(ca.num_scale[k], ga.num_scale[k]) << k;
        EXPECT_EQ(ca.den_scale[k], ga.den_scale[k]) << k;
      }
      std::printf("[timing] %dx%d %d-bit: vif scale0 cpu %.9g gpu %.9g, adm2 cpu %.17g gpu %.17g\n",
                  c.w, c.h, c.bpc, cv.scale[0].score(), gv.scale[0].score(), ca.adm2, ga.adm2);
    }

    // Throughput, frames already on the device, one stream.
    constexpr int kFrames = 200;
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    auto run = [&](bool do_vif, bool do_adm) {
      for (int i = 0; i < 10; ++i) {
        if (do_vif) vif.enqueue(d_ref, rp.stride, d_dis, dp.stride, s, d_vs);
        if (do_adm) adm.enqueue(d_ref, rp.stride, d_dis, dp.stride, s, d_as);
      }
      cudaEventRecord(t0, s);
      for (int i = 0; i < kFrames; ++i) {
        if (do_vif) vif.enqueue(d_ref, rp.stride, d_dis, dp.stride, s, d_vs);
        if (do_adm) adm.enqueue(d_ref, rp.stride, d_dis, dp.stride, s, d_as);
      }
      cudaEventRecord(t1, s);
      cudaEventSynchronize(t1);
      return elapsed(t0, t1) * 1000.0f / kFrames;
    };
    const float us_vif = run(true, false), us_adm = run(false, true), us_both = run(true, true);
    std::printf("[timing] %dx%d %d-bit per frame: vif %.1f us, adm %.1f us, vif+adm %.1f us "
                "(%.0f fps)\n",
                c.w, c.h, c.bpc, us_vif, us_adm, us_both, 1e6 / us_both);

    // Per kernel: events after every launch, averaged.
    std::vector<cudaEvent_t> mv(cuda::VifCudaKernel::kLaunches), ma(cuda::AdmCudaKernel::kLaunches);
    for (auto& e : mv) CK(cudaEventCreate(&e));
    for (auto& e : ma) CK(cudaEventCreate(&e));
    std::vector<double> tv(mv.size()), ta(ma.size());
    constexpr int kReps = 20;
    vif.set_markers(mv.data());
    adm.set_markers(ma.data());
    for (int r = 0; r < kReps; ++r) {
      cudaEventRecord(t0, s);
      vif.enqueue(d_ref, rp.stride, d_dis, dp.stride, s, d_vs);
      adm.enqueue(d_ref, rp.stride, d_dis, dp.stride, s, d_as);
      CK(cudaStreamSynchronize(s));
      cudaEvent_t prev = t0;
      for (std::size_t k = 0; k < mv.size(); ++k) {
        tv[k] += elapsed(prev, mv[k]) * 1000.0 / kReps;
        prev = mv[k];
      }
      for (std::size_t k = 0; k < ma.size(); ++k) {
        ta[k] += elapsed(prev, ma[k]) * 1000.0 / kReps;
        prev = ma[k];
      }
    }
    vif.set_markers(nullptr);
    adm.set_markers(nullptr);
    std::printf("[timing] %dx%d %d-bit vif kernels (us): scale0 %.1f scale1 %.1f scale2 %.1f "
                "scale3+handover %.1f\n",
                c.w, c.h, c.bpc, tv[0], tv[1], tv[2], tv[3]);
    std::printf("[timing] %dx%d %d-bit adm kernels (us): level0 %.1f level1 %.1f level2 %.1f "
                "level3 %.1f rows+handover %.1f\n",
                c.w, c.h, c.bpc, ta[0], ta[1], ta[2], ta[3], ta[4]);
    for (auto& e : mv) cudaEventDestroy(e);
    for (auto& e : ma) cudaEventDestroy(e);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    cudaFree(d_vs);
    cudaFree(d_as);
    cudaFree(d_ref);
    cudaFree(d_dis);
    cudaStreamDestroy(s);
  }
}

}  // namespace

// Hardware counters on the GPU (issue #11): the CUPTI range profiler pass (measure/metrics.hpp) against work
// of known size. A copy of 2 GiB → 2 GiB (far over the 60 MB L2: what stays dirty in L2 at the end is
// < 3% of the writes) must show DRAM bytes read and written within 5% of what it moves; ten cuBLAS fp16
// 4096³ GEMMs must keep the tensor pipe > 30% busy. Skipped visibly without a GPU, or when the counters
// are not permitted here (the reason is printed).
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/counters.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "measure/metrics.hpp"
#include "support/gpu.hpp"

namespace gpubench {
namespace {

/// dst[i] = src[i], 16 bytes per thread per step (grid-stride).
__global__ void copy_kernel(const int4* __restrict__ src, int4* __restrict__ dst, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

int64_t l2_bytes() {
  int l2 = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  return l2;
}

TEST(MetricsGpu, CopyKernelDramBytesMatchTheBytesMoved) {
  GPUBENCH_REQUIRE_GPU();
  constexpr size_t kBytes = size_t{2} << 30;  // 2 GiB read + 2 GiB written
  measure::CounterCollector collector(0, {metric::kDramBytesRead, metric::kDramBytesWrite, metric::kDurationNs},
                                      2 * l2_bytes());
  if (!collector.available()) GTEST_SKIP() << "SKIPPED: counters unavailable: " << collector.why();
  testing::Stream stream;
  DeviceBuffer src(kBytes), dst(kBytes);
  GPUBENCH_CUDA(cudaMemsetAsync(src.get(), 0x5a, kBytes, stream.s));
  const size_t n = kBytes / sizeof(int4);
  const std::vector<op::LaunchGroup> ops = {{"copy", [&](cudaStream_t s) {
                                       copy_kernel<<<132 * 8, 512, 0, s>>>(src.as<int4>(), dst.as<int4>(), n);
                                       GPUBENCH_CUDA(cudaGetLastError());
                                     }}};
  const Counters k = collector.collect(ops, stream.s);
  ASSERT_EQ(k.status, CountersStatus::kOk) << k.note;
  ASSERT_EQ(k.launch_groups.size(), 1u);
  const double read = k.launch_groups[0].values.at(metric::kDramBytesRead);
  const double write = k.launch_groups[0].values.at(metric::kDramBytesWrite);
  std::printf("copy %.3f GiB: DRAM read %.4f GiB, write %.4f GiB (%.2f%%, %.2f%%), %lld pass(es), %.3f ms\n",
              kBytes / 1073741824.0, read / 1073741824.0, write / 1073741824.0, (read / kBytes - 1) * 100,
              (write / kBytes - 1) * 100, static_cast<long long>(k.passes),
              k.launch_groups[0].values.at(metric::kDurationNs) * 1e-6);
  EXPECT_NEAR(read, static_cast<double>(kBytes), 0.05 * kBytes);
  EXPECT_NEAR(write, static_cast<double>(kBytes), 0.05 * kBytes);
  EXPECT_TRUE(k.l2_flushed);
}

TEST(MetricsGpu, CublasGemmKeepsTheTensorPipeBusy) {
  GPUBENCH_REQUIRE_GPU();
  constexpr int kN = 4096;
  constexpr int kRepeats = 10;  // ≈ 2 ms of GEMMs, so range edges weigh little
  // compute (tensor pipe, the busiest SM's active cycles, ...) and the elapsed cycles, to check those against.
  measure::CounterCollector collector(0, measure::resolve_metrics({"compute", "sm__cycles_elapsed.max"}), 0);
  if (!collector.available()) GTEST_SKIP() << "SKIPPED: counters unavailable: " << collector.why();
  testing::Stream stream;
  const size_t bytes = size_t{kN} * kN * 2;  // fp16
  DeviceBuffer a(bytes), b(bytes), c(bytes);
  GPUBENCH_CUDA(cudaMemsetAsync(a.get(), 0x3c, bytes, stream.s));  // 0x3c3c: 1.06 in fp16, never zeros
  GPUBENCH_CUDA(cudaMemsetAsync(b.get(), 0x2c, bytes, stream.s));  // 0x2c2c: 0.065
  cublasHandle_t handle = nullptr;
  ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasSetStream(handle, stream.s), CUBLAS_STATUS_SUCCESS);
  const float alpha = 1.0f, beta = 0.0f;
  const std::vector<op::LaunchGroup> ops = {{"gemm", [&](cudaStream_t) {
                                       for (int i = 0; i < kRepeats; ++i) {
                                         const cublasStatus_t st = cublasGemmEx(
                                             handle, CUBLAS_OP_N, CUBLAS_OP_N, kN, kN, kN, &alpha, a.get(), CUDA_R_16F,
                                             kN, b.get(), CUDA_R_16F, kN, &beta, c.get(), CUDA_R_16F, kN,
                                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
                                         if (st != CUBLAS_STATUS_SUCCESS) throw DeviceError("cublasGemmEx failed");
                                       }
                                     }}};
  ops[0].launch(stream.s);  // warm-up: cuBLAS picks and loads its kernel outside the profiled pass
  GPUBENCH_CUDA(cudaStreamSynchronize(stream.s));
  const Counters k = collector.collect(ops, stream.s);
  cublasDestroy(handle);
  ASSERT_EQ(k.status, CountersStatus::kOk) << k.note;
  const double tensor = k.launch_groups.at(0).values.at(metric::kTensorPipePct);
  const double ms = k.launch_groups.at(0).values.at(metric::kDurationNs) * 1e-6;
  std::printf("%d x cuBLAS fp16 %d^3: tensor pipe %.1f%%, SM throughput %.1f%%, occupancy %.1f%%, %.3f ms (%.0f TFLOP/s), "
              "%lld pass(es)\n",
              kRepeats, kN, tensor, k.launch_groups[0].values.at(metric::kSmThroughputPct),
              k.launch_groups[0].values.at(metric::kOccupancyPct), ms, kRepeats * 2.0 * kN * kN * kN / (ms * 1e-3) / 1e12,
              static_cast<long long>(k.passes));
  EXPECT_GT(tensor, 30.0);
  // The busiest SM's active cycles: within the range's elapsed cycles, and over the range's time a clock
  // between 20% of the device's maximum and the maximum (the GEMMs fill the range but for the profiler's
  // idle edges, so the SM clock they ran at is this or higher).
  const double active = k.launch_groups[0].values.at(metric::kSmActiveCyclesMax);
  const double elapsed = k.launch_groups[0].values.at("sm__cycles_elapsed.max");
  int max_khz = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&max_khz, cudaDevAttrClockRate, 0));
  const double mhz = active / (ms * 1e3);
  std::printf("busiest SM active %.0f of %.0f cycles: ≥ %.0f MHz over the range (maximum %.0f MHz)\n", active,
              elapsed, mhz, max_khz / 1e3);
  EXPECT_LE(active, elapsed * 1.001);
  EXPECT_GT(mhz, 0.2 * max_khz / 1e3);
  EXPECT_LT(mhz, 1.02 * max_khz / 1e3);
}

}  // namespace
}  // namespace gpubench

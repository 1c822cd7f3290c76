// `gpubench devices --tensor-loop`: wgmma on shared-memory operands over every SM (tensor_loop.hpp).
#include "measure/tensor_loop.hpp"

#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/cuda_event.hpp"
#include "core/device_clock.cuh"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"

namespace gpubench::measure {
namespace {

constexpr int kWarpgroups = 2;                   ///< consumer warpgroups per CTA (one CTA per SM)
constexpr int kThreads = 128 * kWarpgroups;
constexpr int kBlockK = 64;                      ///< K per pass: four k16 wgmmas, one commit group
constexpr int kABytes = 64 * kBlockK * 2;        ///< A [64 M][64 K] fp16 per warpgroup: 8 KiB
constexpr int kBBytes = 256 * kBlockK * 2;       ///< B [256 N][64 K] fp16, shared: 32 KiB
constexpr int kSmemBytes = 1024 + kWarpgroups * kABytes + kBBytes;  ///< + 1 KiB to align to the swizzle atom
constexpr int kPasses = 30000;                   ///< per launch: ≈ 20 ms at ≈ 1.5 GHz on an H200
constexpr double kFlopPerPass = 2.0 * 64 * 256 * kBlockK * kWarpgroups;  ///< per CTA

/// K-major descriptor over 8-row atoms of 128-byte rows, 128-byte swizzle (the layout TMA writes; the values are never
/// read back as a matrix, only the tensor cores' work matters): start >> 4, both byte offsets the 1024-byte atom >> 4
/// (the leading one unused for K-major tiles one swizzle row wide), mode 1 (PTX ISA, "Matrix Descriptor Format").
__device__ __forceinline__ uint64_t desc_128b(const void* smem) {
  const uint64_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return ((addr & 0x3FFFF) >> 4) | (uint64_t{64} << 16) | (uint64_t{64} << 32) | (uint64_t{1} << 62);
}

/// D[64 x 256] += A[64 x 16] · B[16 x 256]: fp16 operands, fp32 accumulators `d` (128 per thread, the m64n256k16
/// fragment); A and B K-major in shared memory (descriptors `desc_a`, `desc_b`, 128-byte swizzle). A whole warpgroup.
/// The operand list is long (128 accumulators); it was written by a three-line script.
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %130, 0;\n"
      " wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(1u));
}

/// One CTA per SM: fills its operands (random fp16 in (−1, 1) from a hash of the byte index, or zeros), then each
/// warpgroup runs `passes` × 4 wgmma m64n256k16 on them. CTA-wide clock: thread 0's Δclock64 / Δ%globaltimer
/// → out_mhz[blockIdx.x]. `sink` is written only when the accumulators sum to a value they never hold.
__global__ void __launch_bounds__(kThreads, 1)
    gpubench_harness_tensor_loop(int passes, int zeros, float* out_mhz, float* sink) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  auto* h = reinterpret_cast<__half*>(smem);
  for (int i = threadIdx.x; i < (kWarpgroups * kABytes + kBBytes) / 2; i += kThreads) {
    uint32_t x = (static_cast<uint32_t>(i) + 0x9E3779B9u * (blockIdx.x + 1)) * 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    const float value = static_cast<float>(static_cast<int32_t>(x >> 8) - (1 << 23)) / 8388608.0f;  // (−1, 1)
    h[i] = __float2half(zeros ? 0.0f : value);
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic-proxy writes before wgmma reads them
  __syncthreads();
  const int wg = threadIdx.x / 128;
  const uint8_t* a = smem + wg * kABytes;
  const uint8_t* b = smem + kWarpgroups * kABytes;
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.0f;
  const uint64_t t0 = globaltimer_ns();
  const long long c0 = clock64();
  for (int pass = 0; pass < passes; ++pass) {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < kBlockK / 16; ++kk) wgmma_m64n256k16(d, desc_128b(a + kk * 32), desc_128b(b + kk * 32));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  const long long c1 = clock64();
  const uint64_t t1 = globaltimer_ns();
  if (threadIdx.x == 0)
    out_mhz[blockIdx.x] = static_cast<float>(static_cast<double>(c1 - c0) / static_cast<double>(t1 - t0) * 1000.0);
  float sum = 0;
#pragma unroll
  for (int i = 0; i < 128; ++i) sum += d[i];
  if (sum == 1234567.0f) *sink = sum;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

}  // namespace

TensorLoopResult tensor_loop(const DeviceInfo& device, const std::string& operands, double seconds) {
  if (device.cc_major != 9) throw InputError("--tensor-loop needs an sm_90 GPU (wgmma); this one is sm_" +
                                             std::to_string(device.cc_major) + std::to_string(device.cc_minor));
  if (operands != "random" && operands != "zeros")
    throw InputError("tensor loop operands \"" + operands + "\": expected random or zeros");
  if (!(seconds > 0)) throw InputError("tensor loop seconds must be > 0");
  GPUBENCH_CUDA(cudaSetDevice(device.index));
  GPUBENCH_CUDA(cudaFuncSetAttribute(gpubench_harness_tensor_loop, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     kSmemBytes));
  const int ctas = device.sm_count;
  DeviceBuffer mhz(static_cast<size_t>(ctas) * sizeof(float));
  DeviceBuffer sink(sizeof(float));
  const Event start, stop;
  TensorLoopResult r;
  r.operands = operands;
  std::vector<double> tflops, clock;
  std::vector<float> host(static_cast<size_t>(ctas));
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
    const float ms = time_ms(nullptr, start, stop, [&] {
      gpubench_harness_tensor_loop<<<ctas, kThreads, kSmemBytes>>>(kPasses, operands == "zeros", mhz.as<float>(),
                                                                   sink.as<float>());
      GPUBENCH_CUDA(cudaGetLastError());
    });
    GPUBENCH_CUDA(cudaMemcpy(host.data(), mhz.get(), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
    tflops.push_back(kFlopPerPass * kPasses * ctas / (ms * 1e-3) / 1e12);
    clock.push_back(median(std::vector<double>(host.begin(), host.end())));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.launches = static_cast<int>(tflops.size());
  r.first_tflops = tflops.front();
  r.first_mhz = clock.front();
  const size_t half = tflops.size() / 2;
  r.steady_tflops = median(std::vector<double>(tflops.begin() + static_cast<std::ptrdiff_t>(half), tflops.end()));
  r.steady_mhz = median(std::vector<double>(clock.begin() + static_cast<std::ptrdiff_t>(half), clock.end()));
  r.flop_per_cycle_sm = r.steady_tflops * 1e12 / (ctas * r.steady_mhz * 1e6);
  return r;
}

}  // namespace gpubench::measure

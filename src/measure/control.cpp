#include "measure/control.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/cuda_event.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "measure/clock_guard.hpp"
#include "op/fill.hpp"

namespace gpubench::measure {
namespace {

/// Owns a stream, two events and a cuBLAS handle for one control phase.
struct ControlContext {
  cudaStream_t stream = nullptr;
  Event start, stop;
  cublasHandle_t blas = nullptr;
  ControlContext() {
    GPUBENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    try {
      GPUBENCH_CUBLAS(cublasCreate(&blas));
      GPUBENCH_CUBLAS(cublasSetStream(blas, stream));
    } catch (...) {
      if (blas) cublasDestroy(blas);
      GPUBENCH_CUDA_NOTHROW(cudaStreamDestroy(stream));
      throw;
    }
  }
  ~ControlContext() {
    if (blas) cublasDestroy(blas);
    if (stream) GPUBENCH_CUDA_NOTHROW(cudaStreamDestroy(stream));
  }
  ControlContext(const ControlContext&) = delete;
  ControlContext& operator=(const ControlContext&) = delete;

  /// 3 untimed launches of `body`, then kControlSamples timed ones [ms]; after each launch the host idles for the
  /// launch's own time, at most kMaxCooldownMs (control.hpp: the op's default cooldown).
  std::vector<double> time(const std::function<void()>& body) {
    std::vector<double> ms;
    for (int i = 0; i < 3 + kControlSamples; ++i) {
      const float t = time_ms(stream, start, stop, body);
      if (i >= 3) ms.push_back(t);
      std::this_thread::sleep_for(
          std::chrono::duration<double, std::milli>(std::min(kMaxCooldownMs, static_cast<double>(t))));
    }
    return ms;
  }
};

/// The kernel named `name` in `out`, added with its description and work when missing.
ControlKernel& kernel_of(Control& out, const char* name, const char* description, double flops, double bytes) {
  const auto it = std::find_if(out.kernels.begin(), out.kernels.end(), [&](const auto& k) { return k.name == name; });
  if (it != out.kernels.end()) return *it;
  out.kernels.push_back(ControlKernel{name, description, flops, bytes, {}, {}});
  return out.kernels.back();
}

}  // namespace

void measure_control(const DeviceInfo& device, ControlPhase phase, Control& out) {
  GPUBENCH_CUDA(cudaSetDevice(device.index));
  out.uuid = device.uuid;
  out.protocol = kControlProtocolCooldown;
  ControlContext ctx;
  const auto append = [&](ControlKernel& k, std::vector<double> ms) {
    auto& dst = phase == ControlPhase::kStart ? k.start_samples_ms : k.end_samples_ms;
    dst.insert(dst.end(), ms.begin(), ms.end());
  };
  {
    const int64_t n = kControlGemmDim * kControlGemmDim;
    DeviceBuffer a(static_cast<size_t>(n) * 2), b(static_cast<size_t>(n) * 2), c(static_cast<size_t>(n) * 2);
    op::fill_random_float(a.get(), n, Precision::kFp16, 0x636f6e74726f6cULL, 0, ctx.stream);
    op::fill_random_float(b.get(), n, Precision::kFp16, 0x636f6e74726f6cULL, 1, ctx.stream);
    const float alpha = 1.f, beta = 0.f;
    const int d = static_cast<int>(kControlGemmDim);
    const double flops = 2.0 * static_cast<double>(kControlGemmDim) * kControlGemmDim * kControlGemmDim;
    ControlKernel& k = kernel_of(out, "gemm", "cuBLAS fp16 GEMM 8192×8192×8192, fp32 accumulate", flops, 0);
    append(k, ctx.time([&] {
      GPUBENCH_CUBLAS(cublasGemmEx(ctx.blas, CUBLAS_OP_N, CUBLAS_OP_N, d, d, d, &alpha, a.get(), CUDA_R_16F, d, b.get(),
                                   CUDA_R_16F, d, &beta, c.get(), CUDA_R_16F, d, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT));
    }));
  }
  {
    DeviceBuffer src(static_cast<size_t>(kControlCopyBytes)), dst(static_cast<size_t>(kControlCopyBytes));
    op::fill_random_float(src.get(), kControlCopyBytes / 2, Precision::kFp16, 0x636f6e74726f6cULL, 2, ctx.stream);
    ControlKernel& k = kernel_of(out, "copy", "cudaMemcpyAsync device to device, 1 GiB", 0,
                                 2.0 * static_cast<double>(kControlCopyBytes));
    append(k, ctx.time([&] {
      GPUBENCH_CUDA(cudaMemcpyAsync(dst.get(), src.get(), static_cast<size_t>(kControlCopyBytes),
                                    cudaMemcpyDeviceToDevice, ctx.stream));
    }));
  }
  GPUBENCH_CUDA(cudaStreamSynchronize(ctx.stream));
}

}  // namespace gpubench::measure

// `gpubench devices [--calibrate] [--tensor-loop [--seconds S]]`: GPUs, clocks, versions and measured ceilings; without
// a GPU, the versions gpubench was built with and those it can query here, then why there is no GPU (exit 3).
#include <fmt/core.h>

#include <cstdio>

#include "core/report_stream.hpp"
#include "cli/verb.hpp"
#include "core/errors.hpp"
#include "measure/calibrate.hpp"
#include "measure/device_info.hpp"
#include "measure/tensor_loop.hpp"

namespace gpubench::cli {
namespace {

VerbAction setup_devices(CLI::App& sub) {
  auto calibrate = std::make_shared<bool>(false);
  sub.add_flag("--calibrate", *calibrate,
               "measure HBM copy bandwidth and the cuBLAS fp16/bf16 GEMM rate (8192^3) and cache them per GPU");
  auto tensor_loop = std::make_shared<bool>(false);
  sub.add_flag("--tensor-loop", *tensor_loop,
               "run wgmma on shared-memory operands on every SM (no memory traffic), random then zero operands: the "
               "board's clock and tensor rate under a tensor-only load (sm_90)");
  auto seconds = std::make_shared<double>(3.0);
  sub.add_option("--seconds", *seconds, "seconds of each --tensor-loop run (default 3)")
      ->check(CLI::Range(0.05, 600.0));
  return [calibrate, tensor_loop, seconds]() -> int {
    const int n = measure::device_count();
    if (n == 0) {
      // What this build is and what it can see here, then the one-line reason (as before) and exit 3.
      fmt::print(report_stream(), "{}\n", measure::describe_build_versions(measure::query_build_versions()));
      std::fflush(report_stream());
      fmt::print(stderr, "gpubench devices: {}\n", measure::device_unavailable_reason(0));
      return static_cast<int>(ExitCode::kNoDevice);
    }
    for (int i = 0; i < n; ++i) {
      const auto d = measure::query_device(i);
      const auto env = measure::environment_json(d);
      fmt::print(report_stream(), "[{}] {} ({}) sm_{}{}, {} SMs, L2 {:.0f} MB, {:.1f} GiB ({:.1f} free), max SM clock {:.0f} MHz, "
                 "memory clock {:.0f} MHz\n    driver {} (CUDA {}), runtime {}, CUPTI API {}\n",
                 i, d.name, d.uuid, d.cc_major, d.cc_minor, d.sm_count, d.l2_bytes / 1e6, d.memory_bytes / 1073741824.0,
                 d.free_bytes / 1073741824.0, d.max_sm_clock_mhz, d.memory_clock_mhz,
                 env["gpu"]["driver"].get<std::string>(), measure::format_cuda_version(d.driver_version),
                 measure::format_cuda_version(d.runtime_version), d.cupti_version);
      std::optional<CalibrationCache> cache = measure::load_calibration(d);
      if (*calibrate) {
        cache = measure::calibrate(d);
        fmt::print(report_stream(), "    calibrated, cached in {}\n", measure::save_calibration(*cache));
      }
      if (cache) {
        fmt::print(report_stream(), "    ceilings ({}): HBM copy {:.0f} GB/s, GEMM fp16 {:.1f} TFLOP/s, bf16 {:.1f} TFLOP/s\n",
                   cache->measured_at, cache->hbm_gbps, cache->gemm_tflops["fp16"], cache->gemm_tflops["bf16"]);
      } else {
        const std::string model = datasheet_model_for_gpu(d.name);
        const std::string floors =
            model.empty() ? "the config's /device/model datasheet: this GPU has none" : "the " + model + " datasheet";
        fmt::print(report_stream(),
                   "    ceilings: not calibrated (run `gpubench devices --calibrate`; floors use {})\n", floors);
      }
      if (*tensor_loop) {
        fmt::print(report_stream(),
                   "    tensor-only loop (wgmma m64n256k16 fp16, operands in shared memory, {} SMs, {:.1f} s each):\n",
                   d.sm_count, *seconds);
        for (const char* operands : {"random", "zeros"}) {
          const auto r = measure::tensor_loop(d, operands, *seconds);
          fmt::print(report_stream(),
                     "      {:<6} operands: {:.1f} TFLOP/s at {:.0f} MHz (median of the last {} of {} launches; "
                     "the first {:.1f} at {:.0f} MHz), {:.0f} FLOP per SM per cycle\n",
                     operands, r.steady_tflops, r.steady_mhz, r.launches - r.launches / 2, r.launches, r.first_tflops,
                     r.first_mhz, r.flop_per_cycle_sm);
        }
      }
    }
    return 0;
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(devices, VerbInfo{"devices",
                                         "list GPUs, clocks, versions; --calibrate measures the ceilings, "
                                         "--tensor-loop the clock under tensor load",
                                         60,
                                         setup_devices});

}  // namespace gpubench::cli

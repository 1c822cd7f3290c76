// Roofline floors (analysis/work.hpp).
#include "analysis/work.hpp"

#include "core/errors.hpp"

namespace gpubench {

Floor compute_floor(const WorkCounts& work, const Ceilings& c) {
  if (!(c.gemm_tflops > 0) || !(c.hbm_gbps > 0)) {
    throw InputError("ceilings (" + c.source + "): gemm_tflops and hbm_gbps must be > 0, got " +
                     std::to_string(c.gemm_tflops) + " and " + std::to_string(c.hbm_gbps));
  }
  Floor f;
  f.compute_ms = work.flops / (c.gemm_tflops * 1e12) * 1e3;
  f.memory_ms = work.bytes_min / (c.hbm_gbps * 1e9) * 1e3;
  const bool compute = f.compute_ms >= f.memory_ms;
  f.floor_ms = compute ? f.compute_ms : f.memory_ms;
  f.bound = compute ? "compute" : "memory";
  return f;
}

}  // namespace gpubench

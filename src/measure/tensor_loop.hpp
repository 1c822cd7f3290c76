#pragma once
// The board's clock and tensor rate under a tensor-only load (`gpubench devices --tensor-loop`): every SM runs
// wgmma m64n256k16 (fp16 in, fp32 accumulate) back to back on operands already in shared memory — no global memory
// traffic, no epilogue — for a fixed time. What an op cannot exceed on this board at stock clocks, and, with zero
// operands against random ones, how much of the clock the power limit takes for the data the tensor cores toggle.
#include <cuda_runtime_api.h>

#include <string>

#include "measure/device_info.hpp"

namespace gpubench::measure {

/// One tensor-only loop's result: launches of ≈ 20 ms back to back for `seconds`.
struct TensorLoopResult {
  std::string operands;        ///< "random" (uniform in (−1, 1), fp16) or "zeros"
  int launches = 0;            ///< launches timed
  double seconds = 0;          ///< wall time of all launches [s]
  double first_tflops = 0;     ///< the first launch's rate [TFLOP/s] (dense: 2·M·N·K per wgmma)
  double first_mhz = 0;        ///< the first launch's SM clock (median over CTAs of Δclock64 / Δ%globaltimer) [MHz]
  double steady_tflops = 0;    ///< median rate of the second half of the launches [TFLOP/s]
  double steady_mhz = 0;       ///< median SM clock of the second half of the launches [MHz]
  double flop_per_cycle_sm = 0;  ///< steady_tflops / (SMs · steady_mhz): tensor FLOP per SM per cycle (4096 = the
                                 ///< H100/H200 dense fp16 peak, 989.4 TFLOP/s at 1830 MHz over 132 SMs)
};

/// Runs the tensor-only loop on `device` (made current) for `seconds` (> 0) with `operands`
/// "random" or "zeros". sm_90a only (wgmma): throws InputError on another architecture or operand word, DeviceError
/// on CUDA failure. Never changes clocks.
TensorLoopResult tensor_loop(const DeviceInfo& device, const std::string& operands, double seconds);

}  // namespace gpubench::measure

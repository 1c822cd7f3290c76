#pragma once
// A CUDA event that destroys itself: every timed region in gpubench (the runner's samples, the op's setup trial, the
// control, calibration and tensor-loop diagnostics) records a pair of these on its stream.
#include <cuda_runtime_api.h>

namespace gpubench {

/// RAII CUDA event (default flags: it keeps timing). Throws DeviceError when it cannot be created. Movable, not
/// copyable.
struct Event {
  cudaEvent_t e = nullptr;
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : e(o.e) { o.e = nullptr; }

  /// Records the event on `stream`. Throws DeviceError.
  void record(cudaStream_t stream) const;
};

/// Time from event `a` to event `b` [ms], both recorded and `b` complete (cudaEventElapsedTime's resolution,
/// about 0.5 µs). Throws DeviceError.
float elapsed_ms(const Event& a, const Event& b);

/// Waits for `b` (recorded and complete when this returns). Throws DeviceError.
void synchronize(const Event& b);

/// The time of what `body` enqueues on `stream` [ms]: records `a`, runs `body`, records `b`, waits for `b` and returns
/// elapsed_ms(a, b). Throws DeviceError (and whatever `body` throws).
template <class F>
float time_ms(cudaStream_t stream, const Event& a, const Event& b, F&& body) {
  a.record(stream);
  body();
  b.record(stream);
  synchronize(b);
  return elapsed_ms(a, b);
}

}  // namespace gpubench

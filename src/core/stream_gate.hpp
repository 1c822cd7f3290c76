#pragma once
// The blocking kernel (nvbench's habit): work enqueued behind it on a stream runs back to back once the host releases
// it, so host launch gaps between a step's launches stay out of a timed region. measure's runner enqueues every sample
// behind block_stream (with its own flags); an op's setup trial that must time its candidates the same way (a
// backend choice) uses StreamGate.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpubench {

/// Holds `stream` until the host sets `*release` (host-mapped pinned memory) to non-zero. Gives up after `timeout_ns`
/// of %globaltimer and sets `*timed_out` (host-mapped) to 1: the caller must then stop blocking (an op that
/// synchronizes the host would otherwise wait for the timeout). The kernel is named gpubench_harness_block, so reports
/// and traces tell it from measured work. Throws DeviceError on launch failure.
void block_stream(const volatile int* release, int* timed_out, int64_t timeout_ns, cudaStream_t stream);

/// The blocking kernel with its two host-mapped flags: hold(stream), enqueue the work, release(), synchronize, then
/// timed_out() says whether the kernel gave up before release() (the work then ran with host launch gaps).
/// Throws DeviceError when the pinned flags cannot be allocated. Not copyable.
class StreamGate {
 public:
  explicit StreamGate(int64_t timeout_ns);
  ~StreamGate();
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;

  /// Clears both flags and enqueues the blocking kernel on `stream`. Throws DeviceError.
  void hold(cudaStream_t stream);
  /// Lets the held stream run (a full fence, then the release flag).
  void release();
  /// True when the last hold() gave up before release(); read it after synchronizing the stream.
  bool timed_out() const { return static_cast<volatile const int*>(flags_)[1] != 0; }

 private:
  int64_t timeout_ns_;
  int* flags_ = nullptr;  ///< pinned, mapped: [0] release, [1] timed out
};

}  // namespace gpubench

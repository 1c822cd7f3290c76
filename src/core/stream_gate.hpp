#pragma once
// The blocking kernel (nvbench's habit): work enqueued behind it on a stream runs back to back once the host releases
// it, so host launch gaps between a step's launches stay out of a timed region. measure's runner enqueues every sample
// behind a StreamGate, and so does an op's setup trial that must time its candidates the same way (a backend choice).
#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpubench {

/// The blocking kernel with its two host-mapped flags: hold(stream), enqueue the work, release(), synchronize, then
/// timed_out() says whether the kernel gave up before release() (the work then ran with host launch gaps; the caller
/// must stop holding, since a launch that synchronizes the host would otherwise wait for the timeout every time).
/// The kernel waits at most `timeout_ns` of %globaltimer; it is named gpubench_harness_block, so reports and traces
/// tell it from measured work. Allocate it after cudaSetDevice (the flags are mapped into the current device).
/// Every kernel enqueued behind hold() must have run once before in this process: under CUDA's lazy loading
/// (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2) a kernel's first launch loads it, and loading waits for the
/// running blocking kernel, which waits for release(): a deadlock until the timeout (CUDA Programming Guide, "Lazy
/// Loading", concurrent execution). So warm up without the gate.
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

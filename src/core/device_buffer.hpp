#pragma once
// Owning device allocation (cudaMalloc; never managed memory). Move-only.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "core/cuda_check.hpp"

namespace gpubench {

/// `bytes` of device memory from cudaMalloc, freed on destruction. Throws DeviceError on failure
/// (cudaErrorMemoryAllocation names the size in the message of the caller's context).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) GPUBENCH_CUDA(cudaMalloc(&ptr_, bytes_));
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  /// Frees the allocation (errors are logged, not thrown).
  void reset() noexcept {
    if (ptr_) GPUBENCH_CUDA_NOTHROW(cudaFree(ptr_));
    ptr_ = nullptr;
    bytes_ = 0;
  }
  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace gpubench

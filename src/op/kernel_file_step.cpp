// A kernel-file step on the GPU (op/kernel_file.hpp): the binary loaded once per process with the CUDA driver's
// library API (cuLibraryLoadFromFile: cubin, fatbin, or PTX the driver JIT-compiles), each launch's kernel looked up,
// checked against the kernel's own parameter layout (cuFuncGetParamInfo) and the GPU's limits, and launched with
// cuLaunchKernelEx (cluster dimensions as a launch attribute). The driver is reached through the runtime's
// cudaGetDriverEntryPointByVersion, so gpubench does not link libcuda and still starts on machines without a driver.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "op/kernel_file_step.hpp"

namespace gpubench::op {
namespace {

/// The driver functions used here, from cudaGetDriverEntryPointByVersion (ABI of CUDA 12.0; param info 12.4).
struct Driver {
  decltype(&cuLibraryLoadFromFile) library_load = nullptr;
  decltype(&cuLibraryGetKernel) library_get_kernel = nullptr;
  decltype(&cuKernelGetFunction) kernel_get_function = nullptr;
  decltype(&cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&cuLaunchKernelEx) launch = nullptr;
  decltype(&cuGetErrorName) error_name = nullptr;
  decltype(&cuFuncGetParamInfo) param_info = nullptr;  ///< nullptr before driver 12.4: the layout check is skipped
};

template <typename F>
void entry(const char* name, int version, F& out, bool required) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess || fn == nullptr) {
    (void)cudaGetLastError();
    if (required) throw DeviceError(fmt::format("the CUDA driver lacks {} (kernel files need driver 12.0 or later)", name));
    return;
  }
  out = reinterpret_cast<F>(fn);
}

const Driver& driver() {
  static const Driver d = [] {
    Driver x;
    entry("cuLibraryLoadFromFile", 12000, x.library_load, true);
    entry("cuLibraryGetKernel", 12000, x.library_get_kernel, true);
    entry("cuKernelGetFunction", 12000, x.kernel_get_function, true);
    entry("cuFuncGetAttribute", 12000, x.func_get_attribute, true);
    entry("cuFuncSetAttribute", 12000, x.func_set_attribute, true);
    entry("cuLaunchKernelEx", 12000, x.launch, true);
    entry("cuGetErrorName", 12000, x.error_name, true);
    entry("cuFuncGetParamInfo", 12040, x.param_info, false);
    return x;
  }();
  return d;
}

std::string error_name(CUresult r) {
  const char* n = nullptr;
  if (driver().error_name(r, &n) != CUDA_SUCCESS || n == nullptr) return fmt::format("CUresult {}", static_cast<int>(r));
  return n;
}

/// Throws for a failed driver call: the binary's own problems (another architecture, bad PTX, a missing kernel) are
/// bad input, with the fix; the rest are device errors.
void check(CUresult r, const KernelFileStep& s, const KernelLaunch& l, const std::string& what,
           const std::string& log = "") {
  if (r == CUDA_SUCCESS) return;
  const std::string where = s.where(l.binary_pointer);
  const KernelFileBinary& f = *l.file;
  const std::string jit = log.empty() ? "" : " (driver: " + log.substr(0, 400) + ")";
  switch (r) {
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
      throw InputError(fmt::format("{}: {} has no code for this GPU ({}; {}); rebuild it for this GPU's "
                                   "architecture or ship PTX", where, f.path, describe_archs(f.binary), what));
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_SOURCE:
      throw InputError(fmt::format("{}: the driver refused {} ({}: {}){}; rebuild it with a toolkit no newer than the "
                                   "driver", where, f.path, what, error_name(r), jit));
    case CUDA_ERROR_NOT_FOUND:
      throw InputError(fmt::format("{}: {} ({}); check the kernel name", where, what, error_name(r)));
    default:
      throw DeviceError(fmt::format("{}: {} failed: {}{}", where, what, error_name(r), jit));
  }
}

/// The process-wide libraries, loaded once per binary file and kept (like plugins, never unloaded).
CUlibrary library_of(const KernelFileStep& s, const KernelLaunch& l) {
  static std::mutex mutex;
  static std::map<std::string, CUlibrary> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  const KernelFileBinary& f = *l.file;
  const std::string key = f.path + "@" + f.sha256;
  if (auto it = loaded.find(key); it != loaded.end()) return it->second;
  char log[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof(log)))};
  CUlibrary lib = nullptr;
  check(driver().library_load(&lib, f.path.c_str(), options, values, 2, nullptr, nullptr, 0), s, l,
        "loading the library", log);
  loaded[key] = lib;
  return lib;
}

/// One launch, resolved for a case.
struct BoundLaunch {
  const KernelLaunch* spec = nullptr;
  CUfunction function = nullptr;
  LaunchDims dims;
  std::vector<std::array<unsigned char, 8>> values;  ///< the arguments' bytes
  std::vector<void*> params;                         ///< pointers into `values`, as cuLaunchKernelEx takes them
};

class KernelFileStepImpl final : public Step {
 public:
  explicit KernelFileStepImpl(std::shared_ptr<const KernelFileStep> spec) : s_(std::move(spec)) {}

  void setup(const Inputs& inputs, void* output, cudaStream_t stream) override {
    const CaseSize& size = inputs.size();
    int device = 0;
    GPUBENCH_CUDA(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    GPUBENCH_CUDA(cudaGetDeviceProperties(&prop, device));
    LaunchLimits lim;
    lim.name = fmt::format("this {} (sm_{}{})", prop.name, prop.major, prop.minor);
    lim.sm = prop.major * 10 + prop.minor;
    lim.max_threads_per_block = prop.maxThreadsPerBlock;
    for (int i = 0; i < 3; ++i) {
      lim.max_block[i] = prop.maxThreadsDim[i];
      lim.max_grid[i] = prop.maxGridSize[i];
    }
    lim.max_shared_memory = static_cast<int64_t>(prop.sharedMemPerBlockOptin);
    lim.max_cluster = prop.major >= 9 ? 16 : 1;
    if (const std::vector<std::string> problems = case_problems(*s_, size, lim); !problems.empty())
      throw InputError(fmt::format("{}", fmt::join(problems, "\n")));
    const std::vector<DLTensor> tensors = inputs.dl_tensors(output);
    workspaces_.clear();
    for (const KernelWorkspace& w : s_->workspaces)
      workspaces_.emplace_back(static_cast<size_t>(w.bytes.eval(s_->symbols(size))));
    for (const KernelAssumption& a : s_->assumptions) {
      if (a.value) continue;
      const void* ptr = a.buffer.kind == KernelArg::Kind::kTensor
                            ? static_cast<const char*>(tensors.at(a.buffer.index).data) + tensors.at(a.buffer.index).byte_offset
                            : workspaces_.at(a.buffer.index).get();
      if (reinterpret_cast<uintptr_t>(ptr) % static_cast<uintptr_t>(a.multiple) != 0)
        throw InputError(fmt::format("{}: {} starts at {}, not a multiple of {} bytes as the kernels assume; rebuild "
                                     "them without that hint", s_->where(a.pointer), a.key, ptr, a.multiple));
    }
    launches_.clear();
    config_.clear();
    for (const KernelLaunch& l : s_->launches) {
      BoundLaunch b;
      b.spec = &l;
      const CUlibrary lib = library_of(*s_, l);
      const std::string jit = fmt::format("{}: PTX JIT-compiled by the driver (setup, untimed)",
                                          std::filesystem::path(l.file->path).filename().string());
      if (l.file->binary.kind == KernelBinary::Kind::kPtx &&
          std::find(setup_notes_.begin(), setup_notes_.end(), jit) == setup_notes_.end())
        setup_notes_.push_back(jit);
      CUkernel kernel = nullptr;
      check(driver().library_get_kernel(&kernel, lib, l.kernel.c_str()), *s_, l,
            fmt::format("kernel '{}' at {}/kernel", l.kernel, l.pointer));
      check(driver().kernel_get_function(&b.function, kernel), *s_, l, fmt::format("kernel '{}'", l.kernel));
      check_params(l, b.function);
      b.dims = launch_dims(*s_, l, size);
      prepare(l, b.function, b.dims, lim);
      bind(l, tensors, size, b);
      const LaunchDims& d = b.dims;
      config_ += fmt::format("{}{}: grid {}x{}x{} block {}x{}x{}", config_.empty() ? "" : "; ", l.kernel, d.grid[0],
                             d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2]);
      if (l.has_cluster) config_ += fmt::format(" cluster {}x{}x{}", d.cluster[0], d.cluster[1], d.cluster[2]);
      if (d.shared_memory > 0) config_ += fmt::format(" smem {} B", d.shared_memory);
      launches_.push_back(std::move(b));
    }
    // Untimed setup launches (they come first), once per case.
    for (BoundLaunch& b : launches_)
      if (b.spec->setup) {
        launch(b, stream);
        const std::string note = fmt::format("launch group {} ({}) ran once in setup (untimed)", b.spec->group,
                                             b.spec->kernel);
        if (std::find(setup_notes_.begin(), setup_notes_.end(), note) == setup_notes_.end())
          setup_notes_.push_back(note);
      }
  }

  std::vector<LaunchGroup> groups() override {
    std::vector<LaunchGroup> out;
    for (size_t i = 0; i < launches_.size();) {
      if (launches_[i].spec->setup) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < launches_.size() && launches_[j].spec->group == launches_[i].spec->group) ++j;
      out.push_back({launches_[i].spec->group, [this, i, j](cudaStream_t stream) {
                       for (size_t k = i; k < j; ++k) launch(launches_[k], stream);
                     }});
      i = j;
    }
    return out;
  }

  /// One line per kind of code: "kernel files a.cubin, b.cubin (cubin, sm_90 machine code), launched with …".
  std::vector<std::string> notes() const override {
    std::vector<std::pair<std::string, std::vector<std::string>>> kinds;  // (kind and archs, file names)
    for (const KernelLaunch& l : s_->launches) {
      const std::string kind = fmt::format("{}, {}", to_string(l.file->binary.kind), describe_archs(l.file->binary));
      const std::string name = std::filesystem::path(l.file->path).filename().string();
      auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; });
      if (it == kinds.end()) it = kinds.insert(kinds.end(), {kind, {}});
      if (std::find(it->second.begin(), it->second.end(), name) == it->second.end()) it->second.push_back(name);
    }
    std::vector<std::string> out;
    for (const auto& [kind, names] : kinds)
      out.push_back(fmt::format("kernel file{} {} ({}), launched with cuLaunchKernelEx", names.size() > 1 ? "s" : "",
                                fmt::join(names, ", "), kind));
    return out;
  }
  std::vector<std::string> setup_notes() const override { return setup_notes_; }
  std::string configuration() const override { return config_; }

 private:
  /// Compares the kernel's parameter layout, as the driver reports it, with the signature.
  void check_params(const KernelLaunch& l, CUfunction f) const {
    if (driver().param_info == nullptr) return;
    size_t offset = 0, bytes = 0;
    for (size_t i = 0; i < l.signature.size(); ++i) {
      if (driver().param_info(f, i, &offset, &bytes) != CUDA_SUCCESS)
        throw InputError(fmt::format("{}: kernel '{}' takes {} parameters, the signature gives {}; make the signature "
                                     "match the kernel", s_->where(l.pointer + "/signature"), l.kernel, i,
                                     l.signature.size()));
      if (static_cast<int64_t>(bytes) != l.signature[i].bytes())
        throw InputError(fmt::format("{}: parameter {} of kernel '{}' is {} bytes, the signature's {} is {}; fix the "
                                     "type", s_->where(fmt::format("{}/signature/{}", l.pointer, i)), i, l.kernel,
                                     bytes, l.signature[i].text(), l.signature[i].bytes()));
    }
    if (driver().param_info(f, l.signature.size(), &offset, &bytes) == CUDA_SUCCESS)
      throw InputError(fmt::format("{}: kernel '{}' takes more than the signature's {} parameters; add the missing "
                                   "ones (Triton kernels end with scratch pointers)",
                                   s_->where(l.pointer + "/signature"), l.kernel, l.signature.size()));
  }

  /// Per-kernel attributes: the threads its registers allow, dynamic shared memory above 48 KiB, large clusters.
  void prepare(const KernelLaunch& l, CUfunction f, const LaunchDims& d, const LaunchLimits& lim) const {
    int max_threads = 0, static_smem = 0;
    check(driver().func_get_attribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f), *s_, l, "attributes");
    check(driver().func_get_attribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f), *s_, l, "attributes");
    const int64_t threads = d.block[0] * d.block[1] * d.block[2];
    if (threads > max_threads)
      throw InputError(fmt::format("{}: kernel '{}' allows at most {} threads per block (its registers), the block "
                                   "has {}; use a smaller block", s_->where(l.pointer + "/block"), l.kernel,
                                   max_threads, threads));
    if (static_smem + d.shared_memory > lim.max_shared_memory)
      throw InputError(fmt::format("{}: {} bytes of dynamic plus {} of static shared memory exceed {} on {}; lower "
                                   "shared_memory",
                                   s_->where(l.pointer + "/shared_memory"), d.shared_memory, static_smem,
                                   lim.max_shared_memory, lim.name));
    if (d.shared_memory > 0)
      check(driver().func_set_attribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        static_cast<int>(d.shared_memory)), *s_, l,
            "setting its dynamic shared memory");
    if (d.cluster[0] * d.cluster[1] * d.cluster[2] > 8)
      check(driver().func_set_attribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1), *s_, l,
            "allowing a non-portable cluster size");
  }

  /// The arguments' bytes for a case.
  void bind(const KernelLaunch& l, const std::vector<DLTensor>& tensors, const CaseSize& size, BoundLaunch& b) {
    b.values.assign(l.args.size(), {});
    for (size_t i = 0; i < l.args.size(); ++i) {
      const KernelArg& a = l.args[i];
      auto& v = b.values[i];
      void* ptr = nullptr;
      switch (a.kind) {
        case KernelArg::Kind::kNull: std::memcpy(v.data(), &ptr, sizeof ptr); break;
        case KernelArg::Kind::kTensor:
          ptr = static_cast<char*>(tensors.at(a.index).data) + tensors.at(a.index).byte_offset;
          std::memcpy(v.data(), &ptr, sizeof ptr);
          break;
        case KernelArg::Kind::kWorkspace:
          ptr = workspaces_.at(a.index).get();
          std::memcpy(v.data(), &ptr, sizeof ptr);
          break;
        case KernelArg::Kind::kInteger: {
          const int64_t x = a.expr->eval(s_->symbols(size));  // little-endian: the low bytes are the narrow value
          std::memcpy(v.data(), &x, sizeof x);
          break;
        }
        case KernelArg::Kind::kFloat: {
          const double x = a.expr ? static_cast<double>(a.expr->eval(s_->symbols(size))) : a.value;
          if (l.signature[i].elem == "fp64") {
            std::memcpy(v.data(), &x, sizeof x);
          } else {
            const float f = static_cast<float>(x);
            std::memcpy(v.data(), &f, sizeof f);
          }
          break;
        }
      }
    }
    for (auto& v : b.values) b.params.push_back(v.data());
  }

  void launch(BoundLaunch& b, cudaStream_t stream) const {
    CUlaunchConfig cfg{};
    cfg.gridDimX = static_cast<unsigned>(b.dims.grid[0]);
    cfg.gridDimY = static_cast<unsigned>(b.dims.grid[1]);
    cfg.gridDimZ = static_cast<unsigned>(b.dims.grid[2]);
    cfg.blockDimX = static_cast<unsigned>(b.dims.block[0]);
    cfg.blockDimY = static_cast<unsigned>(b.dims.block[1]);
    cfg.blockDimZ = static_cast<unsigned>(b.dims.block[2]);
    cfg.sharedMemBytes = static_cast<unsigned>(b.dims.shared_memory);
    cfg.hStream = reinterpret_cast<CUstream>(stream);
    CUlaunchAttribute attr{};
    if (b.spec->has_cluster) {
      attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attr.value.clusterDim.x = static_cast<unsigned>(b.dims.cluster[0]);
      attr.value.clusterDim.y = static_cast<unsigned>(b.dims.cluster[1]);
      attr.value.clusterDim.z = static_cast<unsigned>(b.dims.cluster[2]);
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
    }
    const CUresult r = driver().launch(&cfg, b.function, b.params.data(), nullptr);
    if (r != CUDA_SUCCESS)
      throw DeviceError(fmt::format("{}: launching '{}' failed: {}", s_->where(b.spec->pointer), b.spec->kernel,
                                    error_name(r)));
  }

  std::shared_ptr<const KernelFileStep> s_;
  std::vector<DeviceBuffer> workspaces_;
  std::vector<BoundLaunch> launches_;
  std::vector<std::string> setup_notes_;
  std::string config_;
};

}  // namespace

std::unique_ptr<Step> make_kernel_file_step(std::shared_ptr<const KernelFileStep> spec) {
  return std::make_unique<KernelFileStepImpl>(std::move(spec));
}

}  // namespace gpubench::op

#pragma once
// What a kernel file holds, read without a GPU (docs/kernel-files.md): its kind (cubin, fatbin or PTX), the
// architectures it carries and, where the format says, its kernels' entry names and parameter sizes. gpubench checks a
// kernel-file step against this before any GPU work; on the GPU the driver has the last word.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpubench::op {

/// One kernel file, inspected.
struct KernelBinary {
  enum class Kind { kCubin, kFatbin, kPtx };
  Kind kind = Kind::kCubin;
  /// Compute capabilities (major * 10 + minor, e.g. 90) of its machine code: a cubin's one, a fatbin's ELF entries.
  std::vector<int> sass_archs;
  /// Compute capabilities of its PTX: a PTX file's `.target`, a fatbin's PTX entries (the driver JIT-compiles them
  /// for the GPU at hand when no machine code fits).
  std::vector<int> ptx_archs;
  /// A PTX `.target` with the "a" suffix (sm_90a): runs only on exactly that compute capability.
  bool ptx_arch_specific = false;
  /// Kernel entry names, when the format lists them (cubin: global function symbols; PTX: `.entry`; a fatbin: its
  /// machine-code entries' symbols, sorted, when none is compressed); empty when they cannot be read (a fatbin with a
  /// compressed entry, or with PTX only).
  std::vector<std::string> entries;
  /// Fatbin only: the kernel names of each machine-code entry that could be read (not compressed), by its compute
  /// capability. The driver runs one of them (entries_on), so a name in another architecture's copy does not count.
  std::map<int, std::vector<std::string>> sass_entries;
  /// PTX only: each entry's parameter sizes in bytes, in order (`.param .u64` = 8, `.param .align 8 .b8 x[16]` = 16).
  std::map<std::string, std::vector<int64_t>> param_bytes;
};

/// The kernel names of the machine code the driver would load from `binary` on compute capability `sm` (a cubin's
/// own when it runs there; a fatbin's entry of the same major version at or below sm, the newest), or nullptr when
/// they are not known here (no such entry, a compressed one, PTX only: checked at setup).
const std::vector<std::string>* entries_on(const KernelBinary& binary, int sm);

/// "cubin" | "fatbin" | "PTX".
const char* to_string(KernelBinary::Kind kind);

/// Reads and inspects the file at `path`. The kind is found from the contents (ELF of machine EM_CUDA, the fatbin
/// magic 0xBA55ED50, or PTX text with `.version` and `.target`), not the extension. Throws InputError "<path>: …"
/// for a missing or unreadable file, or one that is none of the three (e.g. an x86 ELF, a truncated cubin).
KernelBinary inspect_kernel_binary(const std::string& path);

/// True when code of `binary` can run on compute capability `sm`: machine code of the same major version and a
/// minor not above it (an sm_90a cubin's header reads as sm_90: the driver refuses it on a later minor), or PTX of a target not above it (sm_90a PTX: exactly 90).
/// The CUDA rules of binary and PTX compatibility (CUDA C++ Programming Guide, "Binary Compatibility").
bool runs_on(const KernelBinary& binary, int sm);

/// The architectures as messages show them, e.g. "sm_90 machine code, compute_80 PTX".
std::string describe_archs(const KernelBinary& binary);

}  // namespace gpubench::op

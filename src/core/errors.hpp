#pragma once
// Errors that map to the CLI's exit codes (README.md, "Exit codes"): 0 ok; 1 regression / failed check;
// 2 bad input or usage; 3 no usable GPU or a CUDA error; 4 compare --fail-on-unsure could not decide.
#include <stdexcept>
#include <string>

namespace gpubench {

/// Process exit codes of every verb (README.md).
enum class ExitCode : int {
  kOk = 0,           ///< success
  kFailure = 1,      ///< a regression (compare, ab) or a failed correctness check (run, ab)
  kBadInput = 2,     ///< bad config, bad arguments, missing file, unknown schema
  kNoDevice = 3,     ///< no usable GPU, or a CUDA / CUPTI / cuBLAS error
  kUndecided = 4,    ///< compare --fail-on-unsure: no regression, but some entries could not be decided (UNSURE)
  kInterrupted = 130 ///< SIGINT (128 + 2); SIGTERM gives 143
};

/// Bad input or usage: the message names the field (JSON pointer or option) and the fix. Exit 2.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// No usable GPU, or a CUDA-side failure (runtime, driver, cuBLAS, CUPTI). Exit 3.
struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace gpubench

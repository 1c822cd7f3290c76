#pragma once
// The message of the InputError a call throws, for tests that check what an error names.
#include <functional>
#include <string>

#include "core/errors.hpp"

namespace gpubench::testing {

/// What `f` throws as InputError (its what()), or "(no InputError)" when it returns; other exceptions pass through.
inline std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

}  // namespace gpubench::testing

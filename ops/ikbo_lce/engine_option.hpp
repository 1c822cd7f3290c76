#pragma once
// The `engine` option of `fused` and `pipelined` (host-only, for their schemas; the choice itself:
// engine_choice.hpp).
#include "config/step_schema.hpp"

namespace gpubench::lce::sm90_options {

/// {"engine": "tile" | "auto"}, default "tile": the tile kernel, or a setup trial against the library path.
config_detail::OptionSchema engine();

}  // namespace gpubench::lce::sm90_options

#pragma once
// The `backend` option of `fused` and `pipelined` (host-only, for their schemas; the choice itself:
// backend_choice.hpp).
#include "config/step_schema.hpp"

namespace gpubench::lce::sm90_options {

/// {"backend": "tile" | "auto"}, default "auto": a setup trial of the tile kernel against the library path, or the
/// tile kernel always.
config_detail::OptionSchema backend();

}  // namespace gpubench::lce::sm90_options

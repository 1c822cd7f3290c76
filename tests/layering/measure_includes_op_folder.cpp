// Layering probe (tests/layering/CMakeLists.txt): compiled with the measure stage's include view, an op's own
// folder must not be found (the core knows ops only through op/operation.hpp); the build fails with "No such file".
#include "ops/ikbo_lce/shape.hpp"

int gpubench_layering_probe_core_to_op() { return 0; }

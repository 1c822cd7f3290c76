// Layering probe (tests/layering/CMakeLists.txt): compiled with the IKBO LCE op's include view, a stage above
// op (analysis) must not be found; the build fails with "No such file".
#include "analysis/work.hpp"

int gpubench_layering_probe_op_up() { return 0; }

// Layering probe (tests/layering/CMakeLists.txt): compiled with the config stage's include view, a header of a
// stage above (measure) must not be found; the build fails with "No such file".
#include "measure/runner.hpp"

int gpubench_layering_probe_up() { return 0; }

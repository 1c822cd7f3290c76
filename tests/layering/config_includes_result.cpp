// Layering probe (tests/layering/CMakeLists.txt): compiled with the config stage's include view, a header of a
// stage below (result) is found. The control: proves the probes' build works, so the failures below mean the view.
#include "result/report.hpp"

int gpubench_layering_probe_ok() { return static_cast<int>(sizeof(gpubench::WorkCounts)); }

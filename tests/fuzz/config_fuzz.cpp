// libFuzzer target: arbitrary bytes through the config reader (issue 9). Any input must end in a
// Config or an InputError (ConfigError); a crash, a sanitizer report, a hang or any other exception
// is a bug. Built by tests/fuzz/CMakeLists.txt with clang only; run it with scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "config/parse.hpp"
#include "core/json_depth.hpp"
#include "core/errors.hpp"
#include "ops/ikbo_lce/rules.hpp"
#include "workload/distribution.hpp"

namespace {

/// The context `gpubench` builds from its op registry (op/operation.hpp registry_context), spelled out here
/// with ikbo_lce's host-only rules so the target needs no kernels. Relative empirical files resolve in tests/data/configs/empirical,
/// where the seed fixtures' histogram files are.
const gpubench::ConfigContext& context() {
  static const gpubench::ConfigContext ctx = [] {
    gpubench::ConfigContext c;
    gpubench::add_distributions(c);
    c.ops.push_back(gpubench::lce::config_rules(false));
    c.default_op = c.ops.front().name;
    c.ops[0].steps = {"baseline", "decomposed", "k_aligned", "fused", "pipelined"};
    c.ops[0].step_options = {{"baseline", {"time_broadcast"}},
                         {"decomposed", {}},
                         {"k_aligned", {"library"}},
                         {"fused", {"block_k"}},
                         {"pipelined", {"schedule", "cluster", "block_k"}}};
    c.base_dir = GPUBENCH_FUZZ_BASE_DIR;
    c.source = "<fuzz>";
    return c;
  }();
  return ctx;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // 1. The file path: syntax errors, duplicate keys, then validation.
  try {
    (void)gpubench::parse_config_text(text, context());
  } catch (const gpubench::InputError&) {
  }
  // 2. Arbitrary bytes as JSON with the readers' nesting limit (core/json_depth.hpp: deeper input is refused
  //    before validation, as every verb does), and whatever parses through the validator.
  nlohmann::json j;
  try {
    j = gpubench::parse_json_bounded(text);
  } catch (const gpubench::JsonTooDeep&) {
    return 0;
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  try {
    (void)gpubench::parse_config(j, context());
  } catch (const gpubench::InputError&) {
  }
  return 0;
}

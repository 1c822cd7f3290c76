// `gpubench list`: ops, ladder variants, request-length distributions and report formats.
#include <algorithm>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include "cli/plugins.hpp"
#include "cli/verb.hpp"
#include "core/report_stream.hpp"
#include "op/operation.hpp"
#include "report/writer.hpp"
#include "workload/distribution.hpp"

namespace gpubench::cli {
namespace {

/// A step's options under its line: name, accepted values, default, doc; then its cross-option rules.
void print_options(const config_detail::StepSchema& schema) {
  for (const config_detail::OptionSchema& o : schema.options) {
    std::string values;
    if (o.range) values = fmt::format("{} … {}", o.range->first, o.range->second);
    else
      for (const auto& v : o.values) values += (values.empty() ? "" : " | ") + v.dump();
    fmt::print(report_stream(), "      {:<15} {}  (default: {})  {}\n", o.name, values, o.default_text(), o.doc);
  }
  for (const std::string& c : schema.constraint_docs) fmt::print(report_stream(), "      ({})\n", c);
}

VerbAction setup_list(CLI::App& sub) {
  auto plugins = std::make_shared<std::vector<std::string>>();
  add_plugin_option(sub, *plugins);
  return [plugins]() -> int {
    // A refused plugin file takes only its own ops and steps out: the list shows what did load (the built-in ops,
    // the other files), then the error, and exits 2 (trial 12: a plugin author's list printed nothing).
    std::string refused;
    try {
      load_plugins(*plugins, "");
    } catch (const InputError& e) {
      refused = e.what();
    }
    std::FILE* out = report_stream();
    // Name columns as wide as their longest name (a plugin's gather_reduce ran into its description).
    const auto width = [](const auto& items, auto name_of, size_t at_least) {
      size_t w = at_least;
      for (const auto& x : items) w = std::max(w, name_of(x).size());
      return w;
    };
    fmt::print(out, "ops:\n");
    const size_t op_width = width(op::operations(), [](const op::Operation* o) { return o->name(); }, 9);
    for (const op::Operation* operation : op::operations())
      fmt::print(out, "  {:<{}} {}\n", operation->name(), op_width, operation->description());
    for (const op::Operation* operation : op::operations()) {
      const OpRules rules = operation->rules();
      // One line per shape parameter: its default, the range the config reader accepts, its doc.
      fmt::print(out, "\n{} shape (/workload/shape):\n", operation->name());
      for (const ShapeParamRule& p : rules.shape)
        fmt::print(out, "  {:<13} default {:<7} {:<25} {}\n", p.name, p.default_value,
                   fmt::format("{} … {}", p.min, p.max), p.doc);
      fmt::print(out, "{} tensors:\n", operation->name());
      for (const op::TensorSpec& t : operation->tensors())
        fmt::print(out, "  {:<13} {:<9} {:<9} {:<22} {}\n", t.name, op::to_string(t.role), t.dtype, t.shape, t.doc);
      // The names a step's work_model may return (plan shows which one each selected step uses).
      const std::vector<std::string> models = operation->work_models();
      fmt::print(out, "{} work models (the first is the minimum work; a step's work_model names one): {}\n",
                 operation->name(), fmt::join(models, ", "));
      fmt::print(out, "{} variants (ladder order):\n", operation->name());
      const size_t step_width = width(operation->steps(), [](const op::StepInfo& v) { return v.name; }, 10);
      for (const op::StepInfo& v : operation->steps()) {
        if (v.test_only) continue;
        std::string precisions;
        for (auto p : v.schema.precisions) {
          if (!precisions.empty()) precisions += ",";
          precisions += to_string(p);
        }
        fmt::print(out, "  {:<{}} {} [{}]\n", v.name, step_width + 1, v.description, precisions);
        print_options(v.schema);
      }
    }
    fmt::print(out, "\ndistributions (/workload/requests):\n");
    for (const auto& d : distributions()) {
      std::string params;
      for (const auto& p : d.params) params += (params.empty() ? "" : ", ") + p.name;
      fmt::print(out, "  {:<10} {{{}}}  {}\n", d.name, params, d.description);
    }
    fmt::print(out, "\nreport formats (gpubench run -f):\n");
    for (const auto& w : report_writers()) fmt::print(out, "  {:<5} .{:<5} {}\n", w.name, w.extension, w.description);
    fmt::print(out, "\nmeasure modes: cold (L2 flushed + inputs rotated; default), hot (back to back), graph (CUDA-graph replay)\n");
    if (!plugin_uses().empty()) fmt::print(out, "\nplugins (--plugin, GPUBENCH_PLUGIN_PATH, a config's plugins):\n");
    for (const PluginUse& p : plugin_uses()) {
      // A kernel file has no ABI or version of its own (abi_version 0): its name and hash say what it is.
      if (p.abi_version > 0)
        fmt::print(out, "  {} {} (ABI v{}, sha256 {}…): {}\n", p.name, p.version, p.abi_version,
                   p.sha256.substr(0, 12), p.path);
      else
        fmt::print(out, "  {} (sha256 {}…): {}\n", p.name, p.sha256.substr(0, 12), p.path);
    }
    if (!refused.empty()) {
      std::fflush(out);
      fmt::print(stderr, "gpubench list: error: {} (the list above holds everything else that loaded)\n", refused);
      return static_cast<int>(ExitCode::kBadInput);
    }
    return 0;
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(list, VerbInfo{"list", "list ops, variants, distributions and output formats", 50, setup_list});

}  // namespace gpubench::cli

// `gpubench list`: ops, ladder variants, request-length distributions and report formats.
#include <fmt/core.h>

#include "cli/verb.hpp"
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
    fmt::print("      {:<15} {}  (default: {})  {}\n", o.name, values, o.default_text(), o.doc);
  }
  for (const std::string& c : schema.constraint_docs) fmt::print("      ({})\n", c);
}

VerbAction setup_list(CLI::App&) {
  return []() -> int {
    fmt::print("ops:\n");
    for (const op::Operation* operation : op::operations())
      fmt::print("  {:<9} {}\n", operation->name(), operation->description());
    for (const op::Operation* operation : op::operations()) {
      const OpRules rules = operation->rules();
      std::string shape;
      for (const ShapeParamRule& p : rules.shape) shape += fmt::format("{}{}={}", shape.empty() ? "" : ", ", p.name, p.default_value);
      fmt::print("\n{} shape (/workload/shape, defaults): {}\n", operation->name(), shape);
      fmt::print("{} tensors:\n", operation->name());
      for (const op::TensorSpec& t : operation->tensors())
        fmt::print("  {:<13} {:<9} {:<9} {:<22} {}\n", t.name, op::to_string(t.role), t.dtype, t.shape, t.doc);
      fmt::print("{} variants (ladder order):\n", operation->name());
      for (const op::StepInfo& v : operation->steps()) {
        if (v.test_only) continue;
        std::string precisions;
        for (auto p : v.schema.precisions) {
          if (!precisions.empty()) precisions += ",";
          precisions += to_string(p);
        }
        fmt::print("  {:<11} {} [{}]\n", v.name, v.description, precisions);
        print_options(v.schema);
      }
    }
    fmt::print("\ndistributions (/workload/requests):\n");
    for (const auto& d : distributions()) {
      std::string params;
      for (const auto& p : d.params) params += (params.empty() ? "" : ", ") + p.name;
      fmt::print("  {:<10} {{{}}}  {}\n", d.name, params, d.description);
    }
    fmt::print("\nreport formats (gpubench run -f):\n");
    for (const auto& w : report_writers()) fmt::print("  {:<5} .{:<5} {}\n", w.name, w.extension, w.description);
    fmt::print("\nmeasure modes: cold (L2 flushed + inputs rotated; default), hot (back to back), graph (CUDA-graph replay)\n");
    return 0;
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(list, VerbInfo{"list", "list ops, variants, distributions and output formats", 50, setup_list});

}  // namespace gpubench::cli

// `gpubench list`: ops, ladder variants, request-length distributions and report formats.
#include <fmt/core.h>

#include "cli/verb.hpp"
#include "kernels/lce/variant.hpp"
#include "report/writer.hpp"
#include "workload/distribution.hpp"

namespace gpubench::cli {
namespace {

VerbAction setup_list(CLI::App&) {
  return []() -> int {
    fmt::print("ops:\n  ikbo_lce  IKBO linear compression embedding: Y[b] = W_user·E_user[cand_to_user[b]] + W_cand·E_cand[b]\n");
    fmt::print("\nvariants (ladder order):\n");
    for (const auto& v : lce::registered_variants()) {
      if (v.test_only) continue;
      std::string precisions;
      for (auto p : v.precisions) precisions += (precisions.empty() ? "" : ",") + std::string(to_string(p));
      std::string opts;
      for (const auto& o : v.options) opts += (opts.empty() ? "" : ",") + o;
      fmt::print("  {:<11} {} [{}]{}\n", v.name, v.description, precisions, opts.empty() ? "" : " options: " + opts);
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

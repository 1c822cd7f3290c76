#include "analysis/compare_filter.hpp"

#include <fmt/format.h>

#include "analysis/compare_judge.hpp"
#include "config/parse.hpp"
#include "core/errors.hpp"

namespace gpubench {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string join(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + (n.empty() ? std::string("''") : n);
  return out;
}

// The names kept by one option: each value whole when known, else its comma-separated parts (commas inside
// parentheses are part of a name).
std::set<std::string> resolve(const char* option, const char* what, const std::vector<std::string>& values,
                              const std::set<std::string>& known) {
  std::set<std::string> out;
  for (const std::string& value : values) {
    std::vector<std::string> parts;
    if (known.count(value) > 0) {
      parts.push_back(value);
    } else {
      // Commas inside parentheses belong to a label (`lognormal(mean=40,sigma=1)`): split at the others only.
      size_t from = 0;
      int depth = 0;
      for (size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '(') ++depth;
        if (value[i] == ')' && depth > 0) --depth;
        if (value[i] == ',' && depth == 0) {
          parts.push_back(trim(value.substr(from, i - from)));
          from = i + 1;
        }
      }
      parts.push_back(trim(value.substr(from)));
    }
    for (const std::string& name : parts) {
      if (known.count(name) > 0) {
        out.insert(name);
        continue;
      }
      const std::string close = did_you_mean(name, std::vector<std::string>(known.begin(), known.end()));
      throw InputError(fmt::format("{}: unknown {} '{}'{}; known: {}", option, what, name,
                                   close.empty() ? "" : " (did you mean '" + close + "'?)", join(known)));
    }
  }
  return out;
}

}  // namespace

std::string CompareFilter::describe() const {
  std::string out;
  for (const auto& c : cases) out += fmt::format("{}--case '{}'", out.empty() ? "" : " ", c);
  for (const auto& s : steps) out += fmt::format("{}--step {}", out.empty() ? "" : " ", s);
  for (const auto& g : launch_groups) out += fmt::format("{}--launch-group {}", out.empty() ? "" : " ", g);
  if (regions_only) out += std::string(out.empty() ? "" : " ") + "--regions-only";
  return out;
}

CompareFilter resolve_compare_filter(const CompareOptions& o, const std::vector<LoadedReport>& old_reports,
                                     const std::vector<LoadedReport>& new_reports) {
  if (o.regions_only && !o.launch_groups.empty())
    throw InputError("--launch-group and --regions-only exclude each other: --launch-group keeps only launch group "
                     "rows, --regions-only only region rows; give one of them");
  std::set<std::string> cases, steps, groups;
  for (const auto* side : {&old_reports, &new_reports})
    for (const LoadedReport& lr : *side)
      for (const CaseResult& c : lr.report.cases) {
        cases.insert(c.label);
        for (const VariantResult& v : c.variants) {
          steps.insert(v.name);
          for (const LaunchGroupTiming& g : v.launch_groups) groups.insert(g.name);
          if (v.pipeline) groups.insert(kPipelineRequestRow);
        }
      }
  CompareFilter f;
  f.cases = resolve("--case", "case", o.cases, cases);
  f.steps = resolve("--step", "step", o.steps, steps);
  f.launch_groups = resolve("--launch-group", "launch group", o.launch_groups, groups);
  f.regions_only = o.regions_only;
  return f;
}

}  // namespace gpubench

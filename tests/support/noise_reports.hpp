#pragma once
// Synthetic reports with run-to-run spread for the gate's tests (tests/cpu/compare_noise_test.cpp,
// compare_trial_test.cpp): one case, one step measured in repetitions, on a named board.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/parse.hpp"
#include "result/report.hpp"
#include "support/samples.hpp"

namespace gpubench::testing {

/// The case label of report_of's one case.
constexpr const char* kNoiseCase = "B=1024 fixed(length=70)";

/// A step measured in repetitions: repetition k has `per_rep` samples around medians[k] [ms] with 0.3% noise within
/// it (one run, no `repetitions` list, when medians has one element).
inline VariantResult repeated_step(const std::string& name, const std::vector<double>& medians, uint64_t seed,
                                   int per_rep = 300, const std::string& bound = "compute") {
  VariantResult v;
  v.name = name;
  v.correctness.status = CheckStatus::kPass;
  v.floor.bound = bound;
  for (size_t k = 0; k < medians.size(); ++k) {
    const auto s = noisy(medians[k], 0.003, per_rep, seed + k);
    v.region_samples_ms.insert(v.region_samples_ms.end(), s.begin(), s.end());
    if (medians.size() > 1) v.repetitions.push_back(Repetition{per_rep, medians[k], 1980, ""});
  }
  return v;
}

/// A report of one case (kNoiseCase) holding `v`, run on the H200 board `uuid`.
inline Report report_of(VariantResult v, const std::string& uuid = "GPU-aaaa") {
  Report r;
  r.config = {{"name", "noise"}};
  r.config_hash = config_hash(r.config);  // as gpubench writes it: compare checks the stored hash
  r.environment = {{"gpu", {{"name", "NVIDIA H200"}, {"driver", "580.95.05"}, {"uuid", uuid}}}};
  CaseResult c;
  c.label = kNoiseCase;
  c.batch = 1024;
  c.variants.push_back(std::move(v));
  r.cases.push_back(std::move(c));
  return r;
}

}  // namespace gpubench::testing

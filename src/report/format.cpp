#include "report/format.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "analysis/amdahl.hpp"

namespace gpubench::fmtx {

namespace {
constexpr const char* kDash = "—";
}

std::string ms(double v) {
  if (!(v > 0)) return kDash;
  // Each bound less half a unit of its last digit: 99.999 rounds up to 100, so it gets 100's one decimal ("100.0",
  // not a fifth digit "100.00" beside a column of "100.0": trial 10).
  if (v < 0.99995) return fmt::format("{:.4f}", v);
  if (v < 9.9995) return fmt::format("{:.3f}", v);
  if (v < 99.995) return fmt::format("{:.2f}", v);
  if (v < 999.95) return fmt::format("{:.1f}", v);
  return fmt::format("{:.0f}", v);
}

std::string amount(double v) {
  if (v >= 1) return ms(v);
  if (v == 0) return "0";
  return fmt::format("{:.3g}", v);
}

std::string speedup(const std::optional<double>& v) { return v ? fmt::format("{:.2f}x", *v) : kDash; }

std::string percent(double fraction, int digits) { return fmt::format("{:.{}f}%", fraction * 100.0, digits); }

std::string fixed(double v, int digits) { return v == 0 ? kDash : fmt::format("{:.{}f}", v, digits); }

std::string optional_fixed(const std::optional<double>& v, int digits, double scale, const char* unit) {
  return v ? fmt::format("{:.{}f}{}", *v * scale, digits, unit) : std::string(kDash);
}

std::string sci(double v) { return fmt::format("{:.1e}", v); }

std::string usd(const std::optional<double>& v) {
  if (!v) return kDash;
  const double a = std::fabs(*v);
  const char* sign = *v < 0 ? "-" : "";  // a negative saving (a slower step) reads "-$5.00", not "$-5"
  if (a >= 100) return fmt::format("{}${:.0f}", sign, a);
  if (a >= 1) return fmt::format("{}${:.2f}", sign, a);
  return fmt::format("{}${:.4g}", sign, a);
}

std::string si(double v) {
  static constexpr std::pair<double, const char*> kUnits[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  double scaled = v;
  const char* unit = "";
  for (const auto& [size, name] : kUnits)
    if (std::fabs(v) >= size * 0.9995) {  // 999.6 rounds to 1000 at three digits: it reads "1.00k"
      scaled = v / size;
      unit = name;
      break;
    }
  const double a = std::fabs(scaled);
  const int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : a >= 1 || *unit != '\0' ? 2 : 3;
  return fmt::format("{:.{}f}{}", scaled, decimals, unit);
}

std::string status(const VariantResult& v) {
  if (v.status == StepStatus::kFailed) return "FAILED";
  if (v.status != StepStatus::kOk) return std::string(to_string(v.status));
  return v.acceptance.empty() ? "ok" : "ok " + v.acceptance;
}

std::string min_speedup(const std::optional<double>& value, const std::string& vs) {
  if (!value) return kDash;
  return fmt::format("{:.2f}x vs {}", *value, vs == "baseline" ? "baseline" : "prev");
}

std::string acceptance_legend(const CaseResult& c) {
  std::string steps;
  for (const auto& v : c.variants)
    if (!v.acceptance.empty()) steps += (steps.empty() ? "" : ", ") + v.name + " " + min_speedup(v.min_speedup, v.min_speedup_vs);
  if (steps.empty()) return {};
  return "ACCEPT / REJECT: speedup ≥ min speedup (vs prev: over the previous ok step) — " + steps;
}

std::string rel_error(const Correctness& c) {
  if (c.status == CheckStatus::kSkipped) return kDash;
  return sci(c.rel_error);
}

std::string scalar(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  return v.dump();
}

std::string key_values(const nlohmann::json& obj, const std::vector<std::string>& preferred, bool only_preferred) {
  if (!obj.is_object()) return {};
  // Scalars only; null and "" say nothing.
  auto shown = [](const nlohmann::json& v) {
    return v.is_primitive() && !v.is_null() && !(v.is_string() && v.get_ref<const std::string&>().empty());
  };
  std::vector<std::pair<std::string, std::string>> items;  // flattened (key, text)
  for (const auto& [k, v] : obj.items()) {
    if (v.is_object()) {
      for (const auto& [k2, v2] : v.items()) {
        if (shown(v2)) items.emplace_back(k + "." + k2, scalar(v2));
      }
    } else if (shown(v)) {
      items.emplace_back(k, scalar(v));
    }
  }
  auto rank = [&](const std::string& key) {
    const auto it = std::find(preferred.begin(), preferred.end(), key);
    return it == preferred.end() ? preferred.size() : static_cast<size_t>(it - preferred.begin());
  };
  if (only_preferred) {
    auto kept = items;
    std::erase_if(kept, [&](const auto& item) { return rank(item.first) == preferred.size(); });
    if (!kept.empty()) items = std::move(kept);
  }
  std::stable_sort(items.begin(), items.end(), [&](const auto& a, const auto& b) {
    const size_t ra = rank(a.first), rb = rank(b.first);
    return ra != rb ? ra < rb : a.first < b.first;
  });
  std::string out;
  for (const auto& [k, text] : items) out += (out.empty() ? "" : " · ") + k + ": " + text;
  return out;
}

std::string pipeline_stages(const PipelineTiming& p) {
  std::vector<std::pair<std::string, double>> parts;
  for (const LaunchGroupTiming& s : p.stages) {
    // The step's groups are "<prefix>:<group>" (op/operation.hpp RequestPipeline): one entry "<prefix>".
    const size_t colon = s.name.find(':');
    const std::string name = colon == std::string::npos ? s.name : s.name.substr(0, colon);
    if (colon != std::string::npos && !parts.empty() && parts.back().first == name) {
      parts.back().second += s.stats.median;
    } else {
      parts.emplace_back(name, s.stats.median);
    }
  }
  std::string out;
  for (const auto& [name, t] : parts) out += (out.empty() ? "" : " · ") + name + " " + ms(t);
  return out;
}

int fastest_variant(const CaseResult& c) {
  int best = -1;
  for (size_t i = 0; i < c.variants.size(); ++i) {
    const auto& v = c.variants[i];
    if (v.status != StepStatus::kOk || !(v.region.median > 0)) continue;
    if (best < 0 || v.region.median < c.variants[static_cast<size_t>(best)].region.median) best = static_cast<int>(i);
  }
  return best;
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n' || ch == '\r') out += ' ';
    else out += ch;
  }
  return out;
}

std::string md_code(const std::string& s) {
  size_t longest = 0, run = 0;
  for (const char ch : s) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !s.empty() && (s.front() == '`' || s.back() == '`');
  return fence + (pad ? " " : "") + md_cell(s) + (pad ? " " : "") + fence;
}

std::string fleet_bill(int64_t gpus, double gpu_hour_usd, const std::string& first_step) {
  return fmt::format("fleet $/month: {} GPU{} × {} an hour × {:g} h = {} at the {}; saved $/month: that bill less "
                     "the step's",
                     gpus, gpus == 1 ? "" : "s", usd(gpu_hour_usd), kHoursPerMonth,
                     usd(static_cast<double>(gpus) * gpu_hour_usd * kHoursPerMonth), first_step);
}

std::string given_requests(double request_ms, std::optional<int64_t> requests, const std::string& U) {
  if (requests)
    return fmt::format("requests/s = R / request time: each given request time ({:g} ms) serves R = {} request{} "
                       "(/end_to_end/given/requests), back to back on one GPU; cost per request follows "
                       "(docs/method.md)",
                       request_ms, *requests, *requests == 1 ? "" : "s");
  return fmt::format("requests/s = U / request time: each given request time ({:g} ms) is counted as this case's "
                     "U = {} requests; when it is one user's request, set /end_to_end/given/requests to 1 (to the "
                     "requests it serves otherwise): requests/s and cost per request follow it (docs/method.md)",
                     request_ms, U);
}

std::string end_to_end_assumptions(const Report& r, const CaseResult& c) {
  const std::string U = c.lengths.is_object() && c.lengths.contains("requests") ? c.lengths["requests"].dump() : "?";
  const nlohmann::json* given = nullptr;
  if (r.config.is_object() && r.config.contains("end_to_end") && r.config["end_to_end"].is_object() &&
      r.config["end_to_end"].contains("given") && r.config["end_to_end"]["given"].is_object())
    given = &r.config["end_to_end"]["given"];
  const bool measured = std::any_of(c.variants.begin(), c.variants.end(), [](const VariantResult& v) {
    return v.end_to_end && v.end_to_end->source == EndToEndSource::kMeasured;
  });
  std::string out;
  if (given != nullptr && !measured && given->contains("request_ms") && (*given)["request_ms"].is_number()) {
    const auto requests = given->contains("requests") && (*given)["requests"].is_number_integer()
                              ? std::optional<int64_t>((*given)["requests"].get<int64_t>())
                              : std::nullopt;
    out = given_requests((*given)["request_ms"].get<double>(), requests, U);
  } else {
    out = fmt::format("requests/s = U / request time: one GPU serves this case's U = {} requests (B = {} "
                      "candidates) per request time, back to back; cost per request follows (docs/method.md)",
                      U, c.batch);
  }
  // Amdahl's ceiling from the first step's own row: its request without the op.
  if (!c.variants.empty() && c.variants.front().end_to_end) {
    const EndToEnd& base = *c.variants.front().end_to_end;
    const double ceiling_ms = base.request_ms * (1 - base.op_share);
    if (ceiling_ms > 0 && base.op_share > 0)
      out += fmt::format(". Ceiling, the op removed: {} ms ({:.2f}x); the op is {} of the {} request, the share of the "
                         "request time, and of the GPU bill, that speeding it up can win",
                         fmtx::ms(ceiling_ms), base.request_ms / ceiling_ms, fmtx::percent(base.op_share, 1),
                         c.variants.front().name);
  }
  // The fleet the $/month columns price (the first step's row has its bill only when the config gives both).
  const nlohmann::json* e2e = r.config.is_object() && r.config.contains("end_to_end") &&
                                      r.config["end_to_end"].is_object()
                                  ? &r.config["end_to_end"]
                                  : nullptr;
  if (e2e != nullptr && !c.variants.empty() && c.variants.front().end_to_end &&
      c.variants.front().end_to_end->usd_per_month && e2e->contains("gpus") && (*e2e)["gpus"].is_number_integer() &&
      e2e->contains("gpu_hour_usd") && (*e2e)["gpu_hour_usd"].is_number())
    out += ". " + fleet_bill((*e2e)["gpus"].get<int64_t>(), (*e2e)["gpu_hour_usd"].get<double>(),
                             c.variants.front().name);
  if (given == nullptr || measured || c.variants.empty() || c.variants.front().status != StepStatus::kOk ||
      !given->contains("op_ms") || !(*given)["op_ms"].is_number())
    return out;
  const double given_op = (*given)["op_ms"].get<double>(), base = c.variants.front().region.median;
  if (!(base > 0) || !(given_op > 0) || (given_op <= 2 * base && given_op >= 0.5 * base)) return out;
  return out + fmt::format(". The given op time ({} ms) is {:.3g}x this case's measured {} ({} ms): the given request "
                           "is of another batch or shape than this case, and only each step's speedup carries over to "
                           "it",
                           fmt::format("{:g}", given_op), given_op / base, c.variants.front().name,
                           fmt::format("{:.4g}", base));
}

}  // namespace gpubench::fmtx

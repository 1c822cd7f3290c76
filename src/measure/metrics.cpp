// Metric selection and the chip's metric catalog (measure/metrics.hpp). The catalog uses the CUPTI Profiler
// Host API (cupti_profiler_host.h), which CUPTI backs with libnvperf_host loaded at run time: no GPU needed.
#include "measure/metrics.hpp"
#include "measure/cupti_params.hpp"

#include <cupti.h>
#include <cupti_profiler_host.h>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "measure/metric_names.hpp"
#include "config/parse.hpp"
#include "core/errors.hpp"

namespace gpubench::measure {
namespace {

/// "dram__bytes_read.sum" → {"dram__bytes_read", ".sum"}.
std::pair<std::string, std::string> split_base(const std::string& name) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return {name, ""};
  return {name.substr(0, dot), name.substr(dot)};
}

}  // namespace

const std::vector<std::string>& metric_set_names() {
  static const std::vector<std::string> names = {"memory", "compute", "all"};
  return names;
}

std::vector<std::string> metric_set(const std::string& set) {
  const std::vector<std::string> memory = {metric::kDramBytesRead, metric::kDramBytesWrite,
                                           metric::kDramThroughputPct, metric::kL2HitRatePct, metric::kDurationNs};
  const std::vector<std::string> compute = {metric::kSmThroughputPct, metric::kTensorPipePct, metric::kOccupancyPct,
                                            metric::kSmActiveCyclesMax, metric::kDurationNs};
  if (set == "memory") return memory;
  if (set == "compute") return compute;
  if (set == "all") return resolve_metrics({"memory", "compute"});
  return {};
}

bool looks_like_metric(const std::string& s) {
  const size_t sep = s.find("__");
  if (sep == std::string::npos || sep == 0 || sep + 2 >= s.size()) return false;
  bool prev_dot = false;
  for (const char ch : s) {
    const bool dot = ch == '.';
    if (!(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '_' ||
          dot))
      return false;
    if (dot && prev_dot) return false;
    prev_dot = dot;
  }
  return s.back() != '.' && s.find('.') > sep;
}

std::vector<std::string> split_metric_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = std::min(s.find(',', start), s.size());
    std::string item = s.substr(start, comma - start);
    const auto not_space = [](unsigned char ch) { return !std::isspace(ch); };
    item.erase(item.begin(), std::find_if(item.begin(), item.end(), not_space));
    item.erase(std::find_if(item.rbegin(), item.rend(), not_space).base(), item.end());
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> resolve_metrics(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const std::string& item : items) {
    const auto& sets = metric_set_names();
    if (std::find(sets.begin(), sets.end(), item) != sets.end()) {
      for (const auto& name : metric_set(item)) add(name);
    } else if (looks_like_metric(item)) {
      add(item);
    } else {
      const std::string guess = did_you_mean(item, sets);
      throw InputError(fmt::format("unknown metric set '{}'{}: use memory, compute or all, or metric names such as {}",
                                   item, guess.empty() ? "" : " (did you mean '" + guess + "'?)",
                                   metric::kDramBytesRead));
    }
  }
  return out;
}

std::string chip_for_model(const std::string& model) {
  if (model == "h200" || model == "h100_sxm") return "GH100";
  return "";
}

struct MetricCatalog::Host {
  CUpti_Profiler_Host_Object* object = nullptr;
  ~Host() {
    if (!object) return;
    auto p = cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = object;
    cuptiProfilerHostDeinitialize(&p);
  }
};

MetricCatalog::~MetricCatalog() = default;

std::unique_ptr<MetricCatalog> MetricCatalog::open(const std::string& chip, std::string& why) {
  std::unique_ptr<MetricCatalog> cat(new MetricCatalog());
  cat->host_ = std::make_unique<Host>();
  cat->chip_ = chip;
  auto init = cupti_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = chip.c_str();
  if (const CUptiResult r = cuptiProfilerHostInitialize(&init); r != CUPTI_SUCCESS) {
    why = fmt::format("CUPTI profiler host for chip {}: {} (is libnvperf_host.so beside libcupti?)", chip, cupti_text(r));
    return nullptr;
  }
  cat->host_->object = init.pHostObject;
  for (const CUpti_MetricType type : {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    auto p = cupti_params<CUpti_Profiler_Host_GetBaseMetrics_Params>(CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
    p.pHostObject = init.pHostObject;
    p.metricType = type;
    if (cuptiProfilerHostGetBaseMetrics(&p) != CUPTI_SUCCESS) continue;
    for (size_t i = 0; i < p.numMetrics; ++i)
      if (p.ppMetricNames[i]) cat->bases_.emplace_back(p.ppMetricNames[i]);
  }
  std::sort(cat->bases_.begin(), cat->bases_.end());
  if (cat->bases_.empty()) {
    why = "CUPTI profiler host listed no metrics for chip " + chip;
    return nullptr;
  }
  return cat;
}

bool MetricCatalog::contains(const std::string& name) const {
  const auto [base, ext] = split_base(name);
  if (!std::binary_search(bases_.begin(), bases_.end(), base)) return false;
  auto props = cupti_params<CUpti_Profiler_Host_GetMetricProperties_Params>(CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
  props.pHostObject = host_->object;
  props.pMetricName = base.c_str();
  if (cuptiProfilerHostGetMetricProperties(&props) != CUPTI_SUCCESS) return false;
  auto sub = cupti_params<CUpti_Profiler_Host_GetSubMetrics_Params>(CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE);
  sub.pHostObject = host_->object;
  sub.metricType = props.metricType;
  sub.pMetricName = base.c_str();
  if (cuptiProfilerHostGetSubMetrics(&sub) != CUPTI_SUCCESS) return false;
  for (size_t i = 0; i < sub.numOfSubmetrics; ++i)
    if (sub.ppSubMetrics[i] && ext == sub.ppSubMetrics[i]) return true;
  return false;  // a bare base name has no value: a rollup (.sum, .avg, .pct, ...) is required
}

std::vector<std::string> MetricCatalog::close_names(const std::string& name, size_t n) const {
  const auto [base, ext] = split_base(name);
  std::vector<std::string> out;
  if (std::binary_search(bases_.begin(), bases_.end(), base)) {  // right metric, wrong extension
    auto props = cupti_params<CUpti_Profiler_Host_GetMetricProperties_Params>(CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
    props.pHostObject = host_->object;
    props.pMetricName = base.c_str();
    auto sub = cupti_params<CUpti_Profiler_Host_GetSubMetrics_Params>(CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE);
    sub.pHostObject = host_->object;
    sub.pMetricName = base.c_str();
    if (cuptiProfilerHostGetMetricProperties(&props) == CUPTI_SUCCESS) {
      sub.metricType = props.metricType;
      if (cuptiProfilerHostGetSubMetrics(&sub) == CUPTI_SUCCESS) {
        std::vector<std::pair<size_t, std::string>> ranked;
        for (size_t i = 0; i < sub.numOfSubmetrics; ++i)
          if (sub.ppSubMetrics[i]) ranked.emplace_back(edit_distance(ext, sub.ppSubMetrics[i]), base + sub.ppSubMetrics[i]);
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (size_t i = 0; i < ranked.size() && out.size() < n; ++i) out.push_back(ranked[i].second);
      }
    }
    return out;
  }
  std::vector<std::pair<size_t, const std::string*>> ranked;
  ranked.reserve(bases_.size());
  for (const auto& b : bases_) ranked.emplace_back(edit_distance(base, b), &b);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < ranked.size() && out.size() < n; ++i) out.push_back(*ranked[i].second + ext);
  return out;
}

std::string check_metric_names(const std::vector<std::string>& metrics, const std::string& chip) {
  if (metrics.empty()) return "";
  if (chip.empty()) return "no CUPTI chip name for this device model: metric names are checked at collection";
  std::string why;
  const auto cat = MetricCatalog::open(chip, why);
  if (!cat) return why;
  std::vector<std::string> problems;
  for (const auto& name : metrics) {
    if (cat->contains(name)) continue;
    std::string close;
    for (const auto& c : cat->close_names(name)) close += (close.empty() ? "" : ", ") + c;
    problems.push_back(fmt::format("unknown metric '{}' for {}{}", name, chip, close.empty() ? "" : " (close: " + close + ")"));
  }
  if (problems.empty()) return "";
  std::string msg = "--metrics / /measure/metrics: ";
  for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
  throw InputError(msg);
}

std::string counters_note(const std::string& why) {
  return "hardware counters not collected: " + why + "; the run went on without them";
}

}  // namespace gpubench::measure

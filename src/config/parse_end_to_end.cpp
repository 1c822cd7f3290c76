// /end_to_end/pipeline: the measured end-to-end mode (docs/method.md; config/config.hpp PipelineSpec).
//   "pipeline": {
//     "tables": {"user": {"rows": 100000, "features": 1178}, "cand": {"rows": 1000000, "features": 866}},
//     "mlp": {"layers": [256, 64, 1], "activation": "relu"},
//     "top_k": 10, "cuda_graph": false, "seed": 7
//   }
// Every key is optional. Feature counts and the row width come from each case's shape (/workload/shape: K_user,
// K_cand, N); a `features` given here must equal them in every shape (it documents the table's role, it cannot
// change the shape).
#include <algorithm>

#include <fmt/format.h>

#include "config/validator.hpp"

namespace gpubench::config_detail {
namespace {

/// Widest MLP layer accepted (keeps the weight matrices and the int32 cuBLAS dimensions sane).
constexpr int64_t kMaxLayerWidth = int64_t{1} << 20;

/// /end_to_end/pipeline/tables/<name> {rows, features}: a `features` given must equal `shape_key` of every shape in
/// `shapes` (the config's, in case order; a parameter a shape lacks counts as 0). `sweep`: /workload/shape is a list of
/// several, and the message names the shape that differs.
void parse_table(Validator& v, const nlohmann::json& tables, const std::string& ptr, const char* name,
                 const std::vector<Shape>& shapes, bool sweep, const char* shape_key, PipelineTable& out) {
  const auto it = tables.find(name);
  if (it == tables.end()) return;
  const std::string p = child(ptr, name);
  if (!v.object(*it, p, {"rows", "features"})) return;
  v.integer(*it, p, "rows", out.rows, Range::closed(1, static_cast<double>(kInt32Max)));
  const auto k_of = [&](const Shape& s) { return s.has(shape_key) ? s.at(shape_key) : 0; };
  int64_t features = 0;
  if (!it->contains("features") || !v.integer(*it, p, "features", features, Range::at_least(0))) return;
  for (const Shape& s : shapes) {
    if (features == k_of(s)) continue;
    if (sweep)
      v.add(p + "/features", fmt::format("must equal {} of every shape of /workload/shape, got {} but shape {} has {}; "
                                         "the gather reads {} rows per {} (drop this key: each case's shape sets it)",
                                         shape_key, features, s.text(), k_of(s), shape_key, name));
    else
      v.add(p + "/features", fmt::format("must equal /workload/shape/{} ({}), got {}; the gather reads {} rows "
                                         "per {} (drop this key or change the shape)",
                                         shape_key, k_of(s), features, shape_key, name));
    return;
  }
}

/// /end_to_end/pipeline/mlp {layers, activation}.
void parse_mlp(Validator& v, const nlohmann::json& mlp, const std::string& p, PipelineSpec& out) {
  if (!v.object(mlp, p, {"layers", "activation"})) return;
  v.string(mlp, p, "activation", out.activation, {"relu", "gelu", "identity"});
  const auto it = mlp.find("layers");
  if (it == mlp.end()) return;
  const std::string lp = p + "/layers";
  if (!it->is_array() || it->empty()) {
    v.add(lp, "expected a non-empty list of layer widths ending in 1 (one score per candidate), got " +
                  (it->is_array() ? std::string("an empty list") : type_name(*it)));
    return;
  }
  std::vector<int64_t> layers;
  bool ok = true;
  for (size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json holder = {{std::to_string(i), (*it)[i]}};
    int64_t width = 0;
    ok = v.integer(holder, lp, std::to_string(i).c_str(), width,
                   Range::closed(1, static_cast<double>(kMaxLayerWidth))) && ok;
    layers.push_back(width);
  }
  if (!ok) return;
  if (layers.back() != 1) {
    v.add(child(lp, layers.size() - 1),
          fmt::format("the last layer must have width 1 (one score per candidate for top-k), got {}; append 1",
                      layers.back()));
    return;
  }
  out.mlp_layers = std::move(layers);
}

}  // namespace

void parse_pipeline(Validator& v, const nlohmann::json& end_to_end, const OpRules* rules, Config& c) {
  const auto it = end_to_end.find("pipeline");
  if (it == end_to_end.end()) return;
  const std::string p = "/end_to_end/pipeline";
  if (end_to_end.contains("given")) {
    v.add(p, "'given' and 'pipeline' are exclusive: 'given' takes the request time from a profile, 'pipeline' "
             "measures it; keep one");
    return;
  }
  if (rules && !rules->has_pipeline) {
    v.add(p, fmt::format("op {} has no request pipeline to measure; remove /end_to_end/pipeline (or use "
                         "/end_to_end/given)", rules->name));
    return;
  }
  if (!v.object(*it, p, {"tables", "mlp", "top_k", "cuda_graph", "seed"})) return;
  const size_t mark = v.issues().size();
  PipelineSpec spec;
  if (const auto t = it->find("tables"); t != it->end()) {
    const std::string tp = p + "/tables";
    if (v.object(*t, tp, {"user", "cand"})) {
      std::vector<Shape> shapes;  // each case's shape, once, in case order
      for (const WorkloadCase& wc : c.workload.cases)
        if (std::find(shapes.begin(), shapes.end(), wc.shape) == shapes.end()) shapes.push_back(wc.shape);
      if (shapes.empty()) shapes.push_back(c.workload.shape);
      const bool sweep = c.workload.shape_sweep;
      parse_table(v, *t, tp, "user", shapes, sweep, "K_user", spec.user);
      parse_table(v, *t, tp, "cand", shapes, sweep, "K_cand", spec.cand);
    }
  }
  if (const auto m = it->find("mlp"); m != it->end()) parse_mlp(v, *m, p + "/mlp", spec);
  v.integer(*it, p, "top_k", spec.top_k, Range::closed(1, static_cast<double>(kInt32Max)));
  v.boolean(*it, p, "cuda_graph", spec.cuda_graph);
  v.seed(*it, p, "seed", spec.seed);
  if (v.clean_since(mark)) c.end_to_end.pipeline = std::move(spec);
}

nlohmann::json pipeline_json(const PipelineSpec& s) {
  return {{"tables", {{"user", {{"rows", s.user.rows}}}, {"cand", {{"rows", s.cand.rows}}}}},
          {"mlp", {{"layers", s.mlp_layers}, {"activation", s.activation}}},
          {"top_k", s.top_k},
          {"cuda_graph", s.cuda_graph},
          {"seed", s.seed}};
}

}  // namespace gpubench::config_detail

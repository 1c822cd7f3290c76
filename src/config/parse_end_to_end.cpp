// /end_to_end/pipeline: the measured end-to-end mode (docs/method.md; config/config.hpp PipelineSpec).
//   "pipeline": {
//     "tables": {"user": {"rows": 100000, "features": 1178}, "cand": {"rows": 1000000, "features": 866}},
//     "mlp": {"layers": [256, 64, 1], "activation": "relu"},
//     "top_k": 10, "cuda_graph": false, "seed": 7
//   }
// Every key is optional. Feature counts and the row width come from /workload/shape (K_user, K_cand, N);
// a `features` given here must equal them (it documents the table's role, it cannot change the shape).
#include <fmt/format.h>

#include "config/validator.hpp"

namespace gpubench::config_detail {
namespace {

/// Widest MLP layer accepted (keeps the weight matrices and the int32 cuBLAS dimensions sane).
constexpr int64_t kMaxLayerWidth = int64_t{1} << 20;

/// /end_to_end/pipeline/tables/<name> {rows, features}.
void parse_table(Validator& v, const nlohmann::json& tables, const std::string& ptr, const char* name,
                 int64_t shape_k, const char* shape_key, PipelineTable& out) {
  const auto it = tables.find(name);
  if (it == tables.end()) return;
  const std::string p = child(ptr, name);
  if (!v.object(*it, p, {"rows", "features"})) return;
  v.integer(*it, p, "rows", out.rows, Range::closed(1, static_cast<double>(kInt32Max)));
  int64_t features = shape_k;
  if (v.integer(*it, p, "features", features, Range::at_least(0)) && features != shape_k)
    v.add(p + "/features", fmt::format("must equal /workload/shape/{} ({}), got {}; the gather reads {} rows "
                                       "per {} (drop this key or change the shape)",
                                       shape_key, shape_k, features, shape_key, name));
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
      const Shape& s = c.workload.shape;
      parse_table(v, *t, tp, "user", s.has("K_user") ? s.at("K_user") : 0, "K_user", spec.user);
      parse_table(v, *t, tp, "cand", s.has("K_cand") ? s.at("K_cand") : 0, "K_cand", spec.cand);
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

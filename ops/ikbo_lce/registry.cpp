// The LCE variant registry (ops/ikbo_lce/variant.hpp). Variants add themselves from their own files.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime_api.h>

#include "core/errors.hpp"
#include "ops/ikbo_lce/backend_choice.hpp"
#include "ops/ikbo_lce/tile_use.hpp"
#include "ops/ikbo_lce/variant.hpp"

namespace gpubench::lce {
namespace {
std::vector<VariantInfo>& storage() {
  static std::vector<VariantInfo> entries;  // function-local: safe from static-init order
  return entries;
}
}  // namespace

void register_variant(VariantInfo info) {
  auto& entries = storage();
  if (info.schema == nullptr || info.schema->name != info.name || info.schema->test_only != info.test_only) {
    std::fprintf(stderr, "gpubench: LCE variant '%s' registered without its own schema (step_schemas.hpp)\n",
                 info.name.c_str());
    std::abort();
  }
  for (const auto& e : entries) {
    if (e.name == info.name) {
      std::fprintf(stderr, "gpubench: LCE variant '%s' registered twice\n", info.name.c_str());
      std::abort();
    }
  }
  entries.push_back(std::move(info));
  std::stable_sort(entries.begin(), entries.end(), [](const VariantInfo& a, const VariantInfo& b) {
    return a.ladder_step != b.ladder_step ? a.ladder_step < b.ladder_step : a.name < b.name;
  });
}

const std::vector<VariantInfo>& registered_variants() { return storage(); }

const VariantInfo* find_variant(const std::string& name) {
  for (const auto& e : storage())
    if (e.name == name) return &e;
  return nullptr;
}

std::unique_ptr<Variant> create_variant(const VariantInfo& info, const nlohmann::json& options) {
  return create_step_variant(info, StepOptions::resolve(*info.schema, options), options);
}

std::unique_ptr<Variant> create_step_variant(const VariantInfo& info, const StepOptions& options,
                                             const nlohmann::json& given) {
  if (info.schema->find("backend") == nullptr || options.text("backend") != "auto") return info.create(options);
  const VariantInfo* library = find_variant("k_aligned");
  if (library == nullptr) throw InputError(info.name + ": options.backend \"auto\" needs the k_aligned step");
  return make_auto_backend(
      info.name, given, tile_candidates(info, options, given),
      [library] { return library->create(StepOptions::resolve(*library->schema, nlohmann::json::object())); });
}

std::vector<TileCandidate> tile_candidates(const VariantInfo& info, const StepOptions& options,
                                           const nlohmann::json& given) {
  std::vector<TileCandidate> out{{nlohmann::json::object(), [&info, options] { return info.create(options); }, {}}};
  const nlohmann::json own = given.is_object() ? given : nlohmann::json::object();
  // One override of the given options, when the schema has it, the config leaves it out and the rest admit it.
  auto add = [&](const std::string& key, const nlohmann::json& value, std::function<bool(const Problem&)> applies) {
    if (info.schema->find(key) == nullptr || own.contains(key)) return;
    nlohmann::json overridden = own;
    overridden[key] = value;
    if (!config_detail::option_problems(*info.schema, overridden).empty()) return;  // e.g. cluster "1x2" given
    const StepOptions resolved = StepOptions::resolve(*info.schema, overridden);
    out.push_back({{{key, value}}, [&info, resolved] { return info.create(resolved); }, std::move(applies)});
  };
  add("schedule", "pingpong", {});
  add("user_gemm", "inline", [](const Problem& pr) {
    int device = 0, sms = 0;
    return cudaGetDevice(&device) == cudaSuccess &&
           cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess &&
           inline_user_may_pay(pr, sms);
  });
  return out;
}

bool inline_user_may_pay(const Problem& pr, int sms) {
  return inline_user_may_pay(LceShape{pr.M, pr.N, pr.K_user, pr.K_cand}, pr.B, pr.U, sms);
}

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  const bool tests = op::test_steps_enabled();
  for (const auto& e : storage())
    if (!e.test_only || tests) names.push_back(e.name);
  return names;
}

}  // namespace gpubench::lce

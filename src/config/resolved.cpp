// The resolved config JSON (every default filled in) and its hash (config/validator.hpp).
#include <fmt/format.h>

#include "config/parse.hpp"
#include "config/validator.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "core/text_file.hpp"

namespace gpubench::config_detail {

EmpiricalFileHashes empirical_file_hashes(const RequestSpec& s) {
  const auto file = s.params.find("file");
  if (file == s.params.end() || !file->is_string()) return {};
  const std::string path = resolve_path(s.base_dir, file->get<std::string>());
  std::string bytes;
  if (read_text_file(path, kMaxInputFileBytes, bytes) != ReadStatus::kOk)
    throw InputError(path + ": cannot read the empirical length file to hash its contents (missing, unreadable or "
                            "over 64 MiB)");
  // The same lengths saved by another editor hash alike: a leading UTF-8 BOM and CR before LF are not hashed, and
  // the end is one line end however many (or none) the file has. A file with neither, ending in one line end, keeps
  // the hash it had.
  if (bytes.rfind("\xEF\xBB\xBF", 0) == 0) bytes.erase(0, 3);
  std::string text;
  text.reserve(bytes.size() + 1);
  for (size_t i = 0; i < bytes.size(); ++i)
    if (!(bytes[i] == '\r' && i + 1 < bytes.size() && bytes[i + 1] == '\n')) text += bytes[i];
  EmpiricalFileHashes h;
  h.before_line_ends = fnv1a64_hex(text);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty()) text += '\n';
  h.current = fnv1a64_hex(text);
  return h;
}

std::string empirical_file_hash(const RequestSpec& s) { return empirical_file_hashes(s).current; }

nlohmann::json resolved_json(const Config& c, const WorkloadForm& form) {
  using nlohmann::json;
  const auto& w = c.workload;
  // Cases are shape-major, then batch-major: case i·request_count + r (i < batch_count) holds the first shape,
  // batch i and request r.
  json batches = json::array();
  for (size_t i = 0; i < form.batch_count && i * form.request_count < w.cases.size(); ++i)
    batches.push_back(w.cases[i * form.request_count].batch);
  json requests = json::array();
  for (size_t r = 0; r < form.request_count && r < w.cases.size(); ++r) {
    const RequestSpec& s = w.cases[r].requests;
    json item = {{"distribution", s.distribution}, {"params", s.params}, {"seed", s.seed}};
    // The histogram's contents, not only its file name, decide the lengths (issue 30).
    if (s.distribution == "empirical") item["file_hash"] = empirical_file_hash(s);
    requests.push_back(std::move(item));
  }
  json variants = json::array();
  for (const auto& v : c.variants) {
    json item = {{"name", v.name}, {"options", v.options}};
    if (v.min_speedup) item["min_speedup"] = *v.min_speedup;
    // Only when not the default: configs that leave it out keep the hash they had before it existed.
    if (v.min_speedup_vs != VariantSpec{}.min_speedup_vs) item["min_speedup_vs"] = v.min_speedup_vs;
    variants.push_back(std::move(item));
  }
  const auto& m = c.measure;
  json end_to_end = json::object();
  if (c.end_to_end.given) {
    end_to_end["given"] = {{"request_ms", c.end_to_end.given->request_ms},
                           {"op_ms", c.end_to_end.given->op_ms}};
    if (c.end_to_end.given->requests) end_to_end["given"]["requests"] = *c.end_to_end.given->requests;
  }
  if (c.end_to_end.pipeline) end_to_end["pipeline"] = pipeline_json(*c.end_to_end.pipeline);
  if (c.end_to_end.gpu_hour_usd) end_to_end["gpu_hour_usd"] = *c.end_to_end.gpu_hour_usd;
  if (c.end_to_end.gpus) end_to_end["gpus"] = *c.end_to_end.gpus;
  json measure = {{"mode", to_string(m.mode)}, {"warmup", m.warmup}, {"min_samples", m.min_samples},
                  {"max_samples", m.max_samples}, {"min_time_s", m.min_time_s},
                  {"max_rel_stdev", m.max_rel_stdev}, {"timeout_s", m.timeout_s}, {"l2_flush", m.l2_flush},
                  {"rotate_inputs", m.rotate_inputs}, {"cupti", m.cupti},
                  {"clock_threshold", m.clock_threshold}};
  // Only when set: configs without counters keep the hash they had before /measure/metrics existed.
  if (!m.metrics.empty()) measure["metrics"] = m.metrics;
  if (m.cooldown != MeasureSpec{}.cooldown) measure["cooldown"] = m.cooldown;  // likewise
  // A list when a list was written (even of one), else the object: single-shape configs keep their hash.
  nlohmann::json shape = w.shape.as_json();
  if (form.shape_is_array) {
    shape = json::array();
    for (const Shape& s : form.shapes) shape.push_back(s.as_json());
  }
  json workload = {{"op", w.op},
                   {"batch", form.batch_is_array || batches.size() != 1 ? batches : batches[0]},
                   {"requests", form.requests_is_array || requests.size() != 1 ? requests : requests[0]},
                   {"shape", shape},
                   {"input_seed", w.input_seed}};
  // Only when not random: configs that leave it out keep the hash they had before it existed.
  if (w.input_values != WorkloadSpec{}.input_values) workload["input_values"] = w.input_values;
  return {
      {"schema_version", c.schema_version},
      {"name", c.name},
      {"description", c.description},
      {"device", {{"index", c.device.index}, {"model", c.device.model}}},
      {"precision", std::string(to_string(c.precision))},
      {"allow_tf32", c.allow_tf32},
      {"workload", workload},
      {"variants", variants},
      {"measure", measure},
      // The effective tolerance: the override, else the op's default (docs/method.md).
      {"check",
       {{"enabled", c.check.enabled},
        {"tolerance", c.check.tolerance.value_or(c.check.op_tolerance)},
        {"seeds", c.check.seeds}}},
      {"end_to_end", end_to_end},
  };
}

std::string fnv1a64_hex(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis
  for (unsigned char ch : bytes) {
    h ^= ch;
    h *= 0x100000001b3ULL;  // FNV 64-bit prime
  }
  return fmt::format("{:016x}", h);
}

}  // namespace gpubench::config_detail

namespace gpubench {
nlohmann::json hashed_config(const nlohmann::json& resolved) {
  if (!resolved.is_object()) return resolved;
  nlohmann::json measured = resolved;
  for (const char* label_only : kUnhashedConfigKeys) measured.erase(label_only);  // wording, not the measurement
  for (const char* pointer : kUnhashedEndToEndPointers) {  // the bill and the request count, not the measurement
    const nlohmann::json::json_pointer key(pointer);
    if (!measured.contains(key)) continue;
    nlohmann::json& parent = measured.at(key.parent_pointer());
    if (parent.is_object()) parent.erase(key.back());
  }
  return measured;
}

std::string config_hash(const nlohmann::json& resolved) { return config_detail::fnv1a64_hex(hashed_config(resolved).dump()); }

std::string config_hash_with_prices(const nlohmann::json& resolved) {
  if (!resolved.is_object()) return config_detail::fnv1a64_hex(resolved.dump());
  nlohmann::json measured = resolved;
  for (const char* label_only : kUnhashedConfigKeys) measured.erase(label_only);
  return config_detail::fnv1a64_hex(measured.dump());
}
}  // namespace gpubench

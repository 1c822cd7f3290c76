#include "result/report_io.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <zlib.h>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/json_depth.hpp"

namespace gpubench {
namespace {

/// Largest unpacked report read from a gzip file [bytes]: far above any real report (≈ 1 MB per 10^4 samples),
/// low enough that a corrupt or hostile file cannot exhaust memory.
constexpr size_t kMaxUnpackedBytes = size_t{2} << 30;

/// The bytes of gzip data `packed` (one or more members, as `gzip` writes them), unpacked with zlib.
/// Throws InputError naming `path` on corrupt data or past kMaxUnpackedBytes.
std::string gunzip(const std::string& packed, const std::string& path) {
  if (packed.size() > 0xFFFFFFFFu) throw InputError(path + ": gzip file over 4 GiB: not a gpubench report");
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) throw InputError(path + ": cannot unpack (zlib: out of memory)");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  zs.avail_in = static_cast<uInt>(packed.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > kMaxUnpackedBytes) {
      inflateEnd(&zs);
      throw InputError(fmt::format("{}: unpacks to more than {} GiB: not a gpubench report", path, kMaxUnpackedBytes >> 30));
    }
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      if (inflateReset(&zs) != Z_OK) break;  // the next gzip member
      continue;
    }
    if (rc != Z_OK || (zs.avail_in == 0 && zs.avail_out != 0)) break;  // error, or input ended inside a member
  }
  const std::string why = zs.msg ? zs.msg : rc == Z_OK || rc == Z_BUF_ERROR ? "unexpected end of data" : "zlib error";
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) throw InputError(path + ": corrupt gzip data (" + why + "); re-download or re-run the benchmark");
  return out;
}

/// At most this many bad sample values are listed in one error; the rest are counted.
constexpr size_t kMaxListedBadSamples = 5;

/// "string 'x'" / "null" / "-0.4": a bad sample value for messages (NaN and inf are written as null).
std::string describe_value(const nlohmann::json& v) {
  if (v.is_null()) return "null (NaN or inf when the report was written)";
  if (v.is_number()) {
    const double d = v.get<double>();
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
    return v.dump();
  }
  return std::string(v.type_name()) + " " + v.dump().substr(0, 40);
}

/// Name of a JSON item for messages, or "?" when it has none.
std::string name_of(const nlohmann::json& item, const char* key) {
  const auto it = item.find(key);
  return it != item.end() && it->is_string() ? it->get<std::string>() : "?";
}

/// The largest timing sample a report may hold [ms]: 1e9 ms ≈ 11.6 days. No GPU sample comes near it; a
/// larger value is corrupt, and would overflow compare's statistics (1e308 ms made the mean inf and passed
/// the gate as UNSURE).
constexpr double kMaxSampleMs = 1e9;
/// The smallest nonzero timing sample a report may hold [ms]: 1 ns, the resolution of CUPTI's timestamps (CUDA events
/// resolve 0.5 µs). A smaller one is corrupt: OLD samples of 1e-320 ms made compare's ratio inf, its interval NaN, and
/// the gate read a 10^320x regression as UNSURE.
constexpr double kMinSampleMs = 1e-6;

/// Checks that every value of the timing array j[key] is a finite number from kMinSampleMs (a duration; or 0 when
/// `zero_ok`: a launch group may launch nothing, e.g. the user GEMM at K_user = 0) and below kMaxSampleMs; records
/// "pointer (entry): must be ≥ 1e-06 and < 1e+09 ms, got x" for the bad ones. Missing or non-array keys are left to
/// the typed reader.
void check_samples(const nlohmann::json& j, const char* key, const std::string& ptr, const std::string& entry,
                   std::vector<std::string>& problems, size_t& bad, bool zero_ok = false) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return;
  for (size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& x = (*it)[i];
    const bool ok = x.is_number() && std::isfinite(x.get<double>()) &&
                    (x.get<double>() >= kMinSampleMs || (zero_ok && x.get<double>() == 0)) &&
                    x.get<double>() < kMaxSampleMs;
    if (ok) continue;
    if (++bad > kMaxListedBadSamples) continue;
    problems.push_back(fmt::format("{}/{}/{} ({}): must be {}≥ {:g} and < {:g} ms, got {}", ptr, key, i, entry,
                                   zero_ok ? "0 or " : "", kMinSampleMs, kMaxSampleMs, describe_value(x)));
  }
}

/// The timing samples of a report must be durations: each variant's region_samples_ms and its measured request's
/// pipeline.request_samples_ms finite and > 0, the pipeline's stages like launch groups,
/// <groups_key>[].samples_ms and <groups_key>[].kernels[].samples_ms finite and ≥ 0 (a launch group that
/// launched nothing measures 0; compare skips a 0 median), all < kMaxSampleMs. `groups_key` is the key of a
/// step's launch groups in the file's schema version ("launch_groups"; "ops" in version 1), so pointers name
/// the file's own keys. Throws InputError naming the file, each bad value's JSON pointer and its entry
/// (case / variant / launch group / kernel), and the fix.
void check_timing_samples(const nlohmann::json& j, const std::string& source, const char* groups_key) {
  const auto cases = j.find("cases");
  if (cases == j.end() || !cases->is_array()) return;
  std::vector<std::string> problems;
  size_t bad = 0;
  for (size_t c = 0; c < cases->size(); ++c) {
    const nlohmann::json& cj = (*cases)[c];
    const auto variants = cj.is_object() ? cj.find("variants") : cj.end();
    if (!cj.is_object() || variants == cj.end() || !variants->is_array()) continue;
    for (size_t v = 0; v < variants->size(); ++v) {
      const nlohmann::json& vj = (*variants)[v];
      if (!vj.is_object()) continue;
      const std::string vp = fmt::format("/cases/{}/variants/{}", c, v);
      const std::string entry = fmt::format("case '{}', variant '{}'", name_of(cj, "label"), name_of(vj, "name"));
      check_samples(vj, "region_samples_ms", vp, entry, problems, bad);
      // A step's launch groups, and its measured request's stages (`compare` gates the request: pipeline:request).
      const auto check_groups = [&](const nlohmann::json& owner, const char* key, const std::string& owner_ptr) {
        const auto groups = owner.find(key);
        if (groups == owner.end() || !groups->is_array()) return;
        for (size_t g = 0; g < groups->size(); ++g) {
          const nlohmann::json& gj = (*groups)[g];
          if (!gj.is_object()) continue;
          const std::string group_entry = fmt::format("{}, launch group '{}'", entry, name_of(gj, "name"));
          const std::string gp = fmt::format("{}/{}/{}", owner_ptr, key, g);
          check_samples(gj, "samples_ms", gp, group_entry, problems, bad, /*zero_ok=*/true);
          const auto kernels = gj.find("kernels");
          if (kernels == gj.end() || !kernels->is_array()) continue;
          for (size_t k = 0; k < kernels->size(); ++k)
            if ((*kernels)[k].is_object())
              check_samples((*kernels)[k], "samples_ms", fmt::format("{}/kernels/{}", gp, k),
                            fmt::format("{}, kernel '{}'", group_entry, name_of((*kernels)[k], "name")), problems,
                            bad, /*zero_ok=*/true);
        }
      };
      check_groups(vj, groups_key, vp);
      if (const auto pipeline = vj.find("pipeline"); pipeline != vj.end() && pipeline->is_object()) {
        check_samples(*pipeline, "request_samples_ms", vp + "/pipeline", entry + ", measured request", problems, bad);
        check_groups(*pipeline, "stages", vp + "/pipeline");
      }
    }
  }
  if (const auto control = j.find("control"); control != j.end() && control->is_object()) {
    const auto kernels = control->find("kernels");
    for (size_t k = 0; kernels != control->end() && kernels->is_array() && k < kernels->size(); ++k) {
      const nlohmann::json& kj = (*kernels)[k];
      if (!kj.is_object()) continue;
      const std::string entry = fmt::format("control kernel '{}'", name_of(kj, "name"));
      check_samples(kj, "start_samples_ms", fmt::format("/control/kernels/{}", k), entry, problems, bad);
      check_samples(kj, "end_samples_ms", fmt::format("/control/kernels/{}", k), entry, problems, bad);
    }
  }
  if (problems.empty()) return;
  std::string msg = source + ": " + problems.front();
  for (size_t i = 1; i < problems.size(); ++i) msg += "\n  " + source + ": " + problems[i];
  if (bad > problems.size()) msg += fmt::format("\n  {}: and {} more bad sample values", source, bad - problems.size());
  msg += "\n  timing samples are durations in ms, from 1e-06 ms (1 ns) to under 1e9 ms (a launch group's may be 0): "
         "the report is corrupt or from a broken measurement; re-run the benchmark to regenerate it";
  throw InputError(msg);
}

/// Renames `key` of object `j` to `to` (nothing when absent; replaces a `to` already there).
void rename_key(nlohmann::json& j, const char* key, const char* to) {
  if (!j.is_object()) return;
  const auto it = j.find(key);
  if (it == j.end()) return;
  nlohmann::json v = std::move(*it);
  j.erase(key);
  j[to] = std::move(v);
}

/// A report of schema_version 1 in the current schema's keys: each step's `ops` and its counters' `ops` become
/// `launch_groups`, and schema_version the current one. Entries of the wrong type are left for the typed reader.
nlohmann::json upgrade_v1(nlohmann::json j) {
  j["schema_version"] = kReportSchemaVersion;
  const auto cases = j.find("cases");
  if (cases == j.end() || !cases->is_array()) return j;
  for (nlohmann::json& c : *cases) {
    if (!c.is_object()) continue;
    const auto variants = c.find("variants");
    if (variants == c.end() || !variants->is_array()) continue;
    for (nlohmann::json& v : *variants) {
      rename_key(v, "ops", "launch_groups");
      if (v.is_object() && v.contains("counters")) rename_key(v["counters"], "ops", "launch_groups");
    }
  }
  return j;
}

/// nlohmann's exception text without its "[json.exception.type_error.302] " tag.
std::string json_error_text(const nlohmann::json::exception& e) {
  const std::string w = e.what();
  const size_t close = w.find("] ");
  return w.rfind("[json.exception.", 0) == 0 && close != std::string::npos ? w.substr(close + 2) : w;
}

/// True when `doc` reads as a Report (report_json.cpp's from_json) without a JSON error.
bool reads_as_report(const nlohmann::json& doc) {
  try {
    (void)doc.get<Report>();
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

/// The JSON pointer of the value that keeps `doc` (which does not read as a Report) from reading: the
/// readers take an absent key as the field's default, so the member or element whose removal lets the
/// document read is the culprit, and the search descends into it until a leaf, or a node no single
/// removal cures. Only on the error path: each trial re-reads the whole document. "" when not found.
std::string locate_unreadable(nlohmann::json doc) {
  nlohmann::json::json_pointer path;
  for (;;) {
    nlohmann::json& node = doc[path];
    std::string next;
    if (node.is_object()) {
      std::vector<std::string> keys;
      for (const auto& [k, v] : node.items()) keys.push_back(k);
      for (const std::string& k : keys) {
        nlohmann::json saved = std::move(node[k]);
        node.erase(k);
        const bool cured = reads_as_report(doc);
        node[k] = std::move(saved);
        if (cured) {
          next = k;
          break;
        }
      }
    } else if (node.is_array()) {
      for (size_t i = 0; i < node.size() && next.empty(); ++i) {
        nlohmann::json saved = std::move(node[i]);
        node.erase(i);
        const bool cured = reads_as_report(doc);
        node.insert(node.begin() + static_cast<std::ptrdiff_t>(i), std::move(saved));
        if (cured) next = std::to_string(i);
      }
    }
    if (next.empty()) return path.to_string();
    path /= next;
  }
}

/// A step's repetitions (`run --repeat`) must slice its samples: each holds ≥ 1 sample and together they hold every
/// region sample, each stored median is a duration and each placement pad ≥ 0. Throws InputError naming the file,
/// the JSON pointer and the entry.
void check_repetitions(const Report& r, const std::string& source) {
  for (size_t c = 0; c < r.cases.size(); ++c) {
    for (size_t v = 0; v < r.cases[c].variants.size(); ++v) {
      const VariantResult& vr = r.cases[c].variants[v];
      if (vr.repetitions.empty()) continue;
      int64_t sum = 0;
      for (size_t k = 0; k < vr.repetitions.size(); ++k) {
        const int64_t n = vr.repetitions[k].samples;
        if (n < 1 || n > static_cast<int64_t>(vr.region_samples_ms.size())) {
          throw InputError(fmt::format("{}: /cases/{}/variants/{}/repetitions/{}/samples (case '{}', variant '{}') is {}: "
                                       "a repetition holds 1 to {} samples (the step's region samples); the report "
                                       "is corrupt, re-run the benchmark to regenerate it",
                                       source, c, v, k, r.cases[c].label, vr.name, n, vr.region_samples_ms.size()));
        }
        const double m = vr.repetitions[k].median_ms;
        if (!(m >= kMinSampleMs && m < kMaxSampleMs))  // compare recomputes it, but one that is no duration is damage
          throw InputError(fmt::format("{}: /cases/{}/variants/{}/repetitions/{}/median_ms (case '{}', variant '{}') is "
                                       "{}: a median is a duration in [1e-06, 1e9) ms; the report is corrupt, re-run "
                                       "the benchmark to regenerate it",
                                       source, c, v, k, r.cases[c].label, vr.name, m));
        if (const int64_t pad = vr.repetitions[k].placement_pad_mib; pad < 0)
          throw InputError(fmt::format("{}: /cases/{}/variants/{}/repetitions/{}/placement_pad_mib (case '{}', variant "
                                       "'{}') is {}: a pad is 0 or more MiB; the report is corrupt, re-run the "
                                       "benchmark to regenerate it",
                                       source, c, v, k, r.cases[c].label, vr.name, pad));
        sum += n;
      }
      if (sum != static_cast<int64_t>(vr.region_samples_ms.size())) {
        throw InputError(fmt::format("{}: /cases/{}/variants/{}/repetitions (case '{}', variant '{}'): the "
                                     "repetitions hold {} samples, region_samples_ms {}; the report is corrupt, re-run "
                                     "the benchmark to regenerate it",
                                     source, c, v, r.cases[c].label, vr.name, sum, vr.region_samples_ms.size()));
      }
    }
  }
}

/// What every step (/cases/c/variants/v) of the file must hold before it is read, in the file's own keys: a `status`
/// (a step without one would read as ok and pass a gate), status skipped when `selected` is false (compare leaves
/// unselected steps out, so a measured one would vanish), schema 2's `launch_groups` rather than schema 1's `ops`
/// (which would read as no launch groups), and each repetitions[k].samples a whole JSON integer (1458.5 or 1e20 would
/// be truncated or overflow on reading). `v1`: the file is schema 1. Throws InputError naming the file, the pointer
/// and the fix.
void check_step_keys(const nlohmann::json& j, const std::string& source, bool v1) {
  const auto cases = j.find("cases");
  for (size_t c = 0; cases != j.end() && cases->is_array() && c < cases->size(); ++c) {
    const auto& cj = (*cases)[c];
    const auto variants = cj.is_object() ? cj.find("variants") : cj.end();
    for (size_t v = 0; cj.is_object() && variants != cj.end() && variants->is_array() && v < variants->size(); ++v) {
      const auto& vj = (*variants)[v];
      if (!vj.is_object()) continue;  // the reader names a step that is not an object
      if (!vj.contains("status"))
        throw InputError(fmt::format("{}: /cases/{}/variants/{} has no status (ok, failed or skipped); the report is "
                                     "corrupt, re-run the benchmark to regenerate it",
                                     source, c, v));
      if (const auto sel = vj.find("selected"); sel != vj.end() && *sel == false && vj.at("status") != "skipped")
        throw InputError(fmt::format("{}: /cases/{}/variants/{} is not selected (`run --variant` left it out) but its "
                                     "status is {}, not skipped; compare would drop a measured step: the report is "
                                     "corrupt, re-run the benchmark to regenerate it",
                                     source, c, v, vj.at("status").dump()));
      if (!v1 && vj.contains("ops") && !vj.contains("launch_groups"))
        throw InputError(fmt::format("{}: /cases/{}/variants/{}/ops is schema 1's name of launch_groups, in a report "
                                     "of schema_version {}; the report was edited or is corrupt, re-run the benchmark "
                                     "to regenerate it",
                                     source, c, v, j.at("schema_version").dump()));
      // A measured request without a status would read as ok, and one ok without samples would reach the gate as
      // "too few samples" (UNSURE) instead of as the corrupt report it is.
      if (const auto pipeline = vj.find("pipeline"); pipeline != vj.end() && pipeline->is_object()) {
        if (!pipeline->contains("status"))
          throw InputError(fmt::format("{}: /cases/{}/variants/{}/pipeline has no status (ok or failed); the report "
                                       "is corrupt, re-run the benchmark to regenerate it",
                                       source, c, v));
        const auto samples = pipeline->find("request_samples_ms");
        if (pipeline->at("status") == "ok" &&
            (samples == pipeline->end() || !samples->is_array() || samples->empty()))
          throw InputError(fmt::format("{}: /cases/{}/variants/{}/pipeline is ok but holds no request_samples_ms; the "
                                       "report is corrupt, re-run the benchmark to regenerate it",
                                       source, c, v));
        // compare slices the request samples by these counts (run --repeat): they must cover the samples exactly.
        if (const auto counts = pipeline->find("repetition_samples"); counts != pipeline->end()) {
          const int64_t n = samples != pipeline->end() && samples->is_array() ? static_cast<int64_t>(samples->size()) : 0;
          int64_t total = 0;
          bool whole = counts->is_array();
          for (size_t k = 0; whole && k < counts->size(); ++k) {  // each ≤ n: the sum cannot overflow
            whole = (*counts)[k].is_number_integer() && (*counts)[k].get<int64_t>() >= 1 &&
                    (*counts)[k].get<int64_t>() <= n;
            if (whole) total += (*counts)[k].get<int64_t>();
          }
          if (!whole || total != n)
            throw InputError(fmt::format("{}: /cases/{}/variants/{}/pipeline/repetition_samples is {}: each repetition's "
                                         "count of request samples is a whole number ≥ 1 and together they are the "
                                         "{} of request_samples_ms; the report is corrupt, re-run the benchmark to "
                                         "regenerate it",
                                         source, c, v, counts->dump(), n));
          // Each repetition's process measured the step, then its request: an ok request has one count per repetition.
          const auto step_reps = vj.find("repetitions");
          const size_t reps = step_reps != vj.end() && step_reps->is_array() ? step_reps->size() : 0;
          if (pipeline->at("status") == "ok" && counts->size() != reps)
            throw InputError(fmt::format("{}: /cases/{}/variants/{}/pipeline/repetition_samples holds {} repetitions "
                                         "but the step's /repetitions {}; the report is corrupt, re-run the benchmark "
                                         "to regenerate it",
                                         source, c, v, counts->size(), reps));
        }
      }
      const auto reps = vj.find("repetitions");
      for (size_t k = 0; reps != vj.end() && reps->is_array() && k < reps->size(); ++k) {
        const auto& rj = (*reps)[k];
        const auto n = rj.is_object() ? rj.find("samples") : rj.end();
        if (rj.is_object() && n != rj.end() && !n->is_number_integer())
          throw InputError(fmt::format("{}: /cases/{}/variants/{}/repetitions/{}/samples is {}: a count of samples is a "
                                       "whole number; the report is corrupt, re-run the benchmark to regenerate it",
                                       source, c, v, k, n->dump()));
      }
    }
  }
}

/// The control workload, when present, holds the kernels "gemm" and "copy" at most once each, each with samples in
/// at least one phase (a phase that failed is empty; the run's notes say why). Throws InputError naming the file, the
/// pointer and the fix.
void check_control(const Report& r, const std::string& source) {
  if (!r.control) return;
  std::vector<std::string> seen;
  for (size_t k = 0; k < r.control->kernels.size(); ++k) {
    const ControlKernel& ck = r.control->kernels[k];
    const std::string where = fmt::format("{}: /control/kernels/{}", source, k);
    if (ck.name != "gemm" && ck.name != "copy")
      throw InputError(fmt::format("{}/name is '{}': a control kernel is 'gemm' or 'copy'; the report is corrupt, re-run "
                                   "the benchmark to regenerate it", where, ck.name));
    if (std::find(seen.begin(), seen.end(), ck.name) != seen.end())
      throw InputError(fmt::format("{}: control kernel '{}' appears twice; the report is corrupt, re-run the benchmark "
                                   "to regenerate it", where, ck.name));
    seen.push_back(ck.name);
    if (ck.start_samples_ms.empty() && ck.end_samples_ms.empty())
      throw InputError(fmt::format("{}: control kernel '{}' has no samples in either phase; the report is corrupt, re-run "
                                   "the benchmark to regenerate it (or drop /control)", where, ck.name));
  }
}

/// Each step's roofline bound (floor.bound) is "compute", "memory" or "" (no floor): compare picks the control kernel
/// by it. Throws InputError naming the file, the pointer and the fix.
void check_bounds(const Report& r, const std::string& source) {
  for (size_t c = 0; c < r.cases.size(); ++c)
    for (size_t v = 0; v < r.cases[c].variants.size(); ++v) {
      const std::string& bound = r.cases[c].variants[v].floor.bound;
      if (!bound.empty() && bound != "compute" && bound != "memory")
        throw InputError(fmt::format("{}: /cases/{}/variants/{}/floor/bound is '{}': a roofline bound is 'compute', "
                                     "'memory' or empty; the report is corrupt, re-run the benchmark to regenerate it",
                                     source, c, v, bound));
    }
}

}  // namespace

Report parse_report(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source + ": not a gpubench report (expected a JSON object)");
  const auto version = j.find("schema_version");
  if (version == j.end()) throw InputError(source + ": /schema_version missing; not a gpubench report");
  const std::string readable = fmt::format("{} to {}", kOldestReadableReportSchemaVersion, kReportSchemaVersion);
  if (!version->is_number_integer()) {
    throw InputError(source + ": /schema_version is " + version->dump() + " (" + version->type_name() +
                     "); a gpubench report has an integer version (this gpubench reads " + readable + ")");
  }
  const int64_t v = version->get<int64_t>();
  if (v > kReportSchemaVersion) {
    throw InputError(fmt::format("{}: /schema_version is {}, newer than this gpubench reads ({}); use the gpubench "
                                 "that wrote it, or update this one (rebuild from a newer checkout)",
                                 source, v, readable));
  }
  if (v < kOldestReadableReportSchemaVersion) {
    throw InputError(fmt::format("{}: /schema_version is {}, which no gpubench writes (this one reads {}); the "
                                 "report is corrupt, re-run the benchmark to regenerate it",
                                 source, v, readable));
  }
  if (!j.contains("cases")) {  // a config has a schema_version too
    // `run` reads plain JSON configs only: a gzipped one is decompressed first.
    const bool gz = source.size() > 3 && source.compare(source.size() - 3, 3, ".gz") == 0;
    const std::string run_it = gz ? "gunzip -k " + source + " and run it first, `gpubench run " +
                                        source.substr(0, source.size() - 3) + " -o PREFIX`"
                                  : "run it first, `gpubench run " + source + " -o PREFIX`";
    throw InputError(source + ": not a gpubench report (no /cases" +
                     (j.contains("workload") ? "; it looks like a config: " + run_it + ")" : std::string(")")));
  }
  const bool v1 = v == 1;
  check_timing_samples(j, source, v1 ? "ops" : "launch_groups");  // pointers in the file's own keys
  check_step_keys(j, source, v1);
  nlohmann::json upgraded;  // only for version 1: a version-2 report is read in place, not copied
  if (v1) upgraded = upgrade_v1(j);
  const nlohmann::json& current = v1 ? upgraded : j;
  Report r;
  try {
    r = current.get<Report>();
  } catch (const nlohmann::json::exception& e) {
    std::string where = locate_unreadable(current);
    if (v1) {  // name the file's own key
      for (size_t at; (at = where.find("/launch_groups")) != std::string::npos;) where.replace(at, 14, "/ops");
    }
    throw InputError(source + ": malformed report: " + (where.empty() ? "" : where + ": ") + json_error_text(e) +
                     "; re-run the benchmark to regenerate it");
  }
  check_repetitions(r, source);
  check_control(r, source);
  check_bounds(r, source);
  return r;
}

nlohmann::json load_report_json(const std::string& path) {
  std::string text = read_file(path);
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b)
    text = gunzip(text, path);  // results/ keeps reports gzipped
  nlohmann::json j;
  std::vector<std::string> duplicates;
  try {
    j = parse_json_bounded(text, &duplicates);  // a report nested 200,000 deep overflowed the stack in the readers
  } catch (const JsonTooDeep&) {
    throw InputError(path + ": " + json_too_deep_message("a gpubench report"));
  } catch (const nlohmann::json::exception& e) {  // syntax, or a number out of range (1e400)
    throw InputError(path + ": invalid JSON: " + json_error_text(e));
  }
  // gpubench never writes a key twice; a copy kept only the last ("status": "failed", "status": "ok" read as ok).
  if (!duplicates.empty())
    throw InputError(fmt::format("{}: malformed report: {}: {}; gpubench writes each key once, so the file was edited "
                                 "or corrupted: re-run the benchmark to regenerate it",
                                 path, duplicates.front(), kDuplicateKeyMessage));
  return j;
}

Report load_report(const std::string& path) { return parse_report(load_report_json(path), path); }

}  // namespace gpubench

// load_reports (analysis/compare.hpp): one report file, or the reports of a folder; pair_reports
// (analysis/compare_checks.hpp): which OLD report is compared with which NEW one.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/compare.hpp"
#include "analysis/compare_checks.hpp"
#include "core/errors.hpp"
#include "result/report_io.hpp"

namespace gpubench {

std::vector<LoadedReport> load_reports(const std::string& path, std::vector<std::string>* notes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path + ": no such file or folder");
  if (!fs::is_directory(path, ec)) return {{path, load_report(path)}};
  // *.json and *.json.gz reports; X.json.gz is skipped when the report X.json is there too (the same report).
  std::vector<std::string> files, gzipped;
  for (const auto& de : fs::directory_iterator(path, ec)) {
    if (!de.is_regular_file()) continue;
    const std::string name = de.path().filename().string();
    if (de.path().extension() == ".json") files.push_back(de.path().string());
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ".json.gz") == 0) gzipped.push_back(de.path().string());
  }
  if (ec) throw InputError(path + ": cannot list the folder (" + ec.message() + ")");
  if (files.empty() && gzipped.empty()) throw InputError(path + ": folder holds no *.json or *.json.gz reports");
  std::sort(files.begin(), files.end());
  std::sort(gzipped.begin(), gzipped.end());
  std::vector<LoadedReport> out;
  std::vector<std::string> skipped;
  std::set<std::string> plain_reports;
  auto load = [&](const std::string& f) {
    // Valid JSON without a report's signature (a config kept beside its report, a trace) is not a report: skip
    // it. Unreadable JSON and a report that fails its checks are still refused: either may be a broken report.
    nlohmann::json j = load_report_json(f);
    if (!has_report_signature(j)) {
      skipped.push_back(f);
      return false;
    }
    out.push_back({f, parse_report(j, f)});
    return true;
  };
  for (const auto& f : files)
    if (load(f)) plain_reports.insert(f);
  std::vector<std::string> packed_twins;
  for (const auto& gz : gzipped) {  // X.json.gz beside the report X.json is taken as the same report, packed
    if (plain_reports.count(gz.substr(0, gz.size() - 3)) == 0) load(gz);
    else packed_twins.push_back(gz);
  }
  std::sort(out.begin(), out.end(), [](const LoadedReport& x, const LoadedReport& y) { return x.path < y.path; });
  std::sort(skipped.begin(), skipped.end());
  if (out.empty())
    throw InputError(fmt::format("{}: folder holds no gpubench report ({} JSON file{} without /cases, e.g. {}); "
                                 "give the folder the reports of `gpubench run -o`",
                                 path, skipped.size(), skipped.size() == 1 ? "" : "s", skipped.front()));
  if (notes != nullptr) {
    for (const auto& f : skipped) notes->push_back("skipped " + f + ": not a gpubench report (no /cases)");
    for (const auto& gz : packed_twins)
      notes->push_back("skipped " + gz + ": " + gz.substr(0, gz.size() - 3) +
                       " is there too and was read instead (the two are taken as one report; keep one of them)");
  }
  return out;
}

namespace {

/// The name reports pair by in folder mode: the file name without a trailing ".gz", so that a gzipped baseline
/// X.json.gz pairs with a fresh plain X.json.
std::string pairing_name(const std::string& path) {
  std::string n = std::filesystem::path(path).filename().string();
  if (n.size() > 3 && n.compare(n.size() - 3, 3, ".gz") == 0) n.resize(n.size() - 3);
  return n;
}

/// "shard I/N" of a shard's report, "whole" otherwise.
std::string shard_key(const Report& r) {
  return r.shard ? fmt::format("shard {}/{}", r.shard->index, r.shard->count) : "whole";
}

/// The steps a report selected (every case alike: `run --variant` selects by step).
std::set<std::string> selected_steps(const Report& r) {
  std::set<std::string> steps;
  for (const CaseResult& c : r.cases)
    for (const VariantResult& v : c.variants)
      if (v.selected) steps.insert(v.name);
  return steps;
}

/// measured_part in words: "whole run, steps baseline, fused" or "shard 2/3, steps fused".
std::string part_words(const Report& r) {
  const std::set<std::string> steps = selected_steps(r);
  return fmt::format("{}, step{} {}", r.shard ? shard_key(r) : "whole run", steps.size() == 1 ? "" : "s",
                     fmt::join(steps, ", "));
}

/// Whether `part` measured some of the steps `whole` did and no other, in the same shard (or both whole runs), and
/// none of `taken` (the steps of parts already paired with `whole`): one report of a job split by --variant against a
/// whole run. A report that measured all of whole's steps is another run of it, not a part.
bool covers(const Report& whole, const Report& part, const std::set<std::string>& taken) {
  if (shard_key(whole) != shard_key(part)) return false;
  const std::set<std::string> w = selected_steps(whole), p = selected_steps(part);
  if (p.empty() || p.size() >= w.size() || !std::includes(w.begin(), w.end(), p.begin(), p.end())) return false;
  return std::none_of(p.begin(), p.end(), [&](const std::string& step) { return taken.count(step) > 0; });
}

}  // namespace

// A trial paired a folder's fused.json with the other side's pipelined-only report by file order and passed a
// regression of fused unjudged: reports pair by this key before file order.
std::string measured_part(const Report& r) {
  std::string key = shard_key(r);
  for (const std::string& s : selected_steps(r)) key += "|" + s;
  return key;
}

std::vector<std::pair<size_t, size_t>> pair_reports(const std::vector<LoadedReport>& old_reports,
                                                    const std::vector<LoadedReport>& new_reports) {
  std::vector<std::pair<size_t, size_t>> pairs;
  std::vector<bool> old_used(old_reports.size()), new_used(new_reports.size());
  auto pair_by = [&](auto same) {
    for (size_t i = 0; i < old_reports.size(); ++i) {
      for (size_t k = 0; k < new_reports.size() && !old_used[i]; ++k) {
        if (new_used[k] || !same(old_reports[i], new_reports[k])) continue;
        old_used[i] = new_used[k] = true;
        pairs.emplace_back(i, k);
      }
    }
  };
  // Each report's hash (it copies and dumps the config) and measured part (it walks every case) once, not once per
  // candidate pair.
  std::map<const LoadedReport*, std::string> hashes, parts;
  for (const auto* side : {&old_reports, &new_reports})
    for (const LoadedReport& r : *side) {
      hashes[&r] = comparable_config_hash(r.report);
      parts[&r] = measured_part(r.report);
    }
  const auto same_hash = [&](const LoadedReport& x, const LoadedReport& y) {
    const std::string& hx = hashes.at(&x);
    return !hx.empty() && hx == hashes.at(&y);
  };
  const auto same_part = [&](const LoadedReport& x, const LoadedReport& y) {
    return same_hash(x, y) && parts.at(&x) == parts.at(&y);
  };
  pair_by([&](const LoadedReport& x, const LoadedReport& y) {
    return same_part(x, y) && pairing_name(x.path) == pairing_name(y.path);
  });
  // Left over after the names: when one side has more reports of one measured part than the other (a leftover of an
  // earlier run), which of them get a counterpart would be chosen by file order, and the rest read as missing or
  // added. Refused, naming them: the user knows which is the baseline. As many on each side pair one to one.
  struct Left {
    std::vector<std::string> olds, news;
    std::string words;  // the part, in words
  };
  std::map<std::string, Left> left;  // hash and part → the files left over on each side
  for (size_t i = 0; i < old_reports.size(); ++i)
    if (!old_used[i] && !hashes.at(&old_reports[i]).empty()) {
      Left& l = left[hashes.at(&old_reports[i]) + " " + parts.at(&old_reports[i])];
      l.olds.push_back(old_reports[i].path);
      l.words = "config hash " + hashes.at(&old_reports[i]) + ", " + part_words(old_reports[i].report);
    }
  for (size_t k = 0; k < new_reports.size(); ++k)
    if (!new_used[k] && !hashes.at(&new_reports[k]).empty())
      left[hashes.at(&new_reports[k]) + " " + parts.at(&new_reports[k])].news.push_back(new_reports[k].path);
  for (const auto& [key, l] : left) {
    if (l.olds.empty() || l.news.empty() || l.olds.size() == l.news.size()) continue;
    throw InputError(fmt::format(
        "{} reports in OLD ({}) and {} in NEW ({}) measured the same part of one config ({}), named unlike each "
        "other: which of them are counterparts would be a guess. Remove the leftover in {}, or name the reports "
        "alike on both sides",
        l.olds.size(), fmt::join(l.olds, ", "), l.news.size(), fmt::join(l.news, ", "), l.words,
        l.olds.size() > l.news.size() ? "OLD" : "NEW"));
  }
  pair_by(same_part);
  pair_by([&](const LoadedReport& x, const LoadedReport& y) {
    return same_hash(x, y) && pairing_name(x.path) == pairing_name(y.path);
  });
  pair_by(same_hash);
  // A whole run on one side, a job split by --variant on the other: the whole report pairs with each part left over
  // (a trial: whole OLD against fused.json and pipelined.json in NEW judged one of them, and a 5% regression of the
  // other passed unjudged). Each step is still judged once: the parts select different steps.
  const auto cover = [&](const std::vector<LoadedReport>& wholes, const std::vector<LoadedReport>& parts,
                         std::vector<bool>& whole_used, std::vector<bool>& part_used, bool old_is_whole) {
    std::map<size_t, std::set<std::string>> taken;  // whole report → the steps of the parts paired with it
    for (const auto& [i, k] : pairs) {
      const size_t w = old_is_whole ? i : k, p = old_is_whole ? k : i;
      for (const std::string& step : selected_steps(parts[p].report)) taken[w].insert(step);
    }
    for (size_t p = 0; p < parts.size(); ++p)
      for (size_t w = 0; w < wholes.size() && !part_used[p]; ++w)
        if (same_hash(wholes[w], parts[p]) && covers(wholes[w].report, parts[p].report, taken[w])) {
          whole_used[w] = part_used[p] = true;
          pairs.emplace_back(old_is_whole ? w : p, old_is_whole ? p : w);
          for (const std::string& step : selected_steps(parts[p].report)) taken[w].insert(step);
        }
  };
  cover(old_reports, new_reports, old_used, new_used, true);
  cover(new_reports, old_reports, new_used, old_used, false);
  pair_by([](const LoadedReport& x, const LoadedReport& y) {
    return pairing_name(x.path) == pairing_name(y.path);
  });
  if (std::count(old_used.begin(), old_used.end(), false) == 1 &&
      std::count(new_used.begin(), new_used.end(), false) == 1) {
    pair_by([](const LoadedReport&, const LoadedReport&) { return true; });
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace gpubench

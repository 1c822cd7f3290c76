// `gpubench profile --rules FILE` (analysis/profile_rank.hpp): the kernel-name rules file, read and checked.
#include <cctype>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/profile_rank.hpp"
#include "core/errors.hpp"
#include "core/json_depth.hpp"
#include "core/linear_regex.hpp"
#include "core/text_file.hpp"

namespace gpubench {

std::vector<KernelRule> load_kernel_rules(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("--rules {}: a folder; give the rules JSON file", path));
  std::string text;
  switch (read_text_file(path, kMaxInputFileBytes, text)) {
    case ReadStatus::kOk:
      break;
    case ReadStatus::kCannotOpen:
      throw InputError(fmt::format("--rules {}: cannot open the file; check the path", path));
    case ReadStatus::kTooLarge:
      throw InputError(fmt::format("--rules {}: larger than {} MiB, not a rules file; check the path", path,
                                   kMaxInputFileBytes >> 20));
  }
  nlohmann::json j;
  std::vector<std::string> duplicates;
  try {
    j = parse_json_bounded(text, &duplicates);
  } catch (const JsonTooDeep&) {
    throw InputError(fmt::format("--rules {}: {}", path, json_too_deep_message("a rules file")));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("--rules {}: not valid JSON (byte {}); expected {{\"rules\": [{{\"op\": \"lce\", "
                                 "\"kernel\": \"REGEX\"}}, …]}}",
                                 path, e.byte));
  } catch (const nlohmann::json::exception& e) {
    // A number beyond double's range (1e400) parses as out_of_range 406, not parse_error.
    throw InputError(fmt::format("--rules {}: not usable JSON ({})", path, e.what()));
  }
  if (!duplicates.empty())
    throw InputError(fmt::format("--rules {}: {}: {}", path, duplicates.front(), kDuplicateKeyMessage));
  if (j.is_object())  // a misspelled "rules" is a typo, not a file without rules
    for (const auto& [key, unused] : j.items()) {
      (void)unused;
      if (key != "rules")
        throw InputError(fmt::format("--rules {}: /{}: unknown key; the only key is rules", path, key));
    }
  const auto it = j.is_object() ? j.find("rules") : j.end();
  if (it == j.end() || !it->is_array() || it->empty())
    throw InputError(fmt::format("--rules {}: /rules must be a non-empty list of {{\"op\": NAME, \"kernel\": REGEX}}",
                                 path));
  std::vector<KernelRule> rules;
  for (size_t i = 0; i < it->size(); ++i) {
    const auto& r = (*it)[i];
    const std::string at = fmt::format("--rules {}: /rules/{}", path, i);
    if (r.is_object())  // a misspelled key first: "kernl" is a typo, not a rule without a kernel
      for (const auto& [key, unused] : r.items()) {
        (void)unused;
        if (key != "op" && key != "kernel")
          throw InputError(fmt::format("{}/{}: unknown key; the keys are op and kernel", at, key));
      }
    if (!r.is_object() || !r.contains("op") || !r.contains("kernel") || !r["op"].is_string() ||
        !r["kernel"].is_string())
      throw InputError(at + ": expected {\"op\": NAME, \"kernel\": REGEX} (both strings)");
    KernelRule k{r["op"].get<std::string>(), r["kernel"].get<std::string>(), {}};
    if (k.op.empty()) throw InputError(at + "/op: empty op name; name the op the kernels belong to");
    if (std::isspace(static_cast<unsigned char>(k.op.front())) || std::isspace(static_cast<unsigned char>(k.op.back())))
      throw InputError(fmt::format("{}/op: '{}' starts or ends with white space, which the tables do not show; write "
                                   "the name without it",
                                   at, k.op));
    if (k.op.front() == '(' && k.op.back() == ')')
      throw InputError(fmt::format("{}/op: '{}' is in parentheses, which profile keeps for its own rows "
                                   "((unannotated), (GPU idle), (N other ops)); name the op without them",
                                   at, k.op));
    if (k.pattern.empty())  // a blank left while editing matched every kernel and took the whole profile
      throw InputError(at + "/kernel: empty pattern, which matches every kernel; write \".*\" if that is meant");
    try {
      k.regex = linear_regex(k.pattern);
    } catch (const std::regex_error& e) {
      throw InputError(fmt::format("{}/kernel: '{}' {}", at, k.pattern, regex_problem(e)));
    }
    rules.push_back(std::move(k));
  }
  return rules;
}

}  // namespace gpubench

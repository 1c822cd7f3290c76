#pragma once
// Request-length distributions: a self-registering registry. A distribution is one file in
// src/workload/ (dist_*.cpp) that registers a DistributionInfo with GPUBENCH_REGISTER_DISTRIBUTION;
// the config validator, make_request_layout and `gpubench list` read the registry, so adding a
// distribution needs no edit anywhere else.
//
// Determinism: samplers draw from std::mt19937_64 raw 64-bit outputs and transform them with our
// own inverse CDFs (uniform01, uniform_below, inverse_normal_cdf below). The std:: distribution
// classes (std::uniform_int_distribution, std::lognormal_distribution, ...) are not used: their
// algorithms are implementation-defined, so the same seed gives different lengths under libstdc++,
// libc++ and MSVC. mt19937_64 itself is fully specified by the standard.
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/parse.hpp"
#include "core/text_file.hpp"  // resolve_path

namespace gpubench {

/// JSON type of a distribution parameter.
enum class ParamType {
  kInteger,  ///< integer-valued number (fits int64)
  kNumber,   ///< finite number
  kString,   ///< string
};

/// One parameter of a distribution (all parameters are required).
struct DistributionParam {
  std::string name;         ///< key in /workload/requests/params
  ParamType type;           ///< expected JSON type
  std::string description;  ///< one line with the constraint, e.g. "candidates per request, ≥ 1"
};

/// A problem with one parameter; `param` is the key ("" for the params object itself).
struct ParamIssue {
  std::string param;
  std::string message;
};

/// Draws one request length (≥ 1) from the distribution.
using LengthSampler = std::function<int64_t(std::mt19937_64& rng)>;

/// Registry entry of a distribution.
struct DistributionInfo {
  std::string name;                       ///< e.g. "lognormal"
  std::string description;                ///< one line for `gpubench list`
  int order = 100;                        ///< position in listings
  std::vector<DistributionParam> params;  ///< every parameter (all required)
  /// Range and cross-parameter checks on params whose keys and types are already checked;
  /// `base_dir` resolves relative file names. Returns no issue when valid. Never throws.
  std::function<std::vector<ParamIssue>(const nlohmann::json& params, const std::string& base_dir)>
      check;
  /// Builds a sampler from valid params. May throw InputError (e.g. an unreadable file).
  std::function<LengthSampler(const nlohmann::json& params, const std::string& base_dir)> sampler;
};

/// Adds a distribution; called from static registrars. A duplicate name aborts at start-up.
void register_distribution(DistributionInfo info);

/// All registered distributions, sorted by order then name (for `gpubench list`).
std::vector<DistributionInfo> distributions();

/// The entry named `name`, or nullptr.
const DistributionInfo* find_distribution(const std::string& name);

/// Names of all distributions, in listing order.
std::vector<std::string> distribution_names();

/// Fills ctx.distributions, ctx.distribution_problems and ctx.describe_requests from this registry (the
/// config validator checks request specs through them, so config/ needs nothing of workload/).
void add_distributions(ConfigContext& ctx);

/// Every problem of `params` for `info`: not an object, unknown keys (with did-you-mean), missing
/// keys, wrong types, then info.check. Empty when valid.
std::vector<ParamIssue> check_distribution_params(const DistributionInfo& info,
                                                  const nlohmann::json& params,
                                                  const std::string& base_dir);

/// Uniform double in [0, 1) from the top 53 bits of one raw output.
double uniform01(std::mt19937_64& rng);

/// Uniform integer in [0, n) without modulo bias (rejection of the incomplete top block); n ≥ 1.
uint64_t uniform_below(std::mt19937_64& rng, uint64_t n);

/// Φ⁻¹(p) for p in (0, 1): the standard normal quantile. Acklam's rational approximation
/// (P. J. Acklam, "An algorithm for computing the inverse normal cumulative distribution
/// function", 2003; relative error < 1.15e-9) refined by one Halley step on std::erfc.
double inverse_normal_cdf(double p);

namespace detail {
/// Static registrar: constructing one registers `info`.
struct DistributionRegistrar {
  explicit DistributionRegistrar(DistributionInfo info) { register_distribution(std::move(info)); }
};
}  // namespace detail

}  // namespace gpubench

/// Registers a distribution from a file scope: GPUBENCH_REGISTER_DISTRIBUTION(zipf, DistributionInfo{...});
#define GPUBENCH_REGISTER_DISTRIBUTION(ident, ...) \
  static ::gpubench::detail::DistributionRegistrar gpubench_distribution_registrar_##ident{__VA_ARGS__}

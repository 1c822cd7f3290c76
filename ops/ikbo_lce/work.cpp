// IKBO LCE work counts (ops/ikbo_lce/work.hpp).
#include "ops/ikbo_lce/work.hpp"

#include <string>

#include "core/errors.hpp"

namespace gpubench {
namespace {

void require_positive(int64_t v, const char* what) {
  if (v < 1) throw InputError(std::string("work count: ") + what + " must be ≥ 1, got " + std::to_string(v));
}

}  // namespace

WorkCounts count_work(const LceShape& s, int64_t B, int64_t U, Precision precision, WorkModel model) {
  require_positive(s.M, "M");
  require_positive(s.N, "N");
  // One of K_user / K_cand may be 0 (the config allows it: their sum must be ≥ 1).
  if (s.K_user < 0 || s.K_cand < 0) throw InputError("work count: K_user and K_cand must be ≥ 0");
  require_positive(s.K_user + s.K_cand, "K_user + K_cand");
  require_positive(B, "B (candidates)");
  require_positive(U, "U (requests)");
  if (U > B) {
    throw InputError("work count: U (requests) = " + std::to_string(U) + " exceeds B (candidates) = " +
                     std::to_string(B) + "; every request holds at least one candidate");
  }
  // Doubles throughout: products reach ~1e12 and stay exact far beyond that (53-bit mantissa).
  const double M = static_cast<double>(s.M), N = static_cast<double>(s.N);
  const double Ku = static_cast<double>(s.K_user), Kc = static_cast<double>(s.K_cand), K = Ku + Kc;
  const double b = static_cast<double>(B), u = static_cast<double>(U);
  const double elt = static_cast<double>(element_bytes(precision));

  WorkCounts w;
  switch (model) {
    case WorkModel::kBroadcast:
      w.flops = 2.0 * M * N * K * b;
      w.bytes_min = elt * (Kc * N * b + Ku * N * u + M * N * b + M * K) + 2.0 * elt * b * K * N;
      break;
    case WorkModel::kBroadcastUntimed:
      w.flops = 2.0 * M * N * K * b;
      w.bytes_min = elt * (b * K * N + M * K + M * N * b);
      break;
    case WorkModel::kDecomposed:
      w.flops = 2.0 * M * N * (Ku * u + Kc * b);
      w.bytes_min = elt * (Kc * N * b + Ku * N * u + M * N * b + M * K);
      break;
  }
  w.intensity = w.flops / w.bytes_min;
  return w;
}

}  // namespace gpubench

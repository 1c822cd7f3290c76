#pragma once
// `gpubench ab`'s statistics (docs/ci.md, "Interleaved A/B on one board"). Pure functions over the measured pairs
// (measure/ab_session.hpp); the result is a CompareResult, so `ab` renders (report/compare_render.hpp), decides and
// exits exactly as `compare` does.
//
// Method. Pair i holds A's and B's sample of one ABBA pair (taken back to back in one process, on one GPU, their order
// alternating from pair to pair), so clock, power and thermal drift reach both samples of a pair alike. Per pair the
// ratio q_i = b_i / a_i; the point estimate is median_i(q_i); its confidence interval is the bootstrap percentile
// interval of that median, resampling PAIRS with replacement (Efron & Tibshirani, "An Introduction to the Bootstrap",
// 1993, ch. 13; the paired design: ch. 7 and 14). The pairs come from two processes, A's instances set up first in one
// and B's in the other (cli/ab_orders.hpp), and the estimate is the geometric mean of the two set-up orders' medians,
// resampled within each, so that where each side's buffers land (docs/ci.md) cancels. The verdict is compare's:
// classify_interval() against the band [1 − t, 1 + t]; fewer than CompareOptions::min_samples pairs → UNSURE. Because
// the drift common to a pair divides out of q_i, the interval is much tighter than compare's unpaired one on the same
// samples when the drift dominates the noise; it still covers only this process on this board (not another run or
// board).
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "measure/ab_session.hpp"

namespace gpubench {

/// The samples of one entry paired by pair index: a_ms[i] and b_ms[i] are the A and B sample of one ABBA pair [ms].
struct PairedSamples {
  std::vector<double> a_ms;      ///< [pairs] A's sample of each pair [ms]
  std::vector<int64_t> pair;     ///< [pairs] the pair index of each (ascending)
  std::vector<double> b_ms;      ///< [pairs] B's sample of each pair [ms]
  std::vector<int> order;        ///< [pairs] the set-up order of each: 0 (A set up first) or 1 (B first)
};

/// The pairs whose A and B samples were both kept: pair index p is kept when p appears in both `a_pairs` and
/// `b_pairs` (each ascending, with `a_ms` / `b_ms` holding the kept sample of each index: a_ms[k] belongs to pair
/// a_pairs[k]). A pair whose A or B sample the clock guard dropped is left out on both sides. Pairs from
/// `second_order_pair` on (AbCase::second_order_pair; 0 = one order) are of order 1 (B set up first). Throws
/// std::invalid_argument when a side's samples and pair indices differ in length or the indices do not ascend.
PairedSamples pair_samples(const std::vector<double>& a_ms, const std::vector<int64_t>& a_pairs,
                           const std::vector<double>& b_ms, const std::vector<int64_t>& b_pairs,
                           int64_t second_order_pair = 0);

/// Median of the per-pair ratios b_ms[i] / a_ms[i] and its bootstrap percentile interval at `confidence`: `resamples`
/// resamples of the n pairs drawn with replacement (mt19937_64 seeded with `seed`, index = draw mod n, as compare),
/// each giving the median of its ratios; the interval is the α/2 and 1 − α/2 quantiles of those medians. From
/// kBootstrapRankSamples pairs on, a resample's median is read off the sorted ratios at a rank drawn from its normal
/// limit (mean (n − 1)/2, standard deviation √n / 2), as compare does for a large side. Throws
/// std::invalid_argument when the sides are empty or of different lengths, a sample is not > 0, the confidence is
/// outside (0, 1) or resamples < 1.
RatioInterval bootstrap_paired_median_ratio(const std::vector<double>& a_ms, const std::vector<double>& b_ms,
                                            double confidence, int resamples, uint64_t seed);

/// The same over pairs taken in two set-up orders (`order[i]` ∈ {0, 1}, one per pair: 0 A set up first, 1 B first):
/// the estimate is the geometric mean over the orders that hold pairs of each one's median ratio, and each bootstrap
/// resample draws every order's pairs within it (a stratified bootstrap, Efron & Tibshirani 1993, ch. 8), so a ratio
/// that one order shifts up and the other shifts down cancels instead of widening the interval. With one order it is
/// bootstrap_paired_median_ratio exactly (same draws). Throws as that function, and std::invalid_argument when
/// `order` is not one value 0 or 1 per pair.
RatioInterval bootstrap_balanced_median_ratio(const std::vector<double>& a_ms, const std::vector<double>& b_ms,
                                              const std::vector<int>& order, double confidence, int resamples,
                                              uint64_t seed);

/// Judges one paired entry into `e` (old_side = A, new_side = B: n = pairs, medians and rel. stdev over the paired
/// samples; ci from bootstrap_balanced_median_ratio; verdict from classify_interval), the note starting "paired: N ABBA
/// pairs" (and " in 2 set-up orders" when both orders hold pairs). Pairs with a_i = 0 (a launch group that
/// launched nothing) carry no ratio and are left out; fewer than o.min_samples usable pairs → UNSURE "too few pairs".
/// Status and correctness are the caller's.
void judge_paired(CompareEntry& e, const PairedSamples& p, const CompareOptions& o);

/// What the A/B compared, for the result's header lines and notes.
struct AbDescription {
  std::string a_source;     ///< "configs/x.json step fused {options}": shown as the result's OLD line
  std::string b_source;     ///< likewise for B (the NEW line)
  std::string config_hash;  ///< config A's hash (CompareEntry::config_hash)
  std::string config_name;  ///< config A's name (CompareEntry::config_name)
  std::string gpu_name;     ///< DeviceInfo::name, "" when unknown
  std::string gpu_uuid;     ///< DeviceInfo::uuid, "" when unknown
};

/// The A/B verdicts as a CompareResult: per case one region entry (variant "A:<step> vs B:<step>", old_side = A,
/// new_side = B) and one entry per launch group whose name both sides have, each judged by judge_paired. A side
/// that failed (check, setup or CUDA) makes its region entry FAILED — a regression, so exit_code() is 1 — whichever
/// side it is; a side not measured otherwise (interrupted) is UNSURE. Launch groups on one side only are listed
/// as unmatched. The geometric mean is over the region ratios, as compare's; `method`, `verb` ("ab") and the notes
/// say the intervals come from interleaved pairs on one board (the GPU's name and UUID when known). Throws
/// InputError for options outside compare's ranges (threshold [0, 1), confidence (0, 1), resamples [100,
/// kMaxResamples]).
CompareResult compare_ab(const std::vector<measure::AbCase>& cases, const AbDescription& d, const CompareOptions& o);

}  // namespace gpubench

#pragma once
// Where a run's device buffers land (docs/ci.md, "Repetitions"). A kernel's time can depend on the addresses of its
// buffers, and a fresh process repeats its allocation sequence, so R repetitions of a step in R fresh processes would
// all land alike and hide that dependence from the spread `compare` judges by. Repetition r ≥ 2 therefore allocates
// a pad of device memory before anything else, a different size for each r, and every later buffer lands past it:
// placement becomes run-to-run noise instead of a bias shared by every repetition. The idea is the layout
// randomization of Curtsinger & Berger, "STABILIZER: Statistically Sound Performance Evaluation" (ASPLOS 2013),
// after Mytkowicz et al., "Producing Wrong Data Without Doing Anything Obviously Wrong!" (ASPLOS 2009).
#include <cstdint>
#include <string>

#include "core/device_buffer.hpp"

namespace gpubench::measure {

/// The largest pad a repetition allocates [MiB]. On one H100, pads of 2–300 MB moved a kernel that re-reads what it
/// just wrote by −6% to +7% (results/h100/2026-12-06_ab_placement); 256 MiB is under 0.4% of an H100's memory.
inline constexpr int64_t kMaxPlacementPadMiB = 256;

/// The pad repetition `rep` (0-based) of `run --repeat` allocates first [MiB]: 0 for the first (a repetition run
/// is the plain run plus more), then ((rep · 37) mod 64 + 1) · 4 — multiples of 4 MiB (whole 2 MiB pages) from 4 to
/// kMaxPlacementPadMiB, all different for rep 1…64, fixed so that two runs' repetitions land alike. rep < 0 → 0.
int64_t placement_pad_mib(int64_t rep);

/// Device memory held from construction to destruction so that every buffer allocated meanwhile lands past it.
class PlacementPad {
 public:
  PlacementPad() = default;
  /// Allocates `mib` MiB on the current device (0: nothing). Never throws: when the memory is not there the pad
  /// stays empty, mib() is 0 and note() says so (the run goes on with the plain run's placement).
  explicit PlacementPad(int64_t mib);
  /// What is held [MiB]: the request, or 0 when it could not be allocated.
  int64_t mib() const { return static_cast<int64_t>(buffer_.bytes() >> 20); }
  /// "" when the pad is as requested, else a report note on why it is not.
  const std::string& note() const { return note_; }

 private:
  DeviceBuffer buffer_;
  std::string note_;
};

}  // namespace gpubench::measure

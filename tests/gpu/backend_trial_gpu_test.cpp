// The setup trial of backend "auto" (ops/ikbo_lce/backend_choice.cpp) with stand-in candidates of known duration
// (spin kernels of 20, 40 and 60 µs): it times them interleaved, one sample of each per round in forward and then
// backward order, and runs the fastest; candidates that cannot be set up together (a DeviceError, e.g. out of memory)
// are timed one after another instead, and the report's text says which. The 3x margins make the choice certain on
// any board; no time is asserted.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "measure/harness_kernels.hpp"
#include "ops/ikbo_lce/backend_choice.hpp"
#include "support/gpu.hpp"

namespace gpubench::lce {
namespace {

namespace fs = std::filesystem;

/// What the stand-ins share: the candidate id of every enqueued sample, in order, and how many are set up now.
struct Ledger {
  std::vector<int> order;
  int alive = 0;
  bool refuse_together = false;  ///< setup throws DeviceError while another stand-in is set up
};

/// A candidate whose one launch group spins `ns` on the GPU and logs `id` when enqueued.
class Stand final : public Variant {
 public:
  Stand(int id, int64_t ns, Ledger& ledger) : id_(id), ns_(ns), ledger_(ledger) {}
  ~Stand() override { ledger_.alive -= set_up_ ? 1 : 0; }
  void setup(const Problem&, cudaStream_t) override {
    if (ledger_.refuse_together && ledger_.alive > 0) throw DeviceError("cudaErrorMemoryAllocation: out of memory");
    set_up_ = true;
    ++ledger_.alive;
  }
  std::vector<op::LaunchGroup> groups() override {
    return {{"spin", [this](cudaStream_t s) {
               ledger_.order.push_back(id_);
               measure::spin_kernel(ns_, s);
             }}};
  }
  std::string configuration() const override { return "stand-in " + std::to_string(id_); }

 private:
  int id_;
  int64_t ns_;
  Ledger& ledger_;
  bool set_up_ = false;
};

class BackendTrial : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUBENCH_REQUIRE_GPU();
    char tmpl[] = "/tmp/gpubench_backend_trial_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ::setenv("XDG_CACHE_HOME", dir_.c_str(), 1);  // an empty cache: every setup runs the trial
  }
  void TearDown() override {
    ::unsetenv("XDG_CACHE_HOME");
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  /// Step `step` with tile candidates 0 ({}: 60 µs) and 1 ({"schedule": "pingpong"}: `pingpong_ns`), library 2
  /// (`library_ns`), set up on a small problem. Returns the step's configuration text. Each test names its own step:
  /// the process keeps a step's choice per key (its other input sets reuse it), and gtest may run both in one process.
  std::string choose(const std::string& step_name, int64_t pingpong_ns, int64_t library_ns) {
    std::vector<TileCandidate> tiles = {
        {nlohmann::json::object(), [this] { return std::make_unique<Stand>(0, 60'000, ledger_); }},
        {{{"schedule", "pingpong"}}, [this, pingpong_ns] { return std::make_unique<Stand>(1, pingpong_ns, ledger_); }}};
    auto step = make_auto_backend(
        step_name, nlohmann::json::object(), tiles,
        [this, library_ns] { return std::unique_ptr<Variant>(std::make_unique<Stand>(2, library_ns, ledger_)); });
    Problem p;
    p.M = 16, p.N = 64, p.K_user = 128, p.K_cand = 64, p.B = 8, p.U = 1;
    testing::Stream stream;
    step->setup(p, stream.s);
    EXPECT_EQ(ledger_.alive, 1) << "only the chosen candidate stays set up after the trial";
    return step->configuration();
  }
  Ledger ledger_;
  std::string dir_;
};

TEST_F(BackendTrial, TimesItsCandidatesInterleavedAndRunsTheFastest) {
  const std::string config = choose("stand_in_interleaved", /*pingpong_ns=*/20'000, /*library_ns=*/40'000);
  EXPECT_EQ(config.rfind(R"(backend auto → tile (schedule "pingpong"): )", 0), 0u) << config;
  EXPECT_NE(config.find(", interleaved)"), std::string::npos) << config;
  EXPECT_NE(config.find("stand-in 1"), std::string::npos) << config;
  EXPECT_EQ(config.find("timed out"), std::string::npos) << "the warm-up rounds load every kernel before the gate";
  // Rounds of the three candidates, forward then backward: 0 1 2 2 1 0 0 1 2 …, 2 untimed + 3 to 30 timed rounds.
  const auto& order = ledger_.order;
  ASSERT_EQ(order.size() % 3, 0u);
  ASSERT_GE(order.size(), 15u);
  ASSERT_LE(order.size(), 96u);
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t round = i / 3, slot = i % 3;
    EXPECT_EQ(order[i], static_cast<int>(round % 2 == 0 ? slot : 2 - slot)) << "sample " << i;
  }
}

TEST_F(BackendTrial, CandidatesThatDoNotFitTogetherAreTimedOneAfterAnother) {
  ledger_.refuse_together = true;
  const std::string config = choose("stand_in_apart", /*pingpong_ns=*/60'000, /*library_ns=*/20'000);
  EXPECT_EQ(config.rfind("backend auto → library: ", 0), 0u) << config;
  EXPECT_EQ(config.find("interleaved"), std::string::npos) << config;
  EXPECT_NE(config.find("stand-in 2"), std::string::npos) << config;
  // Each candidate's samples in one block, in the candidates' order: 0 … 0 1 … 1 2 … 2.
  const auto& order = ledger_.order;
  ASSERT_GE(order.size(), 15u);
  for (size_t i = 1; i < order.size(); ++i) ASSERT_LE(order[i - 1], order[i]) << "sample " << i;
  EXPECT_EQ(order.front(), 0);
  EXPECT_EQ(order.back(), 2);
}

}  // namespace
}  // namespace gpubench::lce

// Every registered LCE variant (so later ladder steps are tested on arrival) × fp16/bf16/fp32 ×
// edge shapes, against the fp64 CPU reference; plus the full reference shape against the fp32 GPU
// reference and the baseline (label `gpu`). Each case: fresh random inputs (seed per case), output
// poisoned with NaN, a guard region after Y that must stay untouched, all ops run twice (a variant
// must give the same Y when re-run, as it is during timing).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "op/check.hpp"
#include "ops/ikbo_lce/reference.hpp"
#include "ops/ikbo_lce/variant.hpp"
#include "support/gpu.hpp"
#include "ops/ikbo_lce/operands.hpp"

namespace gpubench::lce {
namespace {

using op::compare_host;
using op::compare_outputs;
using op::compare_to_reference;
using op::compare_values;
using op::ErrorStats;
using op::poison_output;

constexpr size_t kGuardBytes = 4096;  // after Y: must still hold the poison after the run

using ::gpubench::testing::Stream;

/// An edge shape. `optional`: a variant may refuse it in setup with InputError (then skipped).
struct EdgeCase {
  std::string name;
  LceShape shape;
  std::vector<int32_t> lengths;
  bool optional = false;
};

const std::vector<EdgeCase>& edge_cases() {
  static const std::vector<EdgeCase> cases = {
      {"one_per_request", {64, 64, 32, 40}, std::vector<int32_t>(16, 1)},
      {"one_request_all", {64, 64, 48, 24}, {40}},
      {"k_user_zero", {48, 32, 0, 64}, {7, 7, 6}},
      // fused/pipelined refuse K_cand = 0 in setup (no candidate GEMM to fuse the add into): optional.
      {"k_cand_zero", {48, 32, 64, 0}, {3, 5, 4}, /*optional=*/true},
      {"k_1023_1025", {33, 64, 1023, 1025}, {5, 1, 6}},
      {"k_7_9_b37", {40, 24, 7, 9}, {3, 1, 4, 1, 5, 9, 2, 6, 5, 1}},
      {"b37_uneven", {100, 64, 70, 50}, {1, 9, 2, 20, 5}},
      {"m1_n256", {1, 256, 100, 60}, {4, 16}},
      {"m433_n8", {433, 8, 40, 30}, {3, 7}},
      {"n256", {64, 256, 72, 56}, {10, 10, 4}},
      {"n5_unaligned", {20, 5, 9, 11}, {2, 3}, /*optional=*/true},
  };
  return cases;
}

std::vector<std::string> all_variant_names() {
  std::vector<std::string> names;
  for (const auto& v : registered_variants())
    if (!v.test_only) names.push_back(v.name);  // test_fault fails on purpose (isolate tests)
  return names;
}

/// `info`'s own kernels with `options`: `fused` and `pipelined` get backend "tile" unless `options` name one, so that
/// these tests check the tile kernel on every shape, never the library path a backend "auto" trial may pick there
/// (that choice has its own test: backend_choice_gpu_test.cpp).
std::unique_ptr<Variant> create_kernel(const VariantInfo& info, nlohmann::json options) {
  if (info.schema->find("backend") != nullptr && !options.contains("backend")) options["backend"] = "tile";
  return create_variant(info, options);
}

bool supports(const VariantInfo& info, Precision p) {
  for (Precision q : info.schema->precisions)
    if (q == p) return true;
  return false;
}

/// Enqueues every op of `v` and waits.
void run_all(Variant& v, cudaStream_t s) {
  for (const op::LaunchGroup& g : v.groups()) g.launch(s);
  GPUBENCH_CUDA(cudaStreamSynchronize(s));
}

/// True when every byte of [p, p + bytes) on the device is 0xFF (the poison).
bool still_poisoned(const void* p, size_t bytes) {
  std::vector<unsigned char> host(bytes);
  GPUBENCH_CUDA(cudaMemcpy(host.data(), p, bytes, cudaMemcpyDeviceToHost));
  for (unsigned char c : host)
    if (c != 0xFF) return false;
  return true;
}

/// Runs step `info` with `options` (create_kernel) on edge case `case_index` with inputs from `seed`, twice (the
/// second time over a re-poisoned Y), and expects the fp64 reference, every output written and the guard bytes past
/// Y untouched. Returns "" or, when the step refuses an optional edge shape, why (the caller skips).
std::string expect_edge_case(const VariantInfo& info, const nlohmann::json& options, Precision precision,
                             int case_index, uint64_t seed) {
  std::string name = info.name;  // appends rather than +: GCC 12's -Wrestrict misfires on the temporaries
  if (!options.empty()) name.append(" ").append(options.dump());
  const EdgeCase& c = edge_cases()[case_index];
  const RequestLayout layout = layout_from_lengths(c.lengths);
  Stream st;
  const DeviceOperands d = make_device_operands(c.shape, layout, precision, seed, st.s);
  const std::vector<double> want = reference_fp64_host(make_host_operands(c.shape, layout, precision, seed));
  const int64_t count = layout.batch * c.shape.M * c.shape.N;
  const size_t y_bytes = output_bytes(c.shape, layout.batch, precision);
  DeviceBuffer y(y_bytes + kGuardBytes);
  poison_output(y.get(), count + static_cast<int64_t>(kGuardBytes) / element_bytes(precision), precision, st.s);

  std::unique_ptr<Variant> v = create_kernel(info, options);
  try {
    v->setup(d.problem(y.get()), st.s);
  } catch (const InputError& e) {
    if (c.optional) return name + " refuses optional shape " + c.name + ": " + e.what();
    throw;
  }
  for (int run = 0; run < 2; ++run) {
    if (run == 1) {
      poison_output(y.get(), count, precision, st.s);
    }
    run_all(*v, st.s);
    const ErrorStats s = compare_host(y.get(), precision, want, st.s);
    EXPECT_EQ(s.nonfinite, 0) << name << " " << c.name << " run " << run << ": unwritten or non-finite outputs";
    EXPECT_LT(s.rel_error, default_tolerance(precision))
        << name << " " << c.name << " seed " << seed << " run " << run << " max_abs " << s.max_abs_error
        << " ref_norm " << s.ref_norm;
    EXPECT_GT(s.ref_norm, 0.0);
  }
  EXPECT_TRUE(still_poisoned(static_cast<const char*>(y.get()) + y_bytes, kGuardBytes))
      << name << " wrote past the end of Y";
  return "";
}

using VariantCase = std::tuple<std::string, Precision, int>;

class LceVariantEdge : public ::testing::TestWithParam<VariantCase> {};

TEST_P(LceVariantEdge, MatchesFp64Reference) {
  GPUBENCH_REQUIRE_GPU();
  const auto& [name, precision, case_index] = GetParam();
  const VariantInfo* info = find_variant(name);
  ASSERT_NE(info, nullptr);
  if (!supports(*info, precision)) GTEST_SKIP() << name << " does not list " << to_string(precision);
  const uint64_t seed = 1000 + 10 * static_cast<uint64_t>(case_index) + static_cast<uint64_t>(precision);
  const std::string skipped = expect_edge_case(*info, nlohmann::json::object(), precision, case_index, seed);
  if (!skipped.empty()) GTEST_SKIP() << skipped;
}

// pipelined's ping-pong schedule (64(N) × 224(M) tiles), which backend "auto" also tries (tile_candidates): every
// edge case, fp16 and bf16, two seeds each.
TEST(LceVariantOptions, PipelinedPingPongOnEveryEdgeCase) {
  GPUBENCH_REQUIRE_GPU();
  const VariantInfo* info = find_variant("pipelined");
  ASSERT_NE(info, nullptr);
  int ran = 0;
  for (int i = 0; i < static_cast<int>(edge_cases().size()); ++i)
    for (Precision precision : {Precision::kFp16, Precision::kBf16})
      for (uint64_t seed : {uint64_t{71}, uint64_t{72}}) {
        // An optional shape it refuses (K_cand 0, N 5) returns its reason; the others must run.
        if (expect_edge_case(*info, {{"schedule", "pingpong"}}, precision, i, seed + 10 * i).empty()) ++ran;
      }
  EXPECT_EQ(ran, 2 * 2 * (static_cast<int>(edge_cases().size()) - 2)) << "every edge case but the two optional ones";
}

// pipelined's inline user GEMM (user_gemm "inline": each candidate tile runs K_user then K_cand in one mainloop, user
// stages from E_user[cand_to_user[b]]), which backend "auto" also tries at small B: every edge case, fp16 and bf16,
// two seeds with the default configuration, one with each other tile configuration it combines with (a wrong user
// row, a K offset that does not restart at the candidate stages, or a K tail left unmasked shows as a wrong output).
TEST(LceVariantOptions, PipelinedInlineUserGemmOnEveryEdgeCase) {
  GPUBENCH_REQUIRE_GPU();
  const VariantInfo* info = find_variant("pipelined");
  ASSERT_NE(info, nullptr);
  const nlohmann::json inl = {{"user_gemm", "inline"}};
  std::vector<std::pair<nlohmann::json, std::vector<uint64_t>>> configs = {{inl, {81, 82}}};
  for (const nlohmann::json& extra :
       {nlohmann::json{{"schedule", "pingpong"}}, nlohmann::json{{"cluster", "2x2"}}, nlohmann::json{{"cluster", "2x1"}},
        nlohmann::json{{"cluster", false}, {"store_warp", false}}, nlohmann::json{{"stages", 5}},
        nlohmann::json{{"block_k", 32}}, nlohmann::json{{"l2_prefetch", 2}}, nlohmann::json{{"k_tail", "pad"}},
        nlohmann::json{{"tile_order", "round_robin"}}}) {
    nlohmann::json options = inl;
    options.update(extra);
    configs.push_back({options, {83}});
  }
  for (const auto& [options, seeds] : configs) {
    int ran = 0, tried = 0;
    for (int i = 0; i < static_cast<int>(edge_cases().size()); ++i)
      for (Precision precision : {Precision::kFp16, Precision::kBf16})
        for (uint64_t seed : seeds) {
          ++tried;
          if (expect_edge_case(*info, options, precision, i, seed + 10 * i).empty()) ++ran;
        }
    EXPECT_EQ(ran, tried - 2 * 2 * static_cast<int>(seeds.size())) << options.dump()
        << ": every edge case but the two optional ones (K_cand 0, N 5)";
  }
  // The configuration says so, and the op has one launch (no memset of ready flags).
  const LceShape shape{250, 136, 70, 50};
  const RequestLayout layout = layout_from_lengths({1, 3, 2});
  Stream st;
  const DeviceOperands d = make_device_operands(shape, layout, Precision::kFp16, 85, st.s);
  DeviceBuffer y(output_bytes(shape, layout.batch, Precision::kFp16));
  std::unique_ptr<Variant> v = create_kernel(*info, inl);
  v->setup(d.problem(y.get()), st.s);
  EXPECT_NE(v->configuration().find("user GEMM inline in each candidate tile, 0 user + "), std::string::npos)
      << v->configuration();
  ASSERT_EQ(v->notes().size(), 1u);
  EXPECT_NE(v->notes()[0].find("no memset"), std::string::npos) << v->notes()[0];
}

INSTANTIATE_TEST_SUITE_P(
    Lce, LceVariantEdge,
    ::testing::Combine(::testing::ValuesIn(all_variant_names()),
                       ::testing::Values(Precision::kFp16, Precision::kBf16, Precision::kFp32),
                       ::testing::Range(0, static_cast<int>(edge_cases().size()))),
    [](const ::testing::TestParamInfo<VariantCase>& info) {
      return std::get<0>(info.param) + "_" + std::string(to_string(std::get<1>(info.param))) + "_" +
             edge_cases()[std::get<2>(info.param)].name;
    });

// Options other than the defaults, on one odd shape each.
TEST(LceVariantOptions, BaselineUntimedBroadcastAndKAlignedWithCublas) {
  GPUBENCH_REQUIRE_GPU();
  const LceShape shape{40, 24, 7, 9};
  const RequestLayout layout = layout_from_lengths({3, 1, 4, 1, 5});
  Stream st;
  for (const auto& [name, options] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"baseline", {{"time_broadcast", false}}}, {"k_aligned", {{"library", "cublas"}}}}) {
    const VariantInfo* info = find_variant(name);
    ASSERT_NE(info, nullptr) << name;
    const DeviceOperands d = make_device_operands(shape, layout, Precision::kFp16, 4242, st.s);
    const std::vector<double> want =
        reference_fp64_host(make_host_operands(shape, layout, Precision::kFp16, 4242));
    DeviceBuffer y(output_bytes(shape, layout.batch, Precision::kFp16));
    poison_output(y.get(), layout.batch * shape.M * shape.N, Precision::kFp16, st.s);
    std::unique_ptr<Variant> v = create_kernel(*info, options);
    v->setup(d.problem(y.get()), st.s);
    if (name == "baseline") {
      EXPECT_EQ(info->work_model_for(StepOptions::resolve(*info->schema, options)), WorkModel::kBroadcastUntimed);
      ASSERT_EQ(v->groups().size(), 1u);
      EXPECT_EQ(v->groups()[0].name, "gemm");
    }
    run_all(*v, st.s);
    const ErrorStats s = compare_host(y.get(), Precision::kFp16, want, st.s);
    EXPECT_TRUE(passes(s, default_tolerance(Precision::kFp16))) << name << " rel " << s.rel_error;
  }
}

// fused and pipelined with every stage's k16 steps run over the K padding (option k_tail "pad", the
// round-5 behaviour; the default "trim" runs in the edge cases above): many requests, K tails of 2
// and 1 k16 steps (K_user 70, K_cand 50), several tiles per CTA.
TEST(LceVariantOptions, FusedAndPipelinedKTailPad) {
  GPUBENCH_REQUIRE_GPU();
  const LceShape shape{250, 136, 70, 50};
  std::vector<int32_t> lengths;
  for (int i = 0; i < 30; ++i) lengths.push_back(1 + (i * 7) % 9);
  const RequestLayout layout = layout_from_lengths(lengths);
  Stream st;
  for (Precision precision : {Precision::kFp16, Precision::kBf16}) {
    const DeviceOperands d = make_device_operands(shape, layout, precision, 4343, st.s);
    const std::vector<double> want = reference_fp64_host(make_host_operands(shape, layout, precision, 4343));
    for (const char* name : {"fused", "pipelined"})
      for (const nlohmann::json& options : {nlohmann::json{{"k_tail", "pad"}}, nlohmann::json{{"k_tail", "trim"}}}) {
        const VariantInfo* info = find_variant(name);
        ASSERT_NE(info, nullptr) << name;
        DeviceBuffer y(output_bytes(shape, layout.batch, precision));
        poison_output(y.get(), layout.batch * shape.M * shape.N, precision, st.s);
        std::unique_ptr<Variant> v = create_kernel(*info, options);
        try {
          v->setup(d.problem(y.get()), st.s);
        } catch (const InputError& e) {  // not an sm_90 GPU: the edge cases skip the same way
          GTEST_SKIP() << name << ": " << e.what();
        }
        run_all(*v, st.s);
        const ErrorStats s = compare_host(y.get(), precision, want, st.s);
        EXPECT_EQ(s.nonfinite, 0) << name << " " << options.dump();
        EXPECT_LT(s.rel_error, default_tolerance(precision)) << name << " " << options.dump() << " " << to_string(precision);
      }
  }
}

// pipelined's tile orders and the user row kept in registers across tiles (options tile_order,
// user_row_cache, with each defer_user_row mode), and the TMA stores issued by store warps (store_warp,
// with each cluster shape; K_cand 50 makes every candidate tile a single ring stage): 30 requests of 1 … 9 candidates (the row changes
// every few tiles), ragged M and N (a cooperative tile's empty half, N 136), user tiles of K 70 ending in
// a 2-step stage. A stale row (wrong request, M tile or N block) or a missed flag shows as a wrong output.
TEST(LceVariantOptions, PipelinedTileOrderAndUserRowCache) {
  GPUBENCH_REQUIRE_GPU();
  const LceShape shape{250, 136, 70, 50};
  std::vector<int32_t> lengths;
  for (int i = 0; i < 30; ++i) lengths.push_back(1 + (i * 7) % 9);
  const RequestLayout layout = layout_from_lengths(lengths);
  Stream st;
  const std::vector<nlohmann::json> option_sets = {
      {{"tile_order", "contiguous"}, {"user_row_cache", true}},
      {{"tile_order", "contiguous"}, {"user_row_cache", true}, {"defer_user_row", "any"}},
      {{"tile_order", "contiguous"}, {"user_row_cache", true}, {"defer_user_row", "none"}},
      {{"tile_order", "contiguous"}, {"user_row_cache", false}},
      {{"tile_order", "round_robin"}, {"user_row_cache", true}},
      {{"tile_order", "contiguous"}, {"user_row_cache", true}, {"cluster", "2x2"}},
      {{"tile_order", "contiguous"}, {"user_row_cache", true}, {"schedule", "pingpong"}},
      {{"tile_order", "contiguous"}, {"user_row_cache", true}, {"store_warp", true}},
      {{"tile_order", "contiguous"}, {"user_row_cache", true}, {"store_warp", true}, {"defer_user_row", "any"}},
      {{"tile_order", "round_robin"}, {"user_row_cache", false}, {"store_warp", true}, {"cluster", false}},
      {{"tile_order", "contiguous"}, {"user_row_cache", true}, {"store_warp", true}, {"cluster", "2x2"}},
      {{"tile_order", "contiguous"}, {"user_row_cache", true}, {"store_warp", false}}};
  for (Precision precision : {Precision::kFp16, Precision::kBf16}) {
    const DeviceOperands d = make_device_operands(shape, layout, precision, 4545, st.s);
    const std::vector<double> want = reference_fp64_host(make_host_operands(shape, layout, precision, 4545));
    for (const nlohmann::json& options : option_sets) {
      const VariantInfo* info = find_variant("pipelined");
      ASSERT_NE(info, nullptr);
      DeviceBuffer y(output_bytes(shape, layout.batch, precision));
      poison_output(y.get(), layout.batch * shape.M * shape.N, precision, st.s);
      std::unique_ptr<Variant> v = create_kernel(*info, options);
      try {
        v->setup(d.problem(y.get()), st.s);
      } catch (const InputError& e) {  // not an sm_90 GPU: the edge cases skip the same way
        GTEST_SKIP() << e.what();
      }
      if (options.at("tile_order") == "contiguous")
        EXPECT_NE(v->configuration().find("contiguous tile order"), std::string::npos) << v->configuration();
      // Twice in a row: the ready flags are zeroed by the op itself.
      for (int rep = 0; rep < 2; ++rep) {
        poison_output(y.get(), layout.batch * shape.M * shape.N, precision, st.s);
        run_all(*v, st.s);
        const ErrorStats s = compare_host(y.get(), precision, want, st.s);
        EXPECT_EQ(s.nonfinite, 0) << options.dump() << " rep " << rep;
        EXPECT_LT(s.rel_error, default_tolerance(precision)) << options.dump() << " " << to_string(precision);
      }
    }
  }
}

// pipelined's narrow last M tile (option narrow_tail): the narrowest of m64n32/n64/n128/n216k16 that covers the last
// M tile's rows. Each width with its last tile full (a wrong register ↔ column mapping of the narrow fragment shows)
// and nearly empty: M 440 (216 rows), 441 (217: keeps m64n224k16), 200 (one M tile: user and candidate tiles
// narrow), 352 (224 + 128), 289 (224 + 65: n128), 64 and 33 (n64), 32 and 16 (n32), 256 (224 + 32).
// Each with the default schedule, a 2x2 cluster, ping-pong and consumer-issued stores.
TEST(LceVariantOptions, PipelinedNarrowTail) {
  GPUBENCH_REQUIRE_GPU();
  std::vector<int32_t> lengths;
  for (int i = 0; i < 12; ++i) lengths.push_back(1 + (i * 5) % 7);
  const RequestLayout layout = layout_from_lengths(lengths);
  Stream st;
  const std::vector<nlohmann::json> option_sets = {
      {{"narrow_tail", true}},
      {{"narrow_tail", true}, {"cluster", "2x2"}},
      {{"narrow_tail", true}, {"schedule", "pingpong"}},
      {{"narrow_tail", true}, {"store_warp", false}}};
  const std::vector<std::pair<int64_t, int>> widths = {{440, 216}, {441, 224}, {200, 216}, {352, 128}, {289, 128},
                                                       {64, 64},   {33, 64},   {32, 32},   {16, 32},   {256, 32}};
  for (const auto& [M, width] : widths) {
    const LceShape shape{M, 136, 70, 50};
    const std::string narrow = "(last M tile m64n" + std::to_string(width) + "k16)";
    for (Precision precision : {Precision::kFp16, Precision::kBf16}) {
      const uint64_t seed = 4646 + static_cast<uint64_t>(M);
      const DeviceOperands d = make_device_operands(shape, layout, precision, seed, st.s);
      const std::vector<double> want = reference_fp64_host(make_host_operands(shape, layout, precision, seed));
      for (const nlohmann::json& options : option_sets) {
        std::unique_ptr<Variant> v = create_kernel(*find_variant("pipelined"), options);
        DeviceBuffer y(output_bytes(shape, layout.batch, precision));
        try {
          v->setup(d.problem(y.get()), st.s);
        } catch (const InputError& e) {  // not an sm_90 GPU: the edge cases skip the same way
          GTEST_SKIP() << e.what();
        }
        EXPECT_EQ(v->configuration().find(narrow) != std::string::npos, width != 224)
            << "M " << M << " " << v->configuration();
        poison_output(y.get(), layout.batch * shape.M * shape.N, precision, st.s);
        run_all(*v, st.s);
        const ErrorStats e = compare_host(y.get(), precision, want, st.s);
        EXPECT_EQ(e.nonfinite, 0) << "M " << M << " " << options.dump();
        EXPECT_LT(e.rel_error, default_tolerance(precision)) << "M " << M << " " << options.dump() << " " << to_string(precision);
      }
    }
  }
}

// The full reference shape (docs/ikbo_lce.md), fp16: each variant vs the fp32 GPU reference and vs the
// baseline. Operands, reference and baseline output are computed once for the suite.
class LceVariantFullShape : public ::testing::TestWithParam<std::string> {
 protected:
  static constexpr Precision kP = Precision::kFp16;
  struct Shared {
    Stream st;
    LceShape shape{433, 256, 1178, 866};
    RequestLayout layout;
    DeviceOperands d;
    DeviceBuffer y_ref, y_base;
    int64_t count = 0;
  };
  static Shared* shared_;

  static void SetUpTestSuite() {
    if (!gpubench::testing::gpu_unavailable_reason().empty()) return;
    auto owned = std::make_unique<Shared>();  // published only when complete
    Shared& s = *owned;
    std::vector<int32_t> lengths(1024 / 70, 70);
    lengths.push_back(1024 % 70);  // the last request takes the remainder: U = 15
    s.layout = layout_from_lengths(lengths);
    s.d = make_device_operands(s.shape, s.layout, kP, 2026, s.st.s);
    s.count = s.layout.batch * s.shape.M * s.shape.N;
    s.y_ref = DeviceBuffer(static_cast<size_t>(s.count) * sizeof(float));
    GPUBENCH_CUDA(cudaMemsetAsync(s.y_ref.get(), 0xFF, s.y_ref.bytes(), s.st.s));
    reference_fp32(s.d.problem(nullptr), s.y_ref.as<float>(), s.st.s);
    s.y_base = DeviceBuffer(output_bytes(s.shape, s.layout.batch, kP));
    poison_output(s.y_base.get(), s.count, kP, s.st.s);
    auto base = create_kernel(*find_variant("baseline"), nlohmann::json::object());
    base->setup(s.d.problem(s.y_base.get()), s.st.s);
    run_all(*base, s.st.s);
    shared_ = owned.release();
  }
  static void TearDownTestSuite() {
    delete shared_;
    shared_ = nullptr;
  }
};
LceVariantFullShape::Shared* LceVariantFullShape::shared_ = nullptr;

TEST_P(LceVariantFullShape, MatchesFp32ReferenceAndBaseline) {
  GPUBENCH_REQUIRE_GPU();
  ASSERT_NE(shared_, nullptr);
  Shared& s = *shared_;
  ASSERT_EQ(s.layout.requests(), 15);
  const VariantInfo* info = find_variant(GetParam());
  ASSERT_NE(info, nullptr);
  if (!supports(*info, kP)) GTEST_SKIP() << GetParam() << " does not list fp16";
  DeviceBuffer y(output_bytes(s.shape, s.layout.batch, kP));
  poison_output(y.get(), s.count, kP, s.st.s);
  auto v = create_kernel(*info, nlohmann::json::object());
  v->setup(s.d.problem(y.get()), s.st.s);
  run_all(*v, s.st.s);
  const ErrorStats r = compare_to_reference(y.get(), kP, s.y_ref.as<float>(), s.count, s.st.s);
  EXPECT_EQ(r.nonfinite, 0);
  EXPECT_LT(r.rel_error, default_tolerance(kP)) << "max_abs " << r.max_abs_error;
  EXPECT_GT(r.ref_norm, 0.0);
  const ErrorStats b = compare_outputs(y.get(), s.y_base.get(), kP, s.count, s.st.s);
  EXPECT_EQ(b.nonfinite, 0);
  EXPECT_LT(b.rel_error, default_tolerance(kP)) << "vs baseline, max_abs " << b.max_abs_error;
  // The baseline itself against the reference (once, through its own parameter).
  if (GetParam() == "baseline") EXPECT_EQ(b.rel_error, 0.0) << "baseline must be deterministic";
}

INSTANTIATE_TEST_SUITE_P(Lce, LceVariantFullShape, ::testing::ValuesIn(all_variant_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace gpubench::lce

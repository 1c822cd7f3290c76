// GPU tests of the measured end-to-end pipeline (ops/ikbo_lce/pipeline, label `gpu`): the gather reproduces table rows
// bit for bit; top-k is a stable per-request sort with padding; and the composed request (gather → LCE step → MLP →
// top-k) equals the stages run one by one against simple host references: the fp64 LCE reference, an MLP in
// double (rounding hidden activations as the device does), and a host top-k of the device scores.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "op/check.hpp"
#include "ops/ikbo_lce/reference.hpp"
#include "ops/ikbo_lce/variant.hpp"
#include "ops/ikbo_lce/pipeline/pipeline.hpp"
#include "support/download.hpp"
#include "support/gpu.hpp"
#include "ops/ikbo_lce/operands.hpp"

namespace gpubench::pipeline {
namespace {

using ::gpubench::testing::Stream;


using ::gpubench::testing::download;
using ::gpubench::testing::download_raw;

/// Rounds like the device's store of a hidden activation.
double round_to(Precision p, double x) {
  const float f = static_cast<float>(x);
  if (p == Precision::kFp16) return __half2float(__float2half_rn(f));
  if (p == Precision::kBf16) return __bfloat162float(__float2bfloat16_rn(f));
  return f;
}

double rel_l2(const std::vector<double>& y, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    num += (y[i] - ref[i]) * (y[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

TEST(PipelineGather, ReproducesTableRowsForEveryVectorWidth) {
  GPUBENCH_REQUIRE_GPU();
  Stream st;
  // fp16 rows of 3 (6 B: 2-byte moves), 4 (8 B), 6 (12 B: 4-byte), 8 (16 B: 16-byte vectors) elements.
  for (int64_t row : {3, 4, 6, 8}) {
    const int64_t rows = 11, count = 29;
    DeviceBuffer table(static_cast<size_t>(rows * row * 2)), out(static_cast<size_t>(count * row * 2));
    fill_scaled(Precision::kFp16, table.get(), rows * row, 3, kTensorUserTable, 1.f, st.s);
    std::vector<int32_t> idx(count);
    for (int64_t i = 0; i < count; ++i) idx[i] = static_cast<int32_t>((i * 7 + 3) % rows);
    DeviceBuffer d_idx(idx.size() * sizeof(int32_t));
    GPUBENCH_CUDA(cudaMemcpyAsync(d_idx.get(), idx.data(), d_idx.bytes(), cudaMemcpyHostToDevice, st.s));
    gather_rows(Precision::kFp16, table.get(), row, d_idx.as<const int32_t>(), count, out.get(), st.s);
    const auto t = download_raw<uint16_t>(table.get(), rows * row, st.s);
    const auto o = download_raw<uint16_t>(out.get(), count * row, st.s);
    for (int64_t i = 0; i < count; ++i)
      for (int64_t c = 0; c < row; ++c)
        ASSERT_EQ(o[i * row + c], t[idx[i] * row + c]) << "row length " << row << ", out row " << i << ", col " << c;
  }
}

TEST(PipelineTopK, StableDescendingPerRequestWithPadding) {
  GPUBENCH_REQUIRE_GPU();
  Stream st;
  // Requests of 6, 4 and 1 candidates; ties keep candidate order; k = 4 pads the last request.
  const std::vector<float> scores = {1, 3, 3, 2, 3, 0, /**/ 5, 5, -1, 5, /**/ 0.5f};
  const std::vector<int32_t> offsets = {0, 6, 10, 11};
  DeviceBuffer d_scores(scores.size() * sizeof(float)), d_offsets(offsets.size() * sizeof(int32_t));
  GPUBENCH_CUDA(cudaMemcpyAsync(d_scores.get(), scores.data(), d_scores.bytes(), cudaMemcpyHostToDevice, st.s));
  GPUBENCH_CUDA(cudaMemcpyAsync(d_offsets.get(), offsets.data(), d_offsets.bytes(), cudaMemcpyHostToDevice, st.s));
  SegmentedTopK topk(11, 3, 4, d_offsets.as<const int32_t>(), d_scores.as<const float>(), st.s);
  topk.run(st.s);
  const auto idx = download_raw<int32_t>(topk.idx(), 12, st.s);
  const auto sc = download_raw<float>(topk.score(), 12, st.s);
  EXPECT_EQ(idx, (std::vector<int32_t>{1, 2, 4, 3, /**/ 6, 7, 9, 8, /**/ 10, -1, -1, -1}));
  EXPECT_EQ(std::vector<float>(sc.begin(), sc.begin() + 9), (std::vector<float>{3, 3, 3, 2, 5, 5, 5, -1, 0.5f}));
  for (int j = 9; j < 12; ++j) EXPECT_TRUE(std::isinf(sc[j]) && sc[j] < 0) << j;
}

struct Case {
  Precision precision;
  const char* variant;
  const char* activation;
  double lce_tol, score_tol;
};

class PipelineComposition : public ::testing::TestWithParam<Case> {};

TEST_P(PipelineComposition, EqualsTheStagesRunOneByOne) {
  GPUBENCH_REQUIRE_GPU();
  const Case tc = GetParam();
  const lce::VariantInfo* info = lce::find_variant(tc.variant);
  ASSERT_NE(info, nullptr) << tc.variant;
  Stream st;
  // Odd sizes: K not a multiple of 8, one request of a single candidate, one shorter than top_k.
  const LceShape shape{.M = 6, .N = 16, .K_user = 5, .K_cand = 7};
  const RequestLayout layout = layout_from_lengths({7, 1, 9, 4, 7});
  const int64_t B = layout.batch, U = layout.requests(), MN = shape.M * shape.N;
  PipelineSpec spec;
  spec.user.rows = 13;
  spec.cand.rows = 17;
  spec.mlp_layers = {12, 5, 1};
  spec.activation = tc.activation;
  spec.top_k = 5;
  spec.seed = 5;
  const Precision p = tc.precision;
  RequestPipeline req(spec, shape, layout, p, false, st.s);

  // Gather: E rows are the table rows at the seeded indices (bitwise), indices in range and not all alike.
  const auto t_user = download(req.user_table(), spec.user.rows * shape.N, p, st.s);
  const auto t_cand = download(req.cand_table(), spec.cand.rows * shape.N, p, st.s);
  std::set<int32_t> distinct(req.cand_index().begin(), req.cand_index().end());
  EXPECT_GT(distinct.size(), 5u);
  for (int32_t i : req.cand_index()) ASSERT_TRUE(i >= 0 && i < spec.cand.rows);
  for (int32_t i : req.user_index()) ASSERT_TRUE(i >= 0 && i < spec.user.rows);

  auto variant = lce::create_variant(*info, nlohmann::json::object());
  variant->setup(req.lce_problem(), st.s);
  const std::vector<op::LaunchGroup> groups = req.groups(variant->groups());
  ASSERT_GE(groups.size(), 6u);
  EXPECT_EQ(groups.front().name, "gather");
  EXPECT_EQ(groups[1].name.rfind("lce:", 0), 0u) << groups[1].name;
  EXPECT_EQ(groups[groups.size() - 4].name, "mlp_0");
  EXPECT_EQ(groups[groups.size() - 2].name, "mlp_2");
  EXPECT_EQ(groups.back().name, "topk");
  // Poison the stage outputs so an unwritten element shows, then run the whole request.
  op::poison_output(const_cast<void*>(req.E_cand()), B * shape.K_cand * shape.N, p, st.s);
  op::poison_output(const_cast<void*>(req.Y()), B * MN, p, st.s);
  op::poison_output(const_cast<float*>(req.scores()), B, Precision::kFp32, st.s);
  for (const auto& g : groups) g.launch(st.s);
  GPUBENCH_CUDA(cudaStreamSynchronize(st.s));

  HostOperands h;
  h.precision = p;
  h.M = shape.M, h.N = shape.N, h.K_user = shape.K_user, h.K_cand = shape.K_cand, h.B = B, h.U = U;
  h.E_user = download(req.E_user(), U * shape.K_user * shape.N, p, st.s);
  h.E_cand = download(req.E_cand(), B * shape.K_cand * shape.N, p, st.s);
  h.W = download(req.lce_problem().W, shape.M * (shape.K_user + shape.K_cand), p, st.s);
  h.cand_to_user = layout.cand_to_user;
  h.offsets = layout.offsets;
  for (int64_t r = 0; r < U * shape.K_user; ++r)
    for (int64_t n = 0; n < shape.N; ++n)
      ASSERT_EQ(h.E_user[r * shape.N + n], t_user[req.user_index()[r] * shape.N + n]) << "E_user row " << r;
  for (int64_t r = 0; r < B * shape.K_cand; ++r)
    for (int64_t n = 0; n < shape.N; ++n)
      ASSERT_EQ(h.E_cand[r * shape.N + n], t_cand[req.cand_index()[r] * shape.N + n]) << "E_cand row " << r;

  // LCE stage against the fp64 reference on the gathered operands.
  const op::ErrorStats e = op::compare_host(req.Y(), p, lce::reference_fp64_host(h), st.s);
  EXPECT_EQ(e.nonfinite, 0);
  EXPECT_LT(e.rel_error, tc.lce_tol);

  // MLP stage: double on the device's Y, hidden activations rounded as stored; no activation on the last layer.
  const auto y = download(req.Y(), B * MN, p, st.s);
  std::vector<double> x(y.begin(), y.end());
  int64_t in = MN;
  for (size_t l = 0; l < spec.mlp_layers.size(); ++l) {
    const int64_t out = spec.mlp_layers[l];
    const bool last = l + 1 == spec.mlp_layers.size();
    const auto w = download(req.mlp_weight(l), in * out, p, st.s);
    const auto bias = download_raw<float>(req.mlp_bias(l), out, st.s);
    std::vector<double> next(static_cast<size_t>(B * out));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < out; ++j) {
        double acc = bias[j];
        for (int64_t i = 0; i < in; ++i) acc += x[b * in + i] * static_cast<double>(w[i * out + j]);
        next[b * out + j] = last ? acc : round_to(p, activate(req.activation(), acc));
      }
    x = std::move(next);
    in = out;
  }
  const auto scores = download_raw<float>(req.scores(), B, st.s);
  for (float s : scores) ASSERT_TRUE(std::isfinite(s));
  EXPECT_LT(rel_l2(std::vector<double>(scores.begin(), scores.end()), x), tc.score_tol);

  // Top-k stage: a host stable sort of the device scores gives the same slots exactly.
  const int64_t k = spec.top_k;
  const auto idx = download_raw<int32_t>(req.topk().idx(), U * k, st.s);
  const auto top = download_raw<float>(req.topk().score(), U * k, st.s);
  for (int64_t u = 0; u < U; ++u) {
    std::vector<int32_t> order(static_cast<size_t>(layout.lengths[u]));
    std::iota(order.begin(), order.end(), layout.offsets[u]);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return scores[a] > scores[b]; });
    for (int64_t j = 0; j < k; ++j) {
      const bool in_request = j < layout.lengths[u];
      EXPECT_EQ(idx[u * k + j], in_request ? order[j] : -1) << "request " << u << " slot " << j;
      if (in_request) EXPECT_EQ(top[u * k + j], scores[order[j]]) << "request " << u << " slot " << j;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Steps, PipelineComposition,
    ::testing::Values(Case{Precision::kFp32, "decomposed", "relu", 1e-5, 1e-5},
                      Case{Precision::kFp32, "baseline", "gelu", 1e-5, 1e-5},
                      Case{Precision::kFp16, "k_aligned", "relu", 2e-3, 2e-3},
                      Case{Precision::kBf16, "decomposed", "identity", 1e-2, 1e-2}),
    [](const ::testing::TestParamInfo<Case>& i) {
      return std::string(to_string(i.param.precision)) + "_" + i.param.variant + "_" + i.param.activation;
    });

}  // namespace
}  // namespace gpubench::pipeline

// /workload/shape as a list (docs/config.md, `shape`): the cases are shape × batch × requests, shape-major, each with
// its own shape; each entry is validated at its own JSON pointer; the resolved config keeps the form written, so a
// config with one shape object keeps its labels and its hash.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/parse.hpp"
#include "core/errors.hpp"
#include "support/config_fixtures.hpp"

namespace gpubench {
namespace {

using namespace testing;  // the config fixtures (support/config_fixtures.hpp)

/// {M, N, K_user, K_cand} as a shape object.
nlohmann::json shape(int64_t m, int64_t n, int64_t ku, int64_t kc) {
  return {{"M", m}, {"N", n}, {"K_user", ku}, {"K_cand", kc}};
}

/// good() with a fixed request length and `shapes` as /workload/shape.
nlohmann::json with_shapes(const nlohmann::json& shapes) {
  auto j = good();
  j["workload"]["shape"] = shapes;
  j["workload"]["requests"] = {{"distribution", "fixed"}, {"params", {{"length", 70}}}};
  return j;
}

/// The values of `s` in the op's order (M, N, K_user, K_cand).
std::vector<int64_t> values(const Shape& s) {
  std::vector<int64_t> out;
  for (const auto& p : s.params) out.push_back(p.second);
  return out;
}

TEST(ShapeList, CasesAreShapeMajorAndEachCarriesItsShapeInItsLabel) {
  auto j = with_shapes({shape(64, 200, 128, 64), shape(32, 128, 16, 48)});
  j["workload"]["batch"] = {512, 1024};
  const Config c = parse_config(j, context());
  ASSERT_EQ(c.workload.cases.size(), 4u);
  EXPECT_TRUE(c.workload.shape_sweep);
  const std::vector<std::string> labels = {"M=64 N=200 K_user=128 K_cand=64 B=512 fixed(length=70)",
                                           "M=64 N=200 K_user=128 K_cand=64 B=1024 fixed(length=70)",
                                           "M=32 N=128 K_user=16 K_cand=48 B=512 fixed(length=70)",
                                           "M=32 N=128 K_user=16 K_cand=48 B=1024 fixed(length=70)"};
  const std::vector<int64_t> batches = {512, 1024, 512, 1024};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(c.workload.cases[i].label, labels[i]);
    EXPECT_EQ(c.workload.cases[i].batch, batches[i]);
    EXPECT_EQ(values(c.workload.cases[i].shape),
              i < 2 ? (std::vector<int64_t>{64, 200, 128, 64}) : (std::vector<int64_t>{32, 128, 16, 48}));
  }
  // The single-shape field is the first case's shape.
  EXPECT_EQ(c.workload.shape, c.workload.cases[0].shape);
  // A parameter an entry leaves out takes the op's default, per entry.
  j = with_shapes({{{"M", 8}}, {{"N", 16}}});
  const Config d = parse_config(j, context());
  ASSERT_EQ(d.workload.cases.size(), 2u);
  EXPECT_EQ(values(d.workload.cases[0].shape), (std::vector<int64_t>{8, 256, 1178, 866}));
  EXPECT_EQ(values(d.workload.cases[1].shape), (std::vector<int64_t>{433, 16, 1178, 866}));
  EXPECT_EQ(d.workload.cases[1].label, "M=433 N=16 K_user=1178 K_cand=866 B=1024 fixed(length=70)");
}

TEST(ShapeList, ShapeComesBeforeBatchAndRequestsInTheOrder) {
  auto j = with_shapes({shape(8, 8, 8, 8), shape(16, 16, 16, 16)});
  j["workload"]["batch"] = {100, 200};
  j["workload"]["requests"] = nlohmann::json::array({{{"distribution", "fixed"}, {"params", {{"length", 10}}}},
                                                    {{"distribution", "fixed"}, {"params", {{"length", 20}}}}});
  const Config c = parse_config(j, context());
  ASSERT_EQ(c.workload.cases.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(c.workload.cases[i].shape.at("M"), i < 4 ? 8 : 16);
    EXPECT_EQ(c.workload.cases[i].batch, (i / 2) % 2 == 0 ? 100 : 200);
    EXPECT_EQ(c.workload.cases[i].requests.params.at("length"), i % 2 == 0 ? 10 : 20);
  }
  EXPECT_EQ(c.workload.cases[5].label, "M=16 N=16 K_user=16 K_cand=16 B=100 fixed(length=20)");
}

TEST(ShapeList, EachEntryIsValidatedAtItsOwnPointer) {
  expect_one(with_shapes({shape(8, 8, 8, 8), shape(8, 0, 8, 8)}), "/workload/shape/1/N", "must be ≥ 1, got 0");
  expect_one(with_shapes({{{"Kuser", 5}}, shape(8, 8, 8, 8)}), "/workload/shape/0/Kuser",
             "unknown key (did you mean 'K_user'?)");
  nlohmann::json fractional = shape(8, 8, 8, 8);
  fractional["K_cand"] = 8.5;
  expect_one(with_shapes({shape(8, 8, 8, 8), fractional}), "/workload/shape/1/K_cand", "expected an integer, got 8.5");
  // The op's cross-parameter check, at the entry.
  expect_one(with_shapes({shape(8, 8, 8, 8), shape(8, 8, 0, 0)}), "/workload/shape/1",
             "K_user + K_cand must be ≥ 1, got 0 + 0");
  expect_one(with_shapes({shape(8, 8, 8, 8), 7}), "/workload/shape/1", "expected an object, got integer");
  // Every bad entry is reported at once, each at its pointer.
  const auto issues = issues_of(with_shapes({shape(0, 8, 8, 8), shape(8, 8, 8, 8), shape(8, 8, -1, 8)}));
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].pointer, "/workload/shape/0/M");
  EXPECT_EQ(issues[1].pointer, "/workload/shape/2/K_user");
}

TEST(ShapeList, TensorSizesAreCheckedPerEntry) {
  // B·M·N·2 bytes overflows int64 for the second shape only: the problem names its N.
  auto j = with_shapes({shape(8, 8, 8, 8), shape(433, 1000000000000000LL, 8, 8)});
  const auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].pointer, "/workload/shape/1/N");
  EXPECT_NE(issues[0].message.find("overflows int64"), std::string::npos) << issues[0].message;
}

TEST(ShapeList, AnEmptyListIsAnError) {
  expect_one(with_shapes(nlohmann::json::array()), "/workload/shape",
             "expected a non-empty list of shape objects {M, N, K_user, K_cand}, got an empty list");
}

TEST(ShapeList, ARepeatedShapeIsAnErrorAtTheRepeat) {
  expect_one(with_shapes({shape(8, 8, 8, 8), shape(16, 8, 8, 8), shape(8, 8, 8, 8)}), "/workload/shape/2",
             "the same shape as /workload/shape/0 (M=8 N=8 K_user=8 K_cand=8): list each shape once");
  // Written differently (a default left out) is still the same shape.
  expect_one(with_shapes({shape(8, 256, 8, 8), {{"M", 8}, {"K_user", 8}, {"K_cand", 8}}}), "/workload/shape/1",
             "the same shape as /workload/shape/0");
}

TEST(ShapeList, AShapeThatIsNeitherObjectNorListSaysWhatIsAccepted) {
  expect_one(with_shapes("433x256"), "/workload/shape",
             "expected an object {M, N, K_user, K_cand} or a list of them (one case each), got string");
}

TEST(ShapeList, ResolvedConfigKeepsTheListAndParsesBackToTheSameCasesAndHash) {
  auto j = with_shapes({shape(64, 200, 128, 64), {{"M", 32}}});
  j["workload"]["batch"] = {512, 1024};
  const Config c = parse_config(j, context());
  const nlohmann::json& rs = c.resolved.at("workload").at("shape");
  ASSERT_TRUE(rs.is_array());
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0], shape(64, 200, 128, 64));
  EXPECT_EQ(rs[1], shape(32, 256, 1178, 866));  // defaults filled in
  EXPECT_EQ(c.resolved.at("workload").at("batch"), nlohmann::json({512, 1024}));
  const Config back = parse_config(c.resolved, context());
  EXPECT_EQ(back.hash, c.hash);
  ASSERT_EQ(back.workload.cases.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(back.workload.cases[i].label, c.workload.cases[i].label);
    EXPECT_EQ(back.workload.cases[i].shape, c.workload.cases[i].shape);
  }
  // The order of the shapes is part of the config (it orders the cases): swapping them changes the hash.
  auto swapped = j;
  std::swap(swapped["workload"]["shape"][0], swapped["workload"]["shape"][1]);
  EXPECT_NE(parse_config(swapped, context()).hash, c.hash);
}

TEST(ShapeList, OneShapeObjectKeepsItsLabelsResolvedObjectAndHash) {
  const Config object = parse_config(good(), context());
  EXPECT_FALSE(object.workload.shape_sweep);
  EXPECT_EQ(object.workload.cases.at(0).label, "B=1024 lognormal(mean=70,sigma=0.8)");
  EXPECT_EQ(object.resolved.at("workload").at("shape"), shape(433, 256, 1178, 866));
  EXPECT_EQ(object.workload.cases.at(0).shape, object.workload.shape);
  // The hash of the resolved object is the hash of the same JSON with the shape written out by hand: the shape
  // enters it as the plain object it always was.
  nlohmann::json by_hand = object.resolved;
  by_hand["workload"]["shape"] = nlohmann::json::parse(R"({"K_cand": 866, "K_user": 1178, "M": 433, "N": 256})");
  EXPECT_EQ(config_hash(by_hand), object.hash);
  // A list of one shape: the same case and label (one shape, no sweep), but the resolved form stays a list.
  auto j = good();
  j["workload"]["shape"] = nlohmann::json::array({good()["workload"]["shape"]});
  const Config list = parse_config(j, context());
  EXPECT_FALSE(list.workload.shape_sweep);
  EXPECT_EQ(list.workload.cases.at(0).label, object.workload.cases.at(0).label);
  EXPECT_EQ(list.workload.cases.at(0).shape, object.workload.cases.at(0).shape);
  EXPECT_TRUE(list.resolved.at("workload").at("shape").is_array());
  EXPECT_NE(list.hash, object.hash);
  // An absent shape is the op's defaults, resolved as an object.
  j = good();
  j["workload"].erase("shape");
  const Config absent = parse_config(j, context());
  EXPECT_EQ(absent.resolved.at("workload").at("shape"), shape(433, 256, 1178, 866));
  EXPECT_EQ(absent.hash, object.hash);
}

TEST(ShapeList, RepeatedCasesAreStillCaughtWithinAShape) {
  auto j = with_shapes({shape(8, 8, 8, 8), shape(16, 16, 16, 16)});
  j["workload"]["batch"] = {512, 512};
  const auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 2u);  // one per shape: cases 0/1 and 2/3
  EXPECT_EQ(issues[0].pointer, "/workload");
  EXPECT_NE(issues[0].message.find("cases 0 and 1 are the same (M=8 N=8 K_user=8 K_cand=8 B=512 fixed(length=70))"),
            std::string::npos)
      << issues[0].message;
  EXPECT_NE(issues[1].message.find("cases 2 and 3 are the same"), std::string::npos) << issues[1].message;
}

TEST(ShapeList, SetOverridesReachAnEntryByIndex) {
  auto j = with_shapes({shape(8, 8, 8, 8), shape(16, 16, 16, 16)});
  apply_config_overrides(j, {parse_config_override("workload.shape.1.N=72")}, "t.json");
  const Config c = parse_config(j, context());
  EXPECT_EQ(c.workload.cases.at(1).shape.at("N"), 72);
  EXPECT_EQ(c.workload.cases.at(0).shape.at("N"), 8);
  // Without an index the path runs into the list: refused naming the pointer.
  j = with_shapes({shape(8, 8, 8, 8), shape(16, 16, 16, 16)});
  try {
    apply_config_overrides(j, {parse_config_override("workload.shape.N=72")}, "t.json");
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues.size(), 1u);
    EXPECT_NE(e.issues[0].pointer.find("/workload/shape"), std::string::npos) << e.issues[0].pointer;
  }
}

TEST(ShapeList, PipelineFeaturesMustMatchEveryShape) {
  auto j = with_shapes({shape(8, 16, 3, 4), shape(8, 16, 5, 4)});
  j.erase("end_to_end");
  j["end_to_end"]["pipeline"] = {{"tables", {{"user", {{"rows", 100}}}, {"cand", {{"rows", 100}, {"features", 4}}}}}};
  const Config c = parse_config(j, context());  // features left out where the shapes differ; K_cand is 4 in both
  ASSERT_TRUE(c.end_to_end.pipeline.has_value());
  j["end_to_end"]["pipeline"]["tables"]["user"]["features"] = 3;
  expect_one(j, "/end_to_end/pipeline/tables/user/features",
             "must equal K_user of every shape of /workload/shape, got 3 but shape M=8 N=16 K_user=5 K_cand=4 has 5");
}

}  // namespace
}  // namespace gpubench

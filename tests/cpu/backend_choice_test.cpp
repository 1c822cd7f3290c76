// Option backend "auto" of fused / pipelined (ops/ikbo_lce/backend_choice.hpp): the cache key, the cache file (read,
// merge, atomic write, damage and schema 1 read as no entry), the choice rule and the tile candidates. The trial itself needs a GPU:
// tests/gpu/backend_choice_gpu_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "ops/ikbo_lce/backend_choice.hpp"
#include "ops/ikbo_lce/step_schemas.hpp"
#include "ops/ikbo_lce/variant.hpp"

namespace gpubench::lce {
namespace {

namespace fs = std::filesystem;

Problem reference_problem() {
  Problem p;
  p.M = 433, p.N = 256, p.K_user = 1178, p.K_cand = 866, p.B = 1024, p.U = 15;
  return p;
}

class BackendCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpubench_backend_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "lce-backend-GPU-x.json").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string path_;
};

BackendChoice choice(const std::string& backend, double tile_ms, double library_ms) {
  BackendChoice c;
  c.backend = backend;
  c.tile_ms = tile_ms;
  c.library_ms = library_ms;
  c.launches = 10;
  c.measured_at = "2026-12-03T10:00:00Z";
  return c;
}

TEST(BackendKey, NamesTheProblemAndTheOptionsButNotTheBackend) {
  const Problem p = reference_problem();
  const std::string key = backend_key("pipelined", {{"backend", "auto"}}, p);
  EXPECT_EQ(key.rfind("pipelined fp16 M=433 N=256 K_user=1178 K_cand=866 B=1024 U=15 options=", 0), 0u) << key;
  EXPECT_EQ(key, backend_key("pipelined", nlohmann::json::object(), p)) << "backend is not part of the key";
  EXPECT_NE(key, backend_key("pipelined", {{"backend", "auto"}, {"k_tail", "pad"}}, p)) << "other options, other key";
  EXPECT_NE(key, backend_key("fused", {{"backend", "auto"}}, p));
  Problem bf16 = p;
  bf16.precision = Precision::kBf16;
  EXPECT_NE(key, backend_key("pipelined", {{"backend", "auto"}}, bf16));
  Problem other_u = p;
  other_u.U = 1024;  // one candidate per request: the user GEMM as large as the candidate GEMM
  EXPECT_NE(key, backend_key("pipelined", {{"backend", "auto"}}, other_u));
}

TEST(BackendOption, FusedAndPipelinedTakeTileOrAutoDefaultAuto) {
  for (const auto* schema : {&fused_schema(), &pipelined_schema()}) {
    using config_detail::StepOptions;
    EXPECT_EQ(StepOptions::resolve(*schema, nlohmann::json::object()).text("backend"), "auto") << schema->name;
    EXPECT_EQ(StepOptions::resolve(*schema, {{"backend", "tile"}}).text("backend"), "tile");
    EXPECT_EQ(StepOptions::resolve(*schema, {{"backend", "auto"}, {"k_tail", "pad"}}).text("backend"), "auto");
    EXPECT_THROW(StepOptions::resolve(*schema, {{"backend", "cublas"}}), InputError) << schema->name;
  }
  EXPECT_EQ(k_aligned_schema().find("backend"), nullptr) << "the library step has no backend to choose";
}

TEST(BackendRule, TheLibraryRunsWhenTheTileKernelIsSlowerOrCannotRun) {
  EXPECT_EQ(faster_backend(choice("", 0.33, 0.46)), "tile");
  EXPECT_EQ(faster_backend(choice("", 0.07, 0.03)), "library");
  EXPECT_EQ(faster_backend(choice("", 0.05, 0.05)), "tile") << "a tie keeps the tile kernel";
  BackendChoice refused = choice("", 0, 0.03);
  refused.tile_skipped = "pipelined: M must be at most 4096";
  EXPECT_EQ(faster_backend(refused), "library");
}

TEST_F(BackendCache, EntriesRoundTripAndAccumulate) {
  EXPECT_TRUE(read_backend_cache(path_).empty()) << "no file: no entry";
  ASSERT_EQ(write_backend_choice(path_, "GPU-x", "a", choice("library", 0.0702, 0.0304)), "");
  ASSERT_EQ(write_backend_choice(path_, "GPU-x", "b", choice("tile", 0.332, 0.466)), "");
  const auto cache = read_backend_cache(path_);
  ASSERT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.at("a").backend, "library");
  EXPECT_DOUBLE_EQ(cache.at("a").tile_ms, 0.0702);
  EXPECT_DOUBLE_EQ(cache.at("a").library_ms, 0.0304);
  EXPECT_EQ(cache.at("b").backend, "tile");
  EXPECT_EQ(cache.at("b").measured_at, "2026-12-03T10:00:00Z");
  EXPECT_EQ(nlohmann::json::parse(read_file(path_)).at("uuid"), "GPU-x");
  // A new trial of a key replaces its entry.
  ASSERT_EQ(write_backend_choice(path_, "GPU-x", "a", choice("tile", 0.02, 0.03)), "");
  EXPECT_EQ(read_backend_cache(path_).at("a").backend, "tile");
}

TEST_F(BackendCache, DamageReadsAsNoEntryAndIsReplacedByTheNextWrite) {
  for (const std::string bad : {"", "{", "[]", R"({"schema_version": 3, "entries": {"a": {"backend": "tile",
                                "tile_ms": 0.3, "library_ms": 0.4}}})", R"({"schema_version": 5, "entries": []})"}) {
    write_file_atomic(path_, bad);
    EXPECT_TRUE(read_backend_cache(path_).empty()) << bad;
  }
  write_file_atomic(path_, R"({"schema_version": 5, "entries": {
      "ok": {"backend": "tile", "tile_ms": 0.3, "library_ms": 0.4},
      "options": {"backend": "tile", "tile_ms": 0.3, "library_ms": 0.4, "tile_options": "pingpong"},
      "times": {"backend": "tile", "tile_ms": 0.3, "library_ms": 0.4, "candidate_ms": {"{}": "fast"}},
      "word": {"backend": "cublas", "tile_ms": 0.3, "library_ms": 0.4},
      "type": {"backend": "tile", "tile_ms": "fast", "library_ms": 0.4},
      "shape": 7}})");
  const auto cache = read_backend_cache(path_);
  ASSERT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.count("ok"), 1u);
  ASSERT_EQ(write_backend_choice(path_, "GPU-x", "new", choice("library", 0.1, 0.05)), "");
  EXPECT_EQ(read_backend_cache(path_).size(), 2u) << "the damaged entries are dropped, the good one kept";
}

TEST_F(BackendCache, KeepsTheWinningCandidateAndEachCandidatesTime) {
  BackendChoice c = choice("tile", 0.21, 0.40);
  c.tile_options = {{"schedule", "pingpong"}};
  c.candidate_ms = {{"{}", 0.33}, {R"({"schedule":"pingpong"})", 0.21}};
  ASSERT_EQ(write_backend_choice(path_, "GPU-x", "a", c), "");
  const BackendChoice back = read_backend_cache(path_).at("a");
  EXPECT_EQ(back.tile_options, nlohmann::json({{"schedule", "pingpong"}}));
  ASSERT_EQ(back.candidate_ms.size(), 2u);
  EXPECT_DOUBLE_EQ(back.candidate_ms.at("{}"), 0.33);
  EXPECT_DOUBLE_EQ(back.candidate_ms.at(R"({"schedule":"pingpong"})"), 0.21);
  EXPECT_FALSE(back.cached) << "cached is set by the step that reads it, not stored";
}

TEST_F(BackendCache, AFileOfAnEarlierSchemaIsMeasuredAgain) {
  // Schema 1's trial timed launches one by one (host gaps included) and knew one tile configuration; schema 2's
  // flushed L2 with a memset, whose write-back landed in the library path's samples; schema 3's timed its candidates
  // one after another, so a transient stall could land on one of them; schema 4's never tried pipelined's inline
  // user GEMM.
  for (const int version : {1, 2, 3, 4}) {
    write_file_atomic(path_, R"({"schema_version": )" + std::to_string(version) + R"(, "uuid": "GPU-x", "entries": {
        "a": {"backend": "library", "tile_ms": 0.02, "library_ms": 0.019}}})");
    EXPECT_TRUE(read_backend_cache(path_).empty()) << version;
    ASSERT_EQ(write_backend_choice(path_, "GPU-x", "b", choice("tile", 0.3, 0.4)), "");
    EXPECT_EQ(nlohmann::json::parse(read_file(path_)).at("schema_version"), 5);
    EXPECT_EQ(read_backend_cache(path_).count("a"), 0u) << "the old entry is not carried over";
  }
}

/// The overrides of each tile candidate of step `name` with the config's `given` options.
std::vector<nlohmann::json> candidate_options(const std::string& name, const nlohmann::json& given) {
  const VariantInfo* info = find_variant(name);
  if (info == nullptr) throw std::runtime_error("no step " + name);
  std::vector<nlohmann::json> out;
  for (const auto& t : tile_candidates(*info, StepOptions::resolve(*info->schema, given), given))
    out.push_back(t.options);
  return out;
}

TEST(TileCandidates, PipelinedAlsoTriesThePingPongScheduleAndTheInlineUserGemmUnlessTheConfigSetsThem) {
  const nlohmann::json own = nlohmann::json::object();
  const nlohmann::json pingpong = {{"schedule", "pingpong"}};
  const nlohmann::json inl = {{"user_gemm", "inline"}};
  EXPECT_EQ(candidate_options("pipelined", own), (std::vector<nlohmann::json>{own, pingpong, inl}));
  EXPECT_EQ(candidate_options("pipelined", {{"k_tail", "pad"}}), (std::vector<nlohmann::json>{own, pingpong, inl}))
      << "other options travel with every candidate";
  EXPECT_EQ(candidate_options("pipelined", {{"schedule", "cooperative"}}), (std::vector<nlohmann::json>{own, inl}))
      << "a schedule the config names is kept";
  EXPECT_EQ(candidate_options("pipelined", {{"cluster", "1x2"}}), (std::vector<nlohmann::json>{own, inl}))
      << "1x2 needs the cooperative schedule";
  EXPECT_EQ(candidate_options("pipelined", {{"stages", 5}}), (std::vector<nlohmann::json>{own, inl}));
  EXPECT_EQ(candidate_options("pipelined", {{"user_gemm", "tiles"}}), (std::vector<nlohmann::json>{own, pingpong}))
      << "a user_gemm the config names is kept";
  EXPECT_EQ(candidate_options("fused", own), std::vector<nlohmann::json>{own}) << "fused has one schedule";
}

TEST(TileCandidates, TheInlineUserGemmIsTriedWhereItsRepeatedUserWorkIsSmallOrOneWaveHoldsIt) {
  Problem pr;
  pr.M = 433;
  pr.N = 256;
  pr.K_user = 1178;  // 19 stages of 64
  pr.K_cand = 866;   // 14
  pr.B = 16384;
  pr.U = 16384;  // one candidate per request: inline repeats nothing (B·33 = U·19 + B·14)
  EXPECT_TRUE(inline_user_may_pay(pr, 132));
  pr.U = 164;  // 100 per request: B·33 = 540672 > 1.25 · (164·19 + 16384·14) = 290615
  EXPECT_FALSE(inline_user_may_pay(pr, 132));
  pr.B = 66;  // 2 · 2 · 66 = 264 candidate tiles > 132: more than one wave
  pr.U = 1;
  EXPECT_FALSE(inline_user_may_pay(pr, 132));
  pr.B = 33;  // 2 · 2 · 33 = 132 tiles: one wave
  EXPECT_TRUE(inline_user_may_pay(pr, 132));
  EXPECT_FALSE(inline_user_may_pay(pr, 131));
  pr.K_user = 0;
  EXPECT_FALSE(inline_user_may_pay(pr, 132)) << "no user features: nothing to inline";
  pr.K_user = 64;  // 1 stage against K_cand's 14: B·15 ≤ 1.25 · (U·1 + B·14) for any U
  pr.B = 4096;
  EXPECT_TRUE(inline_user_may_pay(pr, 132));
}

TEST_F(BackendCache, AnUnwritableFolderIsAReasonNotAnError) {
  const std::string blocked = (dir_ / "file").string();
  write_file_atomic(blocked, "x");  // a file where the cache folder would be
  EXPECT_NE(write_backend_choice(blocked + "/lce-backend-GPU-x.json", "GPU-x", "a", choice("tile", 1, 2)), "");
}

TEST_F(BackendCache, ConcurrentWritersNeverLeaveATornFile) {
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([this, t] {
      for (int i = 0; i < 25; ++i)
        write_backend_choice(path_, "GPU-x", "k" + std::to_string(t) + "_" + std::to_string(i),
                            choice("tile", 0.3, 0.4));
    });
  for (auto& w : writers) w.join();
  const nlohmann::json doc = nlohmann::json::parse(read_file(path_));  // throws on a torn file
  // A writer that read the file before another's rename drops that one's newest entry (the last writer wins), so
  // only the bounds are certain; the next run measures a dropped key again.
  EXPECT_GE(doc.at("entries").size(), 1u);
  EXPECT_LE(doc.at("entries").size(), 100u);
  EXPECT_EQ(read_backend_cache(path_).size(), doc.at("entries").size()) << "every entry that survived is whole";
}

}  // namespace
}  // namespace gpubench::lce

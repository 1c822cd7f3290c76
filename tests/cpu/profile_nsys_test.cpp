// The Nsight Systems SQLite importer (result/profile_nsys.cpp) on synthetic exports built here with the SQLite C API,
// with nsys' own table and column names: activities and their names, launch links through correlationId (per
// process), NVTX ranges, iteration marks, tolerated gaps (optional tables, open ranges) and the errors for files it
// cannot read. Built without SQLite, every test skips but the one that checks the "built without SQLite" error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#ifdef GPUBENCH_HAVE_SQLITE
#include <sqlite3.h>
#endif

#include "core/errors.hpp"
#include "analysis/profile_rank.hpp"
#include "result/profile.hpp"
#include "result/profile_nsys.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

#ifdef GPUBENCH_HAVE_SQLITE
#define REQUIRE_SQLITE() (void)0
#else
#define REQUIRE_SQLITE() GTEST_SKIP() << "SKIPPED: built without SQLite"
#endif

/// Serialized nsys ids: process above the 24 thread bits (globalPid has thread 0).
constexpr int64_t kPid = int64_t{4321} << 24;
constexpr int64_t kTid = kPid + 4330;
constexpr int64_t kOtherPid = int64_t{5555} << 24;
constexpr int64_t kOtherTid = kOtherPid + 5560;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("gpubench_nsys_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// Creates the SQLite database `path` from the SQL script `sql` (a no-op without SQLite: the tests skip first).
void make_db(const fs::path& path, const std::string& sql) {
#ifdef GPUBENCH_HAVE_SQLITE
  fs::remove(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const std::string script = "PRAGMA synchronous = OFF; BEGIN;" + sql + "COMMIT;";  // one write, no fsync: fast
  const int rc = sqlite3_exec(db, script.c_str(), nullptr, nullptr, &err);
  const std::string why = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << why;
#else
  (void)path;
  (void)sql;
#endif
}

std::string read_bytes(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

// The tables as `nsys export --type sqlite` creates them (Nsight Systems SQLite schema reference).
const std::string kStringIds = "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);";
const std::string kKernelTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,"
    " contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
    " demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,"
    " registersPerThread INTEGER NOT NULL DEFAULT 32, gridX INTEGER NOT NULL DEFAULT 1,"
    " blockX INTEGER NOT NULL DEFAULT 128);";
const std::string kRuntimeTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
    " eventClass INTEGER NOT NULL DEFAULT 1, globalTid INTEGER, correlationId INTEGER,"
    " nameId INTEGER NOT NULL DEFAULT 0, returnValue INTEGER NOT NULL DEFAULT 0, callchainId INTEGER);";
const std::string kMemcpyTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,"
    " contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
    " bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER, graphNodeId INTEGER);";
const std::string kMemsetTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,"
    " contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
    " value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);";
const std::string kNvtxTable =
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,"
    " category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER REFERENCES"
    " StringIds(id), domainId INTEGER, uint64Value INTEGER, jsonText TEXT);";

std::string sql_int(int64_t v) { return std::to_string(v); }

/// A full export: 3 good kernels (and one ending before it starts), 4 memcpys, a memset, 4 runtime calls (3 of them
/// launches of those), NVTX push/pop (text and textId), start/end, a mark, an open range and a domain event.
std::string full_export_sql() {
  const std::string pid = sql_int(kPid), tid = sql_int(kTid);
  return kStringIds + kKernelTable + kRuntimeTable + kMemcpyTable + kMemsetTable + kNvtxTable +
         "INSERT INTO StringIds VALUES (1, 'void gemm<float>(float*, int)'), (2, 'gemm'), (4, 'lce'),"
         " (5, 'relu_kernel'), (6, 'cudaLaunchKernel');"
         // start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName
         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid,"
         " demangledName, shortName) VALUES"
         " (1000, 2000, 0, 1, 7, 10, " + pid + ", 1, 2),"
         " (3000, 3500, 1, 1, 13, 99, " + pid + ", 1, 2),"
         " (4000, 3000, 0, 1, 7, 14, " + pid + ", 1, 2),"
         " (2500, 2700, 0, 1, 7, 12, " + pid + ", 77, 5);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, globalTid, correlationId, nameId) VALUES"
         " (900, 950, " + tid + ", 10, 6), (1100, 1150, " + tid + ", 11, 6), (2400, 2450, " + tid + ", 12, 6),"
         " (5000, 5050, " + tid + ", 500, 6);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId, globalPid,"
         " bytes, copyKind) VALUES"
         " (1200, 1300, 0, 1, 7, 11, " + pid + ", 4096, 1), (1400, 1500, 0, 1, 7, 20, " + pid + ", 4096, 2),"
         " (1600, 1700, 0, 1, 7, 21, " + pid + ", 4096, 8), (1800, 1900, 0, 1, 7, 22, " + pid + ", 4096, 3);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, correlationId, globalPid,"
         " value, bytes) VALUES (2100, 2200, 0, 1, 9, 23, " + pid + ", 0, 1024);"
         "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) VALUES"
         " (500, 5000, 59, 'ProfilerStep#3', " + tid + ", NULL),"
         " (600, 1500, 59, NULL, " + tid + ", 4),"
         " (100, 200, 60, 'warmup', " + tid + ", NULL),"
         " (300, NULL, 34, 'a mark', " + tid + ", NULL),"
         " (700, NULL, 59, 'never closed', " + tid + ", NULL),"
         " (50, NULL, 75, 'my domain', " + tid + ", NULL);";
}

const GpuActivity* find_activity(const ProfileTrace& t, int64_t start) {
  for (const auto& a : t.activities)
    if (a.start_ns == start) return &a;
  return nullptr;
}

const AnnotationRange* find_range(const ProfileTrace& t, int64_t start) {
  for (const auto& r : t.ranges)
    if (r.start_ns == start) return &r;
  return nullptr;
}

bool has_note(const ProfileTrace& t, const std::string& words) {
  return std::any_of(t.notes.begin(), t.notes.end(),
                     [&](const std::string& n) { return n.find(words) != std::string::npos; });
}

/// `f` throws an InputError whose message holds each of `words`.
void expect_input_error(const std::function<void()>& f, const std::vector<std::string>& words) {
  EXPECT_THROW(f(), InputError);
  try {
    f();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    for (const auto& w : words) EXPECT_NE(msg.find(w), std::string::npos) << "'" << w << "' not in: " << msg;
  }
}

class NsysImport : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(testing::UnitTest::GetInstance()->current_test_info()->name());
    full_ = (dir_ / "full.sqlite").string();
    make_db(full_, full_export_sql());
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string full_;
};

TEST_F(NsysImport, ReadsKernelsMemcpyMemsetWithNames) {
  REQUIRE_SQLITE();
  const ProfileTrace t = read_nsys_sqlite(full_, ImportOptions{});
  EXPECT_EQ(t.format, "nsys");
  EXPECT_EQ(t.path, full_);
  ASSERT_EQ(t.activities.size(), 8u);  // 3 kernels + 4 memcpy + 1 memset; the backwards kernel is skipped
  const GpuActivity* gemm = find_activity(t, 1000);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(t.names.name(gemm->name), "void gemm<float>(float*, int)");  // demangledName, not shortName
  EXPECT_EQ(gemm->end_ns, 2000);
  EXPECT_EQ(gemm->device, 0);
  EXPECT_EQ(gemm->stream, 7);
  const GpuActivity* relu = find_activity(t, 2500);  // demangledName 77 is not in StringIds: shortName
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(t.names.name(relu->name), "relu_kernel");
  EXPECT_EQ(find_activity(t, 4000), nullptr);
  EXPECT_TRUE(has_note(t, "GPU activities with no start or end, ending before they start or lasting over a day, "
                         "skipped: 1"))
      << testing::PrintToString(t.notes);
  EXPECT_EQ(t.names.name(find_activity(t, 1200)->name), "Memcpy HtoD");
  EXPECT_EQ(t.names.name(find_activity(t, 1400)->name), "Memcpy DtoH");
  EXPECT_EQ(t.names.name(find_activity(t, 1600)->name), "Memcpy DtoD");
  EXPECT_EQ(t.names.name(find_activity(t, 1800)->name), "Memcpy");
  const GpuActivity* memset = find_activity(t, 2100);
  ASSERT_NE(memset, nullptr);
  EXPECT_EQ(t.names.name(memset->name), "Memset");
  EXPECT_EQ(memset->end_ns, 2200);
  EXPECT_EQ(memset->stream, 9);
}

TEST_F(NsysImport, AnchorsOnTheLaunchingRuntimeCall) {
  REQUIRE_SQLITE();
  const ProfileTrace t = read_nsys_sqlite(full_, ImportOptions{});
  EXPECT_EQ(t.linked, 3);  // correlationIds 10, 11, 12
  const std::string thread = "tid " + std::to_string(kTid);
  const GpuActivity* gemm = find_activity(t, 1000);
  EXPECT_EQ(t.names.name(gemm->anchor_track), thread);
  EXPECT_EQ(gemm->anchor_ns, 900);
  EXPECT_EQ(find_activity(t, 1200)->anchor_ns, 1100);  // the HtoD memcpy
  EXPECT_EQ(find_activity(t, 2500)->anchor_ns, 2400);
  const GpuActivity* lone = find_activity(t, 3000);  // correlationId 99: no runtime row
  EXPECT_EQ(t.names.name(lone->anchor_track), "GPU 1 stream 13");
  EXPECT_EQ(lone->anchor_ns, 3000);
  EXPECT_EQ(t.names.name(find_activity(t, 2100)->anchor_track), "GPU 0 stream 9");
}

TEST_F(NsysImport, CorrelationIdsLinkWithinTheirProcess) {
  REQUIRE_SQLITE();
  // Two processes in one export reuse correlationId 10: each kernel links to its own process' thread. Id 30 has a
  // launch in the other process only: linked to it, with a note.
  const std::string db = (dir_ / "two.sqlite").string();
  make_db(db, kStringIds + kKernelTable + kRuntimeTable +
                  "INSERT INTO StringIds VALUES (1, 'k');"
                  "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, globalTid, correlationId) VALUES"
                  " (100, 110, " + sql_int(kOtherTid) + ", 10), (200, 210, " + sql_int(kTid) + ", 10),"
                  " (300, 310, " + sql_int(kOtherTid) + ", 30);"
                  "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId,"
                  " globalPid, demangledName, shortName) VALUES (1000, 1100, 0, 1, 7, 10, " + sql_int(kPid) + ", 1, 1),"
                  " (2000, 2100, 1, 1, 7, 10, " + sql_int(kOtherPid) + ", 1, 1),"
                  " (3000, 3100, 0, 1, 7, 30, " + sql_int(kPid) + ", 1, 1);");
  const ProfileTrace t = read_nsys_sqlite(db, ImportOptions{});
  ASSERT_EQ(t.activities.size(), 3u);
  EXPECT_EQ(t.linked, 3);
  EXPECT_EQ(t.names.name(find_activity(t, 1000)->anchor_track), "tid " + std::to_string(kTid));
  EXPECT_EQ(find_activity(t, 1000)->anchor_ns, 200);
  EXPECT_EQ(t.names.name(find_activity(t, 2000)->anchor_track), "tid " + std::to_string(kOtherTid));
  EXPECT_EQ(find_activity(t, 2000)->anchor_ns, 100);
  EXPECT_EQ(find_activity(t, 3000)->anchor_ns, 300);
  EXPECT_TRUE(has_note(t, "activities linked to a launch of another process (same correlationId): check the links: 1"))
      << testing::PrintToString(t.notes);
}

TEST_F(NsysImport, ReadsNvtxRangesAndIterations) {
  REQUIRE_SQLITE();
  const ProfileTrace t = read_nsys_sqlite(full_, ImportOptions{});
  ASSERT_EQ(t.ranges.size(), 3u);  // 2 push/pop + 1 start/end; the mark, the open range and the domain are not
  const std::string thread = "tid " + std::to_string(kTid);
  const AnnotationRange* step = find_range(t, 500);
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(t.names.name(step->name), "ProfilerStep#3");
  EXPECT_EQ(step->end_ns, 5000);
  EXPECT_EQ(t.names.name(step->track), thread);
  EXPECT_TRUE(step->iteration);
  const AnnotationRange* lce = find_range(t, 600);  // text NULL: the name is StringIds[textId]
  ASSERT_NE(lce, nullptr);
  EXPECT_EQ(t.names.name(lce->name), "lce");
  EXPECT_EQ(lce->end_ns, 1500);
  EXPECT_FALSE(lce->iteration);
  const AnnotationRange* warmup = find_range(t, 100);  // start/end range
  ASSERT_NE(warmup, nullptr);
  EXPECT_EQ(t.names.name(warmup->name), "warmup");
  EXPECT_EQ(warmup->end_ns, 200);
  EXPECT_FALSE(warmup->iteration);
  EXPECT_EQ(find_range(t, 300), nullptr);  // the mark
  EXPECT_TRUE(has_note(t, "NVTX ranges with no end (never closed) skipped: 1")) << testing::PrintToString(t.notes);
}

TEST_F(NsysImport, IterationPatternIsAnOption) {
  REQUIRE_SQLITE();
  ImportOptions o;
  o.iteration_pattern = "^(lce|warmup)$";
  const ProfileTrace t = read_nsys_sqlite(full_, o);
  EXPECT_FALSE(find_range(t, 500)->iteration);
  EXPECT_TRUE(find_range(t, 600)->iteration);
  EXPECT_TRUE(find_range(t, 100)->iteration);
}

TEST_F(NsysImport, ToleratesMissingOptionalTables) {
  REQUIRE_SQLITE();
  const std::string db = (dir_ / "kernels_only.sqlite").string();
  make_db(db, kStringIds + kKernelTable +
                  "INSERT INTO StringIds VALUES (1, 'k1'), (2, 'k2');"
                  "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId,"
                  " globalPid, demangledName, shortName) VALUES (10, 20, 0, 1, 3, 1, " + sql_int(kPid) + ", 1, 1),"
                  " (30, 45, 2, 1, 4, 2, " + sql_int(kPid) + ", 2, 2);");
  const ProfileTrace t = read_nsys_sqlite(db, ImportOptions{});
  ASSERT_EQ(t.activities.size(), 2u);
  EXPECT_TRUE(t.ranges.empty());
  EXPECT_EQ(t.linked, 0);
  EXPECT_EQ(t.names.name(find_activity(t, 30)->name), "k2");
  EXPECT_EQ(t.names.name(find_activity(t, 30)->anchor_track), "GPU 2 stream 4");
  EXPECT_EQ(find_activity(t, 30)->anchor_ns, 30);
  EXPECT_TRUE(has_note(t, "no CUPTI_ACTIVITY_KIND_RUNTIME table")) << testing::PrintToString(t.notes);
  EXPECT_TRUE(has_note(t, "no NVTX_EVENTS table")) << testing::PrintToString(t.notes);
}

TEST_F(NsysImport, BytesVariantGivesTheSameTrace) {
  REQUIRE_SQLITE();
  const ProfileTrace f = read_nsys_sqlite(full_, ImportOptions{});
  const ProfileTrace b = read_nsys_sqlite_bytes(read_bytes(full_), "in-memory.sqlite", ImportOptions{});
  EXPECT_EQ(b.path, "in-memory.sqlite");
  EXPECT_EQ(b.activities.size(), f.activities.size());
  EXPECT_EQ(b.ranges.size(), f.ranges.size());
  EXPECT_EQ(b.linked, f.linked);
  EXPECT_EQ(b.notes, f.notes);
  EXPECT_EQ(b.names.name(find_activity(b, 1000)->anchor_track), "tid " + std::to_string(kTid));
}

TEST_F(NsysImport, RefusesATextFile) {
  REQUIRE_SQLITE();
  const std::string txt = (dir_ / "notes.txt").string();
  write_bytes(txt, "this is a text file, not a database\n" + std::string(2000, 'x'));
  expect_input_error([&] { read_nsys_sqlite(txt, ImportOptions{}); }, {txt, "not a readable SQLite database"});
  expect_input_error([&] { read_nsys_sqlite_bytes(read_bytes(txt), "mem.txt", ImportOptions{}); },
                     {"mem.txt", "not a readable SQLite database"});
}

TEST_F(NsysImport, RefusesATruncatedDatabase) {
  REQUIRE_SQLITE();
  const std::string cut = (dir_ / "cut.sqlite").string();
  write_bytes(cut, read_bytes(full_).substr(0, 1000));
  expect_input_error([&] { read_nsys_sqlite(cut, ImportOptions{}); }, {cut, "not a readable SQLite database"});
  expect_input_error([&] { read_nsys_sqlite_bytes(read_bytes(cut), "cut", ImportOptions{}); },
                     {"cut", "not a readable SQLite database"});
}

TEST_F(NsysImport, RefusesAnExportWithoutKernels) {
  REQUIRE_SQLITE();
  const std::string db = (dir_ / "no_cuda.sqlite").string();
  make_db(db, kStringIds + kNvtxTable + "INSERT INTO StringIds VALUES (1, 'x');");
  expect_input_error([&] { read_nsys_sqlite(db, ImportOptions{}); },
                     {db, "no CUPTI_ACTIVITY_KIND_KERNEL table", "--trace=cuda,nvtx", "nsys export --type sqlite"});
}

TEST_F(NsysImport, RefusesAnExportWithNoGpuWork) {
  REQUIRE_SQLITE();
  const std::string db = (dir_ / "idle.sqlite").string();
  make_db(db, kStringIds + kKernelTable + "INSERT INTO StringIds VALUES (1, 'x');");
  expect_input_error([&] { read_nsys_sqlite(db, ImportOptions{}); }, {db, "no GPU activity", "--trace=cuda,nvtx"});
}

// The full export ranked (analysis/profile_rank.cpp): the kernel and the memcpy launched inside the NVTX range "lce"
// are its op; the rest (launched outside it, or with no launch row) is unannotated; one ProfilerStep iteration.
TEST_F(NsysImport, RanksOpsByTheNvtxRangeOfTheLaunch) {
  REQUIRE_SQLITE();
  const ProfileSummary s =
      summarize_profile({read_profile_file(full_, ImportOptions{})}, {}, ImportOptions{}.iteration_pattern, {},
                        std::nullopt);
  EXPECT_EQ(s.iterations, 1);
  EXPECT_TRUE(s.iterations_marked);
  ASSERT_EQ(s.ops.size(), 2u);
  EXPECT_EQ(s.ops[0].op, "(unannotated)");  // [1400, 1900) copies, memset, [2500, 2700), [3000, 3500): 1100 ns
  EXPECT_DOUBLE_EQ(s.ops[0].ms.mean, 1100e-6);
  EXPECT_EQ(s.ops[1].op, "lce");  // [1000, 2000) ∪ [1200, 1300)
  EXPECT_DOUBLE_EQ(s.ops[1].ms.mean, 1000e-6);
  EXPECT_DOUBLE_EQ(s.busy_ms.mean, 1800e-6);
  EXPECT_DOUBLE_EQ(s.wall_ms.mean, 4500e-6);  // the ProfilerStep#3 range [500, 5000)
}

TEST_F(NsysImport, RefusesAKernelTableWithoutStart) {
  REQUIRE_SQLITE();
  const std::string db = (dir_ / "old.sqlite").string();
  make_db(db, kStringIds +
                  "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (begin INTEGER, end INTEGER, deviceId INTEGER, streamId"
                  " INTEGER, correlationId INTEGER, demangledName INTEGER, shortName INTEGER);");
  expect_input_error([&] { read_nsys_sqlite(db, ImportOptions{}); }, {db, "CUPTI_ACTIVITY_KIND_KERNEL", "start"});
}

TEST_F(NsysImport, RefusesAnExportWithoutStringIds) {
  REQUIRE_SQLITE();
  const std::string db = (dir_ / "no_strings.sqlite").string();
  make_db(db, kKernelTable);
  expect_input_error([&] { read_nsys_sqlite(db, ImportOptions{}); }, {db, "StringIds"});
}

TEST_F(NsysImport, RefusesAMissingFile) {
  REQUIRE_SQLITE();
  const std::string missing = (dir_ / "nope.sqlite").string();
  expect_input_error([&] { read_nsys_sqlite(missing, ImportOptions{}); }, {missing, "no such file"});
  EXPECT_FALSE(fs::exists(missing));  // read-only: nothing created
}

TEST_F(NsysImport, RefusesABadIterationPattern) {
  REQUIRE_SQLITE();
  ImportOptions o;
  o.iteration_pattern = "ProfilerStep#(";
  expect_input_error([&] { read_nsys_sqlite(full_, o); }, {full_, "--iteration", "ProfilerStep#("});
  expect_input_error([&] { read_nsys_sqlite_bytes(read_bytes(full_), "mem", o); }, {"mem", "--iteration"});
}

TEST(NsysImportBuild, AvailabilityMatchesTheBuild) {
#ifdef GPUBENCH_HAVE_SQLITE
  EXPECT_TRUE(nsys_import_available());
#else
  EXPECT_FALSE(nsys_import_available());
  expect_input_error([] { read_nsys_sqlite("trace.sqlite", ImportOptions{}); },
                     {"trace.sqlite", "built without SQLite", "libsqlite3-dev"});
  expect_input_error([] { read_nsys_sqlite_bytes("", "mem.sqlite", ImportOptions{}); },
                     {"mem.sqlite", "built without SQLite"});
#endif
}

}  // namespace
}  // namespace gpubench

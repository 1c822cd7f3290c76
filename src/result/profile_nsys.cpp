// Nsight Systems SQLite importer (`nsys export --type sqlite`; schema: the Nsight Systems user guide, "SQLite
// Schema Reference"). GPU work comes from CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _MEMSET, each linked to the
// runtime call that launched it (CUPTI_ACTIVITY_KIND_RUNTIME, same correlationId and process); annotations from
// NVTX_EVENTS push/pop and start/end ranges; names through StringIds. Columns are checked with table_info, so an
// older export missing one says which. The input may be hostile (the fuzz target feeds read_nsys_sqlite_bytes
// arbitrary bytes): only tables are read, never views, values are size-capped, and every SQLite error becomes an
// InputError naming the file.
#include "result/profile_nsys.hpp"

#include <strings.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#ifdef GPUBENCH_HAVE_SQLITE
#include <sqlite3.h>
#endif

#include "core/errors.hpp"
#include "core/linear_regex.hpp"

namespace gpubench {

#ifdef GPUBENCH_HAVE_SQLITE
namespace {

constexpr const char* kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr const char* kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr const char* kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr const char* kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr const char* kNvtxTable = "NVTX_EVENTS";
constexpr const char* kStringTable = "StringIds";

/// NVTX_EVENTS.eventType of the ranges read (ENUM_NSYS_EVENT_TYPE: NvtxPushPopRange, NvtxStartEndRange).
constexpr int64_t kNvtxPushPop = 59;
constexpr int64_t kNvtxStartEnd = 60;
/// Largest string, blob or row SQLite may hand over [bytes]: far above any kernel name or NVTX payload, low enough
/// that a hostile file (a generated column of randomblob(1e12)) cannot exhaust memory.
constexpr int kMaxValueBytes = 64 << 20;

/// Closed (finalized) on every path, errors included.
using Db = std::unique_ptr<sqlite3, decltype(&sqlite3_close)>;
using Stmt = std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)>;

/// The error for SQLite result `rc` while reading `label`: a damaged or non-SQLite file, or another failure.
[[noreturn]] void throw_sqlite(sqlite3* db, int rc, const std::string& label, const std::string& doing) {
  const std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  const int c = rc & 0xff;  // the primary result code
  if (c == SQLITE_NOTADB || c == SQLITE_CORRUPT || c == SQLITE_IOERR || c == SQLITE_FORMAT || c == SQLITE_TOOBIG ||
      c == SQLITE_CANTOPEN)
    throw InputError(fmt::format("{}: not a readable SQLite database ({}): the file is truncated, corrupt or not "
                                 "SQLite; give the .sqlite file `nsys export --type sqlite` wrote, whole (a .nsys-rep "
                                 "must be exported first)", label, msg));
  throw InputError(fmt::format("{}: cannot read the Nsight Systems export while {} ({}); re-export it with "
                               "`nsys export --type sqlite`", label, doing, msg));
}

/// Column `i` of the current row, or nothing when NULL.
std::optional<int64_t> int_at(sqlite3_stmt* s, int i) {
  if (sqlite3_column_type(s, i) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(s, i);
}

/// Column `i` of the current row as text (embedded NULs kept), or nothing when NULL.
std::optional<std::string> text_at(sqlite3_stmt* s, int i) {
  if (sqlite3_column_type(s, i) == SQLITE_NULL) return std::nullopt;
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
  if (!p) return std::nullopt;  // out of memory
  return std::string(p, static_cast<size_t>(sqlite3_column_bytes(s, i)));
}

/// The process id in an nsys serialized globalTid / globalPid: bits 24-47, above the thread id.
int64_t process_of(int64_t global_id) {
  return static_cast<int64_t>((static_cast<uint64_t>(global_id) >> 24) & 0xFFFFFFu);
}

/// A GPU activity's launch key: its correlationId and its process (correlation ids are unique per process only).
struct LaunchKey {
  std::optional<int64_t> correlation, process;
};
/// A runtime call that may have launched an activity.
struct Launch {
  int64_t correlation = 0, global_tid = 0, start_ns = 0;
};
bool by_correlation(const Launch& a, const Launch& b) { return a.correlation < b.correlation; }

/// Reads one open database into a ProfileTrace.
class NsysReader {
 public:
  NsysReader(sqlite3* db, const std::string& label, std::regex iteration)
      : db_(db), label_(label), iteration_(std::move(iteration)) {
    trace_.path = label;
    trace_.format = "nsys";
  }

  ProfileTrace read() {
    const auto kernel_cols = columns(kKernelTable);
    if (kernel_cols.empty())
      throw InputError(fmt::format("{}: no {} table: not an Nsight Systems export of a run with CUDA tracing; capture "
                                   "with `nsys profile --trace=cuda,nvtx` and export with `nsys export --type sqlite`",
                                   label_, kKernelTable));
    const auto string_cols = columns(kStringTable);
    if (string_cols.empty())
      throw InputError(fmt::format("{}: no {} table: not an Nsight Systems SQLite export (it keeps every name there); "
                                   "export the report with `nsys export --type sqlite`", label_, kStringTable));
    require(kStringTable, string_cols, {"id", "value"});
    string_stmt_ = prepare("SELECT \"value\" FROM \"StringIds\" WHERE \"id\" = ?1", "looking up names");
    read_activities(Kind::kKernel, kernel_cols);
    if (const auto cols = columns(kMemcpyTable); !cols.empty()) read_activities(Kind::kMemcpy, cols);
    if (const auto cols = columns(kMemsetTable); !cols.empty()) read_activities(Kind::kMemset, cols);
    link_launches(columns(kRuntimeTable));
    if (const auto cols = columns(kNvtxTable); !cols.empty()) read_ranges(cols);
    else note(true, fmt::format("no {} table: no annotation ranges (capture with --trace=cuda,nvtx)", kNvtxTable));
    const std::string bad_what =
        "GPU activities with no start or end, ending before they start or lasting over a day, skipped";
    if (trace_.activities.empty())
      throw InputError(fmt::format("{}: no GPU activity (kernel, memcpy or memset rows) in the export{}; capture the "
                                   "GPU work with `nsys profile --trace=cuda,nvtx`", label_,
                                   bad_activities_ > 0 ? fmt::format(" ({}: {})", bad_what, bad_activities_) : ""));
    count_note(bad_activities_, bad_what.c_str());
    count_note(unnamed_kernels_, "kernels whose name is not in StringIds, named \"kernel <string id>\"");
    return std::move(trace_);
  }

 private:
  /// Adds the note "<what>: <count>" when count > 0 (count last: the words read right for 1 and for many).
  void count_note(int64_t count, const char* what) {
    if (count > 0) trace_.notes.push_back(fmt::format("{}: {}", what, count));
  }
  /// Adds the note `what` when `when`.
  void note(bool when, std::string what) {
    if (when) trace_.notes.push_back(std::move(what));
  }

  Stmt prepare(const std::string& sql, const std::string& doing) {
    sqlite3_stmt* s = nullptr;
    const int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr);
    Stmt stmt(s, &sqlite3_finalize);
    if (rc != SQLITE_OK) throw_sqlite(db_, rc, label_, doing);
    return stmt;
  }

  /// Steps `s`: true with a row, false when done.
  bool step(sqlite3_stmt* s, const std::string& doing) {
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw_sqlite(db_, rc, label_, doing);
  }

  /// The column names of table `table`; none when the database has no such table (views are not read).
  std::vector<std::string> columns(const char* table) {
    const std::string doing = fmt::format("reading the columns of {}", table);
    Stmt s = prepare("SELECT p.name FROM sqlite_master AS m, pragma_table_info(m.name) AS p "
                     "WHERE m.type = 'table' AND m.name = ?1 COLLATE NOCASE", doing);
    sqlite3_bind_text(s.get(), 1, table, -1, SQLITE_STATIC);
    std::vector<std::string> out;
    while (step(s.get(), doing)) out.push_back(text_at(s.get(), 0).value_or(""));
    return out;
  }

  /// True when `cols` holds `name` (case-insensitively, as SQLite resolves column names).
  static bool has(const std::vector<std::string>& cols, const char* name) {
    return std::any_of(cols.begin(), cols.end(), [&](const std::string& c) { return !strcasecmp(c.c_str(), name); });
  }

  [[noreturn]] void missing_column(const char* table, const std::string& column) const {
    throw InputError(fmt::format("{}: table {} has no {} column: an Nsight Systems export this reader does not know "
                                 "(or a damaged one); re-export with a current `nsys export --type sqlite`",
                                 label_, table, column));
  }

  /// Throws unless the columns `cols` of `table` hold each of `required`.
  void require(const char* table, const std::vector<std::string>& cols, std::initializer_list<const char*> required) {
    for (const char* n : required)
      if (!has(cols, n)) missing_column(table, n);
  }

  /// "SELECT a, b, NULL, … FROM T": each wanted column, or NULL where the table lacks it (all names are ours).
  static std::string select(const char* table, const std::vector<std::string>& cols,
                            std::initializer_list<const char*> want, const std::string& where = "") {
    std::string sql;
    for (const char* w : want)
      sql += (sql.empty() ? "SELECT " : ", ") + (has(cols, w) ? fmt::format("\"{}\"", w) : "NULL");
    return sql + fmt::format(" FROM \"{}\"", table) + where;
  }

  /// The NameTable id of StringIds row `id`, or nothing when the row is missing.
  std::optional<uint32_t> string_name(int64_t id) {
    const auto it = string_cache_.find(id);
    if (it != string_cache_.end()) return it->second;
    sqlite3_stmt* s = string_stmt_.get();
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, id);
    const auto text = step(s, "looking up names") ? text_at(s, 0) : std::nullopt;
    const auto name = text ? std::optional<uint32_t>(trace_.names.intern(*text)) : std::nullopt;
    return string_cache_.emplace(id, name).first->second;
  }

  /// The activity name of a kernel row: demangledName's string, else shortName's, else "kernel <id>".
  uint32_t kernel_name(std::optional<int64_t> demangled, std::optional<int64_t> short_name) {
    for (const auto& id : {demangled, short_name})
      if (id)
        if (auto n = string_name(*id)) return *n;
    ++unnamed_kernels_;
    return trace_.names.intern(fmt::format("kernel {}", demangled.value_or(short_name.value_or(-1))));
  }

  /// The name of a memcpy by copyKind (CUpti_ActivityMemcpyKind, which nsys keeps in ENUM_CUDA_MEMCPY_OPER).
  uint32_t memcpy_name(std::optional<int64_t> kind) {
    const int64_t k = kind.value_or(0);
    const char* dir = k == 1 ? " HtoD" : k == 2 ? " DtoH" : k == 8 ? " DtoD" : k == 10 ? " PtoP" : "";
    return trace_.names.intern(fmt::format("Memcpy{}", dir));
  }

  enum class Kind { kKernel, kMemcpy, kMemset };

  /// Reads the activities of one table (kernel, memcpy or memset; `cols` its columns) and their launch keys.
  void read_activities(Kind kind, const std::vector<std::string>& cols) {
    const bool kernel = kind == Kind::kKernel, memcpy = kind == Kind::kMemcpy;
    const char* table = kernel ? kKernelTable : memcpy ? kMemcpyTable : kMemsetTable;
    require(table, cols, {"start", "end"});
    if (kernel && !has(cols, "demangledName") && !has(cols, "shortName"))
      missing_column(table, "demangledName (nor shortName)");
    for (const char* n : {"deviceId", "streamId"})
      note(!has(cols, n), fmt::format("no {} column in {}: taken as 0", n, table));
    note(!has(cols, "correlationId"), fmt::format("no correlationId column in {}: not linked to launches", table));
    const std::string doing = fmt::format("reading {}", table);
    Stmt s = prepare(select(table, cols, {"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                                          kernel ? "demangledName" : "copyKind", kernel ? "shortName" : "copyKind"}),
                     doing);
    const uint32_t memset_name = trace_.names.intern("Memset");
    while (step(s.get(), doing)) {
      const auto start = int_at(s.get(), 0), end = int_at(s.get(), 1);
      // end − start in unsigned arithmetic: a record from INT64_MIN to INT64_MAX must not overflow the check.
      if (!start || !end || *end < *start ||
          static_cast<uint64_t>(*end) - static_cast<uint64_t>(*start) > static_cast<uint64_t>(kMaxActivityNs)) {
        ++bad_activities_;
        continue;
      }
      GpuActivity& a = trace_.activities.emplace_back();
      a.name = kernel ? kernel_name(int_at(s.get(), 6), int_at(s.get(), 7))
               : memcpy ? memcpy_name(int_at(s.get(), 6)) : memset_name;
      a.start_ns = *start;
      a.end_ns = *end;
      a.device = int_at(s.get(), 2).value_or(0);
      a.stream = int_at(s.get(), 3).value_or(0);
      const auto pid = int_at(s.get(), 5);
      keys_.push_back({int_at(s.get(), 4), pid ? std::optional<int64_t>(process_of(*pid)) : std::nullopt});
    }
  }

  /// Sets every activity's anchor: the runtime call with its correlationId (in its process, else in any) when there
  /// is one, else its own GPU stream and start. `cols`: those of the runtime table, none without one.
  void link_launches(const std::vector<std::string>& cols) {
    std::vector<Launch> launches;
    if (cols.empty()) {
      note(!trace_.activities.empty(), fmt::format("no {} table: activities are anchored on their GPU stream, not on "
                                                   "the thread that launched them", kRuntimeTable));
    } else {
      require(kRuntimeTable, cols, {"start", "correlationId", "globalTid"});
      std::vector<int64_t> wanted;  // only the launches of activities read: the runtime table can be 10x larger
      for (const auto& k : keys_)
        if (k.correlation) wanted.push_back(*k.correlation);
      std::sort(wanted.begin(), wanted.end());
      wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
      const std::string doing = fmt::format("reading {}", kRuntimeTable);
      Stmt s = prepare(select(kRuntimeTable, cols, {"correlationId", "globalTid", "start"}), doing);
      while (!wanted.empty() && step(s.get(), doing)) {
        const auto corr = int_at(s.get(), 0), tid = int_at(s.get(), 1), start = int_at(s.get(), 2);
        if (corr && tid && start && std::binary_search(wanted.begin(), wanted.end(), *corr))
          launches.push_back({*corr, *tid, *start});
      }
      std::stable_sort(launches.begin(), launches.end(), by_correlation);
    }
    int64_t other_process = 0;
    for (size_t i = 0; i < trace_.activities.size(); ++i) {
      GpuActivity& a = trace_.activities[i];
      const Launch* found = nullptr;
      if (const auto& key = keys_[i]; key.correlation) {
        const auto [lo, hi] =
            std::equal_range(launches.begin(), launches.end(), Launch{*key.correlation, 0, 0}, by_correlation);
        for (auto it = lo; it != hi && !found; ++it)
          if (!key.process || process_of(it->global_tid) == *key.process) found = &*it;
        if (!found && lo != hi) {
          found = &*lo;
          ++other_process;
        }
      }
      if (found) {
        a.anchor_track = trace_.names.intern(fmt::format("tid {}", found->global_tid));
        a.anchor_ns = found->start_ns;
        ++trace_.linked;
      } else {
        a.anchor_track = trace_.names.intern(fmt::format("GPU {} stream {}", a.device, a.stream));
        a.anchor_ns = a.start_ns;
      }
    }
    count_note(other_process, "activities linked to a launch of another process (same correlationId): check the links");
  }

  /// True when range name `name` (a NameTable id) marks an iteration.
  bool is_iteration(uint32_t name) {
    const auto it = iteration_cache_.find(name);
    if (it != iteration_cache_.end()) return it->second;
    const std::string& text = trace_.names.name(name);
    const bool yes = std::regex_search(text, iteration_);
    iteration_cache_.emplace(name, yes);
    return yes;
  }

  /// Reads the NVTX push/pop and start/end ranges (`cols`: NVTX_EVENTS' columns).
  void read_ranges(const std::vector<std::string>& cols) {
    require(kNvtxTable, cols, {"start", "end", "eventType", "globalTid"});
    if (!has(cols, "text") && !has(cols, "textId")) missing_column(kNvtxTable, "text (nor textId)");
    const std::string doing = fmt::format("reading {}", kNvtxTable);
    Stmt s = prepare(select(kNvtxTable, cols, {"start", "end", "text", "textId", "globalTid"},
                            fmt::format(" WHERE \"eventType\" IN ({}, {})", kNvtxPushPop, kNvtxStartEnd)),
                     doing);
    int64_t open = 0, backwards = 0, unnamed = 0;
    while (step(s.get(), doing)) {
      const auto start = int_at(s.get(), 0), end = int_at(s.get(), 1), tid = int_at(s.get(), 4);
      if (!start || !end || *end < *start) {
        ++(end ? backwards : open);  // no end: a range never closed
        continue;
      }
      std::optional<uint32_t> name;
      if (auto text = text_at(s.get(), 2)) name = trace_.names.intern(*text);
      else if (auto id = int_at(s.get(), 3)) name = string_name(*id);
      unnamed += !name;
      if (!name) name = trace_.names.intern("(unnamed NVTX range)");
      const uint32_t track = trace_.names.intern(tid ? fmt::format("tid {}", *tid) : std::string("tid unknown"));
      trace_.ranges.push_back({*name, track, *start, *end, is_iteration(*name)});
    }
    count_note(open, "NVTX ranges with no end (never closed) skipped");
    count_note(backwards, "NVTX ranges ending before they start skipped");
    count_note(unnamed, "NVTX ranges with no text, named \"(unnamed NVTX range)\"");
  }

  sqlite3* db_;
  std::string label_;
  std::regex iteration_;
  ProfileTrace trace_;
  Stmt string_stmt_{nullptr, &sqlite3_finalize};
  std::vector<LaunchKey> keys_;  ///< parallel to trace_.activities
  std::unordered_map<int64_t, std::optional<uint32_t>> string_cache_;
  std::unordered_map<uint32_t, bool> iteration_cache_;
  int64_t bad_activities_ = 0, unnamed_kernels_ = 0;
};

/// The compiled --iteration pattern; InputError naming `label` and --iteration when it is not a valid regex.
std::regex iteration_regex(const std::string& label, const ImportOptions& options) {
  try {
    return linear_regex(options.iteration_pattern);
  } catch (const std::regex_error& e) {
    throw InputError(fmt::format("{}: --iteration '{}' {}; give an ECMAScript regex, e.g. '^ProfilerStep#[0-9]+$'",
                                 label, options.iteration_pattern, regex_problem(e)));
  }
}

/// Hardens a freshly opened connection against hostile files, then reads it.
ProfileTrace read_db(Db db, const std::string& label, std::regex iteration) {
  sqlite3_limit(db.get(), SQLITE_LIMIT_LENGTH, kMaxValueBytes);
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_drop_modules(db.get(), nullptr);  // no virtual tables (fts5, rtree …): only plain tables are read
  return NsysReader(db.get(), label, std::move(iteration)).read();
}

[[noreturn]] void throw_empty(const std::string& label) {
  throw InputError(fmt::format("{}: not a readable SQLite database (empty file): give the .sqlite file "
                               "`nsys export --type sqlite` wrote", label));
}

}  // namespace

ProfileTrace read_nsys_sqlite(const std::string& path, const ImportOptions& options) {
  std::regex iteration = iteration_regex(path, options);
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) throw InputError(fmt::format("{}: no such file: check the path", path));
  if (std::filesystem::is_directory(status))
    throw InputError(fmt::format("{}: a folder, not an Nsight Systems export; give the .sqlite file", path));
  if (std::filesystem::is_regular_file(status) && std::filesystem::file_size(path, ec) == 0 && !ec) throw_empty(path);
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  Db db(raw, &sqlite3_close);
  if (rc != SQLITE_OK) throw_sqlite(db.get(), rc, path, "opening it");
  return read_db(std::move(db), path, std::move(iteration));
}

ProfileTrace read_nsys_sqlite_bytes(const std::string& bytes, const std::string& label, const ImportOptions& options) {
  std::regex iteration = iteration_regex(label, options);
  if (bytes.empty()) throw_empty(label);
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  Db db(raw, &sqlite3_close);
  if (rc != SQLITE_OK) throw_sqlite(db.get(), rc, label, "opening an in-memory database");
  // READONLY: SQLite never writes to the buffer, so the caller's bytes are used in place (and outlive `db`).
  auto* data = reinterpret_cast<unsigned char*>(const_cast<char*>(bytes.data()));
  const auto size = static_cast<sqlite3_int64>(bytes.size());
  rc = sqlite3_deserialize(db.get(), "main", data, size, size, SQLITE_DESERIALIZE_READONLY);
  if (rc != SQLITE_OK) throw_sqlite(db.get(), rc, label, "loading it");
  return read_db(std::move(db), label, std::move(iteration));
}

bool nsys_import_available() { return true; }

#else  // built without SQLite

namespace {
[[noreturn]] void throw_no_sqlite(const std::string& label) {
  throw InputError(fmt::format("{}: this gpubench was built without SQLite (libsqlite3-dev), so it cannot read Nsight "
                               "Systems exports; install libsqlite3-dev and rebuild", label));
}
}  // namespace

ProfileTrace read_nsys_sqlite(const std::string& path, const ImportOptions&) { throw_no_sqlite(path); }
ProfileTrace read_nsys_sqlite_bytes(const std::string&, const std::string& label, const ImportOptions&) {
  throw_no_sqlite(label);
}
bool nsys_import_available() { return false; }

#endif

}  // namespace gpubench

// Loading plugin files (op/plugin_loader.hpp): file checks, dlopen, the versioned entry symbol, registration.
#include "op/plugin_loader.hpp"

#include "op/kernel_file_step.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/report_stream.hpp"
#include "op/plugin_guard.hpp"

namespace gpubench::op {
namespace {

namespace fs = std::filesystem;

std::vector<PluginRecord>& records() {
  static std::vector<PluginRecord> loaded;
  return loaded;
}
std::vector<std::string>& real_paths() {  // parallel to records()
  static std::vector<std::string> paths;
  return paths;
}

/// While gpubench reads a plugin's description: a count larger than its array, or a pointer into memory the plugin
/// freed, crashes gpubench's code, and the line then names the plugin and what to check.
PluginCodeGuard description_guard(const std::string& path) {
  return PluginCodeGuard(path, "gpubench", "while reading its description (the gpubench_plugin_v1_t its entry returned)",
                         "check that each *_count field holds its array's length and that every pointer stays valid "
                         "after the entry function returns");
}

/// The machine a 64-bit ELF header names, in words.
std::string machine_name(uint16_t machine) {
  switch (machine) {
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_PPC64: return "ppc64";
    case EM_RISCV: return "riscv";
    case EM_S390: return "s390";
    default: return fmt::format("ELF machine {}", machine);
  }
}

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#else
constexpr uint16_t kHostMachine = EM_NONE;
#endif

/// Refuses a file that is not a 64-bit ELF shared library for this machine, before dlopen's terser message.
void check_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char h[64] = {0};
  in.read(reinterpret_cast<char*>(h), sizeof(h));
  const auto got = in.gcount();
  const bool magic = got >= 4 && h[0] == ELFMAG0 && h[1] == ELFMAG1 && h[2] == ELFMAG2 && h[3] == ELFMAG3;
  if (!magic)
    throw InputError(fmt::format("plugin {}: not a shared library (no ELF header); pass the .so file the plugin's "
                                 "build makes", path));
  if (got < static_cast<std::streamsize>(sizeof(ElfW(Ehdr))))
    throw InputError(fmt::format("plugin {}: a truncated ELF file ({} bytes, shorter than an ELF header); rebuild "
                                 "it, or copy it again", path, got));
  const uint16_t type = static_cast<uint16_t>(h[16] | (h[17] << 8));
  const uint16_t machine = static_cast<uint16_t>(h[18] | (h[19] << 8));
  if (h[EI_CLASS] != ELFCLASS64 || (kHostMachine != EM_NONE && machine != kHostMachine))
    throw InputError(fmt::format("plugin {}: built for {}{}, this gpubench runs on {}; rebuild the plugin on this "
                                 "machine", path, machine_name(machine), h[EI_CLASS] == ELFCLASS64 ? "" : " (32-bit)",
                                 machine_name(kHostMachine)));
  if (type != ET_DYN)
    throw InputError(fmt::format("plugin {}: an ELF file but not a shared library (an executable or object file); "
                                 "build it with add_library(<name> SHARED …) or -shared", path));
}

/// The ABI version of a versioned entry symbol the library exports other than v1, or 0.
int other_abi_version(void* handle) {
  for (int v = 16; v >= 0; --v) {
    if (v == kPluginAbiVersion) continue;
    if (dlsym(handle, fmt::format("gpubench_plugin_v{}", v).c_str()) != nullptr) return v;
  }
  return -1;
}

}  // namespace

namespace {

using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

DigestContext sha256_start() {
  DigestContext ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw InputError("SHA-256: OpenSSL could not start a digest");
  return ctx;
}

std::string sha256_hex(DigestContext& ctx) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("plugin {}: cannot read the file to hash it", path));
  DigestContext ctx = sha256_start();
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof(buffer));
    if (in.gcount() > 0) EVP_DigestUpdate(ctx.get(), buffer, static_cast<size_t>(in.gcount()));
  }
  return sha256_hex(ctx);
}

std::string sha256_text(std::string_view text) {
  DigestContext ctx = sha256_start();
  EVP_DigestUpdate(ctx.get(), text.data(), text.size());
  return sha256_hex(ctx);
}

OpenedPlugin open_plugin(const std::string& path) {
  std::error_code ec;
  if (path.empty()) throw InputError("plugin: empty path; give the plugin's .so file");
  if (!fs::exists(path, ec))
    throw InputError(fmt::format("plugin {}: no such file; check the path given to --plugin, the config's plugins "
                                 "list (relative to the config) or GPUBENCH_PLUGIN_PATH; a plugin is built first "
                                 "(docs/plugins.md)",
                                 path));
  if (fs::is_directory(path, ec))
    throw InputError(fmt::format("plugin {}: is a folder; give the .so file (a folder works in "
                                 "GPUBENCH_PLUGIN_PATH)", path));
  OpenedPlugin opened;
  opened.path = path;
  opened.real = fs::canonical(path, ec).string();
  for (size_t i = 0; i < real_paths().size(); ++i)
    if (real_paths()[i] == opened.real) {
      opened.loaded = static_cast<int>(i);
      return opened;
    }
  check_elf(path);
  protect_report_stream();  // before any plugin code runs: its constructors may print
  std::optional<PluginCodeGuard> guard;  // until its entry function has returned
  guard.emplace(path, "its own code",
                fmt::format("while it loaded (its constructors or its {})", GPUBENCH_PLUGIN_ENTRY_V1),
                "fix the plugin, or leave it out of the config and --plugin");
  // An absolute path keeps dlopen from searching LD_LIBRARY_PATH for a bare file name.
  void* handle = dlopen(opened.real.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw InputError(fmt::format("plugin {}: cannot load: {}; check its dependencies and undefined symbols with "
                                 "`ldd -r {}`",
                                 path, why ? why : "unknown dlopen error", path));
  }
  void* entry = dlsym(handle, GPUBENCH_PLUGIN_ENTRY_V1);
  if (entry == nullptr) {
    const int other = other_abi_version(handle);
    if (other > kPluginAbiVersion)
      throw InputError(fmt::format("plugin {}: built for plugin ABI v{} (exports gpubench_plugin_v{}), newer than "
                                   "this gpubench reads (v{}); upgrade gpubench or rebuild the plugin against this "
                                   "gpubench's include/gpubench/plugin.h", path, other, other, kPluginAbiVersion));
    if (other >= 0)
      throw InputError(fmt::format("plugin {}: built for plugin ABI v{} (exports gpubench_plugin_v{}), older than "
                                   "this gpubench reads (v{}); rebuild the plugin against this gpubench's "
                                   "include/gpubench/plugin.h", path, other, other, kPluginAbiVersion));
    throw NoEntrySymbol(fmt::format("plugin {}: exports no {} symbol; define `extern \"C\" GPUBENCH_PLUGIN_EXPORT "
                                    "const gpubench_plugin_v1_t* gpubench_plugin_v1(void)` (docs/plugins.md): "
                                    "without GPUBENCH_PLUGIN_EXPORT a build with hidden visibility keeps it "
                                    "private, and without extern \"C\" its name is mangled",
                                    path, GPUBENCH_PLUGIN_ENTRY_V1));
  }
  // The symbol must be the entry function: a description struct exported under the entry's name (an easy slip) would
  // be called as code. The dynamic symbol table says which it is.
  Dl_info info{};
  void* extra = nullptr;  // the symbol's ElfW(Sym) in the library's dynamic symbol table
  const auto* symbol = static_cast<const ElfW(Sym)*>(nullptr);
  if (dladdr1(entry, &info, &extra, RTLD_DL_SYMENT) != 0) symbol = static_cast<const ElfW(Sym)*>(extra);
  if (symbol != nullptr &&
      ELF64_ST_TYPE(symbol->st_info) != STT_FUNC && ELF64_ST_TYPE(symbol->st_info) != STT_GNU_IFUNC)
    throw InputError(fmt::format("plugin {}: its {} symbol is data, not a function; export the entry function "
                                 "`extern \"C\" const gpubench_plugin_v1_t* gpubench_plugin_v1(void)` that returns a "
                                 "pointer to the description (docs/plugins.md)", path, GPUBENCH_PLUGIN_ENTRY_V1));
  const auto fn = reinterpret_cast<gpubench_plugin_entry_v1>(entry);
  try {
    opened.description = fn();
  } catch (const std::exception& e) {
    throw InputError(fmt::format("plugin {}: its {} threw \"{}\"; an entry function returns its description or "
                                 "NULL and never throws", path, GPUBENCH_PLUGIN_ENTRY_V1, plugin_text(e.what())));
  } catch (...) {
    throw InputError(fmt::format("plugin {}: its {} threw; an entry function returns its description or NULL and "
                                 "never throws", path, GPUBENCH_PLUGIN_ENTRY_V1));
  }
  guard.reset();
  if (opened.description == nullptr)
    throw InputError(fmt::format("plugin {}: refused to load ({} returned NULL); see what it printed above", path,
                                 GPUBENCH_PLUGIN_ENTRY_V1));
  // Checked here, before anything reads the name (which plugin wins among same-named builds): a NULL name would be a
  // std::string built from NULL. register_plugin says the same for a plugin registered another way.
  if (opened.description->name == nullptr || *opened.description->name == '\0')
    throw InputError(path + ": the plugin has no name; set gpubench_plugin_v1_t::name");
  // The name is what reports record and what makes two files builds of one plugin: a plain word (trial 12: "bad
  // plugin/x" loaded). The version goes into reports and `list` as it is, so one line of printable text.
  if (!is_plugin_file_name(opened.description->name))
    throw InputError(fmt::format("{}: the plugin's name {} is not a name; give gpubench_plugin_v1_t::name 1 to 64 "
                                 "letters, digits, '_', '-' and '.', starting with a letter or digit",
                                 path, shown_plugin_name(opened.description->name)));
  if (const char* v = opened.description->version; v != nullptr && plugin_text(v) != v)
    throw InputError(fmt::format("{}: the plugin's version {} is not one line of plain text (it holds a control "
                                 "character, a backslash or a byte that is not UTF-8, or runs over 1000 bytes); give "
                                 "gpubench_plugin_v1_t::version a plain string such as \"1.2.3\"", path,
                                 shown_plugin_name(v)));
  opened.sha256 = sha256_file(path);
  return opened;
}

namespace {

/// The op names a plugin declares (from its description, or its record once registered), in order.
std::vector<std::string> op_names(const OpenedPlugin& p) {
  if (p.loaded >= 0) return records()[static_cast<size_t>(p.loaded)].ops;
  const PluginCodeGuard guard = description_guard(p.path);
  std::vector<std::string> out;
  for (int32_t i = 0; i < p.description->op_count; ++i)
    out.emplace_back(p.description->ops[i].name != nullptr ? p.description->ops[i].name : "");
  return out;
}

/// "ops a, b" or "no op".
std::string describe_ops(const std::vector<std::string>& ops) {
  if (ops.empty()) return "no op";
  std::string out = ops.size() == 1 ? "op " : "ops ";
  for (size_t i = 0; i < ops.size(); ++i) out += (i ? ", " : "") + ops[i];
  return out;
}

}  // namespace

const PluginRecord& register_opened(const OpenedPlugin& opened) {
  if (opened.loaded >= 0) return records()[static_cast<size_t>(opened.loaded)];
  const PluginCodeGuard guard = description_guard(opened.path);
  PluginRecord record = register_plugin(*opened.description, PluginSource{opened.path, opened.sha256, false});
  record.path = opened.path;
  records().push_back(std::move(record));
  real_paths().push_back(opened.real);
  return records().back();
}

const PluginRecord& load_plugin_variant(const std::string& path, const std::string& step_suffix) {
  if (step_suffix.empty()) throw std::invalid_argument("load_plugin_variant: empty step suffix");
  const OpenedPlugin opened = open_plugin(path);
  if (opened.loaded >= 0)
    throw InputError(fmt::format("--plugin-b {}: is the file already loaded as build A ({}); give the other build's "
                                 ".so", path, records()[static_cast<size_t>(opened.loaded)].path));
  if (opened.description->step_count == 0)
    throw InputError(fmt::format("--plugin-b {}: declares no step; build B must implement the steps to compare", path));
  PluginSource source{opened.path, opened.sha256, false};
  source.step_suffix = step_suffix;
  const PluginCodeGuard guard = description_guard(opened.path);
  PluginRecord record = register_plugin(*opened.description, source);
  record.path = opened.path;
  records().push_back(std::move(record));
  real_paths().push_back(opened.real);
  return records().back();
}

namespace {

/// Registers the kernel-file description at `path` once (by canonical path) and records it.
const PluginRecord& load_kernel_file_once(const std::string& path) {
  std::error_code ec;
  const std::string real = fs::weakly_canonical(path, ec).string();
  for (size_t i = 0; i < real_paths().size(); ++i)
    if (!ec && real_paths()[i] == real) return records()[i];
  records().push_back(register_kernel_file(path));
  real_paths().push_back(ec ? path : real);
  return records().back();
}

}  // namespace

const PluginRecord& load_kernel_description(const nlohmann::json& j, const std::string& config_path,
                                            const std::string& base_dir, const std::string& pointer) {
  const std::string label = config_path + "#" + pointer;
  for (size_t i = 0; i < records().size(); ++i)
    if (records()[i].path == label) return records()[i];
  records().push_back(register_kernel_description(j, config_path, base_dir, pointer));
  real_paths().push_back(label);
  return records().back();
}

const PluginRecord& load_plugin(const std::string& path) {
  if (is_kernel_file_path(path)) return load_kernel_file_once(path);
  return register_opened(open_plugin(path));
}

void load_plugin_files(const std::vector<PluginFile>& files, const std::function<void(const std::string&)>& note) {
  std::vector<OpenedPlugin> opened;
  // A build set aside for an earlier file of the same plugin name; settled once the earlier one has registered or
  // been refused (a refused earlier build must not keep this one out, nor be blamed on it: trial 12's recheck).
  struct Displaced {
    OpenedPlugin plugin;
    std::string path, name;
  };
  std::vector<Displaced> displaced;
  std::vector<PluginFile> kernel_files;  // descriptions (.json): registered after every library, whose ops they may use
  // The first file that does not load is thrown after the others loaded: one bad --plugin must not leave the config's
  // own plugins unregistered (validate then reports their ops and steps as unknown too, with a fix that is no fix).
  std::exception_ptr failed;
  const auto attempt = [&failed](const std::function<void()>& load) {
    try {
      load();
    } catch (const InputError&) {
      if (!failed) failed = std::current_exception();
    }
  };
  for (const PluginFile& f : files) {
    if (is_kernel_file_path(f.path)) {
      kernel_files.push_back(f);
      continue;
    }
    OpenedPlugin p;
    bool open_failed = false;
    try {
      p = open_plugin(f.path);
    } catch (const NoEntrySymbol& e) {
      if (f.from_folder)
        note(fmt::format("{}: exports no {} (a library in a GPUBENCH_PLUGIN_PATH folder that is not a plugin: "
                         "skipped)", f.path, GPUBENCH_PLUGIN_ENTRY_V1));
      else if (!failed)
        failed = std::current_exception();
      continue;
    } catch (const InputError& e) {
      // A config's entry that is missing or broken, with another build of that file given by --plugin or
      // GPUBENCH_PLUGIN_PATH (`run configs/x.json --plugin my_build/libx.so` on a machine without the config's
      // build): the other build stands in.
      const std::string base = fs::path(f.path).filename().string();
      const OpenedPlugin* same = nullptr;
      for (const OpenedPlugin& q : opened)
        if (f.from_config && fs::path(q.path).filename().string() == base) same = &q;
      if (same != nullptr)
        note(fmt::format("{} — using {} instead (the same file name, given earlier)", e.what(), same->path));
      else if (!failed)
        failed = std::current_exception();
      open_failed = true;
    }
    if (open_failed) continue;
    // The same file twice, or a plugin of the same name already chosen: the earlier one wins (the files come in
    // precedence order: --plugin, GPUBENCH_PLUGIN_PATH, then the config's list).
    const std::string name = p.loaded >= 0 ? records()[static_cast<size_t>(p.loaded)].name : p.description->name;
    const std::string real = p.real;
    bool skip = false;
    for (const OpenedPlugin& q : opened) {
      const std::string qname = q.loaded >= 0 ? records()[static_cast<size_t>(q.loaded)].name : q.description->name;
      if (q.real == real) skip = true;
      else if (qname == name) {
        skip = true;
        displaced.push_back({std::move(p), f.path, name});
        break;
      }
    }
    if (!skip && p.loaded < 0)
      for (const PluginRecord& r : records())
        if (r.name == name) {
          note(fmt::format("plugin {}: not loaded, plugin \"{}\" is already loaded from {}", f.path, name, r.path));
          skip = true;
        }
    if (!skip) opened.push_back(std::move(p));
  }
  // Plugins with ops first: a plugin's steps may be for another plugin's op.
  for (int with_ops = 1; with_ops >= 0; --with_ops)
    for (const OpenedPlugin& p : opened)
      if (p.loaded < 0 && (p.description->op_count > 0) == (with_ops == 1)) attempt([&p] { register_opened(p); });
  // The builds set aside: the earlier file of their name registered (a note, or a refusal when it is another plugin
  // under the same name), or it was refused, and the first of them stands in.
  for (Displaced& d : displaced) {
    const auto same = std::find_if(records().begin(), records().end(),
                                   [&](const PluginRecord& r) { return r.name == d.name; });
    if (same == records().end()) {
      note(fmt::format("plugin {}: loaded in place of the earlier file of plugin \"{}\", which was refused", d.path,
                       d.name));
      attempt([&d] { register_opened(d.plugin); });
    } else if (op_names(d.plugin) != same->ops) {
      // This file is refused; the earlier one still loads, as after any other refusal.
      if (!failed)
        failed = std::make_exception_ptr(InputError(fmt::format(
            "plugin {}: its name \"{}\" is also the name of {}, a plugin with other ops ({} there, {} here); two "
            "different plugins need different names (gpubench_plugin_v1_t::name)",
            d.path, d.name, same->path, describe_ops(same->ops), describe_ops(op_names(d.plugin)))));
    } else {
      note(fmt::format("plugin {}: not loaded, plugin \"{}\" comes from {} (--plugin, then GPUBENCH_PLUGIN_PATH, "
                       "then the config's plugins)", d.path, d.name, same->path));
    }
  }
  // Descriptions of the same steps are two copies of one plugin: the first in precedence order is used, as for
  // libraries (`--plugin my_copy.json` with a config that lists the original measures the copy).
  std::vector<std::pair<std::string, std::string>> described;  // (record name, path) of the descriptions taken
  for (const PluginFile& f : kernel_files) {
    const std::string& path = f.path;
    const std::string name = kernel_file_record_name(path);
    std::error_code ec;
    if (name.empty() && f.from_config) {  // the config's entry is missing or broken: an earlier copy stands in
      const std::string base = fs::path(path).filename().string();
      const auto same = std::find_if(described.begin(), described.end(), [&](const auto& d) {
        return fs::path(d.second).filename().string() == base;
      });
      if (same != described.end()) {
        note(fmt::format("kernel file {}: {} — using {} instead (the same file name, given earlier)", path,
                         fs::exists(path, ec) ? "not readable as a kernel file description" : "no such file",
                         same->second));
        continue;
      }
    }
    const std::string real = fs::weakly_canonical(path, ec).string();
    std::string taken;  // the other description of these steps, when there is one
    for (const auto& [n, p] : described)
      if (!name.empty() && n == name && fs::weakly_canonical(p, ec).string() != real) taken = p;
    for (size_t i = 0; taken.empty() && !name.empty() && i < records().size(); ++i)
      if (records()[i].name == name && real_paths()[i] != real) taken = records()[i].path;
    if (!taken.empty()) {
      note(fmt::format("kernel file {}: not loaded, its steps ({}) come from {} (--plugin, then GPUBENCH_PLUGIN_PATH, "
                       "then the config's plugins)", path, name.substr(kKernelFileNamePrefix.size()), taken));
      continue;
    }
    if (!name.empty()) described.emplace_back(name, path);
    attempt([&path] { load_kernel_file_once(path); });
  }
  if (failed) std::rethrow_exception(failed);
}

const std::vector<PluginRecord>& loaded_plugins() { return records(); }

namespace {
std::atomic<bool> g_plugin_load_failed{false};  ///< plugin_load_failed()
}  // namespace

bool plugin_load_failed() { return g_plugin_load_failed.load(); }
void mark_plugin_load_failed() { g_plugin_load_failed.store(true); }

std::vector<PluginFile> plugin_paths_from_env() {
  std::vector<PluginFile> out;
  const char* env = std::getenv("GPUBENCH_PLUGIN_PATH");
  if (env == nullptr) return out;
  const std::string value(env);
  size_t start = 0;
  while (start <= value.size()) {
    const size_t end = value.find(':', start);
    const std::string entry = value.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::error_code ec;
    if (!entry.empty() && fs::is_directory(entry, ec)) {
      std::vector<std::string> files;
      for (const auto& f : fs::directory_iterator(entry, ec))
        if (f.path().extension() == ".so") files.push_back(f.path().string());
      std::sort(files.begin(), files.end());
      for (const std::string& f : files)
        if (fs::is_regular_file(f, ec)) out.push_back({f, true, false});
    } else if (!entry.empty()) {
      out.push_back({entry, false, false});
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace gpubench::op

// Inspecting kernel files without a GPU (op/kernel_binary.hpp). Layouts read here:
//  - ELF: glibc's <elf.h> (Elf64_Ehdr, Elf64_Shdr, Elf64_Sym); a CUDA ELF has e_machine EM_CUDA (190) and keeps the
//    compute capability in e_flags: bits 8–15 for ELF ABI version 8 and later (CUDA 12.8+ nvcc), bits 0–7 before.
//  - fatbin: a 16-byte header {u32 magic 0xBA55ED50, u16 version, u16 header size, u64 payload size} followed by
//    entries {u16 kind (1 PTX, 2 ELF), u16, u32 header size, u64 payload size, …, u32 arch at byte 28}, the layout
//    `cuobjdump --list-elf --list-ptx` reads (checked against nvcc 13.0 output in tests/cpu/test_kernel_binary.cpp).
//  - PTX: the ISA's `.target sm_XY[a]` directive and `.entry name( .param … )` declarations (PTX ISA, "Kernel
//    Function Parameters").
#include "op/kernel_binary.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <cctype>
#include <string_view>

#include "core/errors.hpp"
#include "core/text_file.hpp"

namespace gpubench::op {
namespace {

constexpr uint32_t kFatbinMagic = 0xBA55ED50u;
constexpr size_t kMaxKernelFileBytes = size_t{1} << 30;  // 1 GiB: above any real fatbin

template <typename T>
bool read_at(const std::string& d, uint64_t offset, T& out) {
  if (offset > d.size() || d.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, d.data() + offset, sizeof(T));
  return true;
}

/// The compute capability of a CUDA ELF from its header (see the file comment).
int elf_arch(const Elf64_Ehdr& h) {
  const unsigned abi = h.e_ident[EI_ABIVERSION];
  return static_cast<int>(abi >= 8 ? (h.e_flags >> 8) & 0xffu : h.e_flags & 0xffu);
}

/// Reads a CUDA ELF image's header and global function symbols. Throws InputError "<path>: …" when truncated.
void read_cubin(const std::string& d, const std::string& path, KernelBinary& out) {
  Elf64_Ehdr h{};
  if (!read_at(d, 0, h) || h.e_ident[EI_CLASS] != ELFCLASS64)
    throw InputError(path + ": a truncated or 32-bit ELF file; rebuild the cubin (nvcc -cubin)");
  out.sass_archs.push_back(elf_arch(h));
  if (h.e_shentsize != sizeof(Elf64_Shdr)) return;
  std::vector<Elf64_Shdr> sections(h.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i)
    if (!read_at(d, h.e_shoff + i * sizeof(Elf64_Shdr), sections[i]))
      throw InputError(path + ": a truncated cubin (its section table ends past the file); rebuild it");
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type != SHT_SYMTAB || s.sh_link >= sections.size() || s.sh_entsize != sizeof(Elf64_Sym)) continue;
    const Elf64_Shdr& strtab = sections[s.sh_link];
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym{};
      if (!read_at(d, s.sh_offset + off, sym)) throw InputError(path + ": a truncated cubin (symbol table); rebuild it");
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || ELF64_ST_BIND(sym.st_info) != STB_GLOBAL) continue;
      if (sym.st_name >= strtab.sh_size || strtab.sh_offset >= d.size() || sym.st_name >= d.size() - strtab.sh_offset)
        continue;
      const char* name = d.data() + strtab.sh_offset + sym.st_name;
      out.entries.emplace_back(name, strnlen(name, d.size() - strtab.sh_offset - sym.st_name));
    }
  }
}

/// Appends the kernel names of a fatbin's machine-code entry `image` to `names`; false when the entry is not a plain
/// CUDA ELF image (compressed, or unreadable), whose names cannot be known without the driver.
bool entry_names(const std::string& image, std::vector<std::string>& names) {
  uint16_t machine = 0;
  if (image.size() < 20 || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0 || !read_at(image, 18, machine) ||
      machine != EM_CUDA)
    return false;
  KernelBinary entry;
  try {
    read_cubin(image, "", entry);
  } catch (const InputError&) {
    return false;
  }
  names.insert(names.end(), entry.entries.begin(), entry.entries.end());
  return true;
}

/// Reads a fatbin's entry list (kinds and architectures) and, per architecture, the kernel names of each machine-code
/// entry that is a plain CUDA ELF image (not compressed), as read_cubin reads a cubin's; `entries` is their union when
/// every machine-code entry could be read.
void read_fatbin(const std::string& d, const std::string& path, KernelBinary& out) {
  uint16_t header_size = 0;
  uint64_t payload = 0;
  if (!read_at(d, 6, header_size) || !read_at(d, 8, payload) || header_size < 16)
    throw InputError(path + ": a truncated fatbin header; rebuild it (nvcc -fatbin)");
  if (header_size > d.size() || payload > d.size() - header_size)  // a copy cut short (the driver would refuse it)
    throw InputError(fmt::format("{}: a truncated fatbin (its header says {} bytes, the file has {}); rebuild it (nvcc "
                                 "-fatbin) or copy it again",
                                 path, uint64_t{header_size} + payload, d.size()));
  const uint64_t end = std::min<uint64_t>(d.size(), header_size + payload);
  std::vector<std::string> names;
  bool names_known = true;  // every ELF entry read so far was a plain CUDA ELF image
  for (uint64_t off = header_size; off + 32 <= end;) {
    uint16_t kind = 0;
    uint32_t entry_header = 0, arch = 0;
    uint64_t size = 0;
    read_at(d, off, kind);
    read_at(d, off + 4, entry_header);
    read_at(d, off + 8, size);
    read_at(d, off + 28, arch);
    if (entry_header < 32) throw InputError(path + ": a fatbin entry with a bad header; rebuild it");
    if (kind == 1) out.ptx_archs.push_back(static_cast<int>(arch));
    if (kind == 2) out.sass_archs.push_back(static_cast<int>(arch));
    if (entry_header > end - off || size > end - off - entry_header) {  // truncated: keep what was read
      names_known = false;
      break;
    }
    if (kind == 2) {
      std::vector<std::string> own;
      const bool read = entry_names(d.substr(off + entry_header, size), own);
      names_known = names_known && read;
      if (read) {
        std::vector<std::string>& at_arch = out.sass_entries[static_cast<int>(arch)];
        at_arch.insert(at_arch.end(), own.begin(), own.end());
        std::sort(at_arch.begin(), at_arch.end());
        at_arch.erase(std::unique(at_arch.begin(), at_arch.end()), at_arch.end());
        names.insert(names.end(), own.begin(), own.end());
      }
    }
    off += entry_header + size;
  }
  if (names_known && !out.sass_archs.empty()) {
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    out.entries = std::move(names);
  }
  if (out.sass_archs.empty() && out.ptx_archs.empty())
    throw InputError(path + ": a fatbin without machine code or PTX entries; rebuild it (nvcc -fatbin)");
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

/// Bytes of a PTX parameter declaration: ".param .u64 name" → 8, ".param .align 8 .b8 name[16]" → 16; 0 unknown.
int64_t ptx_param_bytes(std::string_view decl) {
  const size_t bracket = decl.find('[');
  if (decl.find(".b8") != std::string_view::npos && bracket != std::string_view::npos) {
    int64_t n = 0;
    for (size_t i = bracket + 1; i < decl.size() && std::isdigit(static_cast<unsigned char>(decl[i])) && n < (1 << 20); ++i)
      n = n * 10 + (decl[i] - '0');
    return n;
  }
  for (size_t i = decl.find(".param"); i != std::string_view::npos && i + 1 < decl.size();
       i = decl.find('.', i + 1)) {  // the first ".<u|s|b|f><bits>" type
    const char t = decl[i + 1];
    if (t != 'u' && t != 's' && t != 'b' && t != 'f') continue;
    int bits = 0;
    size_t j = i + 2;
    while (j < decl.size() && std::isdigit(static_cast<unsigned char>(decl[j])) && bits < 1000) bits = bits * 10 + (decl[j++] - '0');
    if ((bits == 8 || bits == 16 || bits == 32 || bits == 64) && (j == decl.size() || !is_ident(decl[j]))) return bits / 8;
  }
  return 0;
}

/// `ptx` without its comments (// to the end of the line, /* … */), quoted strings kept whole.
std::string without_comments(const std::string& ptx) {
  std::string out;
  out.reserve(ptx.size());
  for (size_t i = 0; i < ptx.size(); ++i) {
    if (ptx[i] == '"') {
      const size_t end = ptx.find('"', i + 1);
      const size_t stop = end == std::string::npos ? ptx.size() : end + 1;
      out.append(ptx, i, stop - i);
      i = stop - 1;
    } else if (ptx.compare(i, 2, "//") == 0) {
      i = std::min(ptx.find('\n', i), ptx.size()) - 1;
      out += ' ';
    } else if (ptx.compare(i, 2, "/*") == 0) {
      const size_t end = ptx.find("*/", i + 2);
      i = end == std::string::npos ? ptx.size() - 1 : end + 1;
      out += ' ';
    } else {
      out += ptx[i];
    }
  }
  return out;
}

/// Reads a PTX module's `.target` and its `.entry` names and parameter sizes (a plain scan: no regex, whose
/// recursion a hostile file could drive deep). Throws InputError for a module whose braces do not balance (cut off).
void read_ptx(const std::string& text, const std::string& path, KernelBinary& out) {
  const std::string d = without_comments(text);
  if (std::count(d.begin(), d.end(), '{') != std::count(d.begin(), d.end(), '}'))
    throw InputError(path + ": truncated PTX (its braces do not balance); regenerate it (nvcc -ptx)");
  const size_t target = d.find(".target");
  size_t i = target == std::string::npos ? d.size() : target + 7;
  while (i < d.size() && (d[i] == ' ' || d[i] == '\t')) ++i;
  int arch = 0;
  if (d.compare(i, 3, "sm_") == 0)
    for (i += 3; i < d.size() && std::isdigit(static_cast<unsigned char>(d[i])) && arch < 10000; ++i)
      arch = arch * 10 + (d[i] - '0');
  if (arch == 0)
    throw InputError(path + ": PTX without a `.target sm_XY` directive; regenerate it (nvcc -ptx -arch=sm_90a)");
  out.ptx_archs.push_back(arch);
  out.ptx_arch_specific = i < d.size() && (d[i] == 'a' || d[i] == 'f');
  for (size_t e = d.find(".entry"); e != std::string::npos; e = d.find(".entry", e + 6)) {
    size_t n = e + 6;
    while (n < d.size() && std::isspace(static_cast<unsigned char>(d[n]))) ++n;
    const size_t name_start = n;
    while (n < d.size() && is_ident(d[n])) ++n;
    if (n == name_start) continue;
    const std::string name = d.substr(name_start, n - name_start);
    out.entries.push_back(name);
    while (n < d.size() && std::isspace(static_cast<unsigned char>(d[n]))) ++n;
    if (n >= d.size() || d[n] != '(') continue;  // no parameters
    const size_t close = d.find(')', n);
    if (close == std::string::npos) continue;
    std::vector<int64_t>& sizes = out.param_bytes[name];
    for (size_t start = n + 1; start < close;) {
      const size_t comma = std::min(d.find(',', start), close);
      const std::string_view decl(d.data() + start, comma - start);
      if (decl.find(".param") != std::string_view::npos) sizes.push_back(ptx_param_bytes(decl));
      start = comma + 1;
    }
  }
}

}  // namespace

const char* to_string(KernelBinary::Kind kind) {
  switch (kind) {
    case KernelBinary::Kind::kCubin: return "cubin";
    case KernelBinary::Kind::kFatbin: return "fatbin";
    case KernelBinary::Kind::kPtx: return "PTX";
  }
  return "?";
}

KernelBinary inspect_kernel_binary(const std::string& path) {
  // Setup loads the file again by its path (cuLibraryLoadFromFile): only a regular file gives the same bytes twice.
  // A named pipe would block the read (with no writer: forever), a device such as /dev/urandom read a GiB first.
  std::error_code ec;
  if (const auto st = std::filesystem::status(path, ec);
      std::filesystem::exists(st) && !std::filesystem::is_directory(st) && !std::filesystem::is_regular_file(st))
    throw InputError(path + ": not a regular file (a named pipe, socket or device); give a .cubin, .fatbin or .ptx "
                            "file (it is read here and loaded again by path at setup)");
  std::string d;
  switch (read_text_file(path, kMaxKernelFileBytes, d)) {
    case ReadStatus::kOk: break;
    case ReadStatus::kCannotOpen:
      if (std::filesystem::is_directory(path, ec))
        throw InputError(path + ": is a folder; name the kernel file in it (a .cubin, .fatbin or .ptx)");
      throw InputError(path + ": cannot read the kernel file; check the path (relative paths start at the folder of "
                              "the file that names it)");
    case ReadStatus::kTooLarge: throw InputError(path + ": larger than 1 GiB; is it really a kernel file?");
  }
  KernelBinary out;
  uint32_t magic = 0;
  if (d.size() >= 20 && std::memcmp(d.data(), ELFMAG, SELFMAG) == 0) {
    uint16_t machine = 0;
    read_at(d, 18, machine);
    if (machine != EM_CUDA)
      throw InputError(fmt::format("{}: an ELF file for {}, not a CUDA cubin (EM_CUDA, 190); build the kernel "
                                   "with nvcc -cubin, or give a fatbin or PTX file",
                                   path, machine == EM_X86_64 ? std::string("x86-64 (a host library or program?)")
                                                              : fmt::format("ELF machine {}", machine)));
    out.kind = KernelBinary::Kind::kCubin;
    read_cubin(d, path, out);
  } else if (read_at(d, 0, magic) && magic == kFatbinMagic) {
    out.kind = KernelBinary::Kind::kFatbin;
    read_fatbin(d, path, out);
  } else if (d.find(".version") != std::string::npos && d.find(".target") != std::string::npos) {
    out.kind = KernelBinary::Kind::kPtx;
    read_ptx(d, path, out);
  } else {
    throw InputError(path + ": not a cubin, fatbin or PTX file (" + printable(d.substr(0, 16), 16) +
                     "…); give the file nvcc -cubin, -fatbin or -ptx wrote");
  }
  return out;
}

const std::vector<std::string>* entries_on(const KernelBinary& b, int sm) {
  if (b.kind == KernelBinary::Kind::kCubin)
    return !b.entries.empty() && !b.sass_archs.empty() && b.sass_archs.front() / 10 == sm / 10 &&
                   b.sass_archs.front() <= sm
               ? &b.entries
               : nullptr;
  if (b.kind != KernelBinary::Kind::kFatbin) return nullptr;
  int best = -1;  // the newest machine code of sm's major version at or below sm: what the driver loads
  for (const int a : b.sass_archs)
    if (a / 10 == sm / 10 && a <= sm) best = std::max(best, a);
  const auto it = b.sass_entries.find(best);
  return it == b.sass_entries.end() ? nullptr : &it->second;
}

bool runs_on(const KernelBinary& b, int sm) {
  for (int a : b.sass_archs)
    if (a / 10 == sm / 10 && a <= sm) return true;
  for (int a : b.ptx_archs)
    if (a <= sm && !(b.ptx_arch_specific && a != sm)) return true;
  return false;
}

std::string describe_archs(const KernelBinary& b) {
  std::string out;
  for (int a : b.sass_archs) out += fmt::format("{}sm_{} machine code", out.empty() ? "" : ", ", a);
  for (int a : b.ptx_archs)
    out += fmt::format("{}compute_{}{} PTX", out.empty() ? "" : ", ", a, b.ptx_arch_specific ? "a" : "");
  return out.empty() ? "no code" : out;
}

}  // namespace gpubench::op

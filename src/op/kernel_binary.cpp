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
#include <regex>

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
      if (sym.st_name >= strtab.sh_size || strtab.sh_offset + sym.st_name >= d.size()) continue;
      const char* name = d.data() + strtab.sh_offset + sym.st_name;
      out.entries.emplace_back(name, strnlen(name, d.size() - strtab.sh_offset - sym.st_name));
    }
  }
}

/// Reads a fatbin's entry list (kinds and architectures).
void read_fatbin(const std::string& d, const std::string& path, KernelBinary& out) {
  uint16_t header_size = 0;
  uint64_t payload = 0;
  if (!read_at(d, 6, header_size) || !read_at(d, 8, payload) || header_size < 16)
    throw InputError(path + ": a truncated fatbin header; rebuild it (nvcc -fatbin)");
  const uint64_t end = std::min<uint64_t>(d.size(), header_size + payload);
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
    if (size > end - off - entry_header) break;  // truncated: keep what was read
    off += entry_header + size;
  }
  if (out.sass_archs.empty() && out.ptx_archs.empty())
    throw InputError(path + ": a fatbin without machine code or PTX entries; rebuild it (nvcc -fatbin)");
}

/// Bytes of a PTX parameter declaration ("... .u64 name", "... .b8 name[16]").
int64_t ptx_param_bytes(const std::string& decl) {
  static const std::regex array_re(R"(\.b8\s+[A-Za-z_$%][\w$]*\s*\[\s*(\d+)\s*\])");
  std::smatch m;
  if (std::regex_search(decl, m, array_re)) return std::stoll(m[1].str());
  static const std::regex type_re(R"(\.([usbf])(8|16|32|64)\b)");
  if (std::regex_search(decl, m, type_re)) return std::stoll(m[2].str()) / 8;
  return 0;
}

void read_ptx(const std::string& d, const std::string& path, KernelBinary& out) {
  static const std::regex target_re(R"(\.target\s+sm_(\d+)(a|f)?)");
  std::smatch m;
  if (!std::regex_search(d, m, target_re))
    throw InputError(path + ": PTX without a `.target sm_XY` directive; regenerate it (nvcc -ptx -arch=sm_90a)");
  out.ptx_archs.push_back(std::stoi(m[1].str()));
  out.ptx_arch_specific = m[2].matched;
  static const std::regex entry_re(R"(\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\))");
  for (auto it = std::sregex_iterator(d.begin(), d.end(), entry_re); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1].str(), params = (*it)[2].str();
    out.entries.push_back(name);
    std::vector<int64_t>& sizes = out.param_bytes[name];
    size_t start = 0;
    while (start < params.size()) {
      size_t comma = params.find(',', start);
      if (comma == std::string::npos) comma = params.size();
      const std::string decl = params.substr(start, comma - start);
      if (decl.find(".param") != std::string::npos) sizes.push_back(ptx_param_bytes(decl));
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
  std::string d;
  switch (read_text_file(path, kMaxKernelFileBytes, d)) {
    case ReadStatus::kOk: break;
    case ReadStatus::kCannotOpen:
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
      throw InputError(fmt::format("{}: an ELF file for machine {}, not a CUDA cubin (EM_CUDA, 190); build the kernel "
                                   "with nvcc -cubin, or give a fatbin or PTX file", path, machine));
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

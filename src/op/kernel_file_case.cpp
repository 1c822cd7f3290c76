// A kernel-file step's launches evaluated for one case and checked against a GPU's launch limits
// (op/kernel_file.hpp), before any GPU work (validate, plan) and again on the GPU at setup.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/errors.hpp"
#include "op/kernel_file.hpp"

namespace gpubench::op {
namespace {

/// The range of an integer signature type, or nullopt for 64-bit ones (any int64 fits; u64 must be ≥ 0).
std::pair<int64_t, int64_t> int_range(const std::string& elem) {
  if (elem == "i1") return {0, 1};
  if (elem == "i8") return {-128, 127};
  if (elem == "u8") return {0, 255};
  if (elem == "i16") return {-32768, 32767};
  if (elem == "u16") return {0, 65535};
  if (elem == "i32") return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
  if (elem == "u32") return {0, std::numeric_limits<uint32_t>::max()};
  if (elem == "u64") return {0, std::numeric_limits<int64_t>::max()};
  return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
}

/// "B=1024 U=14" for messages.
std::string size_label(const CaseSize& size) { return fmt::format("B={} U={}", size.B, size.U); }

int64_t eval_at(const KernelFileStep& s, const IntExpr& e, const std::string& pointer, const CaseSize& size) {
  try {
    return e.eval(s.symbols(size));
  } catch (const InputError& err) {
    throw InputError(fmt::format("{}: {}; fix the expression", s.where(pointer), err.what()));
  }
}

}  // namespace

IntExpr::Lookup KernelFileStep::symbols(const CaseSize& size) const {
  return [this, &size](std::string_view name) -> std::optional<int64_t> {
    if (name == "B") return size.B;
    if (name == "U") return size.U;
    if (name == "elem") return element_bytes(size.precision);
    for (const std::string& s : shape_names)
      if (s == name && size.shape.has(name)) return size.shape.at(name);
    return std::nullopt;
  };
}

LaunchLimits limits_for_model(const std::string& model) {
  // Both datasheet models are sm_90 (Hopper): the limits of compute capability 9.0.
  if (model != "h200" && model != "h100_sxm")
    throw InputError(fmt::format("/device/model: no launch limits for '{}'; use h200 or h100_sxm", model));
  LaunchLimits l;
  l.name = "the " + model + " datasheet (sm_90)";
  return l;
}

LaunchDims launch_dims(const KernelFileStep& s, const KernelLaunch& l, const CaseSize& size) {
  LaunchDims d;
  for (int i = 0; i < 3; ++i) {
    d.grid[i] = eval_at(s, l.grid[i], dim_pointer(l, "grid", i), size);
    d.block[i] = eval_at(s, l.block[i], dim_pointer(l, "block", i), size);
    d.cluster[i] = eval_at(s, l.cluster[i], dim_pointer(l, "cluster", i), size);
  }
  d.shared_memory = eval_at(s, l.shared_memory, l.pointer + "/shared_memory", size);
  return d;
}

std::vector<std::string> case_problems(const KernelFileStep& s, const CaseSize& size, const LaunchLimits& lim) {
  std::vector<std::string> out;
  std::vector<const KernelFileBinary*> seen;  // each file once
  for (const KernelLaunch& l : s.launches) {
    if (!l.file || std::find(seen.begin(), seen.end(), l.file.get()) != seen.end()) continue;
    seen.push_back(l.file.get());
    if (!runs_on(l.file->binary, lim.sm))
      out.push_back(fmt::format("{}: {} holds {}, which cannot run on sm_{} ({}); rebuild it for sm_{} (e.g. nvcc "
                                "-cubin -arch=sm_{}a) or ship PTX the driver can compile",
                                s.where(l.binary_pointer), l.file->path, describe_archs(l.file->binary), lim.sm,
                                lim.name, lim.sm, lim.sm));
  }
  // A fatbin's kernel names are checked against the copy the driver loads on this GPU: a kernel present only in
  // another architecture's machine code passed validate and failed on the GPU (trial 9 recheck).
  for (const KernelLaunch& l : s.launches) {
    if (!l.file || l.file->binary.kind != KernelBinary::Kind::kFatbin || l.kernel.empty()) continue;
    const std::vector<std::string>* names = entries_on(l.file->binary, lim.sm);
    if (names == nullptr || std::find(names->begin(), names->end(), l.kernel) != names->end()) continue;
    out.push_back(fmt::format("{}: {} has no kernel '{}' in the machine code that runs on {}, only in another "
                              "architecture's (that copy has {}); rebuild the fatbin with the kernel for sm_{}",
                              s.where(l.pointer + "/kernel"), l.file->path, l.kernel, lim.name,
                              fmt::join(*names, ", "), lim.sm));
  }
  for (size_t i = 0; i < s.workspaces.size(); ++i) {
    try {
      if (eval_at(s, s.workspaces[i].bytes, fmt::format("{}/workspace/{}/bytes", s.pointer, i), size) < 0)
        out.push_back(fmt::format("{}: negative for {}; fix the expression",
                                  s.where(fmt::format("{}/workspace/{}/bytes", s.pointer, i)), size_label(size)));
    } catch (const InputError& e) {
      out.push_back(e.what());
    }
  }
  for (const KernelAssumption& a : s.assumptions) {
    if (!a.value) continue;  // buffers: their addresses are checked at setup
    try {
      const int64_t v = eval_at(s, *a.value, a.pointer, size);
      if (v % a.multiple != 0)
        out.push_back(fmt::format("{}: {} = {} for {} is not a multiple of {}, which the kernels were compiled to "
                                  "assume; change the shape, or rebuild the kernels without that hint",
                                  s.where(a.pointer), a.key, v, size_label(size), a.multiple));
    } catch (const InputError& e) {
      out.push_back(e.what());
    }
  }
  for (const KernelLaunch& l : s.launches) {
    LaunchDims d;
    try {
      d = launch_dims(s, l, size);
    } catch (const InputError& e) {
      out.push_back(e.what());
      continue;
    }
    const char* axis = "xyz";
    int64_t threads = 1, cluster = 1;
    bool block_dim_out = false;  // a dimension over its own limit already says the block is too big
    for (int i = 0; i < 3; ++i) {
      if (d.grid[i] < 1 || d.grid[i] > lim.max_grid[i])
        out.push_back(fmt::format("{}: grid.{} = {} for {}, outside 1 … {} on {}; change the expression or the shape",
                                  s.where(dim_pointer(l, "grid", i)), axis[i], d.grid[i],
                                  size_label(size), lim.max_grid[i], lim.name));
      if (d.block[i] < 1 || d.block[i] > lim.max_block[i]) {
        block_dim_out = true;
        out.push_back(fmt::format("{}: block.{} = {} for {}, outside 1 … {} on {}; use a smaller block",
                                  s.where(dim_pointer(l, "block", i)), axis[i], d.block[i],
                                  size_label(size), lim.max_block[i], lim.name));
      }
      if (d.cluster[i] < 1)
        out.push_back(fmt::format("{}: cluster.{} = {} for {}; clusters have at least 1 CTA per dimension",
                                  s.where(dim_pointer(l, "cluster", i)), axis[i], d.cluster[i],
                                  size_label(size)));
      else if (d.grid[i] >= 1 && d.grid[i] % d.cluster[i] != 0)
        out.push_back(fmt::format("{}: grid.{} = {} is not a multiple of cluster.{} = {} for {}; round the grid up "
                                  "to whole clusters", s.where(dim_pointer(l, "grid", i)), axis[i],
                                  d.grid[i], axis[i], d.cluster[i], size_label(size)));
      threads *= std::max<int64_t>(d.block[i], 1);
      cluster *= std::max<int64_t>(d.cluster[i], 1);
    }
    if (threads > lim.max_threads_per_block && !block_dim_out)
      out.push_back(fmt::format("{}: {} threads per block, above {} on {}; use a smaller block",
                                s.where(l.pointer + "/block"), threads, lim.max_threads_per_block, lim.name));
    if (cluster > 1 && lim.sm < 90)
      out.push_back(fmt::format("{}: thread block clusters need sm_90 or later; {} is sm_{}: drop 'cluster' or run "
                                "on sm_90",
                                s.where(l.pointer + "/cluster"), lim.name, lim.sm));
    else if (cluster > lim.max_cluster)
      out.push_back(fmt::format("{}: {} CTAs per cluster, above {} on {}; use a smaller cluster",
                                s.where(l.pointer + "/cluster"), cluster, lim.max_cluster, lim.name));
    if (d.shared_memory < 0 || d.shared_memory > lim.max_shared_memory)
      out.push_back(fmt::format("{}: {} bytes of dynamic shared memory for {}, outside 0 … {} on {}; change the "
                                "expression or the shape",
                                s.where(l.pointer + "/shared_memory"), d.shared_memory, size_label(size),
                                lim.max_shared_memory, lim.name));
    for (size_t a = 0; a < l.args.size(); ++a) {
      if (l.args[a].kind != KernelArg::Kind::kInteger || !l.args[a].expr) continue;
      const std::string ptr = fmt::format("{}/args/{}", l.pointer, a);
      try {
        const int64_t v = eval_at(s, *l.args[a].expr, ptr, size);
        const auto [lo, hi] = int_range(l.signature[a].elem);
        if (v < lo || v > hi)
          out.push_back(fmt::format("{}: {} = {} for {} does not fit {} ({} … {}); use a wider type in the kernel",
                                    s.where(ptr), l.args[a].expr->text(), v, size_label(size),
                                    l.signature[a].elem, lo, hi));
      } catch (const InputError& e) {
        out.push_back(e.what());
      }
    }
  }
  return out;
}

}  // namespace gpubench::op

// Parsing and checking kernel-file descriptions without a GPU (op/kernel_file.hpp, docs/kernel-files.md).
#include "op/kernel_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <set>

#include "core/errors.hpp"
#include "core/text_file.hpp"
#include "op/plugin_adapter.hpp"
#include "op/plugin_loader.hpp"

namespace gpubench::op {
namespace {

std::string json_type(const nlohmann::json& j) { return j.type_name(); }

/// Collects the problems of one description, each "<label>: <pointer>: <message>".
struct Problems {
  std::string label;
  std::vector<std::string> lines;
  void add(const std::string& pointer, const std::string& message) {
    lines.push_back(fmt::format("{}: {}: {}", label, pointer.empty() ? "/" : pointer, message));
  }
  /// Adds a problem for each of `keys` missing from `j`, an object of kind `what` ("launch", "step").
  void require(const nlohmann::json& j, const std::string& pointer, std::initializer_list<const char*> keys,
               const char* what) {
    for (const char* k : keys)
      if (!j.contains(k)) add(pointer, fmt::format("missing \"{}\"; docs/kernel-files.md shows a {}", k, what));
  }
  /// The identifier at j[key] (letters, digits and '_', not starting with a digit); "" when absent or bad (a problem
  /// naming it as `what`, e.g. "a step name").
  std::string identifier(const nlohmann::json& j, const std::string& pointer, const char* key, const char* what) {
    const auto it = j.find(key);
    if (it == j.end()) return "";
    if (it->is_string() && is_plugin_name(it->get<std::string>().c_str())) return it->get<std::string>();
    add(pointer + "/" + key, fmt::format("expected {}: letters, digits and '_', not starting with a digit", what));
    return "";
  }
  /// Refuses keys of `j` not in `known`.
  void keys(const nlohmann::json& j, const std::string& pointer, const std::vector<std::string>& known) {
    for (const auto& [k, v] : j.items())
      if (std::find(known.begin(), known.end(), k) == known.end()) {
        std::string list;
        for (const std::string& s : known) list += (list.empty() ? "" : ", ") + s;
        add(pointer + "/" + k, fmt::format("unknown key; the keys here are {}", list));
      }
  }
};

/// The precision a tensor's dtype ("precision", "int32", "fp32", …) has at `p`, in signature spelling.
std::string signature_elem(const std::string& dtype, Precision p) {
  if (dtype == "precision") return std::string(to_string(p));
  if (dtype == "int32") return "i32";
  if (dtype == "int64") return "i64";
  return dtype;  // fp16 / bf16 / fp32
}

/// An expression field: an integer or a string; "" on success, else the problem.
std::optional<IntExpr> expr_of(const nlohmann::json& v, const std::string& pointer, const std::set<std::string>& known,
                               Problems& p) {
  std::string text;
  if (v.is_number_integer()) {
    text = std::to_string(v.get<int64_t>());
  } else if (v.is_string()) {
    text = v.get<std::string>();
  } else {
    p.add(pointer, "expected an integer or an expression string such as \"ceil_div(N, 64)\", got " + json_type(v));
    return std::nullopt;
  }
  try {
    IntExpr e = IntExpr::parse(text);
    for (const std::string& s : e.symbols())
      if (known.count(s) == 0) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        p.add(pointer, fmt::format("'{}': unknown symbol '{}'; the symbols are {}", text, s, list));
        return std::nullopt;
      }
    return e;
  } catch (const InputError& e) {
    p.add(pointer, std::string(e.what()) + "; fix the expression");
    return std::nullopt;
  }
}

/// Up to three dimensions: an integer, an expression, or a list of 1–3 of them; missing dimensions are 1.
std::array<IntExpr, 3> dims_of(const nlohmann::json& v, const std::string& pointer,
                               const std::set<std::string>& known, Problems& p) {
  std::array<IntExpr, 3> out{IntExpr::parse("1"), IntExpr::parse("1"), IntExpr::parse("1")};
  if (!v.is_array()) {
    if (auto e = expr_of(v, pointer, known, p)) out[0] = *e;
    return out;
  }
  if (v.empty() || v.size() > 3) {
    p.add(pointer, fmt::format("expected 1 to 3 dimensions [x, y, z], got {}", v.size()));
    return out;
  }
  for (size_t i = 0; i < v.size(); ++i)
    if (auto e = expr_of(v[i], fmt::format("{}/{}", pointer, i), known, p)) out[i] = *e;
  return out;
}

}  // namespace

std::string dim_pointer(const KernelLaunch& l, const std::string& field, int i) {
  const size_t k = field == "grid" ? 0 : field == "block" ? 1 : 2;
  return l.one_value[k] && i == 0 ? l.pointer + "/" + field : fmt::format("{}/{}/{}", l.pointer, field, i);
}

namespace {

/// The kernel file named at `pointer`, inspected; nullptr (with a problem) when it cannot be read.
std::shared_ptr<const KernelFileBinary> binary_of(const nlohmann::json& v, const std::string& pointer,
                                                  const std::string& base_dir, Problems& p) {
  if (!v.is_string() || v.get<std::string>().empty()) {
    p.add(pointer, "expected the kernel file's path (cubin, fatbin or PTX), relative to this file");
    return nullptr;
  }
  auto f = std::make_shared<KernelFileBinary>();
  f->path = resolve_path(base_dir, v.get<std::string>());
  try {
    f->binary = inspect_kernel_binary(f->path);
    f->sha256 = sha256_file(f->path);
  } catch (const InputError& e) {
    p.add(pointer, e.what());
    return nullptr;
  }
  return f;
}

void parse_args(const nlohmann::json& args, const std::string& pointer, const KernelFileStep& s,
                const std::set<std::string>& known, KernelLaunch& l, Problems& p) {
  if (!args.is_array()) {
    p.add(pointer, "expected a list of arguments (tensor or workspace names, expressions, numbers, null)");
    return;
  }
  if (args.size() != l.signature.size()) {
    p.add(pointer, fmt::format("{} arguments for a signature of {} parameters; give one argument per parameter",
                               args.size(), l.signature.size()));
    return;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string ptr = fmt::format("{}/{}", pointer, i);
    const nlohmann::json& a = args[i];
    const ParamType& t = l.signature[i];
    KernelArg arg;
    const auto tensor = a.is_string() ? std::find(s.tensor_names.begin(), s.tensor_names.end(), a.get<std::string>())
                                      : s.tensor_names.end();
    const auto ws = a.is_string() ? std::find_if(s.workspaces.begin(), s.workspaces.end(),
                                                 [&](const KernelWorkspace& w) { return w.name == a.get<std::string>(); })
                                  : s.workspaces.end();
    if (a.is_null()) {
      arg.kind = KernelArg::Kind::kNull;
      if (!t.pointer) p.add(ptr, fmt::format("null binds a pointer, but the signature has {} here", t.text()));
    } else if (tensor != s.tensor_names.end() || ws != s.workspaces.end()) {
      const bool is_tensor = tensor != s.tensor_names.end();
      arg.kind = is_tensor ? KernelArg::Kind::kTensor : KernelArg::Kind::kWorkspace;
      arg.index = is_tensor ? static_cast<size_t>(tensor - s.tensor_names.begin())
                            : static_cast<size_t>(ws - s.workspaces.begin());
      if (!t.pointer)
        p.add(ptr, fmt::format("'{}' is a {} (a pointer), but the signature has {} here; write *<type>",
                               a.get<std::string>(), is_tensor ? "tensor" : "workspace", t.text()));
    } else if (t.pointer) {
      p.add(ptr, fmt::format("the signature has {} here, so the argument must name a tensor of op {} ({}), a "
                             "workspace or null; got {}", t.text(), s.op, fmt::join(s.tensor_names, ", "), a.dump()));
      continue;
    } else if (a.is_number_float()) {
      arg.kind = KernelArg::Kind::kFloat;
      arg.value = a.get<double>();
      if (t.integer()) p.add(ptr, fmt::format("{} is not an integer, but the signature has {} here", a.dump(), t.text()));
    } else if (auto e = expr_of(a, ptr, known, p)) {
      arg.kind = t.integer() ? KernelArg::Kind::kInteger : KernelArg::Kind::kFloat;
      arg.expr = *e;
      if (!t.integer() && t.elem != "fp32" && t.elem != "fp64")
        p.add(ptr, fmt::format("{} scalars are not supported; pass an fp32 scalar or a tensor", t.elem));
    }
    l.args.push_back(std::move(arg));
  }
}

/// Checks the pointer arguments' element types against the op's tensors at each precision of the step.
void check_tensor_types(const KernelFileStep& s, const Operation& op, const KernelLaunch& l, Problems& p) {
  const std::vector<TensorSpec> tensors = op.tensors();
  for (size_t i = 0; i < l.args.size(); ++i) {
    const ParamType& t = l.signature[i];
    if (l.args[i].kind != KernelArg::Kind::kTensor || !t.pointer) continue;  // a scalar slot: refused already
    const TensorSpec& spec = tensors[l.args[i].index];
    if (t.elem == "void" || t.elem == "i8" || t.elem == "u8") continue;  // untyped bytes
    for (Precision prec : s.precisions) {
      const std::string want = signature_elem(spec.dtype, prec);
      if (t.elem != want) {
        p.add(fmt::format("{}/signature/{}", l.pointer, i),
              fmt::format("{} points to {}, but tensor {} is {} at the step's precision {} (its \"precisions\"); "
                          "write *{}{}",
                          t.text(), t.elem, spec.name, want, to_string(prec), want,
                          spec.dtype == "precision" && s.precisions.size() > 1 ? " (or describe one step per precision)"
                                                                               : ""));
        break;
      }
    }
  }
}

KernelLaunch parse_launch(const nlohmann::json& j, const std::string& ptr, const KernelFileStep& s,
                          const Operation& op, const std::set<std::string>& known, const std::string& base_dir,
                          bool step_names_binary, Problems& p) {
  KernelLaunch l;
  l.pointer = ptr;
  l.shared_memory = IntExpr::parse("0");
  for (int d = 0; d < 3; ++d) l.cluster[d] = IntExpr::parse("1");
  if (!j.is_object()) {
    p.add(ptr, "expected an object {group, kernel, signature, args, grid, block, …}, got " + json_type(j));
    return l;
  }
  p.keys(j, ptr,
         {"group", "kernel", "binary", "signature", "args", "grid", "block", "cluster", "shared_memory", "setup"});
  if (auto it = j.find("setup"); it != j.end()) {
    if (it->is_boolean()) l.setup = it->get<bool>();
    else p.add(ptr + "/setup", "expected true (run once per case in untimed setup) or false");
  }
  l.file = s.file;
  l.binary_pointer = s.pointer + "/binary";
  if (auto it = j.find("binary"); it != j.end()) {
    l.file = binary_of(*it, ptr + "/binary", base_dir, p);
    l.binary_pointer = ptr + "/binary";
  } else if (!step_names_binary) {
    p.add(ptr, "no kernel file: give \"binary\" here or in the step");
  }
  p.require(j, ptr, {"group", "kernel", "signature", "args", "grid", "block"}, "launch");
  l.group = p.identifier(j, ptr, "group", "a launch group name");
  if (auto it = j.find("kernel"); it != j.end()) {
    if (!it->is_string() || it->get<std::string>().empty()) {
      p.add(ptr + "/kernel", "expected the kernel's entry symbol (a string)");
    } else {
      l.kernel = it->get<std::string>();
      const std::vector<std::string> none;
      const auto& e = l.file ? l.file->binary.entries : none;
      if (!e.empty() && std::find(e.begin(), e.end(), l.kernel) == e.end())
        p.add(ptr + "/kernel", fmt::format("{} has no kernel '{}' (it has {}); use one of those names (a C++ kernel "
                                           "needs extern \"C\" or its mangled name)",
                                           l.file->path, l.kernel, fmt::join(e, ", ")));
    }
  }
  if (auto it = j.find("signature"); it != j.end()) {
    try {
      if (it->is_string()) {
        l.signature = parse_signature(it->get<std::string>());
      } else if (it->is_array()) {
        for (const auto& t : *it) {
          if (!t.is_string()) throw InputError("expected a list of type strings such as \"*fp16\"");
          for (ParamType& pt : parse_signature(t.get<std::string>())) l.signature.push_back(pt);
        }
      } else {
        throw InputError("expected a string such as \"*fp16, *fp16, i32\" or a list of type strings");
      }
    } catch (const InputError& e) {
      p.add(ptr + "/signature", e.what());
    }
    static const std::map<std::string, std::vector<int64_t>> kNone;
    const auto& params = l.file ? l.file->binary.param_bytes : kNone;
    const auto sizes = params.find(l.kernel);
    if (sizes != params.end() && !l.signature.empty()) {
      std::vector<int64_t> want;
      for (const ParamType& t : l.signature) want.push_back(t.bytes());
      if (want != sizes->second)
        p.add(ptr + "/signature", fmt::format("the PTX of '{}' declares {} parameters of {} bytes, the signature "
                                              "gives {} of {} bytes; make the signature match the kernel",
                                              l.kernel, sizes->second.size(), fmt::join(sizes->second, ", "),
                                              want.size(), fmt::join(want, ", ")));
    }
  }
  if (auto it = j.find("args"); it != j.end() && !l.signature.empty()) parse_args(*it, ptr + "/args", s, known, l, p);
  if (auto it = j.find("grid"); it != j.end()) {
    l.grid = dims_of(*it, ptr + "/grid", known, p);
    l.one_value[0] = !it->is_array();
  }
  if (auto it = j.find("block"); it != j.end()) {
    l.block = dims_of(*it, ptr + "/block", known, p);
    l.one_value[1] = !it->is_array();
  }
  if (auto it = j.find("cluster"); it != j.end()) {
    l.has_cluster = true;
    l.cluster = dims_of(*it, ptr + "/cluster", known, p);
    l.one_value[2] = !it->is_array();
  }
  if (auto it = j.find("shared_memory"); it != j.end())
    if (auto e = expr_of(*it, ptr + "/shared_memory", known, p)) l.shared_memory = *e;
  if (l.args.size() == l.signature.size()) check_tensor_types(s, op, l, p);
  return l;
}

void parse_step(const nlohmann::json& j, const std::string& ptr, const std::string& base_dir, const Operation& op,
                KernelFileStep& s, Problems& p) {
  p.keys(j, ptr, {"name", "description", "ladder_step", "precisions", "binary", "work_model", "workspace",
                  "divisibility", "launches"});
  p.require(j, ptr, {"name", "precisions", "launches"}, "step");
  s.name = p.identifier(j, ptr, "name", "a step name");
  if (auto it = j.find("description"); it != j.end()) {
    if (it->is_string()) s.description = it->get<std::string>();
    else p.add(ptr + "/description", "expected one line of text");
  }
  if (auto it = j.find("ladder_step"); it != j.end()) {
    if (it->is_number_integer() && it->get<int64_t>() >= 0 && it->get<int64_t>() <= 1000) s.ladder_step = it->get<int>();
    else p.add(ptr + "/ladder_step", "expected an integer 0 … 1000 (0 is the original implementation)");
  }
  if (auto it = j.find("precisions"); it != j.end()) {
    const nlohmann::json list = it->is_string() ? nlohmann::json::array({*it}) : *it;
    for (size_t i = 0; list.is_array() && i < list.size(); ++i) {
      const auto prec = list[i].is_string() ? parse_precision(list[i].get<std::string>()) : std::nullopt;
      if (prec && std::find(s.precisions.begin(), s.precisions.end(), *prec) != s.precisions.end())
        p.add(fmt::format("{}/precisions/{}", ptr, i), fmt::format("{} is listed twice; name it once", to_string(*prec)));
      else if (prec) s.precisions.push_back(*prec);
      else p.add(fmt::format("{}/precisions/{}", ptr, i), "expected \"fp16\", \"bf16\" or \"fp32\"");
    }
    if (!list.is_array() || list.empty())
      p.add(ptr + "/precisions", "expected the precisions the binary was compiled for, e.g. [\"fp16\"]");
  }
  if (auto it = j.find("binary"); it != j.end()) s.file = binary_of(*it, ptr + "/binary", base_dir, p);
  const std::vector<std::string> models = op.work_models();
  if (auto it = j.find("work_model"); it != j.end()) {
    if (!it->is_string() || std::find(models.begin(), models.end(), it->get<std::string>()) == models.end())
      p.add(ptr + "/work_model", fmt::format("expected one of op {}'s work models: {}", op.name(), fmt::join(models, ", ")));
    else
      s.work_model = it->get<std::string>();
  }
  std::set<std::string> known(s.shape_names.begin(), s.shape_names.end());
  known.insert({"B", "U", "elem"});
  if (auto it = j.find("workspace"); it != j.end()) {
    if (!it->is_array()) p.add(ptr + "/workspace", "expected a list of {\"name\", \"bytes\"} scratch buffers");
    for (size_t i = 0; it->is_array() && i < it->size(); ++i) {
      const std::string wp = fmt::format("{}/workspace/{}", ptr, i);
      const nlohmann::json& w = (*it)[i];
      if (!w.is_object() || !w.contains("name") || !w.contains("bytes")) {
        p.add(wp, "expected {\"name\": \"Y_user\", \"bytes\": \"U * M * N * 4\"}");
        continue;
      }
      p.keys(w, wp, {"name", "bytes"});
      const std::string name = w["name"].is_string() ? w["name"].get<std::string>() : "";
      const bool taken = std::find(s.tensor_names.begin(), s.tensor_names.end(), name) != s.tensor_names.end() ||
                         std::any_of(s.workspaces.begin(), s.workspaces.end(),
                                     [&](const KernelWorkspace& k) { return k.name == name; });
      if (known.count(name) != 0)  // an argument named M would bind the buffer, not the shape value
        p.add(wp + "/name", fmt::format("'{}' is a shape symbol of op {} (the symbols are {}); give the workspace "
                                        "another name",
                                        name, op.name(), fmt::join(known, ", ")));
      else if (!is_plugin_name(name.c_str()) || taken)
        p.add(wp + "/name", fmt::format("expected a new name (letters, digits, '_'): not a tensor of op {} nor "
                                        "another workspace", op.name()));
      if (auto e = expr_of(w["bytes"], wp + "/bytes", known, p)) s.workspaces.push_back({name, *e});
    }
  }
  if (auto it = j.find("divisibility"); it != j.end()) {
    if (!it->is_object())
      p.add(ptr + "/divisibility", "expected {\"N\": 16, \"E_cand\": 16}: values and buffers the kernels assume are "
                                   "multiples");
    const nlohmann::json entries = it->is_object() ? *it : nlohmann::json::object();
    for (const auto& [key, v] : entries.items()) {
      KernelAssumption a;
      a.pointer = ptr + "/divisibility/" + key;
      a.key = key;
      if (!v.is_number_integer() || v.get<int64_t>() < 1) {
        p.add(a.pointer, "expected a positive integer (16 for Triton's divisibility hint)");
        continue;
      }
      a.multiple = v.get<int64_t>();
      const auto t = std::find(s.tensor_names.begin(), s.tensor_names.end(), key);
      const auto w = std::find_if(s.workspaces.begin(), s.workspaces.end(),
                                  [&](const KernelWorkspace& x) { return x.name == key; });
      if ((t != s.tensor_names.end() || w != s.workspaces.end()) && 256 % a.multiple != 0) {
        p.add(a.pointer, fmt::format("gpubench's buffers start on 256-byte boundaries, so it cannot promise {} "
                                     "bytes; use a divisor of 256 (16 for Triton's hint)", a.multiple));
        continue;
      }
      if (t != s.tensor_names.end()) {
        a.buffer.kind = KernelArg::Kind::kTensor;
        a.buffer.index = static_cast<size_t>(t - s.tensor_names.begin());
      } else if (w != s.workspaces.end()) {
        a.buffer.kind = KernelArg::Kind::kWorkspace;
        a.buffer.index = static_cast<size_t>(w - s.workspaces.begin());
      } else if (auto e = expr_of(nlohmann::json(key), a.pointer, known, p)) {
        a.value = *e;
      } else {
        continue;
      }
      s.assumptions.push_back(std::move(a));
    }
  }
  if (auto it = j.find("launches"); it != j.end()) {
    if (!it->is_array() || it->empty())
      p.add(ptr + "/launches", "expected a non-empty list of launches, run in order");
    for (size_t i = 0; it->is_array() && i < it->size(); ++i)
      s.launches.push_back(parse_launch((*it)[i], fmt::format("{}/launches/{}", ptr, i), s, op, known, base_dir,
                                        j.contains("binary"), p));
    if (!s.launches.empty() && std::all_of(s.launches.begin(), s.launches.end(), [](const KernelLaunch& l) {
          return l.setup;
        }))
      p.add(ptr + "/launches", "every launch is a setup launch, so nothing would be timed; give at least one "
                               "launch without \"setup\": true");
    std::set<std::string> seen;  // a group's launches are consecutive: it is timed as one interval
    for (size_t i = 0; i < s.launches.size(); ++i) {
      if (i > 0 && s.launches[i].setup && !s.launches[i - 1].setup)
        p.add(s.launches[i].pointer + "/setup", "setup launches come first, before the timed ones; move it up");
      const std::string& g = s.launches[i].group;
      if (i > 0 && g == s.launches[i - 1].group) continue;
      if (!g.empty() && !seen.insert(g).second)
        p.add(s.launches[i].pointer + "/group", fmt::format("group '{}' appears again after another group; give its "
                                                            "launches consecutively or use a new name", g));
    }
  }
}

}  // namespace

std::vector<KernelFileStep> parse_kernel_file(const nlohmann::json& j, const std::string& label,
                                              const std::string& base_dir, const std::string& prefix) {
  Problems p{label, {}};
  std::vector<KernelFileStep> out;
  if (!j.is_object()) throw InputError(label + ": " + (prefix.empty() ? "/" : prefix) +
                                       ": expected a kernel file description (a JSON object); docs/kernel-files.md");
  if (!j.contains("kernel_file_version") && (j.contains("workload") || j.contains("variants")))
    throw InputError(label + ": this is a gpubench config, not a kernel file description (it has no "
                             "\"kernel_file_version\"); pass it as the CONFIG argument, not --plugin");
  p.keys(j, prefix, {"kernel_file_version", "op", "description", "steps"});
  if (!j.contains("kernel_file_version") || j["kernel_file_version"] != 1)
    p.add(prefix + "/kernel_file_version", "expected 1 (this marks a kernel file description, docs/kernel-files.md)");
  const Operation* op = nullptr;
  if (auto it = j.find("op"); it == j.end() || !it->is_string()) {
    p.add(prefix + "/op", "missing: the op whose ladder the steps join (`gpubench list` shows the ops)");
  } else if (op = find_operation(it->get<std::string>()); op == nullptr) {
    std::vector<std::string> names;
    for (const Operation* o : operations()) names.push_back(o->name());
    p.add(prefix + "/op", fmt::format("unknown op '{}'; the ops are {} (load the plugin that adds it first)",
                                      it->get<std::string>(), fmt::join(names, ", ")));
  }
  const auto steps = j.find("steps");
  if (steps == j.end() || !steps->is_array() || steps->empty())
    p.add(prefix + "/steps", "expected a non-empty list of steps");
  if (op != nullptr && steps != j.end() && steps->is_array()) {
    for (size_t i = 0; i < steps->size(); ++i) {
      KernelFileStep s;
      s.label = label;
      s.pointer = fmt::format("{}/steps/{}", prefix, i);
      s.op = op->name();
      for (const TensorSpec& t : op->tensors())
        if (t.role != TensorRole::kWorkspace) s.tensor_names.push_back(t.name);
      for (const ShapeParamRule& r : op->rules().shape) s.shape_names.push_back(r.name);
      if (!(*steps)[i].is_object()) {
        p.add(s.pointer, "expected a step object {name, precisions, binary, launches, …}");
        continue;
      }
      parse_step((*steps)[i], s.pointer, base_dir, *op, s, p);
      for (const KernelFileStep& o : out)
        if (!s.name.empty() && o.name == s.name) p.add(s.pointer + "/name", "a second step named " + s.name);
      out.push_back(std::move(s));
    }
  }
  if (!p.lines.empty()) {
    std::string all;
    for (const std::string& l : p.lines) all += (all.empty() ? "" : "\n") + l;
    throw InputError(all);
  }
  return out;
}

}  // namespace gpubench::op

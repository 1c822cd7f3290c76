// A plugin's op as an op::Operation (op/plugin_operation.hpp).
#include "op/plugin_operation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "op/fill.hpp"

namespace gpubench::op {
namespace {

/// A plugin op's inputs for one seed: the device buffers, their shapes, the case.
class PluginInputs final : public Inputs {
 public:
  CaseSize size_;
  std::vector<DeviceBuffer> buffers;            ///< per tensor (the output's stays empty)
  std::vector<std::vector<int64_t>> shapes;     ///< per tensor
  std::vector<DLDataType> dtypes;               ///< per tensor
  const CaseSize& size() const override { return size_; }
  std::vector<DLTensor> dl_tensors(void* output) const override {
    int device = 0;
    GPUBENCH_CUDA(cudaGetDevice(&device));
    std::vector<DLTensor> out(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) {
      DLTensor& t = out[i];
      t.data = buffers[i].get() != nullptr ? buffers[i].get() : output;
      t.device = DLDevice{kDLCUDA, device};
      t.ndim = static_cast<int32_t>(shapes[i].size());
      t.dtype = dtypes[i];
      t.shape = const_cast<int64_t*>(shapes[i].data());
      t.strides = nullptr;
      t.byte_offset = 0;
    }
    return out;
  }
};

int64_t product(const std::vector<int64_t>& dims, const std::string& what) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (__builtin_mul_overflow(n, d, &n)) throw InputError(what + ": element count overflows int64");
  return n;
}

}  // namespace

PluginOperation::PluginOperation(const gpubench_op_v1_t& op, const PluginSource& source)
    : op_(op), label_(source.label) {
  if (!is_plugin_name(op.name))
    throw InputError(fmt::format("{}: an op has no valid name ({}: letters, digits and '_', not starting with a "
                                 "digit); set gpubench_op_v1_t::name",
                                 label_, shown_plugin_name(op.name)));
  name_ = op.name;
  description_ = plugin_text(op.description);
  const std::string where = fmt::format("{}: op {}", label_, name_);
  for (const std::string& p :
       {count_problem("shape_params", "shape_param_count", op.shape_params, op.shape_param_count),
        count_problem("tensors", "tensor_count", op.tensors, op.tensor_count),
        count_problem("work_models", "work_model_count", op.work_models, op.work_model_count)})
    if (!p.empty()) throw InputError(where + ": " + p);
  // Every problem of the description is reported at once, as a config's are: a plugin author rebuilds once, not once
  // per mistake. A section whose problem would make later ones misleading (no tensors at all) throws at once.
  std::vector<std::string> problems;
  const auto collect = [&problems](const auto& section) {
    try {
      section();
    } catch (const InputError& e) {
      problems.push_back(e.what());
    }
  };
  for (int32_t i = 0; i < op.shape_param_count; ++i) {
    collect([&] {
      const gpubench_shape_param_v1_t& p = op.shape_params[i];
      if (!is_plugin_name(p.name) || std::string(p.name) == "B" || std::string(p.name) == "U" ||
          std::string(p.name) == "elem")
        throw InputError(fmt::format("{}: shape parameter {} needs a name of letters, digits and '_' other than B, U "
                                     "and elem", where, i));
      for (const auto& seen : params_)
        if (seen.name == p.name)
          throw InputError(fmt::format("{}: shape parameter {} is declared twice", where, p.name));
      params_.push_back({p.name, p.default_value, p.min, p.max, plugin_text(p.doc)});  // named: expressions may use it
      if (p.min < 0 || p.max < p.min || p.default_value < p.min || p.default_value > p.max)
        throw InputError(fmt::format("{}: shape parameter {} needs 0 ≤ min ≤ default ≤ max, got min {}, default {}, "
                                     "max {}", where, p.name, p.min, p.default_value, p.max));
    });
  }
  // `shown`: the text the message quotes (a whole shape for one of its dimensions).
  const auto known = [&](const IntExpr& e, bool with_elem, const std::string& what, const std::string& shown = "") {
    for (const std::string& s : e.symbols()) {
      const bool ok = s == "B" || s == "U" || (with_elem && s == "elem") ||
                      std::any_of(params_.begin(), params_.end(), [&](const auto& p) { return p.name == s; });
      if (!ok)
        throw InputError(fmt::format("{}: {} '{}' names '{}', which is not a shape parameter, B, U{}", where, what,
                                     shown.empty() ? e.text() : shown, s, with_elem ? " or elem" : ""));
    }
  };
  if (op.tensor_count < 1 || op.tensors == nullptr)
    throw InputError(where + ": declares no tensors; list the inputs and the one output");
  // No output at all is said first: the tensor meant as the output, marked input, would otherwise be refused for
  // its missing fill.
  if (std::none_of(op.tensors, op.tensors + op.tensor_count,
                   [](const gpubench_tensor_v1_t& c) { return c.role == GPUBENCH_ROLE_OUTPUT; })) {
    std::string unknown;  // a tensor of an unknown role is likely the output: name it
    for (int32_t i = 0; i < op.tensor_count && unknown.empty(); ++i)
      if (op.tensors[i].role != GPUBENCH_ROLE_INPUT)
        unknown = fmt::format(" (tensor {} has unknown role {}; the roles are GPUBENCH_ROLE_INPUT (0) and "
                              "GPUBENCH_ROLE_OUTPUT (1))", shown_plugin_name(op.tensors[i].name), op.tensors[i].role);
    throw InputError(where + ": has no output tensor" + unknown + "; give the tensor the steps write role "
                             "GPUBENCH_ROLE_OUTPUT (an op has exactly one)");
  }
  // Each tensor's checks are independent (its name, shape, dtype, role and fill), so one mistake hides no other.
  std::vector<std::string> names;  // valid names so far: a repeat is reported even when the first had other problems
  for (int32_t i = 0; i < op.tensor_count; ++i) {
    const gpubench_tensor_v1_t& c = op.tensors[i];
    const bool named = is_plugin_name(c.name);
    if (!named)
      problems.push_back(fmt::format("{}: tensor {} has no valid name ({}: letters, digits and '_', not starting "
                                     "with a digit)",
                                     where, i, shown_plugin_name(c.name)));
    else if (std::find(names.begin(), names.end(), c.name) != names.end())
      problems.push_back(fmt::format("{}: two tensors are named {}; give each tensor its own name", where, c.name));
    else
      names.push_back(c.name);
    const std::string tw = named ? fmt::format("tensor {}", c.name) : fmt::format("tensor {}", i);
    Tensor t;
    t.c = &c;
    collect([&] {
      try {
        t.shape = parse_shape_exprs(c.shape ? c.shape : "");
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: {} shape {}", where, tw, e.what()));
      }
      for (const IntExpr& d : t.shape) {
        known(d, false, tw + " shape", c.shape);
        // A dimension without symbols is the same at every size: a negative one is wrong before any case.
        if (d.symbols().empty())
          if (const int64_t v = d.eval([](std::string_view) { return std::optional<int64_t>(); }); v < 0)
            throw InputError(fmt::format("{}: {}: dimension '{}' is {} at every size (< 0)", where, tw, d.text(), v));
      }
    });
    const bool dtype_known = c.dtype >= GPUBENCH_DTYPE_PRECISION && c.dtype <= GPUBENCH_DTYPE_INT64;
    if (!dtype_known)
      problems.push_back(fmt::format("{}: {} has unknown dtype {}; use a GPUBENCH_DTYPE_* value: PRECISION (0, the "
                                     "config's), FP16 (1), BF16 (2), FP32 (3), INT32 (4) or INT64 (5)",
                                     where, tw, c.dtype));
    const bool integer = c.dtype == GPUBENCH_DTYPE_INT32 || c.dtype == GPUBENCH_DTYPE_INT64;
    if (dtype_known && !integer && c.fill_bound != nullptr)  // it would be ignored: say so
      problems.push_back(fmt::format("{}: {} has a fill_bound, which only integer tensors filled at random use (a "
                                     "floating-point one is drawn in [-1, 1]); set fill_bound to NULL", where, tw));
    collect([&] {
      if (c.role == GPUBENCH_ROLE_OUTPUT) {
        output_ = static_cast<size_t>(i);
        if (dtype_known && c.dtype != GPUBENCH_DTYPE_PRECISION)
          throw InputError(fmt::format("{}: output {} must have dtype GPUBENCH_DTYPE_PRECISION (checked in the "
                                       "config's precision)", where, tw));
        // gpubench poisons the output before every check; a fill here would be ignored (trial 12): say so.
        if (c.fill != GPUBENCH_FILL_NONE) {
          static constexpr const char* kFills[] = {"RANDOM", "OFFSETS", "CAND_TO_USER", "LENGTHS"};
          const std::string fill = c.fill >= 0 && c.fill < 4 ? fmt::format("GPUBENCH_FILL_{} ({})", kFills[c.fill], c.fill)
                                                             : std::to_string(c.fill);
          throw InputError(fmt::format("{}: output {} has fill {}; the output is not filled (gpubench poisons it "
                                       "before each check): set fill to GPUBENCH_FILL_NONE (4)", where, tw, fill));
        }
      } else if (c.role != GPUBENCH_ROLE_INPUT) {
        throw InputError(fmt::format("{}: {} has unknown role {}; use GPUBENCH_ROLE_INPUT (0) or GPUBENCH_ROLE_OUTPUT "
                                     "(1)", where, tw, c.role));
      } else if (c.fill == GPUBENCH_FILL_RANDOM && integer) {
        if (c.fill_bound == nullptr)
          throw InputError(fmt::format("{}: integer {} is filled at random but has no fill_bound; set it, e.g. "
                                       "\"rows\"", where, tw));
        try {
          t.fill_bound = IntExpr::parse(c.fill_bound);
        } catch (const InputError& e) {
          throw InputError(fmt::format("{}: {} fill_bound {}", where, tw, e.what()));
        }
        known(*t.fill_bound, false, tw + " fill_bound");
      } else if (dtype_known && c.fill != GPUBENCH_FILL_RANDOM &&
                 (!integer || (c.fill != GPUBENCH_FILL_OFFSETS && c.fill != GPUBENCH_FILL_CAND_TO_USER &&
                               c.fill != GPUBENCH_FILL_LENGTHS))) {
        throw InputError(fmt::format("{}: input {} needs fill GPUBENCH_FILL_RANDOM, or an index fill (OFFSETS, "
                                     "CAND_TO_USER, LENGTHS) on an integer dtype", where, tw));
      }
    });
    tensors_.push_back(std::move(t));
  }
  if (const auto outputs = std::count_if(op.tensors, op.tensors + op.tensor_count,
                                         [](const gpubench_tensor_v1_t& c) { return c.role == GPUBENCH_ROLE_OUTPUT; });
      outputs != 1)
    problems.push_back(fmt::format("{}: has {} outputs; an op has exactly one", where, outputs));
  if (op.work_model_count < 1 || op.work_models == nullptr)
    problems.push_back(where + ": declares no work model; give at least the minimum work (flops, bytes_min)");
  std::vector<std::string> model_names;  // as for tensors: a repeat is found even when the first had other problems
  for (int32_t i = 0; op.work_models != nullptr && i < op.work_model_count; ++i) collect([&] {
    const gpubench_work_model_v1_t& w = op.work_models[i];
    if (!is_plugin_name(w.name))
      throw InputError(fmt::format("{}: work model {} has no valid name ({}: letters, digits and '_', not starting "
                                   "with a digit)",
                                   where, i, shown_plugin_name(w.name)));
    if (std::find(model_names.begin(), model_names.end(), w.name) != model_names.end())
      throw InputError(fmt::format("{}: two work models are named {}; give each its own name", where, w.name));
    model_names.push_back(w.name);
    try {
      WorkModel m{w.name, IntExpr::parse(w.flops ? w.flops : ""), IntExpr::parse(w.bytes_min ? w.bytes_min : "")};
      known(m.flops, true, fmt::format("work model {} flops", w.name));
      known(m.bytes_min, true, fmt::format("work model {} bytes_min", w.name));
      work_models_.push_back(std::move(m));
    } catch (const InputError& e) {
      const std::string what = e.what();
      throw InputError(what.rfind(label_, 0) == 0 ? what : fmt::format("{}: work model {}: {}", where, w.name, what));
    }
  });
  for (const auto& [field, t] : {std::pair{"tolerance_fp16", op.tolerance_fp16},
                                  std::pair{"tolerance_bf16", op.tolerance_bf16},
                                  std::pair{"tolerance_fp32", op.tolerance_fp32}})
    if (!(t >= 0) || t >= 1)
      problems.push_back(fmt::format("{}: {} is {}, outside [0, 1) (0: gpubench's default for the precision)", where,
                                     field, t));
  if (!problems.empty()) throw InputError(fmt::format("{}", fmt::join(problems, "\n")));
}

std::optional<int64_t> PluginOperation::symbol(std::string_view name, const CaseSize& size, bool with_elem) const {
  if (name == "B") return size.B;
  if (name == "U") return size.U;
  if (with_elem && name == "elem") return element_bytes(size.precision);
  if (size.shape.has(name)) return size.shape.at(name);
  for (const auto& p : params_)
    if (p.name == name) return p.default_value;
  return std::nullopt;
}

std::vector<int64_t> PluginOperation::dims(const Tensor& t, const CaseSize& size) const {
  std::vector<int64_t> out;
  for (const IntExpr& d : t.shape) {
    int64_t v = 0;
    try {
      v = d.eval([&](std::string_view s) { return symbol(s, size, false); });
    } catch (const InputError& e) {  // division by zero, overflow: say which tensor of which op
      throw InputError(fmt::format("{}: tensor {} shape {}: {}", name_, t.c->name, t.c->shape, e.what()));
    }
    if (v < 0) throw InputError(fmt::format("{}: tensor {}: dimension '{}' is {} (< 0)", name_, t.c->name, d.text(), v));
    out.push_back(v);
  }
  return out;
}

int64_t PluginOperation::fill_bound(size_t i, const CaseSize& size) const {
  const Tensor& t = tensors_[i];
  const int64_t bound = t.fill_bound->eval([&](std::string_view s) { return symbol(s, size, false); });
  const int64_t most = t.c->dtype == GPUBENCH_DTYPE_INT32 ? int64_t{1} << 31 : INT64_MAX;
  if (bound < 1 || bound > most)
    throw InputError(fmt::format("{}: tensor {}: fill_bound '{}' is {} here; random indices are drawn in [0, bound), "
                                 "so it must be 1 … {} for {}", name_, t.c->name, t.fill_bound->text(), bound, most,
                                 dtype_name(t.c->dtype)));
  return bound;
}

void PluginOperation::check_fill(size_t i, const CaseSize& size, const std::string& u_why) const {
  const Tensor& t = tensors_[i];
  if (i == output_) return;
  if (t.fill_bound) (void)fill_bound(i, size);
  if (t.c->fill == GPUBENCH_FILL_RANDOM) return;
  const int64_t count = product(dims(t, size), name_ + ": " + t.c->name);
  const int64_t want = t.c->fill == GPUBENCH_FILL_OFFSETS        ? size.U + 1
                       : t.c->fill == GPUBENCH_FILL_CAND_TO_USER ? size.B
                                                                 : size.U;
  if (count != want)
    throw InputError(fmt::format("{}: tensor {} has {} elements ({}) but its index fill gives {} for B={}, U={}{}; "
                                 "write the shape as the fill needs ([U + 1], [B] or [U])",
                                 name_, t.c->name, count, t.c->shape, want, size.B, size.U, u_why));
}

void PluginOperation::check_fills(const CaseSize& size, const std::string& u_why) const {
  for (size_t i = 0; i < tensors_.size(); ++i) check_fill(i, size, u_why);
}

OpRules PluginOperation::rules() const {
  OpRules r;
  r.name = name_;
  r.shape = params_;
  r.size_problems = [this](const Shape& shape, const std::string& shape_ptr, int64_t max_batch,
                           const std::string& batch_ptr, Precision precision) {
    CaseSize size;
    size.shape = shape;
    size.B = max_batch;
    size.U = max_batch;  // the most requests a batch can hold
    size.precision = precision;
    std::vector<ConfigIssue> out;
    std::vector<std::string> said;  // each problem once (two work models can share a faulty term)
    // Every check runs, each problem its own issue. Returns false on a problem.
    const auto attempt = [&](const auto& check) {
      try {
        check();
        return true;
      } catch (const InputError& e) {
        // A size past int64 is the config's to shrink; anything else (a divisor of 0, a fill that does not fit its
        // tensor) is a mistake in the plugin's description at this shape.
        const std::string what = e.what();
        if (std::find(said.begin(), said.end(), what) != said.end()) return false;
        said.push_back(what);
        const bool too_big = what.find("overflow") != std::string::npos;
        out.push_back({shape_ptr, fmt::format("at batch {} ({}): {}: {}; {}", max_batch, batch_ptr, label_, what,
                                              too_big ? "shrink the shape or the batch"
                                                      : "the plugin's description is wrong for this shape: fix the "
                                                        "plugin, or use a shape it supports")});
        return false;
      }
    };
    attempt([&] { (void)input_bytes(size); });
    attempt([&] {
      // An empty output makes the check compare nothing (every step would pass) and the floors count work on no data.
      if (output_elements(size) == 0)
        throw InputError(fmt::format("{}: output tensor {} has no elements here (shape {}): the correctness check "
                                     "would compare nothing", name_, tensors_[output_].c->name,
                                     tensors_[output_].c->shape));
    });
    for (const auto& m : work_models_) attempt([&] { (void)work(size, m.name); });
    // Index fills hold for any number of requests: checked at the most (U = B) and, when that holds, the fewest
    // (U = 1), which the message says, since neither need be this config's U.
    CaseSize one_request = size;
    one_request.U = 1;
    for (size_t i = 0; i < tensors_.size(); ++i)
      if (attempt([&] {
            check_fill(i, size, " (the most requests B candidates can form: the check tries U = B and U = 1, since "
                                "an index fill must fit any request count)");
          }))
        attempt([&] {
          check_fill(i, one_request, " (one request: the check tries U = B and U = 1, since an index fill must fit "
                                     "any request count)");
        });
    return out;
  };
  return r;
}

std::vector<TensorSpec> PluginOperation::tensors() const {
  std::vector<TensorSpec> out;
  for (const Tensor& t : tensors_)
    out.push_back({t.c->name, t.c->role == GPUBENCH_ROLE_OUTPUT ? TensorRole::kOutput : TensorRole::kInput,
                   dtype_name(t.c->dtype), t.c->shape, plugin_text(t.c->doc)});
  return out;
}

int64_t PluginOperation::output_elements(const CaseSize& size) const {
  return product(dims(tensors_[output_], size), name_ + ": output");
}

int64_t PluginOperation::input_bytes(const CaseSize& size) const {
  int64_t total = 0;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    if (i == output_) continue;
    int64_t bytes = 0;
    const std::string what = fmt::format("{}: tensor {}", name_, tensors_[i].c->name);
    if (__builtin_mul_overflow(product(dims(tensors_[i], size), what), dtype_bytes(tensors_[i].c->dtype, size.precision),
                               &bytes) ||
        __builtin_add_overflow(total, bytes, &total))
      throw InputError(what + ": bytes overflow int64");
  }
  return total;
}

int64_t PluginOperation::workspace_bytes(const CaseSize&) const { return 0; }  // each step counts its own

std::unique_ptr<Inputs> PluginOperation::make_inputs(const CaseSize& size, const RequestLayout& layout, uint64_t seed,
                                                     cudaStream_t stream) const {
  check_fills(size);
  auto in = std::make_unique<PluginInputs>();
  in->size_ = size;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    in->shapes.push_back(dims(t, size));
    in->dtypes.push_back(dl_dtype(t.c->dtype, size.precision));
    if (i == output_) {
      in->buffers.emplace_back();
      continue;
    }
    const int64_t count = product(in->shapes.back(), name_ + ": " + t.c->name);
    const int bytes = static_cast<int>(dtype_bytes(t.c->dtype, size.precision));
    in->buffers.emplace_back(static_cast<size_t>(std::max<int64_t>(count, 1) * bytes));
    void* data = in->buffers.back().get();
    if (t.c->fill == GPUBENCH_FILL_RANDOM && t.fill_bound) {
      fill_random_int(data, count, bytes, fill_bound(i, size), seed, static_cast<uint32_t>(i), stream);
    } else if (t.c->fill == GPUBENCH_FILL_RANDOM) {
      fill_random_float(data, count, precision_of_dtype(t.c->dtype == GPUBENCH_DTYPE_PRECISION ? dtype_of(size.precision)
                                                                                               : t.c->dtype),
                        seed, static_cast<uint32_t>(i), stream);
    } else {
      const std::vector<int32_t>& src = t.c->fill == GPUBENCH_FILL_OFFSETS        ? layout.offsets
                                        : t.c->fill == GPUBENCH_FILL_CAND_TO_USER ? layout.cand_to_user
                                                                                  : layout.lengths;
      if (static_cast<int64_t>(src.size()) != count)  // check_fills saw the case's B and U: a layout of another size
        throw InputError(fmt::format("{}: tensor {}: the request layout has {} entries for {} elements", name_,
                                     t.c->name, src.size(), count));
      if (bytes == 4) {
        GPUBENCH_CUDA(cudaMemcpyAsync(data, src.data(), src.size() * 4, cudaMemcpyHostToDevice, stream));
      } else {
        const std::vector<int64_t> wide(src.begin(), src.end());
        GPUBENCH_CUDA(cudaMemcpyAsync(data, wide.data(), wide.size() * 8, cudaMemcpyHostToDevice, stream));
        GPUBENCH_CUDA(cudaStreamSynchronize(stream));  // `wide` dies here
      }
    }
  }
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));  // pageable sources: the copies are done before they go
  return in;
}

void PluginOperation::reference_fp32(const Inputs& inputs, float* y_ref, cudaStream_t stream) const {
  if (op_.reference == nullptr)
    throw InputError(fmt::format("{}: op {} has no reference (the ladder's first step is the reference)", label_,
                                 name_));
  std::vector<int64_t> values;
  gpubench_case_v1_t c = c_case(inputs.size(), values);
  std::vector<DLTensor> tensors = inputs.dl_tensors(nullptr);
  DLTensor out = tensors[output_];
  out.data = y_ref;
  out.dtype = DLDataType{kDLFloat, 32, 1};
  char text[1024] = {0};
  gpubench_error e{text, sizeof(text)};
  const int status = op_.reference(&c, tensors.data(), static_cast<int32_t>(tensors.size()), &out, stream, &e);
  if (status == GPUBENCH_OK) return;
  const std::string message = fmt::format("{}: {} reference: {}", label_, name_, text[0] ? text : "failed");
  if (status == GPUBENCH_ERROR_INVALID) throw InputError(message);
  throw DeviceError(message);
}

double PluginOperation::tolerance(Precision precision) const {
  const double t = precision == Precision::kFp16   ? op_.tolerance_fp16
                   : precision == Precision::kBf16 ? op_.tolerance_bf16
                                                   : op_.tolerance_fp32;
  return t > 0 ? t : default_tolerance(precision);
}

std::vector<std::string> PluginOperation::work_models() const {
  std::vector<std::string> out;
  for (const auto& m : work_models_) out.push_back(m.name);
  return out;
}

WorkCounts PluginOperation::work(const CaseSize& size, const std::string& work_model) const {
  for (const auto& m : work_models_) {
    if (m.name != work_model) continue;
    const auto lookup = [&](std::string_view s) { return symbol(s, size, true); };
    WorkCounts w;
    const int64_t flops = m.flops.eval(lookup), bytes = m.bytes_min.eval(lookup);
    // A floor is work over a rate: negative work gives a negative floor, and none at all a floor of 0 ms that every
    // ratio divides by. size_problems reports either at the config's largest batch.
    if (flops < 0 || bytes < 0)
      throw InputError(fmt::format("work model {}: {} '{}' is {} (< 0); a work model counts work done, never "
                                   "negative", m.name, flops < 0 ? "flops" : "bytes_min",
                                   flops < 0 ? m.flops.text() : m.bytes_min.text(), flops < 0 ? flops : bytes));
    if (flops == 0 && bytes == 0)
      throw InputError(fmt::format("work model {}: flops '{}' and bytes_min '{}' are both 0; count at least the "
                                   "bytes the op must move (each input read once, the output written once)",
                                   m.name, m.flops.text(), m.bytes_min.text()));
    w.flops = static_cast<double>(flops);
    w.bytes_min = static_cast<double>(bytes);
    w.intensity = w.bytes_min > 0 ? w.flops / w.bytes_min : 0;
    return w;
  }
  throw InputError(fmt::format("{}: unknown work model \"{}\"; known: {}", name_, work_model,
                               fmt::format("{}", fmt::join(work_models(), ", "))));
}

}  // namespace gpubench::op

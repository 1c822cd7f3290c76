// A C step (include/gpubench/plugin.h) as the core's op::Step and its options as a StepSchema (op/plugin_adapter.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "core/text_file.hpp"
#include "op/kernel_file.hpp"
#include "op/plugin_adapter.hpp"
#include "op/plugin_guard.hpp"
#include "op/plugin_step.hpp"

namespace gpubench::op {

using nlohmann::json;

bool is_plugin_name(const char* s) {
  if (s == nullptr || *s == '\0' || std::isdigit(static_cast<unsigned char>(*s))) return false;
  for (; *s; ++s)
    if (!std::isalnum(static_cast<unsigned char>(*s)) && *s != '_') return false;
  return true;
}

std::string shown_plugin_name(const char* s) {
  if (s == nullptr) return "NULL";
  std::string text(s);
  const bool cut = text.size() > 64;
  if (cut) text.resize(64);
  const std::string quoted = json(text).dump(-1, ' ', false, json::error_handler_t::replace);
  return cut ? quoted.substr(0, quoted.size() - 1) + "…\"" : quoted;
}

std::string plugin_text(const char* text) { return text ? printable(text, 1000) : std::string(); }

bool is_plugin_file_name(const char* s) {
  if (s == nullptr || !std::isalnum(static_cast<unsigned char>(*s))) return false;
  size_t n = 0;
  for (; *s; ++s, ++n)
    if (!std::isalnum(static_cast<unsigned char>(*s)) && *s != '_' && *s != '-' && *s != '.') return false;
  return n <= 64;
}

std::string count_problem(const char* field, const char* count_field, const void* array, int32_t count) {
  if (count < 0)
    return fmt::format("{} is {}; give the number of entries in {}, 0 or more", count_field, count, field);
  if (count > 0 && array == nullptr) return fmt::format("{} is NULL with {} {}", field, count_field, count);
  return "";
}

Precision precision_of_dtype(int32_t dtype) {
  switch (dtype) {
    case GPUBENCH_DTYPE_FP16: return Precision::kFp16;
    case GPUBENCH_DTYPE_BF16: return Precision::kBf16;
    case GPUBENCH_DTYPE_FP32: return Precision::kFp32;
    default: break;
  }
  throw InputError(fmt::format("dtype {} is not a precision (fp16, bf16 or fp32)", dtype));
}

int32_t dtype_of(Precision precision) {
  switch (precision) {
    case Precision::kFp16: return GPUBENCH_DTYPE_FP16;
    case Precision::kBf16: return GPUBENCH_DTYPE_BF16;
    case Precision::kFp32: return GPUBENCH_DTYPE_FP32;
  }
  return GPUBENCH_DTYPE_FP32;
}

DLDataType dl_dtype(int32_t dtype, Precision precision) {
  if (dtype == GPUBENCH_DTYPE_PRECISION) dtype = dtype_of(precision);
  switch (dtype) {
    case GPUBENCH_DTYPE_FP16: return DLDataType{kDLFloat, 16, 1};
    case GPUBENCH_DTYPE_BF16: return DLDataType{kDLBfloat, 16, 1};
    case GPUBENCH_DTYPE_FP32: return DLDataType{kDLFloat, 32, 1};
    case GPUBENCH_DTYPE_INT32: return DLDataType{kDLInt, 32, 1};
    case GPUBENCH_DTYPE_INT64: return DLDataType{kDLInt, 64, 1};
    default: break;
  }
  throw InputError(fmt::format("unknown dtype {}", dtype));
}

int64_t dtype_bytes(int32_t dtype, Precision precision) { return dl_dtype(dtype, precision).bits / 8; }

std::string dtype_name(int32_t dtype) {
  switch (dtype) {
    case GPUBENCH_DTYPE_PRECISION: return "precision";
    case GPUBENCH_DTYPE_FP16: return "fp16";
    case GPUBENCH_DTYPE_BF16: return "bf16";
    case GPUBENCH_DTYPE_FP32: return "fp32";
    case GPUBENCH_DTYPE_INT32: return "int32";
    case GPUBENCH_DTYPE_INT64: return "int64";
    default: break;
  }
  return fmt::format("dtype {}", dtype);
}

gpubench_case_v1_t c_case(const CaseSize& size, std::vector<int64_t>& values) {
  values.clear();
  for (const auto& [name, value] : size.shape.params) values.push_back(value);
  gpubench_case_v1_t c{};
  c.shape = values.data();
  c.shape_count = static_cast<int32_t>(values.size());
  c.precision = dtype_of(size.precision);
  c.B = size.B;
  c.U = size.U;
  c.allow_tf32 = size.allow_tf32 ? 1 : 0;
  c.sm = 0;
  return c;
}

namespace {

/// Collects check_options findings (the gpubench_option_report context).
struct Findings {
  std::vector<config_detail::OptionProblem> problems, notes;
  static void problem(void* context, const char* key, const char* message) {
    static_cast<Findings*>(context)->problems.push_back(
        {plugin_text(key), message ? plugin_text(message) : "(no message)"});
  }
  static void note(void* context, const char* key, const char* message) {
    static_cast<Findings*>(context)->notes.push_back(
        {plugin_text(key), message ? plugin_text(message) : "(no message)"});
  }
};

/// Runs a step's check_options on `options` (defaults filled).
Findings check_options(const gpubench_step_v1_t& step, const config_detail::StepOptions& options);

/// The plugin file whose code a call runs under a guard (op/plugin_guard.hpp), from its source label; "" for an
/// in-tree op's steps ("builtin:<op>"), which are not guarded.
std::string guarded_plugin(const std::string& label) { return label.rfind("builtin:", 0) == 0 ? "" : label; }

/// The options as the config gave them (checked), as the JSON object text the C functions take.
std::string options_text(const config_detail::StepOptions& options) { return options.as_given().dump(); }

}  // namespace

config_detail::StepSchema step_schema_of(const gpubench_step_v1_t& step, const std::string& label) {
  const std::string where = fmt::format("{}: step {}/{}", label, step.op, step.name);
  json given = json::object();
  if (step.options_schema != nullptr) {
    given = json::parse(step.options_schema, nullptr, /*allow_exceptions=*/false);
    if (given.is_discarded() || !given.is_object())
      throw InputError(fmt::format("{}: options_schema is not a JSON object {{\"options\": [...], \"constraints\": "
                                   "[...]}}; fix the string the plugin returns", where));
    for (const auto& [key, value] : given.items())
      if (key != "options" && key != "constraints")
        throw InputError(fmt::format("{}: options_schema: \"{}\" is not a schema key; accepted: options, constraints",
                                     where, key));
  }
  json j = {{"name", step.name},
            {"precisions", json::array()},
            {"test_only", (step.flags & GPUBENCH_STEP_TEST_ONLY) != 0},
            {"options", given.value("options", json::array())},
            {"constraints", given.value("constraints", json::array())}};
  if (step.precisions & GPUBENCH_PRECISION_FP16) j["precisions"].push_back("fp16");
  if (step.precisions & GPUBENCH_PRECISION_BF16) j["precisions"].push_back("bf16");
  if (step.precisions & GPUBENCH_PRECISION_FP32) j["precisions"].push_back("fp32");
  config_detail::StepSchema schema;
  try {
    schema = config_detail::StepSchema::from_json(j);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: options_schema: {}", where, e.what()));
  }
  // Its texts go to `list` and to messages: one line each, as the plugin's other text.
  for (config_detail::OptionSchema& o : schema.options) {
    o.doc = plugin_text(o.doc.c_str());
    o.default_doc = plugin_text(o.default_doc.c_str());
  }
  for (std::string& c : schema.constraint_docs) c = plugin_text(c.c_str());
  if (step.check_options != nullptr) {
    const std::string plugin = guarded_plugin(label), at = fmt::format("step {}/{}", step.op, step.name);
    const auto checked = [step, plugin, at](const config_detail::StepOptions& o) {
      return call_plugin(plugin, at, "check_options", [&] { return check_options(step, o); });
    };
    schema.constraints = [checked](const config_detail::StepOptions& o) { return checked(o).problems; };
    schema.notes = [checked](const config_detail::StepOptions& o) {
      try {
        return checked(o).notes;
      } catch (const InputError&) {  // a check_options that throws: the constraints' call reports it, once
        return std::vector<config_detail::OptionProblem>{};
      }
    };
  }
  return schema;
}

namespace {

Findings check_options(const gpubench_step_v1_t& step, const config_detail::StepOptions& options) {
  Findings f;
  const std::string text = options_text(options);
  step.check_options(step.step_data, text.c_str(), &Findings::problem, &Findings::note, &f);
  return f;
}

}  // namespace

}  // namespace gpubench::op

namespace gpubench::op {
namespace {

/// A bounded message buffer for one call (gpubench_error). Only its first byte is cleared: a launch makes one per
/// call, and the message is read with strnlen, so an unterminated one stays in bounds.
struct ErrorBuffer {
  ErrorBuffer() { text[0] = '\0'; }
  char text[1024];
  gpubench_error c{text, sizeof(text)};
};

/// The compute capability of the current device (major * 10 + minor). Throws DeviceError.
int32_t current_sm() {
  int device = 0, major = 0, minor = 0;
  GPUBENCH_CUDA(cudaGetDevice(&device));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

/// Lines of a plugin's note text (NULL: none).
std::vector<std::string> lines_of(const char* text) {
  std::vector<std::string> out;
  if (text == nullptr) return out;
  std::string s(text);
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = s.find('\n', start);
    const std::string line = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty()) out.push_back(plugin_text(line.c_str()));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

/// One instance of a C step.
class AbiStep final : public Step {
 public:
  AbiStep(const gpubench_step_v1_t& step, std::string options, std::string prefix)
      : s_(step), options_(std::move(options)), prefix_(std::move(prefix)) {
    ErrorBuffer e;
    raise(s_.create(s_.step_data, options_.c_str(), &instance_, &e.c), "create", e);
    if (instance_ == nullptr) throw std::runtime_error(prefix_ + "create returned GPUBENCH_OK but no instance");
  }
  ~AbiStep() override {
    if (instance_ != nullptr) s_.destroy(instance_);
  }
  AbiStep(const AbiStep&) = delete;
  AbiStep& operator=(const AbiStep&) = delete;

  void setup(const Inputs& inputs, void* output, cudaStream_t stream) override {
    gpubench_case_v1_t c = c_case(inputs.size(), shape_values_);
    c.sm = current_sm();
    if (s_.sm_arch_count > 0 && s_.sm_archs != nullptr) {
      bool runs = false;
      std::string archs;
      for (int32_t i = 0; i < s_.sm_arch_count; ++i) {
        runs = runs || s_.sm_archs[i] == c.sm;
        archs += fmt::format("{}sm_{}", i ? ", " : "", s_.sm_archs[i]);
      }
      if (!runs)
        throw InputError(fmt::format("{}runs on {} only; this GPU is sm_{}: remove the step from /variants on this GPU",
                                     prefix_, archs, c.sm));
    }
    const int64_t ws = s_.workspace_bytes ? s_.workspace_bytes(s_.step_data, &c, options_.c_str()) : 0;
    if (ws < 0) throw std::runtime_error(fmt::format("{}workspace_bytes returned {} (< 0)", prefix_, ws));
    if (ws > 0) workspace_ = DeviceBuffer(static_cast<size_t>(ws));
    tensors_ = inputs.dl_tensors(output);
    ErrorBuffer e;
    raise(s_.setup(instance_, &c, tensors_.data(), static_cast<int32_t>(tensors_.size()), workspace_.get(),
                   stream, &e.c),
          "setup", e);
    const int32_t n = s_.launch_group_count(instance_);
    if (n < 1 || n > 256)
      throw std::runtime_error(fmt::format("{}launch_group_count returned {}; a step has 1 to 256 launch groups",
                                           prefix_, n));
    names_.clear();
    for (int32_t i = 0; i < n; ++i) {
      const char* name = s_.launch_group_name(instance_, i);
      if (name == nullptr || *name == '\0')
        throw std::runtime_error(fmt::format("{}launch_group_name({}) returned no name", prefix_, i));
      if (!is_plugin_name(name))
        throw std::runtime_error(fmt::format("{}launch_group_name({}) returned \"{:.64}\"; a launch group name is "
                                             "letters, digits and '_' (it names report rows and NVTX ranges)",
                                             prefix_, i, name));
      for (const std::string& seen : names_)
        if (seen == name)
          throw std::runtime_error(fmt::format("{}two launch groups are named \"{}\"; names must differ", prefix_,
                                               name));
      names_.emplace_back(name);
    }
  }

  std::vector<LaunchGroup> groups() override {
    std::vector<LaunchGroup> out;
    for (size_t i = 0; i < names_.size(); ++i) {
      out.push_back({names_[i], [this, i](cudaStream_t stream) {
                       ErrorBuffer e;
                       raise(s_.launch(instance_, static_cast<int32_t>(i), stream, &e.c),
                             "launch group " + names_[i], e);
                     }});
    }
    return out;
  }
  std::vector<std::string> notes() const override { return lines_of(s_.notes ? s_.notes(instance_) : nullptr); }
  std::vector<std::string> setup_notes() const override {
    return lines_of(s_.setup_notes ? s_.setup_notes(instance_) : nullptr);
  }
  std::string configuration() const override {
    const char* c = s_.configuration ? s_.configuration(instance_) : nullptr;
    return c ? c : "";
  }

 private:
  /// Throws the exception a status maps to, with the plugin's message.
  void raise(int status, const char* what, const ErrorBuffer& e) const { raise(status, std::string(what), e); }
  void raise(int status, const std::string& what, const ErrorBuffer& e) const {
    if (status == GPUBENCH_OK) return;
    std::string message = plugin_text(std::string(e.text, strnlen(e.text, sizeof(e.text))).c_str());
    if (message.empty()) message = what + " failed (the plugin gave no message)";
    message = prefix_ + message;
    if (status == GPUBENCH_ERROR_INVALID) throw InputError(message);
    if (status == GPUBENCH_ERROR_CUDA) throw DeviceError(message);
    throw std::runtime_error(message);
  }

  const gpubench_step_v1_t& s_;
  std::string options_;
  std::string prefix_;
  void* instance_ = nullptr;
  std::vector<int64_t> shape_values_;
  DeviceBuffer workspace_;
  std::vector<DLTensor> tensors_;
  std::vector<std::string> names_;
};

}  // namespace

StepInfo step_info_of(const gpubench_step_v1_t& step, const Operation& operation, const PluginSource& source) {
  StepInfo info;
  info.name = step.name;
  info.description = plugin_text(step.description);
  info.ladder_step = step.ladder_step;
  info.schema = step_schema_of(step, source.label);
  info.test_only = (step.flags & GPUBENCH_STEP_TEST_ONLY) != 0;
  const std::vector<std::string> models = operation.work_models();
  // The schema lives in the registry's StepInfo, which outlives every call: capture a copy for the closures.
  const auto schema = std::make_shared<config_detail::StepSchema>(info.schema);
  const std::string where = fmt::format("{}: step {}/{}", source.label, step.op, step.name);
  const std::string plugin = source.builtin ? "" : source.label, at = fmt::format("step {}/{}", step.op, step.name);
  info.work_model_for = [&step, schema, models, where, plugin, at](const nlohmann::json& options) {
    if (step.work_model == nullptr) return models.front();
    const std::string text = options_text(config_detail::StepOptions::resolve(*schema, options));
    const char* model =
        call_plugin(plugin, at, "work_model", [&] { return step.work_model(step.step_data, text.c_str()); });
    if (model == nullptr || *model == '\0') return models.front();
    if (std::find(models.begin(), models.end(), model) == models.end()) {
      std::string declared;
      for (const std::string& m : models) declared += (declared.empty() ? "" : ", ") + m;
      throw InputError(fmt::format("{}: work_model returned \"{}\", which op {} does not declare ({}); return one "
                                   "of the op's work model names", where, model, step.op, declared));
    }
    return std::string(model);
  };
  if (step.workspace_bytes != nullptr)
    info.workspace_bytes = [&step, schema, where, plugin, at](const CaseSize& size, const nlohmann::json& options) {
      std::vector<int64_t> values;
      const gpubench_case_v1_t c = c_case(size, values);
      const std::string text = options_text(config_detail::StepOptions::resolve(*schema, options));
      const int64_t bytes = call_plugin(plugin, at, "workspace_bytes",
                                        [&] { return step.workspace_bytes(step.step_data, &c, text.c_str()); });
      if (bytes < 0)  // validate and plan ask before any GPU work; setup would fail on it later
        throw InputError(fmt::format("{}: workspace_bytes returned {} for B={}, U={}; return the device scratch "
                                     "the step needs in bytes, 0 for none",
                                     where, bytes, size.B, size.U));
      return bytes;
    };
  if (step.sm_arch_count > 0 && step.sm_archs != nullptr)
    info.case_problems = [&step, where](const CaseSize&, const std::string& model) {
      const int sm = limits_for_model(model).sm;
      std::string archs;
      for (int32_t i = 0; i < step.sm_arch_count; ++i) {
        if (step.sm_archs[i] == sm) return std::vector<std::string>{};
        archs += fmt::format("{}sm_{}", i ? ", " : "", step.sm_archs[i]);
      }
      return std::vector<std::string>{fmt::format("{}: runs on {} only, and /device/model {} is sm_{}: remove the "
                                                  "step from /variants, or rebuild it for sm_{}",
                                                  where, archs, model, sm, sm)};
    };
  const std::string prefix = source.builtin ? "" : fmt::format("{}: {}: ", source.label, step.name);
  info.create = [&step, schema, prefix](const nlohmann::json& options) -> std::unique_ptr<Step> {
    return std::make_unique<AbiStep>(step, options_text(config_detail::StepOptions::resolve(*schema, options)),
                                     prefix);
  };
  return info;
}

}  // namespace gpubench::op

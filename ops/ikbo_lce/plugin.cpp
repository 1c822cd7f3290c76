// The IKBO LCE steps through the plugin door (include/gpubench/plugin.h): each registered Variant becomes a
// gpubench_step_v1_t whose C functions wrap it, and the op offers the table as its builtin plugin
// (op::Operation::builtin_plugin). The core then runs our steps exactly as it runs a team's plugin steps.
#include "ops/ikbo_lce/plugin.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "op/plugin_adapter.hpp"
#include "ops/ikbo_lce/backend_choice.hpp"
#include "ops/ikbo_lce/rules.hpp"
#include "ops/ikbo_lce/variant.hpp"

namespace gpubench::lce {
namespace {

using nlohmann::json;

/// One instance of a step: the variant and what its C functions hand back.
struct Instance {
  const VariantInfo* info = nullptr;
  std::unique_ptr<Variant> variant;
  std::vector<op::LaunchGroup> groups;
  std::string notes, setup_notes, configuration;
};

void write(gpubench_error* error, const char* text) {
  if (error == nullptr || error->message == nullptr || error->capacity == 0) return;
  std::strncpy(error->message, text, error->capacity - 1);
  error->message[error->capacity - 1] = '\0';
}

/// Runs `f`, turning the exceptions our code throws into the ABI's status and message.
template <class F>
gpubench_status guarded(gpubench_error* error, F&& f) {
  try {
    f();
    return GPUBENCH_OK;
  } catch (const InputError& e) {
    write(error, e.what());
    return GPUBENCH_ERROR_INVALID;
  } catch (const DeviceError& e) {
    write(error, e.what());
    return GPUBENCH_ERROR_CUDA;
  } catch (const std::exception& e) {
    write(error, e.what());
    return GPUBENCH_ERROR_INTERNAL;
  }
}

const VariantInfo& info_of(void* step_data) { return *static_cast<const VariantInfo*>(step_data); }

StepOptions options_of(const VariantInfo& info, const char* options_json) {
  return StepOptions(*info.schema, json::parse(options_json ? options_json : "{}"));
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

void check_options(void* step_data, const char* options_json, gpubench_option_report problem,
                   gpubench_option_report note, void* context) {
  const VariantInfo& info = info_of(step_data);
  const StepOptions o = options_of(info, options_json);
  if (info.schema->constraints)
    for (const auto& p : info.schema->constraints(o)) problem(context, p.key.c_str(), p.message.c_str());
  if (info.schema->notes)
    for (const auto& n : info.schema->notes(o)) note(context, n.key.c_str(), n.message.c_str());
}

const char* work_model(void* step_data, const char* options_json) {
  const VariantInfo& info = info_of(step_data);
  const WorkModel m = info.work_model_for ? info.work_model_for(options_of(info, options_json)) : WorkModel::kDecomposed;
  return to_string(m).data();  // a string literal
}

gpubench_status create(void* step_data, const char* options_json, void** instance, gpubench_error* error) {
  return guarded(error, [&] {
    auto in = std::make_unique<Instance>();
    in->info = &info_of(step_data);
    const json given = json::parse(options_json ? options_json : "{}");
    in->variant = create_step_variant(*in->info, StepOptions(*in->info->schema, given), given);
    *instance = in.release();
  });
}

gpubench_status setup(void* instance, const gpubench_case_v1_t* c, const DLTensor* tensors, int32_t tensor_count,
                      void* /*workspace*/, gpubench_stream stream, gpubench_error* error) {
  return guarded(error, [&] {
    auto* in = static_cast<Instance*>(instance);
    if (tensor_count != 6 || c->shape_count != 4)
      throw InputError("ikbo_lce step: expected the op's 6 tensors and 4 shape parameters");
    Problem p;
    p.precision = op::precision_of_dtype(c->precision);
    p.allow_tf32 = c->allow_tf32 != 0;
    p.M = c->shape[0], p.N = c->shape[1], p.K_user = c->shape[2], p.K_cand = c->shape[3];  // rules.cpp's order
    p.B = c->B;
    p.U = c->U;
    p.W = tensors[0].data;
    p.E_user = tensors[1].data;
    p.E_cand = tensors[2].data;
    p.cand_to_user = static_cast<const int32_t*>(tensors[3].data);
    p.offsets = static_cast<const int32_t*>(tensors[4].data);
    p.Y = tensors[5].data;
    in->variant->setup(p, stream);
    in->groups = in->variant->groups();
  });
}

int32_t launch_group_count(void* instance) { return static_cast<int32_t>(static_cast<Instance*>(instance)->groups.size()); }

const char* launch_group_name(void* instance, int32_t group) {
  return static_cast<Instance*>(instance)->groups[static_cast<size_t>(group)].name.c_str();
}

gpubench_status launch(void* instance, int32_t group, gpubench_stream stream, gpubench_error* error) {
  return guarded(error, [&] { static_cast<Instance*>(instance)->groups[static_cast<size_t>(group)].launch(stream); });
}

// Read from the variant on each call (valid from create on, as the variant's own notes are); the text lives in the
// instance until the next call.
const char* notes(void* instance) {
  auto* in = static_cast<Instance*>(instance);
  in->notes = joined(in->variant->notes());
  return in->notes.c_str();
}
const char* setup_notes(void* instance) {
  auto* in = static_cast<Instance*>(instance);
  in->setup_notes = joined(in->variant->setup_notes());
  return in->setup_notes.c_str();
}
const char* configuration(void* instance) {
  auto* in = static_cast<Instance*>(instance);
  in->configuration = in->variant->configuration();
  return in->configuration.c_str();
}
void destroy(void* instance) { delete static_cast<Instance*>(instance); }

uint32_t precision_bits(const config_detail::StepSchema& schema) {
  uint32_t bits = 0;
  for (Precision p : schema.precisions)
    bits |= p == Precision::kFp16 ? GPUBENCH_PRECISION_FP16 : p == Precision::kBf16 ? GPUBENCH_PRECISION_BF16
                                                                                     : GPUBENCH_PRECISION_FP32;
  return bits;
}

/// The C descriptions, built once from the variant registry (complete before main: static registrars).
struct Table {
  std::vector<std::string> schemas;  // JSON text, one per step
  std::vector<gpubench_step_v1_t> steps;
  gpubench_plugin_v1_t plugin{};
  Table() {
    const auto& variants = registered_variants();
    schemas.reserve(variants.size());
    for (const VariantInfo& v : variants) {
      const json j = v.schema->to_json();
      schemas.push_back(json{{"options", j.at("options")}, {"constraints", j.at("constraints")}}.dump());
    }
    for (size_t i = 0; i < variants.size(); ++i) {
      const VariantInfo& v = variants[i];
      gpubench_step_v1_t s{};
      s.op = kOpName;
      s.name = v.name.c_str();
      s.description = v.description.c_str();
      s.ladder_step = v.ladder_step;
      s.precisions = precision_bits(*v.schema);
      s.flags = v.test_only ? static_cast<uint32_t>(GPUBENCH_STEP_TEST_ONLY) : 0u;
      s.step_data = const_cast<VariantInfo*>(&v);
      s.options_schema = schemas[i].c_str();
      s.check_options = &check_options;
      s.work_model = &work_model;
      s.create = &create;
      s.setup = &setup;
      s.launch_group_count = &launch_group_count;
      s.launch_group_name = &launch_group_name;
      s.launch = &launch;
      s.notes = &notes;
      s.setup_notes = &setup_notes;
      s.configuration = &configuration;
      s.destroy = &destroy;
      steps.push_back(s);
    }
    plugin.abi_version = GPUBENCH_PLUGIN_ABI_VERSION;
    plugin.name = "ikbo_lce (in-tree)";
    plugin.version = "builtin";
    plugin.steps = steps.data();
    plugin.step_count = static_cast<int32_t>(steps.size());
  }
};

}  // namespace

const gpubench_plugin_v1_t& builtin_plugin() {
  static const Table table;
  return table.plugin;
}

}  // namespace gpubench::lce

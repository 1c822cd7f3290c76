// The embedding-bag example plugin (docs/plugins.md): op "embedding_bag" (jagged sum pooling, embedding_bag.hpp) and
// a ladder of three steps, described through gpubench's C plugin ABI (gpubench/plugin.h):
//   gather_reduce   the plain original: index_select into [B, D], then a segment sum (two launch groups)
//   block_per_bag   fused: one block per bag, one thread per column
//   warp_vectorized 8 warps per bag (longest bag first), 16-byte loads, `unroll` rows in flight per lane
#include <gpubench/plugin.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "embedding_bag.hpp"

namespace {

using embedding_bag::Bags;

enum Step { kGatherReduce = 0, kBlockPerBag = 1, kWarpVectorized = 2 };

struct Instance {
  Step step = kGatherReduce;
  int unroll = 4;
  Bags bags;
  void* workspace = nullptr;  // gather_reduce: G [B, D]
  std::string configuration;
};

void say(gpubench_error* error, const std::string& text) {
  std::snprintf(error->message, error->capacity, "%s", text.c_str());
}

/// The integer value of "key": N in a JSON object's text (the schema already checked it), or `fallback`.
int option(const char* options_json, const char* key, int fallback) {
  const std::string needle = std::string("\"") + key + "\":";
  const char* at = std::strstr(options_json, needle.c_str());
  return at != nullptr ? std::atoi(at + needle.size()) : fallback;
}

int64_t elem_bytes(int32_t precision) { return precision == GPUBENCH_DTYPE_FP32 ? 4 : 2; }

gpubench_status cuda_status(cudaError_t e, gpubench_error* error) {
  if (e == cudaSuccess) return GPUBENCH_OK;
  say(error, std::string("CUDA: ") + cudaGetErrorString(e));
  return GPUBENCH_ERROR_CUDA;
}

Bags bags_of(const gpubench_case_v1_t* c, const DLTensor* t) {
  Bags b;
  b.elem = c->precision == GPUBENCH_DTYPE_FP32   ? embedding_bag::Elem::kFp32
           : c->precision == GPUBENCH_DTYPE_BF16 ? embedding_bag::Elem::kBf16
                                                 : embedding_bag::Elem::kFp16;
  b.rows = c->shape[0];
  b.D = c->shape[1];
  b.B = c->B;
  b.U = c->U;
  b.table = t[0].data;
  b.indices = static_cast<const int32_t*>(t[1].data);
  b.offsets = static_cast<const int32_t*>(t[2].data);
  b.Y = t[3].data;
  return b;
}

int64_t workspace_bytes(void* step_data, const gpubench_case_v1_t* c, const char*) {
  switch (static_cast<Step>(reinterpret_cast<intptr_t>(step_data))) {
    case kGatherReduce: return c->B * c->shape[1] * elem_bytes(c->precision);  // G [B, D]
    case kBlockPerBag: return 0;
    case kWarpVectorized: return c->U * 4;  // the bag order, int32 [U]
  }
  return 0;
}

/// warp_vectorized's bag order, longest first (ties by bag id), made from the offsets in untimed setup.
gpubench_status make_order(const Bags& b, int32_t* order, cudaStream_t stream, gpubench_error* error) {
  std::vector<int32_t> offsets(static_cast<size_t>(b.U + 1));
  cudaError_t e = cudaMemcpyAsync(offsets.data(), b.offsets, offsets.size() * 4, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) return cuda_status(e, error);
  std::vector<int32_t> ids(static_cast<size_t>(b.U));
  std::iota(ids.begin(), ids.end(), 0);
  std::stable_sort(ids.begin(), ids.end(), [&](int32_t x, int32_t y) {
    return offsets[x + 1] - offsets[x] > offsets[y + 1] - offsets[y];
  });
  e = cudaMemcpyAsync(order, ids.data(), ids.size() * 4, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);  // `ids` dies here
  return cuda_status(e, error);
}

gpubench_status create(void* step_data, const char* options_json, void** instance, gpubench_error*) {
  auto* in = new Instance;
  in->step = static_cast<Step>(reinterpret_cast<intptr_t>(step_data));
  in->unroll = option(options_json, "unroll", 4);
  *instance = in;
  return GPUBENCH_OK;
}

gpubench_status setup(void* instance, const gpubench_case_v1_t* c, const DLTensor* tensors, int32_t count,
                      void* workspace, gpubench_stream stream, gpubench_error* error) {
  auto* in = static_cast<Instance*>(instance);
  if (count != 4 || c->shape_count != 2) {
    say(error, "expected the embedding_bag op's 4 tensors and 2 shape parameters");
    return GPUBENCH_ERROR_INTERNAL;
  }
  in->bags = bags_of(c, tensors);
  in->workspace = workspace;
  if (in->step == kWarpVectorized && (in->bags.D * elem_bytes(c->precision)) % 16 != 0) {
    say(error, "warp_vectorized loads 16-byte pieces of rows: D · element bytes must be a multiple of 16 (D a "
               "multiple of 8 in fp16/bf16, 4 in fp32); use block_per_bag for this D");
    return GPUBENCH_ERROR_INVALID;
  }
  if (in->step != kWarpVectorized) return GPUBENCH_OK;
  in->configuration = "unroll " + std::to_string(in->unroll) + ", 8 warps per bag, longest bag first";
  return in->bags.U > 0 ? make_order(in->bags, static_cast<int32_t*>(workspace), stream, error) : GPUBENCH_OK;
}

int32_t launch_group_count(void* instance) { return static_cast<Instance*>(instance)->step == kGatherReduce ? 2 : 1; }

const char* launch_group_name(void* instance, int32_t group) {
  switch (static_cast<Instance*>(instance)->step) {
    case kGatherReduce: return group == 0 ? "gather" : "segment_sum";
    case kBlockPerBag: return "pool";
    case kWarpVectorized: return "pool";
  }
  return "pool";
}

gpubench_status launch(void* instance, int32_t group, gpubench_stream stream, gpubench_error* error) {
  auto* in = static_cast<Instance*>(instance);
  switch (in->step) {
    case kGatherReduce:
      return cuda_status(group == 0 ? embedding_bag::gather_rows(in->bags, in->workspace, stream)
                                    : embedding_bag::segment_sum(in->bags, in->workspace, stream),
                         error);
    case kBlockPerBag: return cuda_status(embedding_bag::block_per_bag(in->bags, stream), error);
    case kWarpVectorized:
      return cuda_status(
          embedding_bag::warp_vectorized(in->bags, static_cast<const int32_t*>(in->workspace), in->unroll, stream),
          error);
  }
  return GPUBENCH_ERROR_INTERNAL;
}

const char* notes(void* instance) {
  return static_cast<Instance*>(instance)->step == kGatherReduce ? "the gathered rows [B, D] go through DRAM twice"
                                                                  : nullptr;
}

const char* configuration(void* instance) { return static_cast<Instance*>(instance)->configuration.c_str(); }

void destroy(void* instance) { delete static_cast<Instance*>(instance); }

gpubench_status reference(const gpubench_case_v1_t* c, const DLTensor* tensors, int32_t, DLTensor* output_fp32,
                          gpubench_stream stream, gpubench_error* error) {
  return cuda_status(embedding_bag::reference_fp32(bags_of(c, tensors), static_cast<float*>(output_fp32->data), stream),
                     error);
}

const gpubench_shape_param_v1_t kShape[] = {
    {"rows", 4000000, 1, 2147483647, "rows of the embedding table"},
    {"D", 128, 1, 65536, "embedding dimension (columns)"}};

const gpubench_tensor_v1_t kTensors[] = {
    {"table", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_PRECISION, "[rows, D]", GPUBENCH_FILL_RANDOM, nullptr,
     "the embedding table"},
    {"indices", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_INT32, "[B]", GPUBENCH_FILL_RANDOM, "rows",
     "the rows each bag sums, bag after bag"},
    {"offsets", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_INT32, "[U + 1]", GPUBENCH_FILL_OFFSETS, nullptr,
     "first index of each bag (bag lengths: the request lengths)"},
    {"Y", GPUBENCH_ROLE_OUTPUT, GPUBENCH_DTYPE_PRECISION, "[U, D]", GPUBENCH_FILL_NONE, nullptr, "one sum per bag"}};

// The minimum: every gathered row read once (a row two bags share counts twice: the op reads it twice), the indices
// and offsets once, Y written once. "materialized" adds gather_reduce's [B, D] write and read back.
const gpubench_work_model_v1_t kWork[] = {
    {"minimum", "B * D", "B * D * elem + B * 4 + (U + 1) * 4 + U * D * elem",
     "rows gathered once, indices and offsets read once, Y written once"},
    {"materialized", "B * D", "3 * B * D * elem + B * 4 + (U + 1) * 4 + U * D * elem",
     "plus the gathered [B, D] written and read back"}};

const gpubench_op_v1_t kOps[] = {{"embedding_bag",
                                  "jagged embedding-bag sum pooling: Y[u] = Σ table[indices[i]] over bag u's indices",
                                  kShape, 2, kTensors, 4, kWork, 2, 0, 0, 0, &reference}};

const char* materialized(void*, const char*) { return "materialized"; }

const char* kUnrollSchema =
    R"({"options": [{"name": "unroll", "type": "integer", "values": [1, 2, 4, 8], "default": 4,
                     "doc": "row loads in flight per lane before any is summed"}]})";

gpubench_step_v1_t step(const char* name, const char* description, Step id, const char* schema) {
  gpubench_step_v1_t s{};
  s.op = "embedding_bag";
  s.name = name;
  s.description = description;
  s.ladder_step = static_cast<int32_t>(id);
  s.precisions = GPUBENCH_PRECISION_FP16 | GPUBENCH_PRECISION_BF16 | GPUBENCH_PRECISION_FP32;
  s.step_data = reinterpret_cast<void*>(static_cast<intptr_t>(id));
  s.options_schema = schema;
  s.work_model = id == kGatherReduce ? &materialized : nullptr;
  s.workspace_bytes = &workspace_bytes;
  s.create = &create;
  s.setup = &setup;
  s.launch_group_count = &launch_group_count;
  s.launch_group_name = &launch_group_name;
  s.launch = &launch;
  s.notes = &notes;
  s.configuration = &configuration;
  s.destroy = &destroy;
  return s;
}

const gpubench_step_v1_t kSteps[] = {
    step("gather_reduce", "index_select into [B, D], then a segment sum (the plain original)", kGatherReduce, nullptr),
    step("block_per_bag", "fused: one block per bag, one thread per column", kBlockPerBag, nullptr),
    step("warp_vectorized", "8 warps per bag, longest bag first, 16-byte loads, rows in flight per lane", kWarpVectorized,
         kUnrollSchema)};

const gpubench_plugin_v1_t kPlugin = {GPUBENCH_PLUGIN_ABI_VERSION, "embedding_bag_example", "1.0.0", kOps, 1,
                                      kSteps, 3};

}  // namespace

extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t* gpubench_plugin_v1(void) {
  return &kPlugin;
}

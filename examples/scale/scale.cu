// A minimal gpubench plugin (docs/plugins.md): op "scale", Y[B, D] = 2 · X[B, D] in fp32, two steps. No reference:
// the ladder's first step is the reference the second is checked against.
#include <gpubench/plugin.h>

#include <cuda_runtime.h>

#include <cstdio>

namespace {

__global__ void scale_kernel(const float* x, float* y, long n) {
  for (long i = blockIdx.x * long{blockDim.x} + threadIdx.x; i < n; i += long{gridDim.x} * blockDim.x) y[i] = 2.f * x[i];
}

__global__ void scale4_kernel(const float4* x, float4* y, long n4) {
  for (long i = blockIdx.x * long{blockDim.x} + threadIdx.x; i < n4; i += long{gridDim.x} * blockDim.x)
    y[i] = make_float4(2.f * x[i].x, 2.f * x[i].y, 2.f * x[i].z, 2.f * x[i].w);
}

struct Instance {
  bool vec4;
  const float* x;
  float* y;
  long n;
};

gpubench_status create(void* step_data, const char*, void** instance, gpubench_error*) {
  *instance = new Instance{step_data != nullptr, nullptr, nullptr, 0};
  return GPUBENCH_OK;
}

gpubench_status setup(void* instance, const gpubench_case_v1_t* c, const DLTensor* t, int32_t, void*, gpubench_stream,
                      gpubench_error* error) {
  auto* in = static_cast<Instance*>(instance);
  in->x = static_cast<const float*>(t[0].data);
  in->y = static_cast<float*>(t[1].data);
  in->n = c->B * c->shape[0];
  if (in->vec4 && in->n % 4 != 0) {
    std::snprintf(error->message, error->capacity, "vec4 needs B · D to be a multiple of 4");
    return GPUBENCH_ERROR_INVALID;
  }
  return GPUBENCH_OK;
}

int32_t count(void*) { return 1; }
const char* group_name(void*, int32_t) { return "scale"; }

gpubench_status launch(void* instance, int32_t, gpubench_stream stream, gpubench_error* error) {
  auto* in = static_cast<Instance*>(instance);
  if (in->vec4)
    scale4_kernel<<<1024, 256, 0, stream>>>(reinterpret_cast<const float4*>(in->x), reinterpret_cast<float4*>(in->y),
                                            in->n / 4);
  else
    scale_kernel<<<1024, 256, 0, stream>>>(in->x, in->y, in->n);
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return GPUBENCH_OK;
  std::snprintf(error->message, error->capacity, "%s", cudaGetErrorString(e));
  return GPUBENCH_ERROR_CUDA;
}

void destroy(void* instance) { delete static_cast<Instance*>(instance); }

const gpubench_shape_param_v1_t kShape[] = {{"D", 1024, 1, 1 << 20, "columns"}};
const gpubench_tensor_v1_t kTensors[] = {
    {"X", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_FP32, "[B, D]", GPUBENCH_FILL_RANDOM, nullptr, "input"},
    {"Y", GPUBENCH_ROLE_OUTPUT, GPUBENCH_DTYPE_PRECISION, "[B, D]", GPUBENCH_FILL_NONE, nullptr, "2 · X"}};
const gpubench_work_model_v1_t kWork[] = {{"minimum", "B * D", "2 * B * D * 4", "X read, Y written"}};
const gpubench_op_v1_t kOp = {"scale", "Y = 2 · X (a minimal plugin)", kShape, 1, kTensors, 2, kWork, 1, 0, 0, 0,
                              nullptr};

gpubench_step_v1_t step(const char* step_name, int32_t ladder, void* data) {
  gpubench_step_v1_t s{};
  s.op = "scale";
  s.name = step_name;
  s.description = ladder == 0 ? "one float per thread" : "one float4 per thread";
  s.ladder_step = ladder;
  s.precisions = GPUBENCH_PRECISION_FP32;
  s.step_data = data;
  s.create = create, s.setup = setup, s.launch_group_count = count, s.launch_group_name = group_name;
  s.launch = launch, s.destroy = destroy;
  return s;
}

int vec4_flag = 1;  // step_data: non-null for the float4 step
const gpubench_step_v1_t kSteps[] = {step("scalar", 0, nullptr), step("vec4", 1, &vec4_flag)};
const gpubench_plugin_v1_t kPlugin = {GPUBENCH_PLUGIN_ABI_VERSION, "scale_example", "1.0", &kOp, 1, kSteps, 2};

}  // namespace

extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t* gpubench_plugin_v1(void) { return &kPlugin; }

// Small plugins for the plugin tests (tests/cpu/plugin_test.cpp, tests/gpu/plugin_gpu_test.cpp): one source, built
// once per TEST_PLUGIN_<KIND> definition (tests/plugins/CMakeLists.txt), each getting one thing wrong.
//
// The good one (TEST_PLUGIN_GOOD) has op "toy_copy", Y[B, D] = X[B, D] (no reference: its first step is), and steps
//   copy             the whole output, in `chunks` cudaMemcpyAsync calls (options: chunks 1 … 8)
//   copy_half        the first half of the output only (fails the check: the rest stays poisoned)
//   copy_side_stream the copy enqueued on a stream of its own (the honest-kernel check flags it)
//   setup_fails      setup returns GPUBENCH_ERROR_INVALID
//   replay           the output of the first launch's input, replayed for every later input (fails the check when
//                    the inputs differ per check seed, as they must)
// (TEST_PLUGIN_FAULT adds `fault`, a kernel that writes to an unmapped address, tests/plugins/fault_kernel.cu, and
// `copy_again`, a copy after it; TEST_PLUGIN_CALLBACKS makes copy's check_options exit, crash, throw or hang by
// `chunks`; TEST_PLUGIN_HANGS's entry never returns; TEST_PLUGIN_BAD_POINTER's description points at unmapped memory)
// and one step for the in-tree op: ikbo_lce/team_copy_w, which copies W's first rows into Y (wrong on purpose;
// used to see a plugin step join the IKBO ladder in `list` and `validate`).
#include <cuda_runtime_api.h>
#include <gpubench/plugin.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include <unistd.h>

namespace {

#if defined(TEST_PLUGIN_FAULT)
extern "C" cudaError_t test_plugin_fault_launch(cudaStream_t stream);  // fault_kernel.cu
#endif

/// replay's first output, kept across instances and check seeds (one process: --no-isolate).
void* g_replay = nullptr;
bool g_replay_filled = false;

struct Copy {
  int mode = 0;  // 0 copy, 1 half, 2 side stream, 3 setup fails, 4 replay, 5 fault
  int chunks = 1;
  void* y = nullptr;
  const void* x = nullptr;
  size_t bytes = 0;
  cudaStream_t side = nullptr;
  cudaEvent_t given_ready = nullptr, side_done = nullptr;
};

void say(gpubench_error* e, const char* text) {
  if (e != nullptr && e->capacity > 0) {
    std::strncpy(e->message, text, e->capacity - 1);
    e->message[e->capacity - 1] = '\0';
  }
}

gpubench_status create(void* step_data, const char* options_json, void** instance, gpubench_error*) {
  auto* c = new Copy;
  c->mode = static_cast<int>(reinterpret_cast<intptr_t>(step_data));
  if (const char* at = std::strstr(options_json, "\"chunks\":")) c->chunks = std::atoi(at + 9);
  *instance = c;
  return GPUBENCH_OK;
}

gpubench_status setup(void* instance, const gpubench_case_v1_t* cs, const DLTensor* tensors, int32_t count, void*,
                      gpubench_stream, gpubench_error* error) {
  auto* c = static_cast<Copy*>(instance);
  if (c->mode == 3) {
    say(error, "D must be a multiple of 1000 for this step; set /workload/shape/D");
    return GPUBENCH_ERROR_INVALID;
  }
  if (count != 3) {
    say(error, "expected 3 tensors");
    return GPUBENCH_ERROR_INTERNAL;
  }
  c->x = tensors[0].data;
  c->y = tensors[2].data;
  const size_t elem = cs->precision == GPUBENCH_DTYPE_FP32 ? 4 : 2;
  c->bytes = static_cast<size_t>(tensors[2].shape[0] * tensors[2].shape[1]) * elem;
  if (c->mode == 2 && (cudaStreamCreateWithFlags(&c->side, cudaStreamNonBlocking) != cudaSuccess ||
                       cudaEventCreateWithFlags(&c->given_ready, cudaEventDisableTiming) != cudaSuccess ||
                       cudaEventCreateWithFlags(&c->side_done, cudaEventDisableTiming) != cudaSuccess)) {
    say(error, "cudaStreamCreate failed");
    return GPUBENCH_ERROR_CUDA;
  }
  if (c->mode == 4 && g_replay == nullptr && cudaMalloc(&g_replay, c->bytes) != cudaSuccess) {
    say(error, "cudaMalloc failed");
    return GPUBENCH_ERROR_CUDA;
  }
  return GPUBENCH_OK;
}

int32_t group_count(void*) { return 1; }
const char* group_name(void*, int32_t) { return "copy"; }

gpubench_status launch(void* instance, int32_t, gpubench_stream stream, gpubench_error* error) {
  auto* c = static_cast<Copy*>(instance);
#if defined(TEST_PLUGIN_FAULT)
  if (c->mode == 5) return test_plugin_fault_launch(stream) == cudaSuccess ? GPUBENCH_OK : GPUBENCH_ERROR_CUDA;
#endif
  if (c->mode == 4) {  // the first input's copy, whatever the input now
    if (!g_replay_filled && cudaMemcpyAsync(g_replay, c->x, c->bytes, cudaMemcpyDeviceToDevice, stream) != cudaSuccess)
      return GPUBENCH_ERROR_CUDA;
    g_replay_filled = true;
    return cudaMemcpyAsync(c->y, g_replay, c->bytes, cudaMemcpyDeviceToDevice, stream) == cudaSuccess
               ? GPUBENCH_OK
               : GPUBENCH_ERROR_CUDA;
  }
  const size_t bytes = c->mode == 1 ? c->bytes / 2 : c->bytes;
  cudaStream_t s = c->mode == 2 ? c->side : stream;
  // The side stream is ordered after and before the given one (the output is complete when the given stream is):
  // only where the work runs is wrong, which is what the honest-kernel check must see.
  if (c->mode == 2) {
    cudaEventRecord(c->given_ready, stream);
    cudaStreamWaitEvent(c->side, c->given_ready, 0);
  }
  const size_t chunk = (bytes + c->chunks - 1) / c->chunks;
  for (size_t at = 0; at < bytes; at += chunk) {
    const size_t n = at + chunk > bytes ? bytes - at : chunk;
    if (cudaMemcpyAsync(static_cast<char*>(c->y) + at, static_cast<const char*>(c->x) + at, n,
                        cudaMemcpyDeviceToDevice, s) != cudaSuccess) {
      say(error, cudaGetErrorString(cudaGetLastError()));
      return GPUBENCH_ERROR_CUDA;
    }
  }
  if (c->mode == 2) {
    cudaEventRecord(c->side_done, c->side);
    cudaStreamWaitEvent(stream, c->side_done, 0);
  }
  return GPUBENCH_OK;
}

const char* notes(void* instance) {
  return static_cast<Copy*>(instance)->mode == 0 ? "cudaMemcpyAsync device to device" : nullptr;
}

void destroy(void* instance) {
  auto* c = static_cast<Copy*>(instance);
  if (c->side != nullptr) cudaStreamDestroy(c->side);
  if (c->given_ready != nullptr) cudaEventDestroy(c->given_ready);
  if (c->side_done != nullptr) cudaEventDestroy(c->side_done);
  delete c;
}

#if defined(TEST_PLUGIN_CALLBACKS)
/// Recursion without end, each frame holding a buffer the optimizer cannot drop: overflows any stack.
int recurse(int depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  return recurse(depth + 1) + frame[0];
}
#endif

void check_copy(void*, const char* options_json, gpubench_option_report problem, gpubench_option_report,
                void* context) {
  if (std::strstr(options_json, "\"chunks\":7") != nullptr) problem(context, "chunks", "7 is refused by the plugin");
  // With TEST_PLUGIN_ODD_PROBLEM set, a problem whose text holds a newline and a terminal escape (trial 12: printed
  // as it was, on two lines, recolouring the terminal).
  if (std::getenv("TEST_PLUGIN_ODD_PROBLEM") != nullptr)
    problem(context, "chunks", "refused\nsecond line \x1b[31mred");
#if defined(TEST_PLUGIN_CALLBACKS)
  // A team's check_options gone wrong, by chunks: 2 exit(0), 3 a crash, 4 a C++ exception, 5 a hang, 6 runaway
  // recursion (a stack overflow), 8 quick_exit(0); and with TEST_PLUGIN_UNDERSCORE_EXIT set, _exit(0) (no handler
  // runs: the guard cannot see it), and with TEST_PLUGIN_THROW_INT set, `throw 42` (not a std::exception).
  if (std::getenv("TEST_PLUGIN_UNDERSCORE_EXIT") != nullptr) _exit(0);
  if (std::strstr(options_json, "\"chunks\":2") != nullptr) std::exit(0);
  if (std::strstr(options_json, "\"chunks\":8") != nullptr) std::quick_exit(0);
  if (std::strstr(options_json, "\"chunks\":6") != nullptr) recurse(1);
  if (std::strstr(options_json, "\"chunks\":3") != nullptr) std::raise(SIGSEGV);
  if (std::strstr(options_json, "\"chunks\":4") != nullptr) throw std::runtime_error("boom from check_options");
  if (std::getenv("TEST_PLUGIN_THROW_INT") != nullptr) throw 42;  // not a std::exception
  if (std::strstr(options_json, "\"chunks\":5") != nullptr)
    for (;;) pause();
#endif
}

/// copy's work model: the op's first, except with chunks 6, where it names a model toy_copy does not declare (a
/// plugin mistake validate must catch).
const char* copy_work_model(void*, const char* options_json) {
  return std::strstr(options_json, "\"chunks\":6") != nullptr ? "bogus" : nullptr;
}

const char* kCopySchema =
    R"({"options": [{"name": "chunks", "type": "integer", "min": 1, "max": 8, "default": 1,
                     "doc": "copies per launch"}],
        "constraints": ["chunks 7 is refused"]})";

#if defined(TEST_PLUGIN_BAD_SCHEMA)
const char* kSchema = R"({"options": [{"name": "chunks", "type": "integer"]})";  // not JSON: a ']' for a '}'
#elif defined(TEST_PLUGIN_SCHEMA_TYPO)
const char* kSchema = R"({"options": [{"name": "chunks", "type": "integer", "min": 1, "max": 8, "dflt": 1}]})";
#else
const char* kSchema = kCopySchema;
#endif

const gpubench_shape_param_v1_t kParams[] = {{"D", 256, 1, 1 << 20, "elements per row"}};
#if defined(TEST_PLUGIN_MANY_PROBLEMS)
// Seven mistakes in one description, each reported: a tensor with an unknown role and dtype, a second tensor of its
// name, a shape naming an unknown symbol (on the output), a work model naming one, a second work model of its name,
// a tolerance of 1.5.
const gpubench_tensor_v1_t kTensors[] = {
    {"X", 5, 9, "[B, D]", GPUBENCH_FILL_RANDOM, nullptr, "rows to copy"},
    {"X", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_PRECISION, "[B, D]", GPUBENCH_FILL_RANDOM, nullptr, "again"},
    {"Y", GPUBENCH_ROLE_OUTPUT, GPUBENCH_DTYPE_PRECISION, "[B, Q]", GPUBENCH_FILL_NONE, nullptr, "the copy"}};
#elif defined(TEST_PLUGIN_BAD_FILL)
// Mistakes only a case's sizes show: random indices below `D - 512` (none at D = 512), offsets shaped [B], and an
// output of no elements at D = 512.
const gpubench_tensor_v1_t kTensors[] = {
    {"X", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_PRECISION, "[B, D]", GPUBENCH_FILL_RANDOM, nullptr, "rows to copy"},
    {"idx", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_INT32, "[B]", GPUBENCH_FILL_RANDOM, "D - 512", "row ids"},
    {"offsets", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_INT32, "[B]", GPUBENCH_FILL_OFFSETS, nullptr, "wrong shape"},
    {"Y", GPUBENCH_ROLE_OUTPUT, GPUBENCH_DTYPE_PRECISION, "[B, D - 512]", GPUBENCH_FILL_NONE, nullptr, "a tail"}};
#else
const gpubench_tensor_v1_t kTensors[] = {
    {"X", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_PRECISION, "[B, D]", GPUBENCH_FILL_RANDOM, nullptr, "rows to copy"},
    {"offsets", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_INT32, "[U + 1]", GPUBENCH_FILL_OFFSETS, nullptr,
     "first row of each request"},
#if defined(TEST_PLUGIN_BAD_SHAPE)
    {"Y", GPUBENCH_ROLE_OUTPUT, GPUBENCH_DTYPE_PRECISION, "[B, Q]", GPUBENCH_FILL_NONE, nullptr, "the copy"}};
#elif defined(TEST_PLUGIN_DUP_TENSOR)
    {"X", GPUBENCH_ROLE_OUTPUT, GPUBENCH_DTYPE_PRECISION, "[B, D]", GPUBENCH_FILL_NONE, nullptr, "the copy"}};
#elif defined(TEST_PLUGIN_NO_OUTPUT)  // the output marked as an input
    {"Y", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_PRECISION, "[B, D]", GPUBENCH_FILL_NONE, nullptr, "the copy"}};
#else
    {"Y", GPUBENCH_ROLE_OUTPUT, GPUBENCH_DTYPE_PRECISION, "[B, D]", GPUBENCH_FILL_NONE, nullptr, "the copy"}};
#endif
#endif
#if defined(TEST_PLUGIN_MANY_PROBLEMS)
const gpubench_work_model_v1_t kWork[] = {{"minimum", "0", "2 * B * R * elem", "X read once, Y written once"},
                                          {"minimum", "0", "B", "the same name again"}};
const double kFp32Tolerance = 1.5;
#elif defined(TEST_PLUGIN_BAD_FILL)
// Work models only a case's sizes show wrong: bytes below 0 (D < 1024), and no work at all at D = 512.
const gpubench_work_model_v1_t kWork[] = {{"minimum", "0", "2 * B * D * elem", "X read once, Y written once"},
                                          {"staged", "0", "B * (D - 1024)", "negative below D = 1024"},
                                          {"tail", "0", "B * (D - 512)", "nothing at D = 512"}};
const double kFp32Tolerance = 0;
#else
const gpubench_work_model_v1_t kWork[] = {{"minimum", "0", "2 * B * D * elem", "X read once, Y written once"}};
const double kFp32Tolerance = 0;
#endif

#if defined(TEST_PLUGIN_DUP_OP)
const char* kOpName = "ikbo_lce";
#else
const char* kOpName = "toy_copy";
#endif

const gpubench_op_v1_t kOps[] = {{kOpName, "Y[B, D] = X[B, D] (a test op)", kParams, 1, kTensors,
                                  static_cast<int32_t>(sizeof(kTensors) / sizeof(kTensors[0])), kWork,
                                  static_cast<int32_t>(sizeof(kWork) / sizeof(kWork[0])),
                                  0, 0.004, kFp32Tolerance,  // tolerances: fp16 gpubench's default, bf16 its own
                                  nullptr}};

gpubench_step_v1_t step(const char* op, const char* name, int mode, int32_t ladder, const char* schema) {
  gpubench_step_v1_t s{};
  s.op = op;
  s.name = name;
  s.description = "a test step";
  s.ladder_step = ladder;
  s.precisions = GPUBENCH_PRECISION_FP16 | GPUBENCH_PRECISION_BF16 | GPUBENCH_PRECISION_FP32;
  s.step_data = reinterpret_cast<void*>(static_cast<intptr_t>(mode));
  s.options_schema = schema;
  s.check_options = schema != nullptr ? &check_copy : nullptr;
  s.work_model = schema != nullptr ? &copy_work_model : nullptr;
  s.create = &create;
  s.setup = &setup;
  s.launch_group_count = &group_count;
  s.launch_group_name = &group_name;
  s.launch = &launch;
  s.notes = &notes;
  s.destroy = &destroy;
  return s;
}

#if defined(TEST_PLUGIN_MANY_PROBLEMS)
// Step mistakes beside the op's: no launch function, a precision bit and a flag gpubench does not know, and a compute
// capability written as its major version alone.
const int32_t kSmTypo[] = {9};
gpubench_step_v1_t broken_step() {
  gpubench_step_v1_t s = step(kOpName, "broken", 0, 8, nullptr);
  s.launch = nullptr;
  s.precisions = 0x10;
  s.flags = 8;
  s.sm_archs = kSmTypo;
  s.sm_arch_count = 1;
  return s;
}
#endif
#if defined(TEST_PLUGIN_STEP_LIMITS)
// Steps whose description loads but whose answers validate must refuse: a negative workspace, code for sm_80 only.
int64_t negative_workspace(void*, const gpubench_case_v1_t*, const char*) { return -5; }
const int32_t kSm80[] = {80};
gpubench_step_v1_t limited_step(const char* name, int which) {
  gpubench_step_v1_t s = step(kOpName, name, 0, 10 + which, nullptr);
  if (which == 0) s.workspace_bytes = &negative_workspace;
  if (which == 1) {
    s.sm_archs = kSm80;
    s.sm_arch_count = 1;
  }
  return s;
}
#endif

#if defined(TEST_PLUGIN_DUP_STEP)
const char* kLceStep = "baseline";  // the in-tree ladder has it
#else
const char* kLceStep = "team_copy_w";
#endif

const gpubench_step_v1_t kSteps[] = {step(kOpName, "copy", 0, 0, kSchema),
                                     step(kOpName, "copy_half", 1, 1, nullptr),
                                     step(kOpName, "copy_side_stream", 2, 2, nullptr),
                                     step(kOpName, "setup_fails", 3, 3, nullptr),
                                     step(kOpName, "replay", 4, 4, nullptr),
#if defined(TEST_PLUGIN_BAD_NAME)
                                     step(kOpName, "warp-row", 0, 7, nullptr),  // '-' is no name character
#endif
#if defined(TEST_PLUGIN_MANY_PROBLEMS)
                                     broken_step(), step(kOpName, "copy", 0, 9, nullptr),  // "copy" twice
#endif
#if defined(TEST_PLUGIN_STEP_LIMITS)
                                     limited_step("negative_workspace", 0), limited_step("sm80_only", 1),
#endif
#if defined(TEST_PLUGIN_FAULT)
                                     step(kOpName, "fault", 5, 5, nullptr),
                                     step(kOpName, "copy_again", 0, 6, nullptr),
#endif
                                     step("ikbo_lce", kLceStep, 0, 50, nullptr)};

gpubench_plugin_v1_t make_plugin() {
  gpubench_plugin_v1_t p{};
#if defined(TEST_PLUGIN_BAD_VERSION_FIELD)
  p.abi_version = 7;
#else
  p.abi_version = GPUBENCH_PLUGIN_ABI_VERSION;
#endif
#if defined(TEST_PLUGIN_NULL_NAME)
  p.name = nullptr;
#elif defined(TEST_PLUGIN_RIVAL)
  p.name = "rival_plugin";  // another team's plugin that chose the same op name as `good`
#elif defined(TEST_PLUGIN_ODD_NAME)
  p.name = "bad plugin/x";  // trial 12: loaded, and reports recorded it
#else
  p.name = "test_plugin";
#endif
  p.version = "1.2.3-test";
#if defined(TEST_PLUGIN_BAD_POINTER)
  p.ops = reinterpret_cast<const gpubench_op_v1_t*>(16);  // freed or never mapped: reading it crashes gpubench
#else
  p.ops = kOps;
#endif
  p.op_count = 1;
  p.steps = kSteps;
  p.step_count = static_cast<int32_t>(sizeof(kSteps) / sizeof(kSteps[0]));
  return p;
}

#if !defined(TEST_PLUGIN_DATA_ENTRY)
const gpubench_plugin_v1_t kPlugin = make_plugin();
#endif

#if defined(TEST_PLUGIN_NOISY)
struct Noise {
  Noise() { std::printf("noise from a plugin's constructor\n"); }
} noise;
#endif

}  // namespace

#if defined(TEST_PLUGIN_ABI_V2)
extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t* gpubench_plugin_v2(void) { return &kPlugin; }
#elif defined(TEST_PLUGIN_ABI_V0)
extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t* gpubench_plugin_v0(void) { return &kPlugin; }
#elif defined(TEST_PLUGIN_NO_ENTRY)
extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t* gpubench_plugin(void) { return &kPlugin; }  // the name lacks _v1
#elif defined(TEST_PLUGIN_DATA_ENTRY)
// The description itself exported under the entry's name (a slip the loader must catch: it is data, not code).
extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t gpubench_plugin_v1 = make_plugin();
#elif defined(TEST_PLUGIN_NULL)
extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t* gpubench_plugin_v1(void) {
  std::fprintf(stderr, "test_plugin: refusing to load (TEST_PLUGIN_NULL)\n");
  return nullptr;
}
#elif defined(TEST_PLUGIN_CRASH)
// A plugin whose entry function crashes (a bug in a team's plugin): the process dies by SIGSEGV mid-load.
extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t* gpubench_plugin_v1(void) {
  std::raise(SIGSEGV);
  return &kPlugin;
}
#elif defined(TEST_PLUGIN_EXITS)
// A plugin whose entry function ends the process with status 0 (a stray exit() in a team's plugin).
extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t* gpubench_plugin_v1(void) {
  std::exit(0);
  return &kPlugin;
}
#elif defined(TEST_PLUGIN_HANGS)
// A plugin whose entry function never returns (a deadlock, a wedged driver in a constructor).
extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t* gpubench_plugin_v1(void) {
  for (;;) pause();
  return &kPlugin;
}
#else
extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t* gpubench_plugin_v1(void) {
#if defined(TEST_PLUGIN_NOISY)
  std::printf("noise from gpubench_plugin_v1\n");
#endif
  return &kPlugin;
}
#endif

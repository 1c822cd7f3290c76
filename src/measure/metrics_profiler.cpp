// CounterCollector (measure/metrics.hpp): the CUPTI Range Profiler over a variant's launch groups. Sequence, from
// the CUPTI 13 headers (cupti_range_profiler.h, cupti_profiler_host.h, cupti_profiler_target.h):
//   once:     cuptiProfilerInitialize → cuptiProfilerDeviceSupported → cuptiDeviceGetChipName →
//             cuptiProfilerGetCounterAvailability → host object (cuptiProfilerHostInitialize) →
//             ConfigAddMetrics → GetConfigImage → GetNumOfPasses
//   per step: cuptiRangeProfilerEnable(ctx) → GetCounterDataSize / CounterDataImageInitialize → SetConfig
//             (user ranges, user replay) → per pass: [L2 read flush] Start, {PushRange, launch group, sync,
//             PopRange} per launch group, Stop (until isAllPassSubmitted) → DecodeData → per range: GetRangeInfo +
//             cuptiProfilerHostEvaluateToGpuValues → cuptiRangeProfilerDisable.
// The profiler is enabled only inside collect(), so the timed samples of the next step run without it.
#include <cuda.h>  // CUcontext, CUdevice (types only: the driver is reached through the runtime)
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdlib>

#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/l2_flush.hpp"
#include "measure/cupti_activity.hpp"
#include "measure/harness_kernels.hpp"
#include "measure/metrics.hpp"
#include "measure/cupti_params.hpp"

namespace gpubench::measure {
namespace {

constexpr int64_t kMaxPasses = 64;  // a metric set needing more is refused (ours need 1–3 on GH100)

/// Why a CUPTI call failed, in words, with the fix when there is a known one.
std::string explain(CUptiResult r, const char* call) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return fmt::format("no permission to read GPU performance counters ({} in {}): run as root or load the "
                         "driver with NVreg_RestrictProfilingToAdminUsers=0 (https://developer.nvidia.com/ERR_NVGPUCTRPERM)",
                         cupti_text(r), call);
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return fmt::format("another profiler holds the GPU's counters (running under ncu or nsys?): {} in {}",
                         cupti_text(r), call);
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return fmt::format("this GPU does not support the CUPTI profiler ({} in {})", cupti_text(r), call);
    default: return fmt::format("{} failed: {}", call, cupti_text(r));
  }
}

const char* level_text(CUpti_Profiler_Support_Level l) {
  switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    default: return "unknown";
  }
}

/// The current CUDA context through the runtime's driver entry point (no link against libcuda, which a
/// machine without a driver lacks). nullptr when there is none.
CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess || !fn) {
    (void)cudaGetLastError();
    return nullptr;
  }
  CUcontext ctx = nullptr;
  if (reinterpret_cast<GetCurrent>(fn)(&ctx) != CUDA_SUCCESS) return nullptr;
  return ctx;
}

}  // namespace

struct CounterCollector::State {
  bool profiler_initialized = false;
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<uint8_t> config_image;
  std::vector<const char*> names;  // pointers into metrics_
  DeviceBuffer flush;
  DeviceBuffer sink;
  ~State() {
    if (host) {
      auto p = cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
      p.pHostObject = host;
      cuptiProfilerHostDeinitialize(&p);
    }
    if (profiler_initialized) {
      auto p = cupti_params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
      cuptiProfilerDeInitialize(&p);
    }
  }
};

CounterCollector::CounterCollector(int device_index, std::vector<std::string> metrics, int64_t l2_flush_bytes)
    : s_(std::make_unique<State>()), metrics_(std::move(metrics)) {
  why_ = prepare(device_index, l2_flush_bytes);
  available_ = why_.empty();
}

std::string CounterCollector::prepare(int device_index, int64_t l2_flush_bytes) {
  auto fail = [](std::string why) { return why; };
  if (metrics_.empty()) return fail("no metrics selected");
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count <= device_index) {
    (void)cudaGetLastError();
    return fail(e != cudaSuccess ? fmt::format("no usable CUDA device ({}: {})", cudaGetErrorName(e), cudaGetErrorString(e))
                                 : fmt::format("no CUDA device {} ({} found)", device_index, count));
  }
  if (cudaSetDevice(device_index) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return fail("cannot create a CUDA context on device " + std::to_string(device_index));
  }
  auto init = cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  if (const CUptiResult r = cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS)
    return fail(explain(r, "cuptiProfilerInitialize"));
  s_->profiler_initialized = true;

  auto sup = cupti_params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  sup.cuDevice = device_index;
  sup.api = CUPTI_PROFILER_RANGE_PROFILING;
  if (const CUptiResult r = cuptiProfilerDeviceSupported(&sup); r != CUPTI_SUCCESS)
    return fail(explain(r, "cuptiProfilerDeviceSupported"));
  if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return fail(fmt::format("this GPU configuration does not support the CUPTI profiler (architecture {}, vGPU {}, "
                            "confidential compute {}, SLI {}, CMP {}, WSL {})",
                            level_text(sup.architecture), level_text(sup.vGpu), level_text(sup.confidentialCompute),
                            level_text(sup.sli), level_text(sup.cmp), level_text(sup.wsl)));

  auto chip = cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<size_t>(device_index);
  if (const CUptiResult r = cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS || !chip.pChipName)
    return fail(explain(r, "cuptiDeviceGetChipName"));

  // Counter availability filters counters the system holds back; optional (nullptr is accepted).
  std::vector<uint8_t> avail;
  if (CUcontext ctx = current_context()) {
    auto a = cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    a.ctx = ctx;
    if (const CUptiResult r = cuptiProfilerGetCounterAvailability(&a); r == CUPTI_SUCCESS && a.counterAvailabilityImageSize) {
      avail.resize(a.counterAvailabilityImageSize);
      a.pCounterAvailabilityImage = avail.data();
      if (cuptiProfilerGetCounterAvailability(&a) != CUPTI_SUCCESS) avail.clear();
    } else if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES || r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      return fail(explain(r, "cuptiProfilerGetCounterAvailability"));
    }
  }

  auto host = cupti_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip.pChipName;
  host.pCounterAvailabilityImage = avail.empty() ? nullptr : avail.data();
  if (const CUptiResult r = cuptiProfilerHostInitialize(&host); r != CUPTI_SUCCESS)
    return fail(explain(r, "cuptiProfilerHostInitialize") + " (is libnvperf_host.so beside libcupti?)");
  s_->host = host.pHostObject;

  for (const auto& m : metrics_) s_->names.push_back(m.c_str());
  auto add = cupti_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = s_->host;
  add.ppMetricNames = s_->names.data();
  add.numMetrics = s_->names.size();
  if (const CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS) {
    std::string list;
    for (const auto& m : metrics_) list += (list.empty() ? "" : ", ") + m;
    return fail(explain(r, "cuptiProfilerHostConfigAddMetrics") + " (metrics: " + list + ")");
  }
  auto size = cupti_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = s_->host;
  if (const CUptiResult r = cuptiProfilerHostGetConfigImageSize(&size); r != CUPTI_SUCCESS)
    return fail(explain(r, "cuptiProfilerHostGetConfigImageSize"));
  s_->config_image.resize(size.configImageSize);
  auto img = cupti_params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  img.pHostObject = s_->host;
  img.configImageSize = s_->config_image.size();
  img.pConfigImage = s_->config_image.data();
  if (const CUptiResult r = cuptiProfilerHostGetConfigImage(&img); r != CUPTI_SUCCESS)
    return fail(explain(r, "cuptiProfilerHostGetConfigImage"));
  auto np = cupti_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  np.configImageSize = s_->config_image.size();
  np.pConfigImage = s_->config_image.data();
  if (const CUptiResult r = cuptiProfilerHostGetNumOfPasses(&np); r != CUPTI_SUCCESS)
    return fail(explain(r, "cuptiProfilerHostGetNumOfPasses"));
  if (np.numOfPasses < 1 || static_cast<int64_t>(np.numOfPasses) > kMaxPasses)
    return fail(fmt::format("the metric set needs {} replay passes (at most {})", np.numOfPasses, kMaxPasses));
  passes_ = static_cast<int64_t>(np.numOfPasses);

  if (l2_flush_bytes > 0) {
    try {
      s_->flush = DeviceBuffer(static_cast<size_t>(l2_flush_bytes));
      s_->sink = DeviceBuffer(sizeof(uint32_t));
    } catch (const std::exception& e) {
      return fail(std::string("L2 flush buffer: ") + e.what());
    }
  }
  return "";
}

CounterCollector::~CounterCollector() = default;

Counters CounterCollector::collect(const std::vector<op::LaunchGroup>& ops, cudaStream_t stream) {
  Counters out;
  out.metrics = metrics_;
  out.l2_flushed = s_->flush.get() != nullptr;
  auto unavailable = [&](std::string why, bool persistent) {
    out.status = CountersStatus::kUnavailable;
    out.note = why;
    if (persistent) {
      available_ = false;
      why_ = std::move(why);
    }
    return out;
  };
  if (!available_) return unavailable(why_, false);
  if (ops.empty()) return unavailable("the step has no launch groups", false);
  CUcontext ctx = current_context();
  if (!ctx) return unavailable("no current CUDA context", true);
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));

  auto en = cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  en.ctx = ctx;
  if (const CUptiResult r = cuptiRangeProfilerEnable(&en); r != CUPTI_SUCCESS)
    return unavailable(explain(r, "cuptiRangeProfilerEnable"), true);
  CUpti_RangeProfiler_Object* obj = en.pRangeProfilerObject;
  struct Disable {  // the profiler never outlives collect(), exceptions included
    CUpti_RangeProfiler_Object* obj;
    ~Disable() {
      auto d = cupti_params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
      d.pRangeProfilerObject = obj;
      cuptiRangeProfilerDisable(&d);
    }
  } disable{obj};

  const size_t n_ops = ops.size();
  auto ds = cupti_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  ds.pRangeProfilerObject = obj;
  ds.pMetricNames = s_->names.data();
  ds.numMetrics = s_->names.size();
  ds.maxNumOfRanges = n_ops;
  ds.maxNumRangeTreeNodes = static_cast<uint32_t>(n_ops);
  if (const CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&ds); r != CUPTI_SUCCESS)
    return unavailable(explain(r, "cuptiRangeProfilerGetCounterDataSize"), false);
  std::vector<uint8_t> data(ds.counterDataSize);
  auto di = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  di.pRangeProfilerObject = obj;
  di.counterDataSize = data.size();
  di.pCounterData = data.data();
  if (const CUptiResult r = cuptiRangeProfilerCounterDataImageInitialize(&di); r != CUPTI_SUCCESS)
    return unavailable(explain(r, "cuptiRangeProfilerCounterDataImageInitialize"), false);

  auto sc = cupti_params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  sc.pRangeProfilerObject = obj;
  sc.configSize = s_->config_image.size();
  sc.pConfig = s_->config_image.data();
  sc.counterDataImageSize = data.size();
  sc.pCounterDataImage = data.data();
  sc.range = CUPTI_UserRange;
  sc.replayMode = CUPTI_UserReplay;
  sc.maxRangesPerPass = n_ops;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = 0;
  sc.targetNestingLevel = 1;
  if (const CUptiResult r = cuptiRangeProfilerSetConfig(&sc); r != CUPTI_SUCCESS)
    return unavailable(explain(r, "cuptiRangeProfilerSetConfig"), false);

  std::vector<std::string> range_names;
  for (size_t i = 0; i < n_ops; ++i) range_names.push_back(fmt::format("{}:{}", i, ops[i].name));
  bool all_submitted = false;
  while (!all_submitted) {
    if (out.passes >= kMaxPasses) return unavailable(fmt::format("replay did not finish in {} passes", kMaxPasses), false);
    if (s_->flush.get()) {
      flush_l2_read(s_->flush.get(), static_cast<int64_t>(s_->flush.bytes()), static_cast<uint32_t*>(s_->sink.get()), stream);
      GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    }
    auto st = cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    st.pRangeProfilerObject = obj;
    if (const CUptiResult r = cuptiRangeProfilerStart(&st); r != CUPTI_SUCCESS)
      return unavailable(explain(r, "cuptiRangeProfilerStart"), false);
    for (size_t i = 0; i < n_ops; ++i) {
      auto push = cupti_params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
      push.pRangeProfilerObject = obj;
      push.pRangeName = range_names[i].c_str();
      if (const CUptiResult r = cuptiRangeProfilerPushRange(&push); r != CUPTI_SUCCESS)
        return unavailable(explain(r, "cuptiRangeProfilerPushRange"), false);
      ops[i].launch(stream);
      GPUBENCH_CUDA(cudaStreamSynchronize(stream));  // the launch group's work lies inside its range
      auto pop = cupti_params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
      pop.pRangeProfilerObject = obj;
      if (const CUptiResult r = cuptiRangeProfilerPopRange(&pop); r != CUPTI_SUCCESS)
        return unavailable(explain(r, "cuptiRangeProfilerPopRange"), false);
    }
    auto sp = cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    sp.pRangeProfilerObject = obj;
    if (const CUptiResult r = cuptiRangeProfilerStop(&sp); r != CUPTI_SUCCESS)
      return unavailable(explain(r, "cuptiRangeProfilerStop"), false);
    all_submitted = sp.isAllPassSubmitted != 0;
    ++out.passes;
  }
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  auto dd = cupti_params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  dd.pRangeProfilerObject = obj;
  if (const CUptiResult r = cuptiRangeProfilerDecodeData(&dd); r != CUPTI_SUCCESS)
    return unavailable(explain(r, "cuptiRangeProfilerDecodeData"), false);
  if (dd.numOfRangeDropped > 0) out.note = fmt::format("{} ranges dropped by the profiler", dd.numOfRangeDropped);

  auto info = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  if (const CUptiResult r = cuptiRangeProfilerGetCounterDataInfo(&info); r != CUPTI_SUCCESS)
    return unavailable(explain(r, "cuptiRangeProfilerGetCounterDataInfo"), false);
  out.launch_groups.resize(n_ops);
  for (size_t i = 0; i < n_ops; ++i) out.launch_groups[i].name = ops[i].name;
  std::vector<double> values(s_->names.size());
  for (size_t r = 0; r < info.numTotalRanges; ++r) {
    auto ri = cupti_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    ri.pCounterDataImage = data.data();
    ri.counterDataImageSize = data.size();
    ri.rangeIndex = r;
    ri.rangeDelimiter = "/";
    size_t op = r;  // ranges come in push order; the "<index>:" prefix of the name says so explicitly
    if (cuptiRangeProfilerCounterDataGetRangeInfo(&ri) == CUPTI_SUCCESS && ri.rangeName)
      op = static_cast<size_t>(std::strtoull(ri.rangeName, nullptr, 10));
    if (op >= n_ops) continue;
    auto ev = cupti_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    ev.pHostObject = s_->host;
    ev.pCounterDataImage = data.data();
    ev.counterDataImageSize = data.size();
    ev.rangeIndex = r;
    ev.ppMetricNames = s_->names.data();
    ev.numMetrics = s_->names.size();
    ev.pMetricValues = values.data();
    if (const CUptiResult e = cuptiProfilerHostEvaluateToGpuValues(&ev); e != CUPTI_SUCCESS)
      return unavailable(explain(e, "cuptiProfilerHostEvaluateToGpuValues"), false);
    for (size_t m = 0; m < metrics_.size(); ++m) out.launch_groups[op].values[metrics_[m]] = values[m];
  }
  if (info.numTotalRanges < n_ops)
    out.note += fmt::format("{}{} of {} launch group ranges decoded", out.note.empty() ? "" : "; ", info.numTotalRanges, n_ops);
  (void)CuptiActivity::take();  // drop the activity records of the replayed launch groups: no timed sample owns them
  return out;
}

}  // namespace gpubench::measure

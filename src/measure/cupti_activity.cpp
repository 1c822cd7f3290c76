#include "measure/cupti_activity.hpp"

#include <cupti.h>
#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace gpubench::measure {
namespace {

constexpr size_t kBufferBytes = 8u << 20;  // 8 MiB per CUPTI buffer (≈ 40k kernel records)
constexpr size_t kAlign = 8;               // CUPTI requires 8-byte aligned buffers

// External correlation records precede *API* records only (cupti_activity.h,
// cuptiActivityPushExternalCorrelationId), so RUNTIME must be on for kernels to be tied to our ops
// (seen on the H200: without it no kernel had an external id), and DRIVER too: cuBLAS launches its
// kernels through the driver API (seen: cuBLAS GEMM kernels unattributed with RUNTIME alone).
constexpr CUpti_ActivityKind kActivityKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

struct State {
  std::mutex mu;
  std::vector<ActivityRecord> records;                     // completed, unresolved external ids
  std::unordered_map<uint32_t, uint64_t> external_of;       // correlation id → external id
  uint64_t dropped = 0;
  bool active = false;
};

State& state() {
  static State s;
  return s;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

std::string memcpy_kind_name(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "memcpy DtoD";
    default: return "memcpy";
  }
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                               size_t valid) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    switch (rec->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
        s.records.push_back({demangle(k->name), "kernel", k->start, k->end, k->correlationId, k->streamId, 0});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
        s.records.push_back({memcpy_kind_name(m->copyKind), "memcpy", m->start, m->end, m->correlationId, m->streamId, 0});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(rec);
        s.records.push_back({"memset", "memset", m->start, m->end, m->correlationId, m->streamId, 0});
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(rec);
        s.external_of[e->correlationId] = e->externalId;
        break;
      }
      default: break;
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS) s.dropped += dropped;
  std::free(buffer);
}

std::string cupti_error(CUptiResult r, const char* call) {
  const char* str = nullptr;
  cuptiGetResultString(r, &str);
  return std::string(call) + " failed: " + (str ? str : "unknown CUPTI error");
}

}  // namespace

std::string demangle(const char* symbol) {
  if (!symbol) return "?";
  int status = 0;
  char* out = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  if (status != 0 || !out) return symbol;
  std::string s(out);
  std::free(out);
  return s;
}

std::string CuptiActivity::start() {
  State& s = state();
  if (s.active) return "";
  if (const CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS)
    return cupti_error(r, "cuptiActivityRegisterCallbacks");
  for (const CUpti_ActivityKind kind : kActivityKinds) {
    if (const CUptiResult r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS) {
      for (const CUpti_ActivityKind k : kActivityKinds) cuptiActivityDisable(k);
      return cupti_error(r, "cuptiActivityEnable");
    }
  }
  s.active = true;
  return "";
}

bool CuptiActivity::active() { return state().active; }

void CuptiActivity::push(uint64_t external_id) {
  if (state().active) cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, external_id);
}

void CuptiActivity::pop() {
  uint64_t last = 0;
  if (state().active) cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

std::vector<ActivityRecord> CuptiActivity::take() {
  State& s = state();
  if (!s.active) return {};
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // incomplete buffers too
  std::lock_guard<std::mutex> lock(s.mu);
  std::vector<ActivityRecord> out;
  out.swap(s.records);
  for (auto& r : out) {
    const auto it = s.external_of.find(r.correlation_id);
    if (it != s.external_of.end()) r.external_id = it->second;
  }
  s.external_of.clear();
  return out;
}

uint64_t CuptiActivity::dropped() {
  std::lock_guard<std::mutex> lock(state().mu);
  return state().dropped;
}

void CuptiActivity::stop() {
  State& s = state();
  if (!s.active) return;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (const CUpti_ActivityKind k : kActivityKinds) cuptiActivityDisable(k);
  s.active = false;
}

}  // namespace gpubench::measure

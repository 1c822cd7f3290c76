#include "measure/nvtx.hpp"

#include <nvtx3/nvToolsExt.h>

namespace gpubench::measure {
namespace {
nvtxDomainHandle_t domain() {
  static nvtxDomainHandle_t d = nvtxDomainCreateA("gpubench");
  return d;
}
}  // namespace

NvtxRange::NvtxRange(const std::string& name, int64_t payload) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = name.c_str();
  if (payload >= 0) {
    a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    a.payload.ullValue = static_cast<uint64_t>(payload);
  }
  nvtxDomainRangePushEx(domain(), &a);
}

NvtxRange::~NvtxRange() { nvtxDomainRangePop(domain()); }

}  // namespace gpubench::measure

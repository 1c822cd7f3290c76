// measure_pipeline (measure/pipeline_session.hpp): the measured end-to-end mode, per case.
#include "measure/pipeline_session.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "measure/interrupt.hpp"
#include "op/operation.hpp"

namespace gpubench::measure {
namespace {

/// True when the CUDA context is unusable after an error (sticky errors persist across a second sync).
bool context_poisoned() {
  if (cudaDeviceSynchronize() == cudaSuccess) return false;
  (void)cudaGetLastError();
  return cudaDeviceSynchronize() != cudaSuccess;
}

/// A captured, instantiated request graph; destroyed with the last op that launches it.
struct RequestGraph {
  cudaGraphExec_t exec = nullptr;
  ~RequestGraph() {
    if (exec) GPUBENCH_CUDA_NOTHROW(cudaGraphExecDestroy(exec));
  }
};

/// The request's ops captured into one graph, as one op "request_graph". Throws DeviceError.
std::vector<op::LaunchGroup> as_graph(const std::vector<op::LaunchGroup>& ops, cudaStream_t stream) {
  auto graph = std::make_shared<RequestGraph>();
  cudaGraph_t g = nullptr;
  GPUBENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    for (const auto& op : ops) op.launch(stream);
  } catch (...) {
    if (cudaStreamEndCapture(stream, &g) == cudaSuccess && g) (void)cudaGraphDestroy(g);
    throw;
  }
  GPUBENCH_CUDA(cudaStreamEndCapture(stream, &g));
  const cudaError_t inst = cudaGraphInstantiate(&graph->exec, g, 0);
  GPUBENCH_CUDA_NOTHROW(cudaGraphDestroy(g));
  GPUBENCH_CUDA(inst);
  return {{"request_graph", [graph](cudaStream_t s) { GPUBENCH_CUDA(cudaGraphLaunch(graph->exec, s)); }}};
}

/// "scores vs <first>'s pipeline: rel. error 2.1e-04; top-k identical in 98.4% of requests".
std::string agreement_note(const op::RequestResult& y, const op::RequestResult& ref, const std::string& ref_name) {
  const int64_t U = ref.U, k = ref.k;
  double num = 0, den = 0;
  for (size_t i = 0; i < y.scores.size(); ++i) {
    const double d = static_cast<double>(y.scores[i]) - ref.scores[i];
    num += d * d;
    den += static_cast<double>(ref.scores[i]) * ref.scores[i];
  }
  int64_t same = 0;
  for (int64_t u = 0; u < U; ++u) {
    bool eq = true;
    for (int64_t j = 0; j < k; ++j) eq = eq && y.topk[static_cast<size_t>(u * k + j)] == ref.topk[static_cast<size_t>(u * k + j)];
    same += eq;
  }
  return fmt::format("scores vs {}'s pipeline: rel. error {:.2e}; top-k identical in {:.1f}% of requests (near-ties "
                     "may reorder)",
                     ref_name, den > 0 ? std::sqrt(num / den) : std::sqrt(num), 100.0 * same / std::max<int64_t>(U, 1));
}

const VariantSpec* spec_for(const Config& config, const CaseResult& cr, size_t i) {
  if (i < config.variants.size() && config.variants[i].name == cr.variants[i].name) return &config.variants[i];
  for (const auto& s : config.variants)
    if (s.name == cr.variants[i].name) return &s;
  return nullptr;
}

}  // namespace

std::vector<std::string> pipeline_setup_notes(const std::string& step_name, const op::Step& step) {
  std::vector<std::string> notes;
  for (const std::string& n : step.setup_notes())
    notes.push_back(step_name + ": " + n + "; in the pipeline that copy is made from the setup-time inputs");
  return notes;
}

std::string measure_pipeline(const Config& config, const op::Operation& operation, const Shape& shape,
                             const RequestLayout& layout, Runner& runner, CaseResult& cr, const LogFn& log) {
  const PipelineSpec& spec = *config.end_to_end.pipeline;
  const cudaStream_t stream = runner.stream();
  const auto fail_all = [&](const std::string& why) {
    for (auto& v : cr.variants) {
      if (v.status != StepStatus::kOk) continue;
      v.pipeline.emplace();
      v.pipeline->status = PipelineStatus::kFailed;
      v.pipeline->error = why;
    }
  };
  const op::CaseSize size = op::case_size(config, shape, layout.batch, layout.requests());
  const int64_t need = operation.pipeline_bytes(spec, size);
  size_t free_b = 0, total_b = 0;
  GPUBENCH_CUDA(cudaMemGetInfo(&free_b, &total_b));
  if (need > static_cast<int64_t>(free_b * 0.9)) {
    const std::string why = fmt::format("pipeline needs {:.2f} GiB of device memory, {:.2f} GiB free; shrink "
                                        "/end_to_end/pipeline/tables/*/rows or /end_to_end/pipeline/mlp/layers",
                                        need / 1073741824.0, free_b / 1073741824.0);
    fail_all(why);
    log(cr.label + ": " + why);
    return {};
  }
  std::unique_ptr<op::RequestPipeline> req;
  try {
    req = operation.make_pipeline(spec, size, layout, stream);
  } catch (const std::exception& e) {
    fail_all(std::string("pipeline setup: ") + e.what());
    log(cr.label + ": pipeline setup failed: " + e.what());
    return context_poisoned() ? std::string("pipeline setup: ") + e.what() : std::string();
  }
  std::optional<op::RequestResult> first;
  std::string first_name;
  for (size_t i = 0; i < cr.variants.size(); ++i) {
    VariantResult& vr = cr.variants[i];
    if (vr.status != StepStatus::kOk || interrupt_requested()) continue;
    const VariantSpec* vs = spec_for(config, cr, i);
    const op::StepInfo* info = operation.find_step(vr.name);
    PipelineTiming pt;
    try {
      if (!vs || !info) throw InputError("variant " + vr.name + " not found in the config or the registry");
      auto step = info->create(vs->options);
      req->setup_step(*step, stream);
      pt.notes = pipeline_setup_notes(vr.name, *step);
      std::vector<op::LaunchGroup> ops = req->groups(step->groups());
      const op::RequestResult out = req->run_once(ops, stream);
      if (!first) {
        first = out;
        first_name = vr.name;
      } else {
        pt.notes.push_back(agreement_note(out, *first, first_name));
      }
      if (spec.cuda_graph) {
        ops = as_graph(ops, stream);
        pt.notes.push_back("request replayed as one CUDA graph (launch group request_graph; per-kernel times in its kernels)");
      }
      VariantResult timed;
      runner.measure({ops}, "pipeline/" + vr.name, timed);
      pt.request = timed.region;
      pt.request_samples_ms = std::move(timed.region_samples_ms);
      pt.sampling = timed.sampling;
      pt.stages = std::move(timed.launch_groups);
      log(fmt::format("[pipeline] {}: request median {:.4f} ms over {} samples ({})", vr.name, pt.request.median,
                      pt.request.count, pt.sampling.stop_reason));
    } catch (const std::exception& e) {
      pt.status = PipelineStatus::kFailed;
      pt.error = e.what();
      log(fmt::format("[pipeline] {}: FAILED: {}", vr.name, e.what()));
      if (context_poisoned()) {
        vr.pipeline = std::move(pt);
        return "the CUDA context was poisoned by the pipeline with " + vr.name + " (" + e.what() + ")";
      }
    }
    vr.pipeline = std::move(pt);
  }
  return {};
}

}  // namespace gpubench::measure

/* gpubench plugin ABI, version 1: ops and ladder steps built outside gpubench (docs/plugins.md).
 *
 * A plugin is a shared library exporting one C function, `gpubench_plugin_v1`, that returns a description of its
 * ops and steps. gpubench allocates every buffer, fills the inputs (random per seed, never zeros), poisons the
 * output before each check, times each launch group (CUPTI), checks the output against the reference and reports,
 * exactly as for the steps built into gpubench; the IKBO LCE steps themselves are registered through this header.
 *
 * Versioning (the pattern of NCCL's tuner and profiler plugins): the entry symbol carries the ABI version in its
 * name, and the struct it returns starts with that version again. A later ABI adds `gpubench_plugin_v2` beside
 * v1; a plugin may export both, and gpubench takes the newest it supports.
 *
 * Rules for every function a plugin provides:
 *  - No C++ type, exception or ownership crosses the boundary; strings are NUL-terminated UTF-8 owned by the
 *    plugin and valid until the object that returned them is destroyed (descriptions: until unload).
 *  - A function that can fail returns a gpubench_status and, on failure, writes one line saying why (and the fix)
 *    into `error`.
 *  - Launches enqueue on the given stream only: no synchronization, allocation, free or host-device copy, and they
 *    must be capturable into a CUDA graph. gpubench detects kernels on other streams and says so in the report.
 *  - Plugins must not write to stdout (gpubench redirects it to stderr while plugins are loaded, so that reports
 *    written to stdout stay valid).
 */
#ifndef GPUBENCH_PLUGIN_H_
#define GPUBENCH_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI version this header describes; the first member of gpubench_plugin_v1_t. */
#define GPUBENCH_PLUGIN_ABI_VERSION 1
/** The name of the entry symbol for ABI version 1 (for dlsym). */
#define GPUBENCH_PLUGIN_ENTRY_V1 "gpubench_plugin_v1"

/** A CUDA stream: the same type as cudaStream_t / CUstream, declared here so the header needs no CUDA header. */
typedef struct CUstream_st* gpubench_stream;

/** What a plugin function returns. */
typedef enum {
  GPUBENCH_OK = 0,
  /** Bad options or a shape the step cannot run: reported as bad input (exit 2 from validate; the step fails). */
  GPUBENCH_ERROR_INVALID = 1,
  /** A CUDA call failed: the step fails; a sticky error stops the run (exit 3). */
  GPUBENCH_ERROR_CUDA = 2,
  /** Anything else: the step fails, the other steps go on. */
  GPUBENCH_ERROR_INTERNAL = 3
} gpubench_status;

/** Where a failing function writes why, one line: at most `capacity` bytes including the terminating NUL. */
typedef struct {
  char* message;
  size_t capacity;
} gpubench_error;

/** Reports one finding about a step's options: `key` is the option (e.g. "stages"), `message` what is wrong or
 *  without effect and the fix (e.g. "must be 4 when cluster is \"2x2\""). `context` is gpubench's. */
typedef void (*gpubench_option_report)(void* context, const char* key, const char* message);

/** Element types of tensors. GPUBENCH_DTYPE_PRECISION: the config's /precision (fp16, bf16 or fp32). */
typedef enum {
  GPUBENCH_DTYPE_PRECISION = 0,
  GPUBENCH_DTYPE_FP16 = 1,
  GPUBENCH_DTYPE_BF16 = 2,
  GPUBENCH_DTYPE_FP32 = 3,
  GPUBENCH_DTYPE_INT32 = 4,
  GPUBENCH_DTYPE_INT64 = 5
} gpubench_dtype;

/** Precisions as bits, for gpubench_step_v1_t::precisions. */
enum {
  GPUBENCH_PRECISION_FP16 = 1u << 0,
  GPUBENCH_PRECISION_BF16 = 1u << 1,
  GPUBENCH_PRECISION_FP32 = 1u << 2
};

/** What a tensor is to a step. */
typedef enum {
  GPUBENCH_ROLE_INPUT = 0,  /**< read by the steps; filled by gpubench */
  GPUBENCH_ROLE_OUTPUT = 1  /**< written by the steps; poisoned before each check, compared with the reference */
} gpubench_role;

/** How gpubench fills an input tensor for a seed. Index fills follow the case's request layout: B candidates in
 *  U requests, request u holding candidates offsets[u] … offsets[u+1] − 1. */
typedef enum {
  /** Floating point: uniform in [−1, 1] with |x| ≥ 1/64 (never zero). Integer: uniform in [0, fill_bound). */
  GPUBENCH_FILL_RANDOM = 0,
  GPUBENCH_FILL_OFFSETS = 1,       /**< integer [U + 1]: offsets[u], offsets[0] = 0, offsets[U] = B */
  GPUBENCH_FILL_CAND_TO_USER = 2,  /**< integer [B]: the request of each candidate (non-decreasing) */
  GPUBENCH_FILL_LENGTHS = 3,       /**< integer [U]: candidates per request */
  GPUBENCH_FILL_NONE = 4           /**< outputs */
} gpubench_fill;

/** A shape parameter: an integer the config sets in /workload/shape. */
typedef struct {
  const char* name;       /**< e.g. "D"; letters, digits and '_' */
  int64_t default_value;  /**< used when the config leaves it out */
  int64_t min;            /**< smallest accepted value (≥ 0) */
  int64_t max;            /**< largest accepted value */
  const char* doc;        /**< one line for `gpubench list` */
} gpubench_shape_param_v1_t;

/** A tensor of an op. Shapes and bounds are integer expressions over the shape parameters, B (candidates) and U
 *  (requests): + − * / (integer division), ceil_div(a, b), min(a, b), max(a, b), parentheses. */
typedef struct {
  const char* name;        /**< e.g. "indices" */
  int32_t role;            /**< gpubench_role */
  int32_t dtype;           /**< gpubench_dtype */
  const char* shape;       /**< e.g. "[B, D]", "[U + 1]", "[]" for a scalar */
  int32_t fill;            /**< gpubench_fill (GPUBENCH_FILL_NONE for the output) */
  const char* fill_bound;  /**< GPUBENCH_FILL_RANDOM of an integer tensor: exclusive upper bound, e.g. "rows" */
  const char* doc;         /**< one line */
} gpubench_tensor_v1_t;

/** A way to count a step's work: expressions as for shapes, plus `elem` (bytes of one element of the config's
 *  precision). The first work model of an op is its minimum work (each input read once, the output written once). */
typedef struct {
  const char* name;       /**< e.g. "minimum" */
  const char* flops;      /**< FLOP of one run, e.g. "B * D" */
  const char* bytes_min;  /**< minimum DRAM bytes of one run, e.g. "B * D * elem + U * D * elem" */
  const char* doc;        /**< one line */
} gpubench_work_model_v1_t;

/** One case, as gpubench hands it to a step or a reference. */
typedef struct {
  const int64_t* shape;  /**< the shape parameters' values, in the op's order */
  int32_t shape_count;
  int32_t precision;     /**< GPUBENCH_DTYPE_FP16, _BF16 or _FP32 */
  int64_t B;             /**< candidates */
  int64_t U;             /**< requests */
  int32_t allow_tf32;    /**< fp32 only: non-zero when GEMMs may use TF32 tensor cores */
  int32_t sm;            /**< the GPU's compute capability as major * 10 + minor, e.g. 90 */
} gpubench_case_v1_t;

/** An op: what it computes, its shapes, tensors, work and reference. */
typedef struct {
  const char* name;         /**< /workload/op, e.g. "embedding_bag"; unique across gpubench and all plugins */
  const char* description;  /**< one line, e.g. "jagged embedding-bag sum pooling: Y[u] = Σ T[indices[i]]" */
  const gpubench_shape_param_v1_t* shape_params;
  int32_t shape_param_count;
  /** Inputs and exactly one output, in the order steps receive them. */
  const gpubench_tensor_v1_t* tensors;
  int32_t tensor_count;
  const gpubench_work_model_v1_t* work_models;  /**< at least one */
  int32_t work_model_count;
  /** Bound on ‖y − ref‖₂ / ‖ref‖₂ per precision; 0: gpubench's default (fp16 2e-3, bf16 1e-2, fp32 1e-5). */
  double tolerance_fp16, tolerance_bf16, tolerance_fp32;
  /** The reference in fp32, or NULL: then the first step of the ladder is the reference. `tensors` are the op's
   *  tensors in order (the output's entry has data NULL); `output_fp32` is the output's shape in fp32. Enqueue on
   *  `stream`. */
  gpubench_status (*reference)(const gpubench_case_v1_t* c, const DLTensor* tensors, int32_t tensor_count,
                               DLTensor* output_fp32, gpubench_stream stream, gpubench_error* error);
} gpubench_op_v1_t;

/** Flags of a step. */
enum {
  /** A test step (e.g. one that faults on purpose): hidden and refused unless GPUBENCH_ENABLE_TEST_VARIANTS=1. */
  GPUBENCH_STEP_TEST_ONLY = 1u << 0
};

/** A ladder step of an op of this plugin or of an op gpubench already has (e.g. "ikbo_lce"). The functions that
 *  take `step_data` receive this struct's step_data member, so one implementation can serve several steps. */
typedef struct {
  const char* op;           /**< the op's name */
  const char* name;         /**< /variants/i/name; unique within the op */
  const char* description;  /**< one line for `gpubench list` */
  int32_t ladder_step;      /**< position in the ladder, for `list`; 0 = the original implementation */
  uint32_t precisions;      /**< GPUBENCH_PRECISION_* bits */
  /** Compute capabilities (major * 10 + minor) it runs on, e.g. {90} for sm_90a code; NULL or 0 entries: any. */
  const int32_t* sm_archs;
  int32_t sm_arch_count;
  uint32_t flags;           /**< GPUBENCH_STEP_* bits */
  void* step_data;          /**< passed to check_options, work_model, workspace_bytes and create */
  /** The options as JSON text (NULL: none), in the form of gpubench's own steps' schemas (docs/plugins.md):
   *  {"options": [{"name", "type": "boolean"|"integer"|"string"|"mixed", "values": [...] | "min"+"max",
   *  "default" (null: the step chooses, as "default_doc" says), "doc"}], "constraints": ["one line each", ...]}. */
  const char* options_schema;
  /** Optional (NULL: every combination accepted): cross-option checks of `options_json`. Calls `problem` for each combination refused and `note`
   *  for each option accepted but without effect; both with `context`. */
  void (*check_options)(void* step_data, const char* options_json, gpubench_option_report problem,
                        gpubench_option_report note, void* context);
  /** Optional (NULL: the op's first): the name of the op's work model that counts this step's work with these
   *  options; returning NULL or "" also means the op's first. check_options, work_model and workspace_bytes run in
   *  every verb, before any GPU work: they must return (GPUBENCH_PLUGIN_TIMEOUT_S bounds them), never throw, exit
   *  or crash, and a plugin that does is refused with one line and exit 2. */
  const char* (*work_model)(void* step_data, const char* options_json);
  /** Optional (NULL: none): device bytes of scratch the step needs for a case; gpubench allocates it. */
  int64_t (*workspace_bytes)(void* step_data, const gpubench_case_v1_t* c, const char* options_json);

  /** A new instance for the config's options. Every `options_json` is the config's /variants/i/options object
   *  (compact JSON, no defaults added), each value already checked against options_schema; an absent key means its
   *  default. */
  gpubench_status (*create)(void* step_data, const char* options_json, void** instance, gpubench_error* error);
  /** Untimed setup for one case: `tensors` are the op's tensors in order, on the device (the output included);
   *  `workspace` holds workspace_bytes(c) bytes (NULL when 0). Pointers stay valid until destroy. */
  gpubench_status (*setup)(void* instance, const gpubench_case_v1_t* c, const DLTensor* tensors,
                           int32_t tensor_count, void* workspace, gpubench_stream stream, gpubench_error* error);
  /** After setup: the number of launch groups, each a named unit of launches timed as one. */
  int32_t (*launch_group_count)(void* instance);
  /** The name of launch group `group` (e.g. "pool"); letters, digits and '_', not starting with a digit. */
  const char* (*launch_group_name)(void* instance, int32_t group);
  /** Enqueues launch group `group` on `stream`. Running all groups in order writes the output. */
  gpubench_status (*launch)(void* instance, int32_t group, gpubench_stream stream, gpubench_error* error);
  /** Optional (NULL: none): report notes, one per line, e.g. "vectorized 16-byte loads". */
  const char* (*notes)(void* instance);
  /** Optional (NULL: none): notes on untimed setup work, one per line, e.g. "K padded 1178→1184 (setup, untimed)". */
  const char* (*setup_notes)(void* instance);
  /** Optional (NULL: none): the compiled configuration that ran, e.g. "tile 128x64, 4 stages". */
  const char* (*configuration)(void* instance);
  /** Frees the instance (after the stream is synchronized). */
  void (*destroy)(void* instance);
} gpubench_step_v1_t;

/** What the entry function returns. */
typedef struct {
  uint32_t abi_version;  /**< GPUBENCH_PLUGIN_ABI_VERSION (1) */
  const char* name;      /**< the plugin's name, e.g. "embedding_bag_example": 1 to 64 letters, digits, '_', '-'
                              and '.', starting with a letter or digit; two files of one name are two builds */
  const char* version;   /**< the plugin's own version string, recorded in reports: plain text, e.g. "1.2.3" */
  const gpubench_op_v1_t* ops;
  int32_t op_count;
  const gpubench_step_v1_t* steps;
  int32_t step_count;
} gpubench_plugin_v1_t;

/** Marks the entry function exported even when the plugin builds with hidden visibility (recommended). */
#define GPUBENCH_PLUGIN_EXPORT __attribute__((visibility("default")))

/** The entry symbol a plugin exports (with C linkage):
 *    extern "C" GPUBENCH_PLUGIN_EXPORT const gpubench_plugin_v1_t* gpubench_plugin_v1(void) { ... }
 *  Called once, after loading; NULL refuses the load. */
typedef const gpubench_plugin_v1_t* (*gpubench_plugin_entry_v1)(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUBENCH_PLUGIN_H_ */

// Kernel files as ladder steps without a GPU (docs/kernel-files.md): what the inspector reads from the cubin, PTX and
// fatbin nvcc builds in tests/kernel_files/, the description parser's checks (each problem with its JSON pointer and
// fix), the per-case launch checks against the device model, and the same through the real binary (list, validate,
// plan, a description written inside a config).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/text_file.hpp"
#include "op/kernel_file.hpp"
#include "op/kernel_file_step.hpp"
#include "support/cli_binary.hpp"

namespace gpubench::op {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kDir = GPUBENCH_TEST_KERNEL_DIR;

json description() {
  std::string text;
  EXPECT_EQ(read_text_file((kDir / "kernel_files.json").string(), kMaxInputFileBytes, text), ReadStatus::kOk);
  return json::parse(text);
}

/// The message parse_kernel_file throws for `j`, or "" when it parses.
std::string problems(const json& j) {
  try {
    (void)parse_kernel_file(j, "k.json", kDir.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

CaseSize lce_case(int64_t B, int64_t U, int64_t M = 433, int64_t N = 256, int64_t K_user = 1178, int64_t K_cand = 64) {
  CaseSize c;
  c.shape.set("M", M);
  c.shape.set("N", N);
  c.shape.set("K_user", K_user);
  c.shape.set("K_cand", K_cand);
  c.B = B;
  c.U = U;
  return c;
}

TEST(KernelSignature, ParsesTritonTypesAndRefusesOthers) {
  const auto sig = parse_signature("*fp16, *bf16,*i32, i32, u64 ,fp32");
  ASSERT_EQ(sig.size(), 6u);
  EXPECT_TRUE(sig[0].pointer);
  EXPECT_EQ(sig[0].elem, "fp16");
  EXPECT_EQ(sig[0].bytes(), 8);
  EXPECT_EQ(sig[3].bytes(), 4);
  EXPECT_TRUE(sig[3].integer());
  EXPECT_EQ(sig[4].bytes(), 8);
  EXPECT_FALSE(sig[5].integer());
  EXPECT_EQ(sig[2].text(), "*i32");
  try {
    (void)parse_signature("*fp16, int");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'int' is not a signature type"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)parse_signature("*fp16,,i32"), InputError);
  EXPECT_THROW((void)parse_signature(""), InputError);
  EXPECT_THROW((void)parse_signature("*"), InputError);
}

TEST(KernelBinaryInspect, ReadsKindArchitecturesEntriesAndPtxParameters) {
  const KernelBinary cubin = inspect_kernel_binary((kDir / "lce_naive.cubin").string());
  EXPECT_EQ(cubin.kind, KernelBinary::Kind::kCubin);
  EXPECT_EQ(cubin.sass_archs, std::vector<int>{90});
  EXPECT_TRUE(cubin.ptx_archs.empty());
  for (const char* k : {"lce_user_fp16", "lce_cand_fp16", "lce_user_bf16", "lce_cand_bf16"})
    EXPECT_NE(std::find(cubin.entries.begin(), cubin.entries.end(), k), cubin.entries.end()) << k;
  EXPECT_TRUE(runs_on(cubin, 90));
  EXPECT_FALSE(runs_on(cubin, 100));

  const KernelBinary ptx = inspect_kernel_binary((kDir / "lce_naive.ptx").string());
  EXPECT_EQ(ptx.kind, KernelBinary::Kind::kPtx);
  EXPECT_EQ(ptx.ptx_archs, std::vector<int>{90});
  EXPECT_FALSE(ptx.ptx_arch_specific);
  EXPECT_EQ(ptx.param_bytes.at("lce_user_fp16"), (std::vector<int64_t>{8, 8, 8, 4, 4, 4, 4, 4}));
  EXPECT_EQ(ptx.param_bytes.at("lce_cand_bf16").size(), 10u);
  EXPECT_TRUE(runs_on(ptx, 90));
  EXPECT_TRUE(runs_on(ptx, 100));  // PTX compiles forward
  EXPECT_FALSE(runs_on(ptx, 80));

  const KernelBinary fat = inspect_kernel_binary((kDir / "lce_naive.fatbin").string());
  EXPECT_EQ(fat.kind, KernelBinary::Kind::kFatbin);
  EXPECT_EQ(fat.sass_archs, std::vector<int>{90});
  EXPECT_EQ(fat.ptx_archs, std::vector<int>{90});
  EXPECT_EQ(describe_archs(fat), "sm_90 machine code, compute_90 PTX");
  // nvcc's default fatbin keeps its machine code as a plain ELF image: its kernel names are read as a cubin's, so a
  // misspelled kernel is refused by validate (trial 9: it passed, and failed on the GPU).
  for (const char* k : {"lce_user_fp16", "lce_cand_fp16", "lce_user_bf16", "lce_cand_bf16"})
    EXPECT_NE(std::find(fat.entries.begin(), fat.entries.end(), k), fat.entries.end()) << k;
  EXPECT_TRUE(std::is_sorted(fat.entries.begin(), fat.entries.end()));
  const KernelBinary zstd = inspect_kernel_binary((kDir / "lce_naive_zstd.fatbin").string());
  EXPECT_EQ(zstd.sass_archs, std::vector<int>{90});
  EXPECT_TRUE(zstd.entries.empty());  // compressed: the names are checked at setup
  EXPECT_EQ(entries_on(zstd, 90), nullptr);
  // Per architecture: the driver loads one copy, so a kernel only in the sm_80 code does not run on an sm_90 GPU.
  const KernelBinary split = inspect_kernel_binary((kDir / "arch_split.fatbin").string());
  EXPECT_EQ(split.sass_entries.at(80), (std::vector<std::string>{"everywhere", "sm80_only"}));
  EXPECT_EQ(split.sass_entries.at(90), (std::vector<std::string>{"everywhere"}));
  ASSERT_NE(entries_on(split, 90), nullptr);
  EXPECT_EQ(*entries_on(split, 90), (std::vector<std::string>{"everywhere"}));
  EXPECT_EQ(*entries_on(split, 86), (std::vector<std::string>{"everywhere", "sm80_only"}));
  EXPECT_EQ(entries_on(split, 100), nullptr);  // no machine code of that major version: PTX or nothing
  EXPECT_EQ(entries_on(cubin, 90), &cubin.entries);

  const KernelBinary old = inspect_kernel_binary((kDir / "lce_naive_sm80.cubin").string());
  EXPECT_EQ(old.sass_archs, std::vector<int>{80});
  EXPECT_FALSE(runs_on(old, 90));
  EXPECT_TRUE(runs_on(old, 86));
}

TEST(KernelBinaryInspect, RefusesFilesThatAreNotKernels) {
  const fs::path dir = fs::temp_directory_path() / ("gpubench_kbin_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string cubin;
  ASSERT_EQ(read_text_file((kDir / "lce_naive.cubin").string(), size_t{64} << 20, cubin), ReadStatus::kOk);
  std::ofstream(dir / "cut.cubin", std::ios::binary) << cubin.substr(0, 120);
  std::string fatbin;
  ASSERT_EQ(read_text_file((kDir / "lce_naive.fatbin").string(), size_t{64} << 20, fatbin), ReadStatus::kOk);
  std::ofstream(dir / "cut.fatbin", std::ios::binary) << fatbin.substr(0, fatbin.size() / 2);
  std::ofstream(dir / "text.cubin") << "hello world\n";
  ASSERT_EQ(::mkfifo((dir / "pipe.cubin").c_str(), 0600), 0);  // no writer: reading it would block forever
  const std::vector<std::pair<std::string, std::string>> cases = {
      {(dir / "pipe.cubin").string(), "not a regular file (a named pipe, socket or device)"},
      {"/dev/null", "not a regular file"},
      {"/bin/sh", "an ELF file for x86-64 (a host library or program?), not a CUDA cubin"},
      {(dir / "cut.cubin").string(), "truncated cubin"},
      {(dir / "cut.fatbin").string(),
       "a truncated fatbin (its header says " + std::to_string(fatbin.size()) + " bytes, the file has " +
           std::to_string(fatbin.size() / 2) + "); rebuild it (nvcc -fatbin) or copy it again"},
      {(dir / "text.cubin").string(), "not a cubin, fatbin or PTX file"},
      {(dir / "missing.cubin").string(), "cannot read the kernel file"},
      {dir.string(), "is a folder; name the kernel file in it (a .cubin, .fatbin or .ptx)"}};
  for (const auto& [path, want] : cases) {
    try {
      (void)inspect_kernel_binary(path);
      ADD_FAILURE() << path;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
  // Hostile files end, without a crash or a hang: a fatbin entry whose size wraps 64 bits, a PTX entry with a
  // million parameters.
  std::string fat(16 + 64, '\0');
  const uint32_t magic = 0xBA55ED50u;
  const uint16_t version = 1, header = 16;
  const uint64_t payload = 64, huge = ~uint64_t{0} - 63;
  const uint16_t kind = 2;
  const uint32_t entry_header = 64, arch = 90;
  std::memcpy(fat.data(), &magic, 4);
  std::memcpy(fat.data() + 4, &version, 2);
  std::memcpy(fat.data() + 6, &header, 2);
  std::memcpy(fat.data() + 8, &payload, 8);
  std::memcpy(fat.data() + 16, &kind, 2);
  std::memcpy(fat.data() + 20, &entry_header, 4);
  std::memcpy(fat.data() + 24, &huge, 8);
  std::memcpy(fat.data() + 44, &arch, 4);
  std::ofstream(dir / "wrap.fatbin", std::ios::binary) << fat;
  EXPECT_EQ(inspect_kernel_binary((dir / "wrap.fatbin").string()).sass_archs, std::vector<int>{90});
  std::string ptx = ".version 8.0\n.target sm_90\n.visible .entry big(";
  for (int i = 0; i < 1000000; ++i) ptx += ".param .u32 p" + std::to_string(i) + ",";
  ptx += ".param .u64 last)\n{\n}\n";
  std::ofstream(dir / "big.ptx") << ptx;
  // Comments hide nothing and invent nothing; a cut-off module is refused.
  std::ofstream(dir / "comments.ptx") << ".version 8.0\n.target sm_90 // .target sm_100\n"
                                         "// .visible .entry fake(\n/* .visible .entry fake2( */\n"
                                         ".visible .entry real(.param .u32 n)\n{\n ret;\n}\n";
  const KernelBinary c = inspect_kernel_binary((dir / "comments.ptx").string());
  EXPECT_EQ(c.entries, std::vector<std::string>{"real"});
  EXPECT_EQ(c.param_bytes.at("real"), std::vector<int64_t>{4});
  std::string full;
  ASSERT_EQ(read_text_file((kDir / "lce_naive.ptx").string(), size_t{64} << 20, full), ReadStatus::kOk);
  std::ofstream(dir / "cut.ptx") << full.substr(0, full.size() / 2);
  EXPECT_THROW((void)inspect_kernel_binary((dir / "cut.ptx").string()), InputError);
  const KernelBinary big = inspect_kernel_binary((dir / "big.ptx").string());
  ASSERT_EQ(big.param_bytes.at("big").size(), 1000001u);
  EXPECT_EQ(big.param_bytes.at("big").back(), 8);
  fs::remove_all(dir);
}

TEST(KernelFileParse, TheTestDescriptionParsesWithItsLaunchesAndRunsOnTheH200) {
  const auto steps = parse_kernel_file(description(), "k.json", kDir.string());
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].name, "kf_cubin");
  EXPECT_EQ(steps[0].op, "ikbo_lce");
  EXPECT_EQ(steps[0].file->binary.kind, KernelBinary::Kind::kCubin);
  EXPECT_EQ(steps[0].file->sha256.size(), 64u);
  ASSERT_EQ(steps[0].launches.size(), 2u);
  EXPECT_EQ(steps[0].launches[1].file, steps[0].file);
  EXPECT_EQ(steps[0].launches[0].group, "user_gemm");
  EXPECT_EQ(steps[0].launches[1].args[4].kind, KernelArg::Kind::kTensor);  // cand_to_user
  EXPECT_EQ(steps[0].launches[1].args[4].index, 3u);
  EXPECT_EQ(steps[0].launches[0].args[0].kind, KernelArg::Kind::kWorkspace);
  EXPECT_EQ(steps[2].precisions, std::vector<Precision>{Precision::kBf16});
  EXPECT_TRUE(steps[3].launches[1].has_cluster);

  const CaseSize c = lce_case(1000, 14);
  const LaunchDims d = launch_dims(steps[3], steps[3].launches[1], c);
  EXPECT_EQ(d.grid[0], 433000);  // ceil_div(B * M, 2) * 2
  EXPECT_EQ(d.block[0] * d.block[1], 128);
  EXPECT_EQ(d.cluster[0], 2);
  EXPECT_EQ(d.shared_memory, 65536);
  EXPECT_EQ(launch_dims(steps[0], steps[0].launches[1], c).shared_memory, 64 * 4);  // K_cand * 4
  for (const KernelFileStep& s : steps) EXPECT_TRUE(case_problems(s, c, limits_for_model("h200")).empty()) << s.name;
}

TEST(KernelFileParse, EachProblemNamesItsPointerAndTheFix) {
  struct Case {
    std::string pointer;  // JSON pointer (into step 0) to change
    json value;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"/steps/0/launches/0/gridx", 1, "/steps/0/launches/0/gridx: unknown key"},
      {"/steps/0/launches/0/grid", "U * Q", "/steps/0/launches/0/grid: 'U * Q': unknown symbol 'Q'"},
      {"/steps/0/launches/0/grid", "ceil_div(N, ", "/steps/0/launches/0/grid: 'ceil_div(N, ': expected"},
      {"/steps/0/launches/0/block", json::array({1, 2, 3, 4}), "expected 1 to 3 dimensions"},
      {"/steps/0/launches/0/args/3", "W", "'W' is a tensor (a pointer), but the signature has i32 here"},
      {"/steps/0/launches/1/setup", true, "/steps/0/launches/1/setup: setup launches come first"},
      {"/steps/0/divisibility", {{"E_cand", 3}}, "/steps/0/divisibility/E_cand: gpubench's buffers start on 256-byte "
                                                 "boundaries, so it cannot promise 3 bytes"},
      {"/steps/0/launches/0/args/1", "M", "the signature has *fp16 here, so the argument must name a tensor"},
      {"/steps/0/launches/0/args/3", 1.5, "1.5 is not an integer"},
      {"/steps/0/launches/0/signature", "*fp32, *bf16, *fp16, i32, i32, i32, i32, i32",
       "/steps/0/launches/0/signature/1: *bf16 points to bf16, but tensor W is fp16 at the step's precision fp16 (its "
       "\"precisions\")"},
      {"/steps/0/launches/0/signature", "*fp32, *fp16, *fp16, i32, i32, i32, i32",
       "/steps/0/launches/0/args: 8 arguments for a signature of 7 parameters"},
      {"/steps/0/launches/0/kernel", "lce_user", "has no kernel 'lce_user' (it has "},
      {"/steps/0/launches/1/group", "user_gemm", ""},  // consecutive: one group
      {"/steps/0/precisions", json::array({"fp8"}), "/steps/0/precisions/0: expected \"fp16\", \"bf16\" or \"fp32\""},
      {"/steps/0/precisions", json::array({"fp16", "fp16"}), "/steps/0/precisions/1: fp16 is listed twice"},
      {"/steps/0/precisions", "fp16", ""},  // one precision may be written without the list
      {"/steps/0/work_model", "roofline", "expected one of op ikbo_lce's work models"},
      {"/steps/0/binary", "nothing.cubin", "nothing.cubin: cannot read the kernel file"},
      {"/steps/0/workspace/0/name", "W", "expected a new name"},
      {"/steps/0/workspace/0/name", "M", "/steps/0/workspace/0/name: 'M' is a shape symbol of op ikbo_lce"},
      {"/steps/0/name", "9lives", "expected a step name"},
      {"/op", "gemm", "/op: unknown op 'gemm'"},
      {"/kernel_file_version", 2, "/kernel_file_version: expected 1"},
      // The PTX's own parameter sizes against the signature: an i64 where the kernel has an int.
      {"/steps/1/launches/0/signature", "*fp32, *fp16, *fp16, i64, i32, i32, i32, i32",
       "/steps/1/launches/0/signature: the PTX of 'lce_user_fp16' declares 8 parameters of 8, 8, 8, 4, 4, 4, 4, 4 "
       "bytes, the signature gives 8 of 8, 8, 8, 8, 4, 4, 4, 4 bytes"},
  };
  for (const Case& c : cases) {
    json j = description();
    j[json::json_pointer(c.pointer)] = c.value;
    const std::string got = problems(j);
    if (c.want.empty()) {
      EXPECT_EQ(got, "") << c.pointer;
    } else {
      EXPECT_NE(got.find(c.want), std::string::npos) << c.pointer << "\n" << got;
      EXPECT_EQ(got.rfind("k.json: ", 0), 0u) << got;
    }
  }
  json j = description();
  j["steps"][0]["launches"][0]["args"][3] = "W";  // a tensor in a scalar slot: one message, not a second on its type
  EXPECT_EQ(problems(j).find("points to"), std::string::npos) << problems(j);
  j = description();
  for (auto& l : j["steps"][0]["launches"]) l["setup"] = true;
  EXPECT_NE(problems(j).find("/steps/0/launches: every launch is a setup launch"), std::string::npos) << problems(j);
  j = {{"schema_version", 1}, {"workload", {{"op", "ikbo_lce"}}}, {"variants", {"k_aligned"}}};
  EXPECT_NE(problems(j).find("k.json: this is a gpubench config, not a kernel file description"), std::string::npos);
  j = description();
  j["steps"][0]["launches"].push_back(j["steps"][0]["launches"][0]);  // user_gemm again after cand_gemm
  EXPECT_NE(problems(j).find("/steps/0/launches/2/group: group 'user_gemm' appears again"), std::string::npos);
  j = description();
  j["steps"][1]["name"] = "kf_cubin";
  EXPECT_NE(problems(j).find("/steps/1/name: a second step named kf_cubin"), std::string::npos);
  j = description();
  j["steps"][0].erase("launches");
  j["steps"][0]["launches"] = json::array();
  EXPECT_NE(problems(j).find("/steps/0/launches: expected a non-empty list"), std::string::npos);
  // Every problem at once, one per line.
  j = description();
  j["steps"][0]["launches"][0]["grid"] = "Q";
  j["steps"][0]["launches"][1]["block"] = "R";
  const std::string both = problems(j);
  EXPECT_NE(both.find("launches/0/grid"), std::string::npos) << both;
  EXPECT_NE(both.find("\nk.json: /steps/0/launches/1/block"), std::string::npos) << both;
}

TEST(KernelFileCase, RefusesLaunchesOutsideTheDeviceModelPerCase) {
  json j = description();
  auto& l = j["steps"][0]["launches"][1];
  const auto check = [&](const CaseSize& c) {
    const auto steps = parse_kernel_file(j, "k.json", kDir.string());
    std::string all;
    for (const std::string& p : case_problems(steps[0], c, limits_for_model("h200"))) all += p + "\n";
    return all;
  };
  EXPECT_EQ(check(lce_case(1000, 14)), "");
  l["grid"] = json::array({"M", "B"});
  EXPECT_NE(check(lce_case(70000, 14)).find("/steps/0/launches/1/grid/1: grid.y = 70000 for B=70000 U=14, outside 1 "
                                            "… 65535 on the h200 datasheet"), std::string::npos) << check(lce_case(70000, 14));
  EXPECT_EQ(check(lce_case(65535, 14)), "");
  l["grid"] = "N / (M - 433)";
  // A grid of one value is named as written (…/grid, not …/grid/0), as its parse errors are.
  EXPECT_NE(check(lce_case(100, 5)).find("/steps/0/launches/1/grid: 'N / (M - 433)': division by zero"),
            std::string::npos) << check(lce_case(100, 5));
  EXPECT_EQ(check(lce_case(100, 5, 434)), "");
  l["grid"] = "B * M";
  l["cluster"] = 4;
  EXPECT_NE(check(lce_case(1001, 7)).find("grid.x = 433433 is not a multiple of cluster.x = 4"), std::string::npos);
  l["cluster"] = 32;
  l["grid"] = "ceil_div(B * M, 32) * 32";
  EXPECT_NE(check(lce_case(1001, 7)).find("32 CTAs per cluster, above 16 on the h200 datasheet (sm_90); use a smaller "
                                          "cluster"), std::string::npos);
  l.erase("cluster");
  l["shared_memory"] = "K_cand * 4 * 1024";
  EXPECT_NE(check(lce_case(10, 2)).find("262144 bytes of dynamic shared memory for B=10 U=2, outside 0 … 232448 on the "
                                             "h200 datasheet (sm_90); change the expression or the shape"),
            std::string::npos) << check(lce_case(10, 2));
  l["shared_memory"] = 0;
  l["block"] = json::array({64, 32});
  EXPECT_NE(check(lce_case(10, 2)).find("2048 threads per block, above 1024 on the h200 datasheet (sm_90); use a "
                                        "smaller block"), std::string::npos);
  l["block"] = 2048;  // block.x over its own limit: that one problem, not also the product
  EXPECT_NE(check(lce_case(10, 2)).find("block.x = 2048 for B=10 U=2, outside 1 … 1024 on the h200 datasheet (sm_90); "
                                        "use a smaller block"), std::string::npos)
      << check(lce_case(10, 2));
  EXPECT_EQ(check(lce_case(10, 2)).find("threads per block"), std::string::npos) << check(lce_case(10, 2));
  l["block"] = 128;
  l["args"][5] = "B * M * N";  // an i32 that overflows at large B
  EXPECT_EQ(check(lce_case(1000, 14)), "");
  EXPECT_NE(check(lce_case(20000, 14)).find("/steps/0/launches/1/args/5: B * M * N = 2216960000 for B=20000 U=14 does "
                                            "not fit i32"), std::string::npos) << check(lce_case(20000, 14));
  EXPECT_THROW((void)limits_for_model("b200"), InputError);
  // A divisibility hint the kernels were compiled with: a shape that breaks it is refused.
  l["args"][5] = "B";
  j["steps"][0]["divisibility"] = {{"N", 16}, {"E_cand", 16}, {"K_user + K_cand", 2}};
  EXPECT_EQ(check(lce_case(100, 5)), "");
  EXPECT_NE(check(lce_case(100, 5, 433, 250)).find("/steps/0/divisibility/N: N = 250 for B=100 U=5 is not a multiple "
                                                   "of 16, which the kernels were compiled to assume"),
            std::string::npos) << check(lce_case(100, 5, 433, 250));
  EXPECT_NE(check(lce_case(100, 5, 433, 256, 1177)).find("K_user + K_cand = 1241"), std::string::npos);
  j["steps"][0]["divisibility"] = {{"Q", 16}};
  EXPECT_NE(problems(j).find("/steps/0/divisibility/Q: 'Q': unknown symbol 'Q'"), std::string::npos) << problems(j);
  j["steps"][0]["divisibility"] = {{"N", 0}};
  EXPECT_NE(problems(j).find("/steps/0/divisibility/N: expected a positive integer"), std::string::npos);
  j["steps"][0].erase("divisibility");

  // Machine code for another architecture: refused for the model before any GPU work.
  std::string text;
  ASSERT_EQ(read_text_file((kDir / "wrong_arch.json").string(), kMaxInputFileBytes, text), ReadStatus::kOk);
  const auto old = parse_kernel_file(json::parse(text), "w.json", kDir.string());
  const auto p = case_problems(old[0], lce_case(100, 5), limits_for_model("h100_sxm"));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("w.json: /steps/0/binary: "), std::string::npos) << p[0];
  EXPECT_NE(p[0].find("holds sm_80 machine code, which cannot run on sm_90"), std::string::npos) << p[0];
}

TEST(KernelFileParse, AKeyWrittenTwiceIsRefusedNamingItsPointer) {
  // JSON keeps the last of a repeated key: {"grid": "1", "grid": "ceil_div(M, 128)"} would launch what the second says.
  const fs::path path = fs::temp_directory_path() / ("gpubench_kf_dup_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << R"j({"op": "ikbo_lce", "binary": "k.cubin", "binary": "other.cubin", "steps": []})j";
  std::string msg;
  try {
    (void)register_kernel_file(path.string());
  } catch (const InputError& e) {
    msg = e.what();
  }
  fs::remove(path);
  EXPECT_EQ(msg, path.string() + ": /binary: duplicate key; JSON keeps only the last value, remove one");
}

}  // namespace
}  // namespace gpubench::op

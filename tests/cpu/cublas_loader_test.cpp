// core/cublas_loader.cpp: cuBLAS is opened on the first cuBLAS call, not when a process starts, and its calls reach
// the library. No GPU is needed: status names and cuBLASLt descriptors are host-side.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/cli_binary.hpp"

TEST(CublasLoader, StatusNamesComeFromTheLibrary) {
  // The loader's own fallback says "cuBLAS not loaded": these names can only come from libcublas.
  EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE");
  EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED");
}

TEST(CublasLoader, LtLayoutCallsReachTheLibraryWithTheirArguments) {
  cublasLtMatrixLayout_t layout = nullptr;
  ASSERT_EQ(cublasLtMatrixLayoutCreate(&layout, CUDA_R_16F, 433, 256, 433), CUBLAS_STATUS_SUCCESS);
  ASSERT_NE(layout, nullptr);
  const int batch = 1024;
  EXPECT_EQ(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch),
            CUBLAS_STATUS_SUCCESS);
  // A size that does not match the attribute's is refused by cuBLASLt itself: the arguments arrive in order.
  EXPECT_EQ(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, 1),
            CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(cublasLtMatrixLayoutDestroy(layout), CUBLAS_STATUS_SUCCESS);
}

TEST(CublasLoader, CommandsThatRunNoGemmDoNotLoadCublas) {
  // Linking cuBLAS cost every gpubench process ≈ 0.35 s of static initializers. The dynamic loader's own trace
  // (LD_DEBUG=libs) lists every library a process opens; cudart is there, cuBLAS must not be.
  const std::string bin = gpubench::testing::gpubench_binary();
  if (bin.empty()) GTEST_SKIP() << "no gpubench binary";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gpubench_cublas_loader";
  std::filesystem::create_directories(dir);
  ::setenv("LD_DEBUG", "libs", 1);
  gpubench::testing::Child child(bin, {"validate", std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_fp16.json"},
                                 dir);
  const int rc = child.wait(60);
  ::unsetenv("LD_DEBUG");
  EXPECT_EQ(rc, 0) << child.err();
  EXPECT_NE(child.err().find("libcudart.so"), std::string::npos) << "no loader trace: " << child.err();
  EXPECT_EQ(child.err().find("libcublas"), std::string::npos) << child.err();
  std::filesystem::remove_all(dir);
}

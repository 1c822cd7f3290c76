# Writes wgmma_n256_tb.cuh, the one wgmma wrapper n256_probe.cu uses (128 accumulator operands):
#   python3 gen_wgmma.py
acc = 128
regs = ", ".join(f"%{i}" for i in range(acc))
outs = ", ".join(f'"+f"(d[{i}])' for i in range(acc))
body = f'''#pragma once
// wgmma m64n256k16, A K-major and B MN-major ("transposed" B), fp16 operands (written by gen_wgmma.py).
#include <cstdint>

/// D[64 x 256] (+)= A[64 x 16] · B[16 x 256]: fp16 operands in shared memory (descriptors), A K-major (imm-trans-a 0),
/// B N-major (imm-trans-b 1); fp32 accumulators `d` (128 per thread, the m64n256k16 fragment); `accumulate` = 0
/// overwrites D. Issued by a whole warpgroup.
__device__ __forceinline__ void wgmma_m64n256k16_tb(float (&d)[{acc}], uint64_t desc_a, uint64_t desc_b,
                                                    uint32_t accumulate) {{
  asm volatile(
      "{{\\n .reg .pred p;\\n setp.ne.b32 p, %{acc + 2}, 0;\\n"
      " wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{{regs}}}, %{acc}, %{acc + 1}, p, 1, 1, 0, 1;\\n}}"
      : {outs}
      : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}}
'''
with open("wgmma_n256_tb.cuh", "w") as f:
    f.write(body)

# Writes wgmma_kmajor.cuh, the three wgmma wrappers fill_loop.cu uses (operand lists 128, 112 and 96 long):
#   python3 gen_wgmma.py
def wrapper(n):
    acc = n // 2
    regs = ", ".join(f"%{i}" for i in range(acc))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(acc))
    return f'''/// D[64 x {n}] (+)= A[64 x 16] · B[16 x {n}]: fp16 operands, both K-major in shared memory (descriptors), fp32
/// accumulators `d` ({acc} per thread, the m64n{n}k16 fragment); `accumulate` = 0 overwrites D. A whole warpgroup.
__device__ __forceinline__ void wgmma_m64n{n}k16(float (&d)[{acc}], uint64_t desc_a, uint64_t desc_b, uint32_t accumulate) {{
  asm volatile(
      "{{\\n .reg .pred p;\\n setp.ne.b32 p, %{acc + 2}, 0;\\n"
      " wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 {{{regs}}}, %{acc}, %{acc + 1}, p, 1, 1, 0, 0;\\n}}"
      : {outs}
      : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}}
'''

with open("wgmma_kmajor.cuh", "w") as f:
    f.write("#pragma once\n// wgmma m64n256k16 and m64n224k16, both operands K-major (written by gen_wgmma.py).\n"
            "#include <cstdint>\n\n" + wrapper(256) + "\n" + wrapper(224) + "\n" + wrapper(192))

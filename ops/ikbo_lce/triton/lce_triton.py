"""The IKBO LCE op (docs/ikbo_lce.md) in Triton, compiled ahead of time into cubins that gpubench runs as the
`triton_fused` ladder step (docs/kernel-files.md; scripts/triton-aot builds them from triton_fused.build.json).

  user_gemm:  Y_user[u] = W_user · E_user[u]                          fp32 [U, M, N], one program per (u, tile)
  cand_gemm:  Y[b] = W_cand · E_cand[b] + Y_user[cand_to_user[b]]     the broadcast-add in the GEMM's epilogue

W is [M, K_user + K_cand] (W_user then W_cand, row-major), E_user [U, K_user, N], E_cand [B, K_cand, N], Y [B, M, N].
Programs run candidate-fastest (program_id 0 is b), so the candidates of one request, which are consecutive, read the
same Y_user tile from L2 and every program of a wave shares the W tile.
"""
import triton
import triton.language as tl


@triton.jit
def lce_user_kernel(Y_user, W, E_user, M, N, K_user, K_total,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    u = tl.program_id(0)
    tile = tl.program_id(1)
    n_tiles = tl.cdiv(N, BLOCK_N)
    rm = (tile // n_tiles) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (tile % n_tiles) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    e_base = E_user + u.to(tl.int64) * K_user * N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K_user, BLOCK_K):
        k = k0 + rk
        w = tl.load(W + rm[:, None] * K_total + k[None, :], mask=(rm[:, None] < M) & (k[None, :] < K_user), other=0.0)
        e = tl.load(e_base + k[:, None] * N + rn[None, :], mask=(k[:, None] < K_user) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(w, e, acc)
    y = Y_user + u.to(tl.int64) * M * N + rm[:, None] * N + rn[None, :]
    tl.store(y, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def lce_cand_kernel(Y, Y_user, W, E_cand, cand_to_user, M, N, K_user, K_cand,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    b = tl.program_id(0)
    tile = tl.program_id(1)
    n_tiles = tl.cdiv(N, BLOCK_N)
    rm = (tile // n_tiles) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (tile % n_tiles) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    K_total = K_user + K_cand
    e_base = E_cand + b.to(tl.int64) * K_cand * N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K_cand, BLOCK_K):
        k = k0 + rk
        w = tl.load(W + rm[:, None] * K_total + K_user + k[None, :], mask=(rm[:, None] < M) & (k[None, :] < K_cand),
                    other=0.0)
        e = tl.load(e_base + k[:, None] * N + rn[None, :], mask=(k[:, None] < K_cand) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(w, e, acc)
    mn = (rm[:, None] < M) & (rn[None, :] < N)
    u = tl.load(cand_to_user + b).to(tl.int64)
    acc += tl.load(Y_user + u * M * N + rm[:, None] * N + rn[None, :], mask=mn, other=0.0)
    y = Y + b.to(tl.int64) * M * N + rm[:, None] * N + rn[None, :]
    tl.store(y, acc.to(Y.dtype.element_ty), mask=mn)


@triton.jit
def lce_pack_w_kernel(W_packed, W, M, K_user, K_cand, K_pad, BLOCK: tl.constexpr):
    """W_cand (columns K_user … K_user + K_cand − 1 of W) copied into W_packed [M, K_pad], zero-padded: rows of W
    start at odd byte offsets (K_user + K_cand is rarely a multiple of 8), which keeps the GEMM's loads scalar."""
    m = tl.program_id(0)
    for k0 in range(0, K_pad, BLOCK):
        k = k0 + tl.arange(0, BLOCK)
        w = tl.load(W + m.to(tl.int64) * (K_user + K_cand) + K_user + k, mask=k < K_cand, other=0.0)
        tl.store(W_packed + m.to(tl.int64) * K_pad + k, w, mask=k < K_pad)


@triton.jit
def lce_cand_packed_kernel(Y, Y_user, W_packed, E_cand, cand_to_user, M, N, K_cand, K_pad,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """lce_cand_kernel reading W_cand from its aligned copy (lce_pack_w_kernel)."""
    b = tl.program_id(0)
    tile = tl.program_id(1)
    n_tiles = tl.cdiv(N, BLOCK_N)
    rm = (tile // n_tiles) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (tile % n_tiles) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    e_base = E_cand + b.to(tl.int64) * K_cand * N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K_cand, BLOCK_K):
        k = k0 + rk
        w = tl.load(W_packed + rm[:, None] * K_pad + k[None, :], mask=(rm[:, None] < M) & (k[None, :] < K_pad),
                    other=0.0)
        e = tl.load(e_base + k[:, None] * N + rn[None, :], mask=(k[:, None] < K_cand) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(w, e, acc)
    mn = (rm[:, None] < M) & (rn[None, :] < N)
    u = tl.load(cand_to_user + b).to(tl.int64)
    acc += tl.load(Y_user + u * M * N + rm[:, None] * N + rn[None, :], mask=mn, other=0.0)
    y = Y + b.to(tl.int64) * M * N + rm[:, None] * N + rn[None, :]
    tl.store(y, acc.to(Y.dtype.element_ty), mask=mn)

#!/usr/bin/env python3
"""A small ranking-model forward pass in plain PyTorch, profiled with torch.profiler.

The request is the one `configs/e2e_pipeline.json` measures with gpubench's own kernels, written the way a model
author would write it before any kernel work:
  embedding  gather K_user rows per request and K_cand rows per candidate from two tables (N wide)
  lce        the linear compression embedding the *baseline* way: copy each request's user rows to its candidates,
             concatenate along K, one batched matmul with the shared W   Y [B, M, N]
  mlp        [M·N → 256 → 64 → 1] with ReLU, one score per candidate
  top_k      per-request top-10 of the scores (requests padded to the longest), copied to the host
Reference shape (docs/ikbo_lce.md): M=433 N=256 K_user=1178 K_cand=866, fp16, B=1024, 70 candidates per request.

Each step is one `record_function` range per stage inside torch.profiler's ProfilerStep#N, which is what
`gpubench profile` attributes kernels by (depth 1 under the step).

  python3 examples/profile/ranking_model.py -o ranking_model.json.gz [--steps 5] [--warmup 3]
"""
import argparse
import math

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule


def build(args, device):
    """Tables, weights and the fixed request layout (seeded)."""
    torch.manual_seed(args.seed)
    dt = torch.float16 if args.precision == "fp16" else torch.bfloat16
    M, N, Ku, Kc, B, L = args.M, args.N, args.K_user, args.K_cand, args.batch, args.length
    U = math.ceil(B / L)
    lengths = [L] * (B // L) + ([B % L] if B % L else [])
    cand_to_user = torch.repeat_interleave(torch.arange(U), torch.tensor(lengths)).to(device)
    m = {
        "user_table": (torch.randn(args.user_rows, N, device=device) * 0.5).to(dt),
        "cand_table": (torch.randn(args.cand_rows, N, device=device) * 0.5).to(dt),
        "user_idx": torch.randint(0, args.user_rows, (U, Ku), device=device),
        "cand_idx": torch.randint(0, args.cand_rows, (B, Kc), device=device),
        "W": (torch.randn(M, Ku + Kc, device=device) / math.sqrt(Ku + Kc)).to(dt),
        "cand_to_user": cand_to_user,
        "lengths": lengths,
        "mlp": torch.nn.Sequential(torch.nn.Linear(M * N, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64),
                                   torch.nn.ReLU(), torch.nn.Linear(64, 1)).to(device=device, dtype=dt),
    }
    starts = [0]
    for n in lengths[:-1]:
        starts.append(starts[-1] + n)
    # Row of each candidate in a [U, max_len] padded score matrix.
    pos = torch.cat([torch.arange(n) for n in lengths]).to(device)
    m["pad_index"] = cand_to_user * max(lengths) + pos
    m["U"], m["max_len"] = U, max(lengths)
    return m


@torch.no_grad()
def forward(m, top_k):
    """One request batch: returns the top-k candidate positions per request (on the host)."""
    with record_function("embedding"):
        e_user = m["user_table"][m["user_idx"]]          # [U, K_user, N]
        e_cand = m["cand_table"][m["cand_idx"]]          # [B, K_cand, N]
    with record_function("lce"):
        e = torch.cat([e_user[m["cand_to_user"]], e_cand], dim=1)   # [B, K, N]: user rows copied per candidate
        y = torch.matmul(m["W"], e)                                  # [B, M, N], W shared
    with record_function("mlp"):
        scores = m["mlp"](y.reshape(y.shape[0], -1)).squeeze(1)     # [B]
    with record_function("top_k"):
        padded = torch.full((m["U"] * m["max_len"],), float("-inf"), device=scores.device, dtype=scores.dtype)
        padded[m["pad_index"]] = scores
        top = torch.topk(padded.view(m["U"], m["max_len"]), min(top_k, m["max_len"]), dim=1).indices
        return top.cpu()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-o", "--output", default="ranking_model.json.gz", help="Kineto trace (.json or .json.gz)")
    p.add_argument("--steps", type=int, default=5, help="profiled iterations")
    p.add_argument("--warmup", type=int, default=3, help="iterations before profiling")
    p.add_argument("--precision", choices=["fp16", "bf16"], default="fp16")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--length", type=int, default=70, help="candidates per request")
    p.add_argument("--M", type=int, default=433)
    p.add_argument("--N", type=int, default=256)
    p.add_argument("--K_user", type=int, default=1178)
    p.add_argument("--K_cand", type=int, default=866)
    p.add_argument("--user-rows", type=int, default=100000)
    p.add_argument("--cand-rows", type=int, default=1000000)
    p.add_argument("--top-k", type=int, default=10)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--nvtx", action="store_true",
                   help="no torch.profiler: emit NVTX ranges instead (ProfilerStep#i and the stages), for "
                        "`nsys profile -t cuda,nvtx` and `nsys export --type sqlite`")
    args = p.parse_args()
    device = torch.device("cuda")
    m = build(args, device)
    if args.nvtx:
        for _ in range(args.warmup):
            forward(m, args.top_k)
        with torch.autograd.profiler.emit_nvtx():
            for i in range(args.steps):
                torch.cuda.nvtx.range_push(f"ProfilerStep#{i}")
                forward(m, args.top_k)
                torch.cuda.nvtx.range_pop()
        print(f"ran {args.steps} NVTX-marked steps on {torch.cuda.get_device_name()}")
        return
    sched = schedule(wait=0, warmup=args.warmup, active=args.steps, repeat=1)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sched) as prof:
        for _ in range(args.warmup + args.steps):
            forward(m, args.top_k)
            prof.step()
    prof.export_chrome_trace(args.output)
    print(f"wrote {args.output}: {args.steps} profiled steps on {torch.cuda.get_device_name()}, torch {torch.__version__}")


if __name__ == "__main__":
    main()

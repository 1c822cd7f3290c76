# PyTorch's embedding_bag (mode sum) at the d256 config's shape, cold L2 (a 256 MB write between samples).
import torch, math
torch.manual_seed(1)
dev = "cuda"
rows, D = 4_000_000, 256
table = torch.randn(rows, D, device=dev, dtype=torch.float16)
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
for B in (1 << 20, 1 << 21, 1 << 22):
    g = torch.Generator().manual_seed(1)
    r = torch.empty(B).log_normal_(math.log(40) - 0.5, 1.0, generator=g).round().clamp(min=1).long()
    c = r.cumsum(0); n = int(torch.searchsorted(c, B)) + 1
    lens = r[:n].tolist(); lens[-1] -= int(c[n - 1]) - B
    offsets = torch.tensor([0] + lens, dtype=torch.int64).cumsum(0)[:-1].to(dev)
    idx = torch.randint(0, rows, (B,), device=dev, dtype=torch.int64)
    bytes_min = B * D * 2 + B * 8 + len(lens) * D * 2
    ts = []
    for i in range(60):
        flush.fill_(i)
        s, e = torch.cuda.Event(True), torch.cuda.Event(True)
        s.record(); torch.nn.functional.embedding_bag(idx, table, offsets, mode="sum"); e.record()
        torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    ts = sorted(ts[10:]); med = ts[len(ts) // 2]
    print(f"torch {torch.__version__} embedding_bag sum fp16 D={D} B={B} bags={len(lens)}: median {med:.4f} ms, "
          f"{bytes_min / med / 1e6:.0f} GB/s (min bytes incl. int64 indices)")

#!/usr/bin/env python3
"""PyTorch baselines for bench/bench_indexing.cpp, on the same shapes:

    python3 bench/compare_torch_indexing.py [--reps N]

Each figure is the median wall time (ms) from the call until the result is
ready on the host (torch.cuda.synchronize), as bench_indexing times an
mlx_lite eval. The row scatters are index_add/index_reduce along dim 0
(out-of-place, include_self=True, as mlx_lite's scatters combine with the
source); masked_scatter fills half of 16M positions.
"""
import argparse

import torch

from torch_timing import median_ms

ROWS, COLS, UPDATES = 16384, 256, 65536


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=50)
    args = parser.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':<36}{'torch ms':>10}")
    idx = torch.randint(0, ROWS, (UPDATES,), device="cuda", generator=gen)
    for is_int, dtype in ((0, torch.float32), (1, torch.int32)):
        a = (torch.rand((ROWS, COLS), device="cuda", generator=gen) + 0.5).to(dtype)
        upd = (torch.rand((UPDATES, COLS), device="cuda", generator=gen) + 0.5).to(dtype)
        cases = {
            "ScatterAdd": lambda: a.index_add(0, idx, upd),
            "ScatterProd": lambda: a.index_reduce(0, idx, upd, "prod"),
            "ScatterMax": lambda: a.index_reduce(0, idx, upd, "amax"),
        }
        for name, fn in cases.items():
            ms = median_ms(fn, args.reps)["wall"]
            print(f"{'BM_Gpu' + name + f'/int32:{is_int}':<36}{ms:>10.3f}")
    n = 1 << 24
    a = torch.zeros(n, device="cuda")
    mask = torch.rand(n, device="cuda", generator=gen) < 0.5
    src = torch.randn(n, device="cuda", generator=gen)
    print(f"{'BM_GpuMaskedScatter':<36}{median_ms(lambda: a.masked_scatter(mask, src), args.reps)['wall']:>10.3f}")
    a = torch.zeros((4096, 4096), device="cuda")
    upd = torch.ones((2048, 4096), device="cuda")

    def slice_add():
        out = a.clone()
        out[1024:3072] += upd
        return out

    print(f"{'BM_GpuSliceUpdateAdd':<36}{median_ms(slice_add, args.reps)['wall']:>10.3f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""PyTorch baselines for bench/bench_sort.cpp, on the same shapes:

    python3 bench/compare_torch_sort.py [--reps N]

Each figure is the median wall time (ms) from the call until the result is
ready on the host (torch.cuda.synchronize), as bench_sort times an mlx_lite
eval; float32 normal values of rows x length, the last axis sorted/scanned.
torch.topk returns the k largest sorted (sorted=False is timed, as MLX's
topk guarantees no order).
"""
import argparse

import torch

from torch_timing import median_ms

SHAPES = [(1024, 1024), (16, 65536), (1, 1 << 20)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=50)
    args = parser.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(0)
    cases = {
        "Sort": lambda x: torch.sort(x, dim=-1, stable=True).values,
        "Argsort": lambda x: torch.argsort(x, dim=-1, stable=True),
        "Topk8": lambda x: torch.topk(x, 8, dim=-1, sorted=False).values,
        "Cumprod": lambda x: torch.cumprod(x, dim=-1),
        "Cummax": lambda x: torch.cummax(x, dim=-1).values,
        "Logcumsumexp": lambda x: torch.logcumsumexp(x, dim=-1),
    }
    print(f"{'case':<36}{'torch ms':>10}")
    with torch.no_grad():
        for rows, length in SHAPES:
            x = torch.randn((rows, length), device="cuda", generator=gen)
            for name, fn in cases.items():
                ms = median_ms(lambda: fn(x), args.reps)["wall"]
                print(f"{'BM_Gpu' + name + f'/{rows}/{length}':<36}{ms:>10.3f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""PyTorch baselines for bench/bench_sort.cpp, on the same shapes:

    python3 bench/compare_torch_sort.py [--reps N]

Each row gives two medians in ms: wall time from the call until the result is
ready on the host (torch.cuda.synchronize), as bench_sort times an mlx_lite
eval, and GPU time between CUDA events (bench_sort's gpu_time); float32 normal values of rows x length, the last axis sorted/scanned.
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
        "Cumsum": lambda x: torch.cumsum(x, dim=-1),
        "Cumprod": lambda x: torch.cumprod(x, dim=-1),
        "Cummax": lambda x: torch.cummax(x, dim=-1).values,
        "Logcumsumexp": lambda x: torch.logcumsumexp(x, dim=-1),
    }
    print(f"{'case':<36}{'torch ms':>10}{'gpu ms':>10}")

    def report(name, fn):
        ms = median_ms(fn, args.reps)
        print(f"{name:<36}{ms['wall']:>10.3f}{ms['gpu']:>10.3f}")

    with torch.no_grad():
        for rows, length in SHAPES:
            x = torch.randn((rows, length), device="cuda", generator=gen)
            for name, fn in cases.items():
                report(f"BM_Gpu{name}/{rows}/{length}", lambda: fn(x))
        # bench_sort's BM_GpuCumsumInt32: an exclusive cumsum of int32 counts.
        counts = torch.randint(0, 16, (8210, 1024), device="cuda", dtype=torch.int32,
                               generator=gen)
        exclusive = lambda: torch.cumsum(counts, dim=-1, dtype=torch.int32) - counts
        inclusive = lambda: torch.cumsum(counts, dim=-1, dtype=torch.int32)
        report("BM_GpuCumsumInt32/8210/1024", exclusive)
        report("BM_GpuCumsumInt32Inclusive/8210/1024", inclusive)


if __name__ == "__main__":
    main()

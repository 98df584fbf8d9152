#!/usr/bin/env python3
"""PyTorch (cuDNN) baselines for bench/bench_conv.cpp, on the same cases:

    python3 bench/compare_torch_conv.py [--reps N] [--tf32]

Cases are batch/height/width/C_in/C_out/kernel/stride/dtype/groups as in
bench_conv's names (dtype 0 float32, 1 float16, 2 bfloat16; padding
kernel // 2). Inputs are NCHW tensors in the channels_last memory format
(NHWC in memory, as mlx_lite's layout), so cuDNN picks its NHWC kernels.
For each case two figures, in ms: the median wall time from the call until
the result is ready on the host (torch.cuda.synchronize), as bench_conv times
an mlx_lite eval, and the median GPU time between CUDA events around the call
(comparable to bench_conv's gpu_time counter). TF32 is off for float32 unless
--tf32 is given (mlx_lite's float32 matmul is full float32).
BM_GpuConv2dGrad is the backward of sum(conv2d(x, w)) for x and w.
"""
import argparse

import torch
import torch.nn.functional as F

from torch_timing import median_ms

CASES = [
    (32, 56, 56, 64, 64, 3, 1, 1),  # ResNet 3x3
    (32, 56, 56, 64, 128, 3, 2, 1),  # strided 3x3
    (32, 56, 56, 64, 256, 1, 1, 1),  # 1x1
    (32, 56, 56, 128, 128, 3, 1, 128),  # depthwise 3x3
    (4, 28, 28, 32, 32, 3, 1, 1),  # small 3x3
]
DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def problem(case, dtype, gen):
    n, h, w, ci, co, k, _, groups = case
    x = torch.randn((n, ci, h, w), device="cuda", generator=gen).to(dtype)
    wt = (0.1 * torch.randn((co, ci // groups, k, k), device="cuda", generator=gen)).to(dtype)
    return (x.contiguous(memory_format=torch.channels_last),
            wt.contiguous(memory_format=torch.channels_last))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--tf32", action="store_true")
    args = parser.parse_args()
    torch.backends.cudnn.allow_tf32 = args.tf32
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    torch.backends.cudnn.benchmark = True
    gen = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':<48}{'wall ms':>10}{'gpu ms':>10}{'TFLOP/s':>10}")
    for di, dtype in enumerate(DTYPES):
        for case in CASES:
            n, h, w, ci, co, k, stride, groups = case
            pad = k // 2
            x, wt = problem(case, dtype, gen)
            oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
            flops = 2 * n * oh * ow * k * k * ci // groups * co
            name = "/".join(str(v) for v in (*case[:7], di, groups))
            with torch.no_grad():
                wall, gpu = median_ms(
                    lambda: F.conv2d(x, wt, stride=stride, padding=pad, groups=groups),
                    args.reps).values()
            print(f"{'BM_GpuConv2d/' + name:<48}{wall:>10.3f}{gpu:>10.3f}"
                  f"{flops / gpu / 1e9:>10.1f}")
            if dtype == torch.bfloat16 or k != 3 or stride != 1 or groups != 1:
                continue  # bench_conv's BM_GpuConv2dGrad cases
            xg, wg = x.clone().requires_grad_(), wt.clone().requires_grad_()

            def backward():
                return torch.autograd.grad(
                    F.conv2d(xg, wg, stride=stride, padding=pad).sum(), (xg, wg))

            wall, gpu = median_ms(backward, args.reps).values()
            print(f"{'BM_GpuConv2dGrad/' + name:<48}{wall:>10.3f}{gpu:>10.3f}"
                  f"{2 * flops / gpu / 1e9:>10.1f}")


if __name__ == "__main__":
    main()

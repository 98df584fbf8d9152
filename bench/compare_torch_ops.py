#!/usr/bin/env python3
"""mlx_lite's op benchmarks beside PyTorch, on one GPU in one session:

    python3 bench/compare_torch_ops.py PROGRAM [PROGRAM ...] [--reps N]
                                       [--filter REGEX] [--json FILE]
                                       [--env NAME=VALUE ...]

PROGRAMs are bench_linalg (matmul, softmax, logsumexp) and bench_gpu (copy,
add, broadcast multiply, fill, multiply by a scalar, row and full sums,
argmax, the eval round trip, a graph of small ops). Each program's benchmarks run first (5 repetitions,
medians), then PyTorch on the same shapes and dtypes. Each PyTorch figure is
the median wall time from the call until the result is on the host; each
mlx_lite figure the median iteration of an eval loop (the wall_median
counter of mlx_lite/benchmark.h, where the program reports it; else Google
Benchmark's real time, a mean), so both sides are medians; CUDA-event time is
printed beside it, and mlx_lite's GPU time (the gpu_time counter, Vulkan
timestamps) beside its wall time. Float32 matmul runs with TF32 off
(mlx_lite's float32 matmul is full float32). BM_Matmul times 4 products per
iteration; figures here are per product. Benchmarks with no PyTorch
counterpart here print with empty PyTorch columns. --env sets variables for
the mlx_lite programs (MLX_LITE_MATRIX_UNITS=0 times the tiled kernel).
"""
import argparse
import json
import os
import re
import subprocess

import torch

from torch_timing import median_ms, mlx_wall_ms

DTYPES = {0: torch.float32, 1: torch.float16, 2: torch.bfloat16}
MATMUL_PRODUCTS = 4  # bench_linalg.cpp's kReps


def torch_case(name, args):
    """A callable computing what bench_linalg's benchmark NAME/ARGS does."""
    gen = torch.Generator(device="cuda").manual_seed(0)

    def values(*shape, dtype=torch.float32):
        return (torch.rand(shape, device="cuda", generator=gen) * 2 - 1).to(dtype)

    if name == "BM_Matmul":
        n, dtype, layout = args
        a, b = values(n, n, dtype=DTYPES[dtype]), values(n, n, dtype=DTYPES[dtype])
        if layout == 1:
            b = b.t()
        if layout == 2:
            a = a.t()
        return lambda: torch.matmul(a, b)
    if name == "BM_BatchedMatmul":
        batch, n = args
        a, b = values(batch, n, n), values(batch, n, n)
        return lambda: torch.matmul(a, b)
    if name == "BM_MatmulLongK":
        n, k = args
        a, b = values(n, k), values(k, n)
        return lambda: torch.matmul(a, b)
    if name == "BM_Softmax":
        rows, length, op = args
        x = values(rows, length)
        return (lambda: torch.softmax(x, -1)) if op == 0 else (lambda: torch.logsumexp(x, -1))
    return gpu_case(name, args, values)


def gpu_case(name, args, values):
    """bench_gpu.cpp's benchmarks (float32 throughout)."""
    if name in ("BM_GpuCopy", "BM_GpuPlainCopyKernel"):
        a = values(args[0])
        return lambda: a.clone()
    if name in ("BM_GpuAdd", "BM_GpuAddVec4Kernel"):
        a, b = values(args[0]), values(args[0])
        return lambda: a + b
    if name in ("BM_GpuBroadcastMultiply", "BM_GpuBroadcastMultiplyVec4Kernel"):
        a, b = values(args[0] // 64, 64), values(args[0] // 64, 1)
        return lambda: a * b
    if name == "BM_GpuFill":
        return lambda: torch.zeros(args[0], device="cuda")
    if name == "BM_GpuScalarMultiply":
        a = values(args[0])
        return lambda: a * 2.0
    if name == "BM_GpuSumRows":
        rows = args[0]
        a = values(rows, (1 << 26) // rows)
        return lambda: a.sum(-1)
    if name == "BM_GpuFullSum":
        a = values(1 << 26)
        return lambda: a.sum()
    if name == "BM_GpuFullArgmax":
        a = values(1 << 26)
        return lambda: a.argmax()
    if name == "BM_GpuEvalRoundTrip":
        x, one = values(1), values(1)
        return lambda: x + one
    if name == "BM_GpuSmallOpGraph":
        x, one = values(16), values(16)

        def graph():
            y = x
            for _ in range(1000):
                y = y + one
            return y
        return graph
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("programs", nargs="+")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--filter", default=".")
    parser.add_argument("--json", help="write every figure here")
    parser.add_argument("--env", nargs="*", default=[])
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    env = dict(os.environ, **dict(e.split("=", 1) for e in args.env))
    reports = []
    for program in args.programs:
        result = subprocess.run([program, "--benchmark_format=json", "--benchmark_repetitions=5",
                                 "--benchmark_report_aggregates_only=true",
                                 f"--benchmark_filter={args.filter}"],
                                check=True, capture_output=True, text=True, env=env)
        reports.append(json.loads(result.stdout))
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}; mlx_lite env {args.env}")
    print(f"{'benchmark':<34}{'mlx ms':>9}{'mlx gpu':>9}{'torch ms':>10}{'events':>9}"
          f"{'wall x':>8}{'gpu x':>7}{'TFLOP/s':>9}")
    rows = []
    for b in (b for report in reports for b in report["benchmarks"]):
        if b.get("aggregate_name") != "median" or "error_occurred" in b:
            continue
        parts = b["run_name"].split("/")
        name, case_args = parts[0], [int(p) for p in parts[1:] if re.fullmatch(r"\d+", p)]
        scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6}[b["time_unit"]]
        per = MATMUL_PRODUCTS if name == "BM_Matmul" else 1
        mean = b["real_time"] * scale / per
        mlx = mlx_wall_ms(b) / per  # medians on both sides
        mlx_gpu = b.get("gpu_time", float("nan")) * 1e3 / per  # the counter is in seconds
        fn = torch_case(name, case_args)
        with torch.no_grad():
            ref = median_ms(fn, args.reps) if fn else {"wall": float("nan"), "gpu": float("nan")}
        tflops = b.get("flops", float("nan")) * 1e-12  # a rate: the same per product
        row = {"benchmark": b["run_name"], "mlx_ms": mlx, "mlx_mean_ms": mean, "mlx_gpu_ms": mlx_gpu,
               "torch_ms": ref["wall"], "torch_gpu_ms": ref["gpu"], "mlx_tflops": tflops}
        rows.append(row)
        print(f"{b['run_name'].removesuffix('/real_time'):<34}{mlx:9.3f}{mlx_gpu:9.3f}"
              f"{ref['wall']:10.3f}{ref['gpu']:9.3f}{mlx / ref['wall']:8.2f}"
              f"{mlx_gpu / ref['gpu']:7.2f}{tflops:9.1f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(),
                       "env": args.env, "context": reports[0]["context"], "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()

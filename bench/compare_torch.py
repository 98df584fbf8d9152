#!/usr/bin/env python3
"""grid_sample in PyTorch beside mlx_lite's, on one GPU in one session.

    python3 bench/compare_torch.py [--mlx-bench PROGRAM [PROGRAM ...]] [--json FILE]
                                   [--keep-reports DIR]

Times, on the seed's shapes (x 8x1024x1024x64 NHWC, grid 8x256x256x2,
float32) and a small one:
  - torch_composed: the seed's composed grid_sample written with torch ops
    (the same steps as examples/grid_sample_ref.h), forward, and forward +
    backward through autograd;
  - torch_F: torch.nn.functional.grid_sample (NCHW through permute,
    bilinear, zeros padding, align_corners=False), forward and forward +
    backward; and the same in float16 (x and grid float16, as
    F.grid_sample requires both of one dtype);
  - triton: the Triton baseline of issue 17 (bench/triton_grid_sample.py),
    grid_sample written the straightforward way in Triton: one program per
    block of output points (16 on the seed's shape) x all channels, four
    masked tap loads, float32 arithmetic; its VJP (x_grad and grid_grad
    from a given dense cotangent, no forward, as BM_TunedVjp) adds x_grad
    with tl.atomic_add into float32 zeros (not deterministic; cast to
    float16 at the end for a float16 x), the zero fill and cast timed with
    it. Forward and VJP, float32 and float16 (x, grid and cotangent of the
    one dtype). Before anything is timed, both are checked against
    F.grid_sample and its autograd (the two shapes here and a small odd
    one, both dtypes); a mismatch raises, as the figures would mean
    nothing. Without Triton these rows are left out, with a note.
Each PyTorch figure is the median of --reps runs after warm-up, timed from
the call until the result is ready on the host (as Google Benchmark times an
mlx_lite eval, which submits and waits); the CUDA-event time (GPU only,
without the final wait) is printed and kept beside it.
With --mlx-bench, the mlx_lite programs (bench_grid_sample,
bench_grid_sample_kernels, bench_raw_vulkan_grid_sample) run in the same
session and their Google Benchmark results print beside PyTorch's, with the
ratio: composed forwards against torch's composed forward, kernels against
F.grid_sample, VJPs against the matching forward + backward; the kernels'
rows (all but the composed ones) also against the Triton row of the same
direction and dtype (forwards against triton_forward, VJPs against
triton_vjp; float16 where the benchmark's name says F16 or float16, else
float32). --json writes every figure (bench/plot_grid_sample.py draws the
chart from it): per shape, "torch" (float32, as before), "torch_float16",
"triton" (triton_forward_float32, triton_vjp_float32,
triton_forward_float16, triton_vjp_float16; empty without Triton) and
"mlx_lite"; at the top, "triton" (its version, or null) and
"triton_check" (the check's errors, relative to each reference's largest
magnitude).

With --kernel-examples PROGRAM (bench_kernel_examples), the kernel guide's
patterns (examples/kernels/) run beside their PyTorch equivalents on the
same shapes (KERNEL_SIZES, as bench_kernel_examples.cpp's): LayerNorm
against F.layer_norm, softmax against torch.softmax, RoPE and SiLU against
their composed torch ops (and F.silu), attention against
F.scaled_dot_product_attention with the same masks (a boolean band for the
sliding window, enable_gqa for GQA), the 4-bit dequant matvec against a
float16 matvec of the same size, RMSNorm (examples/kernels/rmsnorm.h's
forward) against F.rms_norm. Each line gives both ratios: wall time (call
to result on the host) and GPU time (mlx_lite's gpu_time counter against
CUDA events).
--skip-grid-sample leaves the grid_sample part out.
"""
import argparse
import json
import os
import subprocess

import torch
import torch.nn.functional as F

from torch_timing import median_ms, mlx_wall_ms

try:
    import triton_grid_sample
except ImportError as err:  # e.g. the file left out of a device pack
    triton_grid_sample = None
    TRITON_MISSING = f"bench/triton_grid_sample.py could not be imported: {err}"
else:
    TRITON_MISSING = (None if triton_grid_sample.AVAILABLE else
                      f"triton is not installed ({triton_grid_sample.IMPORT_ERROR})")

SHAPES = {  # name: (N, H, W, C, gH, gW), as bench_grid_sample.cpp's Args
    "1/64/64/32/32/32": (1, 64, 64, 32, 32, 32),
    "8/1024/1024/64/256/256": (8, 1024, 1024, 64, 256, 256),
}


def composed(x, grid):
    """The seed's grid_sample_ref, op for op."""
    N, H, W, C = x.shape
    ix = ((grid[..., 0] + 1) * W - 1) / 2
    iy = ((grid[..., 1] + 1) * H - 1) / 2
    ix_nw = torch.floor(ix).to(torch.int32)
    iy_nw = torch.floor(iy).to(torch.int32)
    ix_ne, iy_ne = ix_nw + 1, iy_nw
    ix_sw, iy_sw = ix_nw, iy_nw + 1
    ix_se, iy_se = ix_nw + 1, iy_nw + 1
    nw = (ix_se - ix) * (iy_se - iy)
    ne = (ix - ix_sw) * (iy_sw - iy)
    sw = (ix_ne - ix) * (iy - iy_ne)
    se = (ix - ix_nw) * (iy - iy_nw)
    batch = torch.arange(N, device=x.device)[:, None, None]

    def sample(iy_, ix_):
        # Out-of-range indices read a clamped neighbour; the mask zeroes them.
        return x[batch, iy_.clamp(0, H - 1).long(), ix_.clamp(0, W - 1).long(), :]

    def in_bounds(iy_, ix_):
        return ((iy_ >= 0) & (iy_ <= H - 1) & (ix_ >= 0) & (ix_ <= W - 1))[..., None]

    I_nw = sample(iy_nw, ix_nw) * in_bounds(iy_nw, ix_nw)
    I_ne = sample(iy_ne, ix_ne) * in_bounds(iy_ne, ix_ne)
    I_sw = sample(iy_sw, ix_sw) * in_bounds(iy_sw, ix_sw)
    I_se = sample(iy_se, ix_se) * in_bounds(iy_se, ix_se)
    return (nw[..., None] * I_nw + ne[..., None] * I_ne + sw[..., None] * I_sw +
            se[..., None] * I_se)


def functional(x, grid):
    out = F.grid_sample(x.permute(0, 3, 1, 2), grid, mode="bilinear", padding_mode="zeros",
                        align_corners=False)
    return out.permute(0, 2, 3, 1)


def make_inputs(shape):
    """x ~ U(-1, 1) and grid ~ U(-1.1, 1.1), float32, seeded."""
    N, H, W, C, gH, gW = shape
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.rand((N, H, W, C), device="cuda", generator=gen) * 2 - 1
    grid = torch.rand((N, gH, gW, 2), device="cuda", generator=gen) * 2.2 - 1.1
    return x, grid


def torch_times(shape, reps):
    N, H, W, C, gH, gW = shape
    x, grid = make_inputs(shape)
    # Same answer from both PyTorch versions, or the comparison means nothing.
    err = (composed(x, grid) - functional(x, grid)).abs().max().item()
    assert err < 1e-4, f"composed and F.grid_sample differ by {err}"
    xg, gg = x.clone().requires_grad_(), grid.clone().requires_grad_()
    cot = torch.ones((N, gH, gW, C), device="cuda")

    def backward(f):
        def run():
            xg.grad = gg.grad = None
            f(xg, gg).backward(cot)
        return run

    with torch.no_grad():
        fwd_c = median_ms(lambda: composed(x, grid), reps)
        fwd_f = median_ms(lambda: functional(x, grid), reps)
    return {
        "torch_composed_forward": fwd_c,
        "torch_F_forward": fwd_f,
        "torch_composed_forward_backward": median_ms(backward(composed), reps),
        "torch_F_forward_backward": median_ms(backward(functional), reps),
    }


def torch_float16_times(shape, reps):
    """F.grid_sample in float16 (x and grid both: it takes one dtype),
    forward and forward + backward, as torch_times's float32 rows."""
    N, H, W, C, gH, gW = shape
    x, grid = (t.half() for t in make_inputs(shape))
    xg, gg = x.clone().requires_grad_(), grid.clone().requires_grad_()
    cot = torch.ones((N, gH, gW, C), device="cuda", dtype=torch.float16)

    def run():
        xg.grad = gg.grad = None
        functional(xg, gg).backward(cot)

    with torch.no_grad():
        fwd = median_ms(lambda: functional(x, grid), reps)
    return {"torch_F_forward_float16": fwd,
            "torch_F_forward_backward_float16": median_ms(run, reps)}


def triton_times(shape, reps):
    """bench/triton_grid_sample.py's forward and VJP, float32 and float16
    (x, grid and the cotangent of one dtype). The VJP's cotangent is dense,
    U(-1, 1), as bench_grid_sample_kernels' BM_TunedVjp's; its time covers
    the zero fill of the float32 x_grad and, for float16, the cast."""
    N, H, W, C, gH, gW = shape
    times = {}
    for dtype, suffix in ((torch.float32, "float32"), (torch.float16, "float16")):
        x, grid = (t.to(dtype) for t in make_inputs(shape))
        gen = torch.Generator(device="cuda").manual_seed(2)
        cot = (torch.rand((N, gH, gW, C), device="cuda", generator=gen) * 2 - 1).to(dtype)
        times[f"triton_forward_{suffix}"] = median_ms(
            lambda: triton_grid_sample.grid_sample_fwd(x, grid), reps)
        times[f"triton_vjp_{suffix}"] = median_ms(
            lambda: triton_grid_sample.grid_sample_vjp(x, grid, cot), reps)
        del x, grid, cot
        torch.cuda.empty_cache()
    return times


def torch_parts(reps):
    """The composed forward's big ops on the seed's shapes, one at a time, as
    bench_grid_sample.cpp's BM_GridSampleParts/0..3 time them in mlx_lite."""
    N, H, W, C, gH, gW = SHAPES["8/1024/1024/64/256/256"]
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.rand((N, H, W, C), device="cuda", generator=gen) * 2 - 1
    grid = torch.rand((N, gH, gW, 2), device="cuda", generator=gen) * 2.2 - 1.1
    iy = torch.floor(grid[..., 1] * (H // 2) + H // 2).long().clamp(0, H - 1)
    ix = torch.floor(grid[..., 0] * (W // 2) + W // 2).long().clamp(0, W - 1)
    batch = torch.arange(N, device="cuda")[:, None, None]
    sampled = x[batch, iy, ix, :]
    weight = grid[..., 0, None]
    with torch.no_grad():
        return {
            "GridSampleParts/0": median_ms(lambda: x[batch, iy, ix, :], reps),
            "GridSampleParts/1": median_ms(lambda: sampled * weight, reps),
            "GridSampleParts/2": median_ms(lambda: sampled + sampled, reps),
            "GridSampleParts/3": median_ms(
                lambda: torch.zeros_like(x).index_put_((batch, iy, ix), sampled, accumulate=True),
                reps),
        }


def run_benchmarks(program, keep_dir=None, extra=()):
    """One Google Benchmark program's JSON report (5 repetitions, aggregates
    only), also written whole to keep_dir/NAME.json."""
    result = subprocess.run([program, "--benchmark_format=json", "--benchmark_repetitions=5",
                             "--benchmark_report_aggregates_only=true", *extra],
                            check=True, capture_output=True, text=True)
    if keep_dir:
        with open(os.path.join(keep_dir, os.path.basename(program) + ".json"), "w") as f:
            f.write(result.stdout)
    return json.loads(result.stdout)


def medians(report):
    """The report's median rows, less the benchmarks that failed."""
    return [b for b in report["benchmarks"]
            if b.get("aggregate_name") == "median" and "error_occurred" not in b]


# bench_kernel_examples.cpp's shape sets.
KERNEL_SIZES = {
    "llm": dict(dtype=torch.float16, tokens=4096, features=4096, heads=32, seq=1024,
                head_dim=128, kv_heads_gqa=8, window=256, matvec_n=4096, matvec_k=4096,
                matmul_n=4096),
    "small": dict(dtype=torch.float32, tokens=64, features=1000, heads=4, seq=64, head_dim=64,
                  kv_heads_gqa=2, window=16, matvec_n=256, matvec_k=512, matmul_n=256),
}


def rope_composed(x, offset=0, base=10000.0):
    """examples/kernels/rope.h with torch ops: x (batch, heads, seq, dim),
    pairs (i, i + dim/2) rotated by (s + offset) * base^(-2i/dim), in float32."""
    seq, dim = x.shape[2], x.shape[3]
    freqs = base ** (-2 * torch.arange(dim // 2, device=x.device, dtype=torch.float32) / dim)
    theta = (torch.arange(seq, device=x.device, dtype=torch.float32) + offset)[:, None] * freqs
    c, s = torch.cos(theta), torch.sin(theta)
    x1, x2 = x[..., :dim // 2].float(), x[..., dim // 2:].float()
    return torch.cat([x1 * c - x2 * s, x1 * s + x2 * c], dim=-1).to(x.dtype)


def kernel_example_torch_times(z, reps):
    """The PyTorch side of each bench_kernel_examples benchmark, by name."""
    gen = torch.Generator(device="cuda").manual_seed(0)
    dt = z["dtype"]

    def randn(*shape):
        return torch.randn(shape, device="cuda", generator=gen, dtype=torch.float32).to(dt)

    x = randn(z["tokens"], z["features"])
    w, b = randn(z["features"]), randn(z["features"])
    xr = randn(1, z["heads"], z["tokens"], z["head_dim"])
    xr_view = randn(1, z["tokens"], z["heads"], z["head_dim"]).transpose(1, 2)
    q = randn(1, z["heads"], z["seq"], z["head_dim"])
    k, v = randn(1, z["heads"], z["seq"], z["head_dim"]), randn(1, z["heads"], z["seq"],
                                                                  z["head_dim"])
    kg = randn(1, z["kv_heads_gqa"], z["seq"], z["head_dim"])
    vg = randn(1, z["kv_heads_gqa"], z["seq"], z["head_dim"])
    i = torch.arange(z["seq"], device="cuda")
    band = (i[None, :] <= i[:, None]) & (i[None, :] + z["window"] > i[:, None])
    mv_x = randn(1, z["matvec_k"])
    mv_w = randn(z["matvec_n"], z["matvec_k"])
    # The simdgroup matmul example is float16 in both shape sets.
    mm_a = torch.randn(z["matmul_n"], z["matmul_n"], device="cuda", generator=gen).half()
    mm_b = torch.randn(z["matmul_n"], z["matmul_n"], device="cuda", generator=gen).half()
    sdpa = F.scaled_dot_product_attention

    def gqa():
        try:
            return sdpa(q, kg, vg, is_causal=True, enable_gqa=True)
        except TypeError:  # torch < 2.5: repeat the kv heads
            rep = z["heads"] // z["kv_heads_gqa"]
            return sdpa(q, kg.repeat_interleave(rep, 1), vg.repeat_interleave(rep, 1),
                        is_causal=True)

    funs = {
        "LayerNorm": lambda: F.layer_norm(x, (z["features"],), w, b, eps=1e-5),
        "Softmax": lambda: torch.softmax(x, dim=-1),
        "Rope": lambda: rope_composed(xr),
        "RopeStrided": lambda: rope_composed(xr_view),
        "Silu": lambda: x * torch.sigmoid(x),
        "Silu (F.silu)": lambda: F.silu(x),
        "Attention/none": lambda: sdpa(q, k, v),
        "Attention/causal": lambda: sdpa(q, k, v, is_causal=True),
        "Attention/window": lambda: sdpa(q, k, v, attn_mask=band),
        "Attention/gqa": gqa,
        "DequantMatvec": lambda: mv_x @ mv_w.T,
        "SimdgroupMatmul": lambda: mm_a @ mm_b,
    }
    if hasattr(F, "rms_norm"):
        funs["RmsNorm"] = lambda: F.rms_norm(x, (z["features"],), w, eps=1e-5)
    with torch.no_grad():
        return {name: median_ms(f, reps) for name, f in funs.items()}


def kernel_example_mlx_times(program, keep_dir=None, benchmark_filter=None):
    """{shape set: {name: {"wall": ms, "gpu": ms}}} from bench_kernel_examples,
    names as kernel_example_torch_times's ("Attention/causal" for
    BM_Attention/llm_causal)."""
    extra = [f"--benchmark_filter={benchmark_filter}"] if benchmark_filter else []
    report = run_benchmarks(program, keep_dir, extra)
    times = {}
    for bm in medians(report):
        family, case = bm["run_name"].removeprefix("BM_").split("/")[:2]
        shape, _, variant = case.partition("_")
        name = f"{family}/{variant}" if variant else family
        times.setdefault(shape, {})[name] = {
            "wall": mlx_wall_ms(bm),
            "gpu": bm["gpu_time"] * 1e3 if "gpu_time" in bm else float("nan")}
    return report["context"], times


def compare_kernel_examples(program, reps, keep_dir, benchmark_filter=None):
    context, mlx = kernel_example_mlx_times(program, keep_dir, benchmark_filter)
    print(f"\nkernel examples: {program} on {context.get('gpu')} "
          f"(driver {context.get('driver')})", flush=True)
    report = {}
    for shape, sizes in KERNEL_SIZES.items():
        if shape not in mlx:
            continue
        ref = kernel_example_torch_times(sizes, reps)
        print(f"\nshape set {shape} ({sizes})")
        print(f"  {'kernel':18s} {'mlx_lite wall':>13s} {'torch wall':>10s} {'ratio':>6s}"
              f" {'mlx_lite GPU':>12s} {'torch GPU':>9s} {'ratio':>6s}")
        for name in sorted(set(ref) | set(mlx[shape])):
            m, t = mlx[shape].get(name), ref.get(name)
            against = ref.get(name.split(" ")[0]) if t is None else t
            if m and against:
                print(f"  {name:18s} {m['wall']:11.3f}ms {against['wall']:8.3f}ms "
                      f"{m['wall'] / against['wall']:5.2f}x {m['gpu']:10.3f}ms "
                      f"{against['gpu']:7.3f}ms {m['gpu'] / against['gpu']:5.2f}x")
            elif t:
                print(f"  {name:18s} {'':13s} {t['wall']:8.3f}ms {'':6s} {'':12s}"
                      f" {t['gpu']:7.3f}ms   (torch only)")
            else:
                print(f"  {name:18s} {m['wall']:11.3f}ms   (mlx_lite only)")
        report[shape] = {"torch": ref, "mlx_lite": mlx[shape]}
    return report


def mlx_times(program, keep_dir=None):
    """Median real time (ms) of each benchmark of one program, by shape; the
    program's whole report (means, deviations) goes to keep_dir/NAME.json."""
    report = run_benchmarks(program, keep_dir)
    times = {}
    for b in medians(report):
        # run_name: BM_<family>/<N>/<H>/<W>/<C>/<gH>/<gW>/real_time, or
        # BM_GridSampleParts/<part>/real_time (filed under "parts")
        # (less options such as min_warmup_time:0.050)
        name = "/".join(part for part in b["run_name"].removeprefix("BM_").split("/")
                        if part != "real_time" and ":" not in part)
        family, shape = name.split("/", 1) if name.count("/") >= 6 else (name, "parts")
        times.setdefault(shape, {})[family] = mlx_wall_ms(b)
    return report["context"], times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mlx-bench", nargs="+", default=[],
                        help="mlx_lite benchmark programs to run in this session")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--json", help="write every figure here")
    parser.add_argument("--keep-reports", metavar="DIR",
                        help="write each mlx_lite program's Google Benchmark JSON here")
    parser.add_argument("--kernel-examples", metavar="PROGRAM",
                        help="bench_kernel_examples: time it beside PyTorch's equivalents")
    parser.add_argument("--kernel-examples-filter", metavar="REGEX",
                        help="--benchmark_filter for bench_kernel_examples (default: all)")
    parser.add_argument("--skip-grid-sample", action="store_true",
                        help="leave the grid_sample comparison out")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}", flush=True)
    report = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "shapes": {}}
    if args.kernel_examples:
        report["kernel_examples"] = compare_kernel_examples(
            args.kernel_examples, args.reps, args.keep_reports, args.kernel_examples_filter)
    if args.skip_grid_sample:
        if args.json:
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1)
        return
    # The Triton baseline must compute what F.grid_sample does before any
    # figure is taken: check() raises on a mismatch.
    report["triton"] = None
    if TRITON_MISSING:
        print(f"Triton rows left out: {TRITON_MISSING}", flush=True)
    else:
        import triton
        report["triton"] = triton.__version__
        report["triton_check"] = triton_grid_sample.check(SHAPES.values())
        print(f"triton {triton.__version__}: forward and VJP match F.grid_sample and autograd"
              " (errors relative to each reference's largest magnitude; grid_grad's points"
              " next to a cell boundary, where it jumps, aside):", flush=True)
        for case, err in report["triton_check"].items():
            print(f"  {case:32s} out {err['out']:.2e}  x_grad {err['x_grad']:.2e}  grid_grad"
                  f" {err['grid_grad']:.2e}  (boundary points differing: "
                  f"{err['boundary_points']})")
    mlx = {}
    for program in args.mlx_bench:
        try:
            context, times = mlx_times(program, args.keep_reports)
        except (subprocess.CalledProcessError, json.JSONDecodeError) as err:
            # One broken program must not cost the session's other figures.
            print(f"{program} failed: {err}\n{getattr(err, 'stderr', '')[-2000:]}", flush=True)
            continue
        print(f"{program} on {context.get('gpu')} (driver {context.get('driver')})", flush=True)
        for shape, families in times.items():
            mlx.setdefault(shape, {}).update(families)
    for name, shape in SHAPES.items():
        print(f"\nshape N/H/W/C/gH/gW = {name}")
        ref = torch_times(shape, args.reps)
        ref16 = torch_float16_times(shape, args.reps)
        tri = {} if TRITON_MISSING else triton_times(shape, args.reps)
        for key, ms in {**ref, **ref16, **tri}.items():
            print(f"  {key:34s} {ms['wall']:9.3f} ms  (CUDA events {ms['gpu']:.3f} ms)")
        if TRITON_MISSING:
            print("  (no Triton rows: see above)")
        for key, ms in mlx.get(name, {}).items():
            composed_op = "Composed" in key
            # mlx_lite's figures are float32 unless the benchmark's name says
            # otherwise (a family such as TunedForwardF16).
            dtype = "float16" if "f16" in key.lower() or "float16" in key.lower() else "float32"
            if "Forward" in key:
                against = "torch_composed_forward" if composed_op else "torch_F_forward"
                against_triton = f"triton_forward_{dtype}"
            elif "Vjp" in key:
                against = ("torch_composed_forward_backward" if composed_op else
                           "torch_F_forward_backward")
                against_triton = f"triton_vjp_{dtype}"
            else:
                against = against_triton = None
            if against and dtype == "float16":
                against += "_float16"
            base = {**ref, **ref16}
            ratio = (f"  ({ms / base[against]['wall']:.2f}x {against},"
                     f" {ms / base[against]['gpu']:.2f}x its CUDA-event time)"
                     if against in base else "")
            # The kernels (not the composed ops) against Triton's straightforward kernel.
            if not composed_op and against_triton in tri:
                t = tri[against_triton]
                ratio += (f"  ({ms / t['wall']:.2f}x {against_triton},"
                          f" {ms / t['gpu']:.2f}x its CUDA-event time)")
            print(f"  mlx_lite {key:34s} {ms:9.3f} ms{ratio}")
        report["shapes"][name] = {"torch": ref, "torch_float16": ref16, "triton": tri,
                                  "mlx_lite": mlx.get(name, {})}
    if "parts" in mlx:
        print("\nthe composed forward's ops, one at a time, on the seed's shapes"
              " (0 gather, 1 broadcast multiply, 2 add, 3 the gather's vjp)")
        ref = torch_parts(args.reps)
        for key, ms in mlx["parts"].items():
            against = (f"  ({ms / ref[key]['wall']:.2f}x torch {ref[key]['wall']:.3f} ms,"
                       f" CUDA events {ref[key]['gpu']:.3f} ms)" if key in ref else "")
            print(f"  mlx_lite {key:34s} {ms:9.3f} ms{against}")
        report["parts"] = {"torch": ref, "mlx_lite": mlx["parts"]}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()

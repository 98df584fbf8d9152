"""A straightforward Triton grid_sample: the baseline of issue 17.

    from triton_grid_sample import grid_sample_fwd, grid_sample_vjp, check

The seed's grid_sample (examples/grid_sample_ref.h): x NHWC (N, H, W, C),
grid (N, gH, gW, 2) of (x, y) in [-1, 1], bilinear, zero padding,
align_corners=False; out (N, gH, gW, C). Written the way one would write it
first in Triton, not tuned:

  grid_sample_fwd(x, grid) -> out
      One program per block of BLOCK_P output pixels (the points, flattened
      over N * gH * gW) x all C channels (tl.arange(0, BLOCK_C), BLOCK_C the
      next power of two of C, the rest masked). Per point: ix, iy, the nw
      corner and the four weights; then four masked [BLOCK_P, BLOCK_C] tap
      loads from x (a tap outside the image loads 0), the weighted sum in
      float32, one store in x's dtype.

  grid_sample_vjp(x, grid, cotangent) -> (x_grad, grid_grad)
      The gradients of <cotangent, out> with respect to x and grid, as
      bench_grid_sample_kernels' BM_TunedVjp returns them (no forward; the
      cotangent is given). Same program layout. x_grad: four masked
      tl.atomic_add of weight * cotangent into a float32 buffer of zeros
      (non-deterministic: the order of the atomics, so the float32 sums,
      changes from run to run). grid_grad: per point, the sum over channels
      of cotangent * d(out)/d(ix, iy) (the four taps loaded as in the
      forward), times (W / 2, H / 2), d(ix, iy)/d(gx, gy) for
      align_corners=False; one store per point, so deterministic.

Dtypes: x float32 or float16 (grid and cotangent float32 or float16, read
as float32); every value is computed in float32. out has x's dtype,
grid_grad grid's. For a float16 x the atomics still add into a float32
buffer, cast to float16 at the end (one more pass over x_grad, timed as part
of the VJP): float16 atomic adds would round at every add.

Block sizes: a [BLOCK_P, BLOCK_C] tap tile of 1024 elements (BLOCK_P =
1024 // BLOCK_C points, at most 32: 16 for the seed's C = 64, 32 for
C = 32) and num_warps = 4 (Triton's default): 8 elements of each tap per
thread, two 16-byte vectors in float32. Not autotuned: one look at BLOCK_P
16, 32, 64, 128 x num_warps 2, 4, 8 on the seed's shapes (H100, Triton 3.6,
triton.testing.do_bench, ms) found the forward flat wherever a thread holds
8 to 16 elements of a tap (BLOCK_P 16 or 32 with 4 warps: 0.194 and 0.195
float32, 0.104 and 0.106 float16) and the VJP best at 8 (BLOCK_P 16 with 4
warps, or 32 with 8: 1.28 ms float32, against 1.45 ms for BLOCK_P 32 with 4
warps), so the baseline is not handicapped by its tile.

Offsets are int32: x and out must have fewer than 2^31 elements (the
seed's x has 2^29).

check(shapes) compares both against torch.nn.functional.grid_sample and its
autograd (float32, on the float32 copies of the inputs for float16) and
raises RuntimeError on a mismatch; bench/compare_torch.py runs it before it
times anything.

Importable without Triton (AVAILABLE is False then, and IMPORT_ERROR says
why), so the other rows of compare_torch.py still run.
"""
import torch
import torch.nn.functional as F

try:
    import triton
    import triton.language as tl
except ImportError as err:  # the PyTorch rows run without it
    triton = None
    tl = None
    IMPORT_ERROR = err
else:
    IMPORT_ERROR = None

AVAILABLE = triton is not None
NUM_WARPS = 4
TILE = 1024  # elements of one [BLOCK_P, BLOCK_C] tap tile


def block_sizes(C):
    """(BLOCK_P, BLOCK_C) for C channels: BLOCK_C the next power of two (at
    least 2), BLOCK_P = TILE // BLOCK_C points, at most 32 (16 for C = 64)."""
    block_c = max(2, triton.next_power_of_2(C))
    block_p = max(1, min(32, TILE // block_c))
    return block_p, block_c


if AVAILABLE:

    @triton.jit
    def _corners(grid_ptr, p, p_ok, H, W, GHW):
        """The point p's nw corner (x0, y0: exact where some tap is inside,
        else 0), the four taps' in-image flags, and the weights along x (wx0
        of column x0, wx1 of x0 + 1) and y (wy0 of row y0, wy1 of y0 + 1)."""
        gx = tl.load(grid_ptr + 2 * p, mask=p_ok, other=0.0).to(tl.float32)
        gy = tl.load(grid_ptr + 2 * p + 1, mask=p_ok, other=0.0).to(tl.float32)
        # align_corners=False, as the seed and torch: ((g + 1) * size - 1) / 2
        # (* 0.5, exact as / 2 is: Triton's float32 `/` is not IEEE-rounded).
        ix = ((gx + 1.0) * W - 1.0) * 0.5
        iy = ((gy + 1.0) * H - 1.0) * 0.5
        x0f = tl.floor(ix)
        y0f = tl.floor(iy)
        wx1 = ix - x0f
        wx0 = (x0f + 1.0) - ix
        wy1 = iy - y0f
        wy0 = (y0f + 1.0) - iy
        # Which taps lie inside the image, decided on the floats (so that a
        # far-off point never overflows the int conversion).
        vx0 = (x0f >= 0.0) & (x0f <= W - 1)
        vx1 = (x0f >= -1.0) & (x0f <= W - 2)
        vy0 = (y0f >= 0.0) & (y0f <= H - 1)
        vy1 = (y0f >= -1.0) & (y0f <= H - 2)
        # x0 in [-1, W - 1] where a tap of that column is inside, else 0 (its
        # taps are masked off): the offsets below stay small.
        x0 = tl.where(vx0 | vx1, x0f, 0.0).to(tl.int32)
        y0 = tl.where(vy0 | vy1, y0f, 0.0).to(tl.int32)
        n = p // GHW
        row0 = (n * H + y0) * W  # pixel index of (n, y0, 0)
        pix_nw = row0 + x0
        pix_sw = row0 + W + x0
        return (pix_nw, pix_sw, p_ok & vx0 & vy0, p_ok & vx1 & vy0, p_ok & vx0 & vy1,
                p_ok & vx1 & vy1, wx0, wx1, wy0, wy1)

    @triton.jit
    def _grid_sample_fwd_kernel(x_ptr, grid_ptr, out_ptr, P, H, W, GHW, C: tl.constexpr,
                                BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr):
        p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)  # flat output pixels
        p_ok = p < P
        c = tl.arange(0, BLOCK_C)
        c_ok = (c < C)[None, :]
        cc = c[None, :]
        (pix_nw, pix_sw, ok_nw, ok_ne, ok_sw, ok_se, wx0, wx1, wy0,
         wy1) = _corners(grid_ptr, p, p_ok, H, W, GHW)
        # Four masked tap loads, [BLOCK_P, BLOCK_C] each; outside taps read 0.
        v_nw = tl.load(x_ptr + (pix_nw * C)[:, None] + cc, mask=ok_nw[:, None] & c_ok,
                       other=0.0).to(tl.float32)
        v_ne = tl.load(x_ptr + (pix_nw * C + C)[:, None] + cc, mask=ok_ne[:, None] & c_ok,
                       other=0.0).to(tl.float32)
        v_sw = tl.load(x_ptr + (pix_sw * C)[:, None] + cc, mask=ok_sw[:, None] & c_ok,
                       other=0.0).to(tl.float32)
        v_se = tl.load(x_ptr + (pix_sw * C + C)[:, None] + cc, mask=ok_se[:, None] & c_ok,
                       other=0.0).to(tl.float32)
        out = ((wx0 * wy0)[:, None] * v_nw + (wx1 * wy0)[:, None] * v_ne +
               (wx0 * wy1)[:, None] * v_sw + (wx1 * wy1)[:, None] * v_se)
        tl.store(out_ptr + (p * C)[:, None] + cc, out.to(out_ptr.dtype.element_ty),
                 mask=p_ok[:, None] & c_ok)

    @triton.jit
    def _grid_sample_vjp_kernel(x_ptr, grid_ptr, cot_ptr, x_grad_ptr, grid_grad_ptr, P, H, W,
                                GHW, C: tl.constexpr, BLOCK_P: tl.constexpr,
                                BLOCK_C: tl.constexpr):
        p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
        p_ok = p < P
        c = tl.arange(0, BLOCK_C)
        c_ok = (c < C)[None, :]
        cc = c[None, :]
        (pix_nw, pix_sw, ok_nw, ok_ne, ok_sw, ok_se, wx0, wx1, wy0,
         wy1) = _corners(grid_ptr, p, p_ok, H, W, GHW)
        cot = tl.load(cot_ptr + (p * C)[:, None] + cc, mask=p_ok[:, None] & c_ok,
                      other=0.0).to(tl.float32)
        off_nw = (pix_nw * C)[:, None] + cc
        off_ne = (pix_nw * C + C)[:, None] + cc
        off_sw = (pix_sw * C)[:, None] + cc
        off_se = (pix_sw * C + C)[:, None] + cc
        m_nw = ok_nw[:, None] & c_ok
        m_ne = ok_ne[:, None] & c_ok
        m_sw = ok_sw[:, None] & c_ok
        m_se = ok_se[:, None] & c_ok
        # x_grad: weight * cotangent into each inside tap (float32 buffer).
        tl.atomic_add(x_grad_ptr + off_nw, (wx0 * wy0)[:, None] * cot, mask=m_nw)
        tl.atomic_add(x_grad_ptr + off_ne, (wx1 * wy0)[:, None] * cot, mask=m_ne)
        tl.atomic_add(x_grad_ptr + off_sw, (wx0 * wy1)[:, None] * cot, mask=m_sw)
        tl.atomic_add(x_grad_ptr + off_se, (wx1 * wy1)[:, None] * cot, mask=m_se)
        # grid_grad: out = wx0 wy0 nw + wx1 wy0 ne + wx0 wy1 sw + wx1 wy1 se,
        # d wx0/d ix = -1, d wx1/d ix = 1 (and so along y):
        #   d out/d ix = wy0 (ne - nw) + wy1 (se - sw)
        #   d out/d iy = wx0 (sw - nw) + wx1 (se - ne)
        v_nw = tl.load(x_ptr + off_nw, mask=m_nw, other=0.0).to(tl.float32)
        v_ne = tl.load(x_ptr + off_ne, mask=m_ne, other=0.0).to(tl.float32)
        v_sw = tl.load(x_ptr + off_sw, mask=m_sw, other=0.0).to(tl.float32)
        v_se = tl.load(x_ptr + off_se, mask=m_se, other=0.0).to(tl.float32)
        g_ix = tl.sum(cot * (wy0[:, None] * (v_ne - v_nw) + wy1[:, None] * (v_se - v_sw)),
                      axis=1)
        g_iy = tl.sum(cot * (wx0[:, None] * (v_sw - v_nw) + wx1[:, None] * (v_se - v_ne)),
                      axis=1)
        # d ix/d gx = W / 2 and d iy/d gy = H / 2 (align_corners=False).
        tl.store(grid_grad_ptr + 2 * p, (g_ix * (W * 0.5)).to(grid_grad_ptr.dtype.element_ty),
                 mask=p_ok)
        tl.store(grid_grad_ptr + 2 * p + 1,
                 (g_iy * (H * 0.5)).to(grid_grad_ptr.dtype.element_ty), mask=p_ok)


def _check_args(x, grid, cotangent=None):
    if not AVAILABLE:
        raise RuntimeError(f"triton is not available: {IMPORT_ERROR}")
    if x.ndim != 4 or grid.ndim != 4 or grid.shape[3] != 2 or grid.shape[0] != x.shape[0]:
        raise ValueError("x must be (N, H, W, C) and grid (N, gH, gW, 2)")
    for t in (x, grid) + ((cotangent,) if cotangent is not None else ()):
        if t.dtype not in (torch.float32, torch.float16) or not t.is_cuda:
            raise ValueError("x, grid and cotangent must be float32 or float16 CUDA tensors")
    N, H, W, C = x.shape
    out_elems = N * grid.shape[1] * grid.shape[2] * C
    if x.numel() >= 2**31 or out_elems >= 2**31:
        raise ValueError("int32 offsets: x and out must have fewer than 2^31 elements")
    if cotangent is not None and tuple(cotangent.shape) != (N, grid.shape[1], grid.shape[2], C):
        raise ValueError("cotangent must be (N, gH, gW, C)")


def grid_sample_fwd(x, grid):
    """out (N, gH, gW, C) of x's dtype."""
    _check_args(x, grid)
    x, grid = x.contiguous(), grid.contiguous()
    N, H, W, C = x.shape
    gH, gW = grid.shape[1], grid.shape[2]
    out = torch.empty((N, gH, gW, C), device=x.device, dtype=x.dtype)
    P = N * gH * gW
    if P == 0 or C == 0:
        return out
    block_p, block_c = block_sizes(C)
    _grid_sample_fwd_kernel[(triton.cdiv(P, block_p),)](
        x, grid, out, P, H, W, gH * gW, C=C, BLOCK_P=block_p, BLOCK_C=block_c,
        num_warps=NUM_WARPS)
    return out


def grid_sample_vjp(x, grid, cotangent):
    """(x_grad of x's dtype, grid_grad of grid's dtype): the gradients of
    <cotangent, grid_sample(x, grid)>. x_grad by float32 atomics, so not
    deterministic (see the module's docstring)."""
    _check_args(x, grid, cotangent)
    x, grid, cotangent = x.contiguous(), grid.contiguous(), cotangent.contiguous()
    N, H, W, C = x.shape
    gH, gW = grid.shape[1], grid.shape[2]
    # float32 whatever x's dtype: the atomics add in float32; a float16 x
    # gets its x_grad cast once at the end.
    x_grad = torch.zeros((N, H, W, C), device=x.device, dtype=torch.float32)
    grid_grad = torch.empty_like(grid)  # the kernel writes every point
    P = N * gH * gW
    if P > 0 and C > 0:
        block_p, block_c = block_sizes(C)
        _grid_sample_vjp_kernel[(triton.cdiv(P, block_p),)](
            x, grid, cotangent, x_grad, grid_grad, P, H, W, gH * gW, C=C, BLOCK_P=block_p,
            BLOCK_C=block_c, num_warps=NUM_WARPS)
    if x.dtype != torch.float32:
        x_grad = x_grad.to(x.dtype)
    return x_grad, grid_grad


def torch_reference(x, grid, cotangent):
    """(out, x_grad, grid_grad) in float32 from torch.nn.functional.grid_sample
    and autograd, on float32 copies of the inputs (NHWC through permute)."""
    xr = x.detach().float().requires_grad_()
    gr = grid.detach().float().requires_grad_()
    out = F.grid_sample(xr.permute(0, 3, 1, 2), gr, mode="bilinear", padding_mode="zeros",
                        align_corners=False).permute(0, 2, 3, 1)
    out.backward(cotangent.float())
    return out.detach(), xr.grad, gr.grad


# Shapes check() always adds (N, H, W, C, gH, gW): C not a power of two (the
# channel mask), H and W odd and not powers of two.
EXTRA_CHECK_SHAPES = [(2, 37, 45, 20, 13, 11)]
TOLERANCE = {torch.float32: 1e-4, torch.float16: 1e-2}


def _max_error(got, want):
    """max |got - want| over max(max |want|, 1e-6): the error relative to the
    reference's scale (grid_grad's values reach about W / 2 * C)."""
    scale = max(want.abs().max().item(), 1e-6)
    return (got.float() - want).abs().max().item() / scale


def check(shapes, dtypes=(torch.float32, torch.float16), seed=0, boundary=1e-3):
    """Triton's forward and VJP against torch's, on each shape (N, H, W, C,
    gH, gW; EXTRA_CHECK_SHAPES added) and dtype: x ~ U(-1, 1), grid ~
    U(-1.1, 1.1) (some points outside the image), cotangent ~ U(-1, 1), made
    in float32 and rounded to the dtype; the reference is float32 on the
    rounded values. Tolerance: TOLERANCE[dtype] relative to the reference's
    largest magnitude (float16: the outputs' rounding, 2^-11). grid_grad
    jumps where ix or iy crosses an integer (the corner changes), so a point
    within `boundary` pixels of one may take either side: such points may
    differ, at most 0.1% of them; every other point must match.
    Returns {"shape dtype": {"out": err, "x_grad": err, "grid_grad": err,
    "boundary_points": k}}; raises RuntimeError on a mismatch."""
    results = {}
    gen = torch.Generator(device="cuda").manual_seed(seed)
    for shape in list(EXTRA_CHECK_SHAPES) + [tuple(s) for s in shapes]:
        N, H, W, C, gH, gW = shape
        x32 = torch.rand((N, H, W, C), device="cuda", generator=gen) * 2 - 1
        grid32 = torch.rand((N, gH, gW, 2), device="cuda", generator=gen) * 2.2 - 1.1
        cot32 = torch.rand((N, gH, gW, C), device="cuda", generator=gen) * 2 - 1
        for dtype in dtypes:
            x, grid, cot = x32.to(dtype), grid32.to(dtype), cot32.to(dtype)
            ref_out, ref_xg, ref_gg = torch_reference(x, grid, cot)
            out = grid_sample_fwd(x, grid)
            x_grad, grid_grad = grid_sample_vjp(x, grid, cot)
            torch.cuda.synchronize()
            name = f"{'/'.join(map(str, shape))} {str(dtype).removeprefix('torch.')}"
            tol = TOLERANCE[dtype]
            problems = []
            for what, got, want in (("out", out, ref_out), ("x_grad", x_grad, ref_xg)):
                if got.dtype != dtype or got.shape != want.shape:
                    problems.append(f"{what}: {got.dtype} {tuple(got.shape)}, expected {dtype} "
                                    f"{tuple(want.shape)}")
                elif not _max_error(got, want) <= tol:  # also catches NaN
                    problems.append(f"{what}: error {_max_error(got, want):.3g} > {tol}")
            err = {"out": _max_error(out, ref_out), "x_grad": _max_error(x_grad, ref_xg)}
            # grid_grad, point by point, the points next to a cell boundary aside.
            if grid_grad.dtype != grid.dtype or grid_grad.shape != ref_gg.shape:
                problems.append(f"grid_grad: {grid_grad.dtype} {tuple(grid_grad.shape)}")
            else:
                scale = max(ref_gg.abs().max().item(), 1e-6)
                diff = (grid_grad.float() - ref_gg).abs().amax(dim=-1) / scale
                g = grid.double()
                ix = ((g[..., 0] + 1) * W - 1) / 2
                iy = ((g[..., 1] + 1) * H - 1) / 2
                near = (((ix - ix.round()).abs() < boundary) |
                        ((iy - iy.round()).abs() < boundary))
                bad = ~(diff <= tol)  # NaN counts as bad
                off_boundary = bad & ~near
                on_boundary = int((bad & near).sum().item())
                err["grid_grad"] = diff[~near].max().item() if bool((~near).any()) else 0.0
                err["boundary_points"] = on_boundary
                if bool(off_boundary.any()):
                    problems.append(f"grid_grad: error {diff[off_boundary].max().item():.3g} > "
                                    f"{tol} at {int(off_boundary.sum().item())} points")
                if on_boundary > max(2, diff.numel() // 1000):
                    problems.append(f"grid_grad: {on_boundary} points next to a cell boundary "
                                    "differ (more than 0.1%)")
            results[name] = err
            if problems:
                raise RuntimeError(f"Triton grid_sample differs from torch on {name}: "
                                   + "; ".join(problems))
            del x, grid, cot, ref_out, ref_xg, ref_gg, out, x_grad, grid_grad
        del x32, grid32, cot32
    torch.cuda.empty_cache()
    return results

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""calibrate.py -- measure one GPU (kernel and collective level) and write a
calibration file that wanka reads (`cluster.calibration: FILE`).

  calibrate.py --out h100.json                      # a GPU, about 10 minutes
  calibrate.py --model llama3-70b --tp 8 --out f.json
  calibrate.py --device cpu --tiny --out t.json     # the CI test: seconds

What is measured (tools/calibrate/README.md): BF16 (and FP8 where the GPU
has it) GEMMs at the shapes of a model configuration plus a square size
sweep, memory-bound kernels (a stream triad, RMSNorm, LayerNorm, SwiGLU,
softmax, rotary, Adam), causal attention forward and backward, kernel launch
gap and eager dispatch, clock and power under a sustained GEMM load
(pynvml or nvidia-smi when present), and with 2+ GPUs the NCCL collectives.
File format and what wanka does with each value: docs/models.md
"Calibration files". Exit status 2 on bad arguments, 77 without PyTorch."""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calfile  # noqa: E402

# Model configurations (the GEMM shapes): hidden, ffn, heads, kv heads, vocab.
MODELS = {
    "llama3-8b": (4096, 14336, 32, 8, 128256),
    "llama3-70b": (8192, 28672, 64, 8, 128256),
    "llama3-405b": (16384, 53248, 128, 8, 128256),
    "tiny": (256, 688, 4, 2, 1024),
}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="calibration file to write (JSON)")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    p.add_argument("--tiny", action="store_true", help="small sizes and a 1 s load: a test of the tool, not a measurement")
    p.add_argument("--sku", help="catalog SKU the file is for (default: from the device name)")
    p.add_argument("--model", default="llama3-8b", help="GEMM shapes of: " + ", ".join(MODELS) +
                   ", or hidden,ffn,heads,kv_heads,vocab")
    p.add_argument("--seq", type=int, default=8192, help="sequence length (tokens per micro-batch)")
    p.add_argument("--tp", type=int, default=1, help="tensor-parallel degree the shapes are split by")
    p.add_argument("--load-s", type=float, default=60.0, help="seconds of sustained GEMM load")
    p.add_argument("--no-collectives", action="store_true", help="skip NCCL even with 2+ GPUs")
    a = p.parse_args(argv)
    if a.model in MODELS:
        a.shape = MODELS[a.model]
    else:
        try:
            a.shape = tuple(int(x) for x in a.model.split(","))
            assert len(a.shape) == 5 and min(a.shape) > 0
        except (ValueError, AssertionError):
            p.error("--model: a name (%s) or five positive integers hidden,ffn,heads,kv_heads,vocab" % ", ".join(MODELS))
    if a.tiny:
        a.shape, a.seq, a.load_s = MODELS["tiny"], 128, 1.0
    if a.tp < 1 or a.seq < 1 or a.load_s <= 0:
        p.error("--tp, --seq and --load-s must be positive")
    return a


class Timer:
    """Times a callable on the device: CUDA events on a GPU, the wall clock
    (after a synchronize) on the CPU; the median of `reps` runs of `inner` calls."""

    def __init__(self, torch, dev):
        self.torch, self.dev = torch, dev

    def sync(self):
        if self.dev == "cuda":
            self.torch.cuda.synchronize()

    def __call__(self, fn, reps=5, inner=1, warmup=2):
        for _ in range(warmup):
            fn()
        self.sync()
        out = []
        for _ in range(reps):
            if self.dev == "cuda":
                s, e = self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True)
                s.record()
                for _ in range(inner):
                    fn()
                e.record()
                e.synchronize()
                out.append(s.elapsed_time(e) * 1e-3 / inner)
            else:
                t0 = time.perf_counter()
                for _ in range(inner):
                    fn()
                out.append((time.perf_counter() - t0) / inner)
        return statistics.median(out)


def gemm_shapes(a):
    """(name, M, N, K) of one transformer layer's forward GEMMs and their two
    backward GEMMs, and the LM head, for --model/--seq/--tp."""
    h, ffn, heads, kv, vocab = a.shape
    hd = h // heads
    m = a.seq
    fwd = [("qkv", m, (heads + 2 * kv) * hd // a.tp, h), ("proj", m, h, heads * hd // a.tp),
           ("fc1", m, 2 * ffn // a.tp, h), ("fc2", m, h, ffn // a.tp), ("lm_head", m, vocab // a.tp, h)]
    out = []
    for name, mm, n, k in fwd:
        out += [(name + ".fwd", mm, n, k), (name + ".dgrad", mm, k, n), (name + ".wgrad", n, k, mm)]
    return out


def measure_gemms(torch, tm, dev, a):
    dt = torch.bfloat16 if dev == "cuda" else torch.float32
    sizes = [32, 64, 128, 256] if a.tiny else [512, 1024, 2048, 4096, 6144, 8192, 12288, 16384]
    rows, pts = [], []
    for name, m, n, k in gemm_shapes(a) + [("square", s, s, s) for s in sizes]:
        x = torch.randn(m, k, device=dev, dtype=dt)
        w = torch.randn(k, n, device=dev, dtype=dt)
        t = tm(lambda: torch.matmul(x, w), reps=3 if a.tiny else 10, inner=1 if a.tiny else 5)
        f = 2.0 * m * n * k
        rows.append({"name": name, "m": m, "n": n, "k": k, "s": t, "tflops": f / t / 1e12})
        pts.append((f, t))
        del x, w
    rate, tau = calfile.fit_rate_tail(pts)
    fit = {"tflops": rate / 1e12, "tail_us": tau * 1e6, "rel_rms": calfile.rel_rms(pts, rate, tau),
           "dtype": str(dt).replace("torch.", "")}
    return rows, fit


def measure_fp8(torch, tm, dev, a):
    """FP8 (e4m3) GEMMs through torch._scaled_mm, where the GPU and PyTorch have it."""
    if dev != "cuda" or not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
        return None, None
    if torch.cuda.get_device_capability() < (8, 9):
        return None, None
    rows, pts = [], []
    one = torch.ones((), device=dev)
    for s in [1024, 2048, 4096, 8192, 16384]:
        x = torch.randn(s, s, device=dev).to(torch.float8_e4m3fn)
        w = torch.randn(s, s, device=dev).to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
        try:
            t = tm(lambda: torch._scaled_mm(x, w, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), reps=10, inner=5)
        except (RuntimeError, TypeError) as e:
            return [{"error": str(e)[:200]}], None
        f = 2.0 * s ** 3
        rows.append({"m": s, "n": s, "k": s, "s": t, "tflops": f / t / 1e12})
        pts.append((f, t))
    rate, tau = calfile.fit_rate_tail(pts)
    return rows, {"tflops": rate / 1e12, "tail_us": tau * 1e6, "rel_rms": calfile.rel_rms(pts, rate, tau)}


def measure_memory(torch, tm, dev, a):
    """Effective bandwidth (bytes a fused kernel must move / time) of memory-bound kernels."""
    F = torch.nn.functional
    dt = torch.bfloat16 if dev == "cuda" else torch.float32
    es = 2 if dt == torch.bfloat16 else 4
    n = (1 << 16) if a.tiny else (1 << 28)  # elements
    h = 256 if a.tiny else 8192
    rows = {}
    x = torch.randn(n // h, h, device=dev, dtype=dt)
    y = torch.randn_like(x)
    w = torch.ones(h, device=dev, dtype=dt)
    b32 = torch.randn(n, device=dev)
    c32 = torch.randn(n, device=dev)
    o32 = torch.empty(n, device=dev)
    kern = {
        # name: (fn, bytes moved by a fused kernel)
        "triad": (lambda: torch.add(b32, c32, alpha=0.4, out=o32), 3 * 4 * n),
        "rmsnorm": (lambda: x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(dt) * w, 2 * es * n),
        "layernorm": (lambda: F.layer_norm(x, (h,), w, None), 2 * es * n),
        "swiglu": (lambda: F.silu(x) * y, 3 * es * n),
        "gelu": (lambda: F.gelu(x), 2 * es * n),
        "softmax": (lambda: torch.softmax(x, dim=-1), 2 * es * n),
    }
    hd = 128 if not a.tiny else 32
    xr = x.view(-1, hd)
    cos = torch.randn(xr.shape[0], hd // 2, device=dev, dtype=dt)
    sin = torch.randn_like(cos)

    def rotary():
        x1, x2 = xr[:, : hd // 2], xr[:, hd // 2:]
        return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)

    kern["rotary"] = (rotary, 2 * es * n + 2 * es * n // 2)
    for name, (fn, nbytes) in kern.items():
        t = tm(fn, reps=3 if a.tiny else 10, inner=1 if a.tiny else 5)
        rows[name] = {"bytes": nbytes, "s": t, "tb_per_s": nbytes / t / 1e12}
    # Adam on fp32 master weights: reads p, g, m, v, writes p, m, v (28 bytes a parameter)
    npar = n // 4
    ps = [torch.nn.Parameter(torch.randn(npar // 8, device=dev)) for _ in range(8)]
    for p in ps:
        p.grad = torch.randn_like(p)
    for impl in ("foreach", "fused"):
        try:
            opt = torch.optim.Adam(ps, lr=1e-4, **{impl: True})
        except (TypeError, RuntimeError, ValueError):
            continue
        try:
            t = tm(opt.step, reps=3 if a.tiny else 10)
        except RuntimeError:
            continue
        rows["adam_" + impl] = {"bytes": 28 * npar, "s": t, "tb_per_s": 28 * npar / t / 1e12}
    return rows


def measure_attention(torch, tm, dev, a):
    """Causal scaled-dot-product attention, head dim 128, forward and forward+backward.
    FLOPs as FlashAttention counts them: forward 4 b h s^2 d / 2 (causal), backward 2.5x."""
    F = torch.nn.functional
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    impl = "scaled_dot_product_attention"
    if sdpa is None:  # PyTorch < 2.0: the unfused math of the same operator
        impl = "math"

        def sdpa(q, k, v, is_causal):
            s = q.shape[-2]
            mask = torch.ones(s, s, dtype=torch.bool, device=q.device).tril()
            w = (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5
            return torch.softmax(w.masked_fill(~mask, float("-inf")), dim=-1) @ v
    dt = torch.bfloat16 if dev == "cuda" else torch.float32
    b, h, s, d = (1, 2, 128, 32) if a.tiny else (1, 32, 8192, 128)
    q, k, v = (torch.randn(b, h, s, d, device=dev, dtype=dt, requires_grad=True) for _ in range(3))
    fwd = tm(lambda: sdpa(q, k, v, is_causal=True), reps=3 if a.tiny else 10)
    go = torch.randn(b, h, s, d, device=dev, dtype=dt)

    def both():
        sdpa(q, k, v, is_causal=True).backward(go)

    tot = tm(both, reps=3 if a.tiny else 10)
    f = 4.0 * b * h * s * s * d / 2
    bwd = max(tot - fwd, 1e-9)
    return {"impl": impl, "b": b, "heads": h, "seq": s, "head_dim": d, "fwd_s": fwd, "bwd_s": bwd,
            "fwd_tflops": f / fwd / 1e12, "bwd_tflops": 2.5 * f / bwd / 1e12}


def measure_launch(torch, tm, dev, a):
    """Eager dispatch: host time per tiny operator; launch gap: GPU time per
    kernel of a CUDA graph of tiny kernels (no host in the way)."""
    x = torch.zeros(16, device=dev)
    n = 200 if a.tiny else 2000

    def eager():
        for _ in range(n):
            x.add_(1)

    tm.sync()
    t0 = time.perf_counter()
    eager()
    tm.sync()
    dispatch = (time.perf_counter() - t0) / n
    out = {"dispatch_us": dispatch * 1e6}
    if dev == "cuda":
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            x.add_(1)
            with torch.cuda.graph(g):
                for _ in range(100):
                    x.add_(1)
        torch.cuda.current_stream().wait_stream(s)
        out["kernel_us"] = tm(g.replay, reps=10, inner=10) / 100 * 1e6
    else:
        out["kernel_us"] = dispatch * 1e6  # no separate device queue on the CPU
    return out


class Smi:
    """Clock and power readings through pynvml, else nvidia-smi, else none."""

    def __init__(self, dev):
        self.nv = self.h = None
        self.smi = None
        if dev != "cuda":
            return
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nv, self.h = pynvml, pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception:
            self.smi = shutil.which("nvidia-smi")

    def query(self, fields):
        if not self.smi:
            return None
        try:
            r = subprocess.run([self.smi, "-i", "0", "--query-gpu=" + fields, "--format=csv,noheader,nounits"],
                               capture_output=True, text=True, timeout=10)
            return [v.strip() for v in r.stdout.strip().split(",")]
        except (OSError, subprocess.SubprocessError):
            return None

    def sample(self):
        """(SM clock MHz, power W) or None."""
        if self.nv:
            nv = self.nv
            try:
                return (float(nv.nvmlDeviceGetClockInfo(self.h, nv.NVML_CLOCK_SM)),
                        nv.nvmlDeviceGetPowerUsage(self.h) / 1000.0)
            except Exception:  # a reading the board does not give
                return None
        q = self.query("clocks.sm,power.draw")
        try:
            return (float(q[0]), float(q[1])) if q else None
        except (ValueError, IndexError):
            return None

    def info(self):
        """driver version, enforced power limit W (or None each)."""
        if self.nv:
            nv = self.nv
            try:
                drv = nv.nvmlSystemGetDriverVersion()
                drv = drv.decode() if isinstance(drv, bytes) else drv
                return drv, nv.nvmlDeviceGetEnforcedPowerLimit(self.h) / 1000.0
            except Exception:
                return None, None
        q = self.query("driver_version,power.limit")
        try:
            return (q[0], float(q[1])) if q else (None, None)
        except (ValueError, IndexError):
            return (q[0] if q else None), None


def measure_sustained(torch, tm, dev, a, smi):
    """A GEMM loop for --load-s seconds: the rate, clock and power in its
    first and last tenth, and the idle power before it."""
    idle = None
    if smi.sample():
        time.sleep(2)
        got = [r[1] for r in (smi.sample() for _ in range(5)) if r]
        idle = statistics.median(got) if got else None
    s = 256 if a.tiny else 8192
    dt = torch.bfloat16 if dev == "cuda" else torch.float32
    x = torch.randn(s, s, device=dev, dtype=dt)
    w = torch.randn(s, s, device=dev, dtype=dt)
    f = 2.0 * s ** 3
    samples = []  # (t since start, tflops, clock, power)
    t0 = time.perf_counter()
    while True:
        t1 = time.perf_counter()
        for _ in range(20):
            torch.matmul(x, w)
        tm.sync()
        t2 = time.perf_counter()
        cp = smi.sample()
        samples.append((t2 - t0, 20 * f / (t2 - t1) / 1e12, cp[0] if cp else None, cp[1] if cp else None))
        if t2 - t0 >= a.load_s:
            break
    n = max(1, len(samples) // 10)
    first, last = samples[:n], samples[-n:]

    def med(rows, i):
        v = [r[i] for r in rows if r[i] is not None]
        return statistics.median(v) if v else None

    return {"load_s": samples[-1][0], "size": s, "idle_w": idle,
            "start": {"tflops": med(first, 1), "clock_mhz": med(first, 2), "power_w": med(first, 3)},
            "end": {"tflops": med(last, 1), "clock_mhz": med(last, 2), "power_w": med(last, 3)}}


# The size of a latency-bound all-reduce (allreduce_small_us): the smallest
# size of the public curves the catalog's figure comes from (docs/models.md).
SMALL_COLL_BYTES = 32 << 10


def _coll_worker(rank, world, sizes, q):
    import torch
    import torch.distributed as dist
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29531")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    res = {}
    ev = torch.cuda.Event
    for op in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all"):
        rows = []
        for nbytes in sizes:
            n = nbytes // 2 // world * world
            x = torch.randn(n, device="cuda", dtype=torch.bfloat16)
            out = torch.empty_like(x)
            part = torch.empty(n // world, device="cuda", dtype=torch.bfloat16)
            fn = {"all_reduce": lambda: dist.all_reduce(x),
                  "all_gather": lambda: dist.all_gather_into_tensor(out, x[: n // world]),
                  "reduce_scatter": lambda: dist.reduce_scatter_tensor(part, x),
                  "all_to_all": lambda: dist.all_to_all_single(out, x)}[op]
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            reps = 20
            s, e = ev(enable_timing=True), ev(enable_timing=True)
            s.record()
            for _ in range(reps):
                fn()
            e.record()
            e.synchronize()
            t = s.elapsed_time(e) * 1e-3 / reps
            alg = n * 2 / t
            fac = 2 * (world - 1) / world if op == "all_reduce" else (world - 1) / world
            rows.append({"bytes": n * 2, "s": t, "algbw_gb_per_s": alg / 1e9, "busbw_gb_per_s": alg * fac / 1e9})
        res[op] = rows
    if rank == 0:
        q.put(res)
    dist.destroy_process_group()


def measure_collectives(torch, a):
    world = torch.cuda.device_count()
    # 32 KiB (a latency-bound call: an FP8 amax, token counts), then 1 MiB .. 1 GiB
    sizes = [SMALL_COLL_BYTES] + [1 << p for p in range(20, 31, 1)]
    import torch.multiprocessing as mp
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_coll_worker, args=(r, world, sizes, q)) for r in range(world)]
    for p in procs:
        p.start()
    res = q.get(timeout=600)
    for p in procs:
        p.join()
    ar = res["all_reduce"]
    # per-step latency: t = 2(n-1) alpha + 2(n-1)/n S / B, fitted from 16 MiB up (as docs/models.md)
    pts = [(r["bytes"], r["s"]) for r in ar if r["bytes"] >= 16 << 20]
    alpha, _ = calfile.fit_alpha_beta(pts, 2 * (world - 1), 2 * (world - 1) / world)
    return {"gpus": world, **res}, ar[-1]["busbw_gb_per_s"], alpha, ar[0]["s"]


def main(argv):
    a = parse_args(argv)
    try:
        import torch
    except ImportError:
        print("calibrate: PyTorch is not installed (pip install torch, or Debian's python3-torch)", file=sys.stderr)
        return 77
    dev = a.device
    if dev == "cuda" and not torch.cuda.is_available():
        print("calibrate: no CUDA device (use --device cpu --tiny for a test run)", file=sys.stderr)
        return 2
    if dev == "cpu":
        torch.set_num_threads(1)  # a test run: one thread, steady on a shared machine
    gpu = torch.cuda.get_device_name(0) if dev == "cuda" else "cpu"
    sku = a.sku or (calfile.sku_for(gpu) if dev == "cuda" else "H100-SXM-80G")
    if not sku:
        print("calibrate: no catalog SKU known for '%s': give --sku NAME (`wanka list skus`)" % gpu, file=sys.stderr)
        return 2
    torch.manual_seed(0)
    tm = Timer(torch, dev)
    smi = Smi(dev)
    detail, values = {"model": {"shape": list(a.shape), "seq": a.seq, "tp": a.tp}}, {}

    def step(name):
        print("calibrate: %s ..." % name, file=sys.stderr, flush=True)

    step("GEMM")
    detail["gemm_bf16"], fit = measure_gemms(torch, tm, dev, a)
    detail["gemm_bf16_fit"] = fit
    values["gemm_bf16_tflops"], values["gemm_bf16_tail_us"] = fit["tflops"], fit["tail_us"]
    step("FP8 GEMM")
    rows, fit8 = measure_fp8(torch, tm, dev, a)
    if rows:
        detail["gemm_fp8"] = rows
    if fit8:
        detail["gemm_fp8_fit"] = fit8
        values["gemm_fp8_tflops"], values["gemm_fp8_tail_us"] = fit8["tflops"], fit8["tail_us"]
    step("memory-bound kernels")
    detail["memory"] = measure_memory(torch, tm, dev, a)
    values["memory_tb_per_s"] = detail["memory"]["triad"]["tb_per_s"]
    step("attention")
    att = measure_attention(torch, tm, dev, a)
    if att:
        detail["attention"] = att
        values["attn_fwd_tflops"], values["attn_bwd_tflops"] = att["fwd_tflops"], att["bwd_tflops"]
    step("launch and dispatch")
    detail["launch"] = measure_launch(torch, tm, dev, a)
    values["kernel_us"], values["dispatch_us"] = detail["launch"]["kernel_us"], detail["launch"]["dispatch_us"]
    step("sustained load (%.0f s)" % a.load_s)
    sus = measure_sustained(torch, tm, dev, a, smi)
    detail["sustained"] = sus
    values["gemm_bf16_sustained_tflops"] = sus["end"]["tflops"]
    values["sustained_clock_mhz"] = sus["end"]["clock_mhz"]
    values["sustained_power_w"] = sus["end"]["power_w"]
    values["idle_w"] = sus["idle_w"]
    driver, limit = smi.info()
    values["power_limit_w"] = limit
    if dev == "cuda" and torch.cuda.device_count() >= 2 and not a.no_collectives:
        step("NCCL collectives on %d GPUs" % torch.cuda.device_count())
        detail["collectives"], values["allreduce_busbw_gb_per_s"], alpha, small = measure_collectives(torch, a)
        values["allreduce_step_us"] = alpha * 1e6
        values["allreduce_small_us"] = small * 1e6
    doc = calfile.document(sku, dev, values, detail, gpu=gpu, driver=driver or "",
                           cuda=(torch.version.cuda or "") if dev == "cuda" else "",
                           torch_version=torch.__version__)
    if a.tiny:
        doc["detail"]["note"] = "--tiny: a test of the tool, not a measurement"
    calfile.write(a.out, doc)
    print("calibrate: wrote %s (%s as %s)" % (a.out, gpu, sku), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

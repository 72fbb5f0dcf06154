#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# validate.py — evaluate every published measurement of validation.csv with
# `wanka perf --json`, print published vs predicted iteration time, and fail
# when the mean absolute error of the rows of set v1 exceeds the figure
# committed in mae_limit.txt. Rows of later sets are evaluated and reported
# (per stack and per GPU generation) but not limited; one wanka cannot run
# (a SKU or precision it lacks, a configuration it refuses) is listed, not fatal.
# Each row runs with the `stack:` its `stack` column names (STACKS below).
# usage: validate.py WANKA_EXE [--markdown]
# Environment: WK_VALIDATE_PERF="gemm_shapes: true, sustained_clock: true"
# adds `perf: {...}` with those keys to every job (LLM and data-parallel
# rows), so the statistics of the opt-in GPU-level mechanisms
# (docs/validation.md) can be produced; the limit is checked all the same.
# WK_VALIDATE_NO_OPTS=1 drops each row's per-row model options.
import csv, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# The CSV's `stack` column as wanka's `stack:` key (docs/models.md, "Software
# stacks"). Meta's in-house Llama 3 stack publishes no mechanism settings:
# it keeps the default. WK_VALIDATE_NO_STACK=1 evaluates every row with the
# default (megatron-core), as before the key existed.
STACKS = {
    "Megatron-LM": "megatron-core", "Megatron-Core": "megatron-core", "MegaScale (Megatron-LM)": "megatron-core",
    "Meta Llama 3 (in-house)": "megatron-core", "NeMo/Megatron-Bridge": "nemo", "NeMo": "nemo",
    "torchtitan (FSDP2)": "torchtitan", "Composer/llm-foundry (FSDP)": "composer",
    "Megatron-DeepSpeed": "deepspeed",
}

# The CSV's `sku` column as wanka's catalog SKU where the two differ. DGX-2
# and DGX-2H carry the SXM3 module of the V100 32 GB, the same GV100 GPU as
# the SXM2 part the catalog has (docs/models.md, "GPU catalog": the SXM3's
# power limit and clocks are not in the datasheet).
SKUS = {"V100-SXM3-32G": "V100-SXM2-32G"}

# Parts the catalog lacks, as `cluster.skus` entries over a catalog SKU. The
# A100 SXM4 40 GB: 40 GB HBM2 at 1,555 GB/s, the 80 GB part's compute, NVLink
# and 400 W (NVIDIA A100 Tensor Core GPU datasheet, 2021: "A100 40GB SXM").
CUSTOM_SKUS = {"A100-SXM-40G": "{name: A100-SXM-40G, base: A100-SXM-80G, hbm_gb: 40, hbm_tb_per_s: 1.555}"}


def perf_section():
    """`perf: {...}` from WK_VALIDATE_PERF (comma-separated `key: value`), or ""."""
    v = os.environ.get("WK_VALIDATE_PERF", "").strip()
    return f"perf: {{{v}}}\n" if v else ""


def job_yaml(r):
    nodes = (int(r["gpus"]) + 7) // 8
    big = nodes > 8192
    opts = {}
    for kv in filter(None, "" if os.environ.get("WK_VALIDATE_NO_OPTS") else r["opts"].split(";")):
        k, v = kv.split("=")
        opts[k] = v
    model = {
        "layers": r["layers"], "hidden": r["hidden"], "heads": r["heads"], "kv_heads": r["kv_heads"],
        "ffn": r["ffn"], "vocab": r["vocab"], "seq_len": r["seq"], "mlp": r["mlp"], "tp": r["tp"],
        "pp": r["pp"], "cp": r["cp"], "ep": r["ep"], "schedule": r["schedule"], "vp": r["vp"],
        "global_batch": r["gbs"], "micro_batch": r["mbs"], "recompute": r["recompute"],
        "precision": r["precision"], "zero": r["zero"],
    }
    if int(r["experts"]):
        model.update(experts=r["experts"], top_k=r["top_k"])
    if not os.environ.get("WK_VALIDATE_NO_STACK"):
        if r["stack"] not in STACKS:
            raise SystemExit(f"{r['id']}: stack '{r['stack']}' has no mapping in validate.py's STACKS")
        model["stack"] = STACKS[r["stack"]]
    # cap_w: the board power limit the source states (W), a cluster key
    # (cluster.power.cap_w), not a model key
    cap = opts.pop("cap_w", None)
    power = f"power: {{cap_w: {cap}}}, " if cap else ""
    model.update(opts)
    m = ", ".join(f"{k}: {v}" for k, v in model.items())
    return (f"model: {{{m}}}\ngpus: {r['gpus']}\n"
            f"cluster: {{{'skus: [' + CUSTOM_SKUS[r['sku']] + '], ' if r['sku'] in CUSTOM_SKUS else ''}"
            f"sku: {SKUS.get(r['sku'], r['sku'])}, {power}nodes: {nodes}, gpus_per_node: 8, nodes_per_pod: {128 if big else 32}, "
            f"fabric: {{kind: rail, radix: {128 if big else 64}, link_gbps: {r['link_gbps']}}}}}\n" + perf_section())


def published_iter_s(r, pred):
    v = float(r["value"])
    g, gbs, s = int(r["gpus"]), int(r["gbs"]), int(r["seq"])
    model_flops = pred["tflops_per_gpu"] * 1e12 * g * pred["iteration_s"]
    if r["metric"] == "iter_s":
        return v
    if r["metric"] == "tokens_per_gpu":
        return gbs * s / (v * g)
    if r["metric"] == "tflops":
        return model_flops / (v * 1e12 * g)
    if r["metric"] == "mfu":
        peak = pred["tflops_per_gpu"] / pred["mfu"]  # TFLOP/s the MFU is measured against
        return model_flops / (v * peak * 1e12 * g)
    if r["metric"] == "tflops_megatron":  # Narayanan et al. SC'21, eq. (3)
        l, h, V = int(r["layers"]), int(r["hidden"]), int(r["vocab"])
        f = 96 * gbs * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
        return f / (v * 1e12 * g)
    raise SystemExit(f"{r['id']}: unknown metric {r['metric']}")


def dp_rows(exe, d, md):
    """The data-parallel (vision/recsys) rows: published vs predicted iteration
    time of batch_per_gpu samples. Returns the mean absolute error (%)."""
    with open(os.path.join(HERE, "validation_dp.csv")) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    errs = []
    for r in rows:
        p = os.path.join(d, r["id"] + ".yaml")
        nodes = (int(r["gpus"]) + 7) // 8
        with open(p, "w") as f:
            opts = f", {r['opts']}" if r.get("opts") else ""
            f.write(f"model: {{base: {r['model']}, batch_per_gpu: {r['batch_per_gpu']}{opts}}}\ngpus: {r['gpus']}\n"
                    f"cluster: {{sku: {r['sku']}, nodes: {nodes}, gpus_per_node: 8}}\n" + perf_section())
        res = subprocess.run([exe, "perf", p, "--json"], capture_output=True, text=True)
        if res.returncode != 0:
            raise SystemExit(f"{r['id']}: wanka perf failed: {res.stderr.strip()}")
        pred = json.loads(res.stdout)
        if r["metric"] != "samples_per_gpu":
            raise SystemExit(f"{r['id']}: unknown metric {r['metric']}")
        pub = int(r["batch_per_gpu"]) / float(r["value"])
        e = 100 * (pred["iteration_s"] - pub) / pub
        errs.append(e)
        if md:
            print(f"| {r['id']} | {r['model']} | {r['sku'].split('-')[0]} | {r['gpus']} | {pub:.4f} | "
                  f"{pred['iteration_s']:.4f} | {e:+.1f} % | {r['source']} |")
        else:
            print(f"{r['id']:22} {r['sku']:13} {r['gpus']:>6} {pub:12.4f} {pred['iteration_s']:10.4f} {e:+7.1f}%")
    return sum(abs(e) for e in errs) / len(errs)


def stats(label, errs):
    """One line: rows, mean absolute and mean signed error, worst row."""
    if not errs:
        return
    mae = sum(abs(e) for _, e in errs) / len(errs)
    mse = sum(e for _, e in errs) / len(errs)
    worst = max(errs, key=lambda x: abs(x[1]))
    print(f"{label}: {len(errs)} rows, MAE {mae:.1f} %, mean signed {mse:+.1f} %, worst {worst[0]['id']} {worst[1]:+.1f} %")


def main():
    exe, md = sys.argv[1], "--markdown" in sys.argv
    with open(os.path.join(HERE, "validation.csv")) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    with open(os.path.join(HERE, "mae_limit.txt")) as f:
        limit = float(f.read().split()[0])
    out, errs, skipped = [], [], []
    with tempfile.TemporaryDirectory() as d:
        for r in rows:
            p = os.path.join(d, r["id"] + ".yaml")
            with open(p, "w") as f:
                f.write(job_yaml(r))
            res = subprocess.run([exe, "perf", p, "--json"], capture_output=True, text=True)
            if res.returncode != 0:
                # The guarded set must evaluate; a later row wanka cannot run
                # (a SKU it lacks, a configuration it refuses) is kept and listed.
                if r["set"] == "v1":
                    raise SystemExit(f"{r['id']}: wanka perf failed: {res.stderr.strip()}")
                why = res.stderr.strip().splitlines()[-1] if res.stderr.strip() else f"exit {res.returncode}"
                skipped.append((r, re.sub(r"^wanka: \S+\.yaml:\d+:\d+: ", "", why)))
                continue
            pred = json.loads(res.stdout)
            pub = published_iter_s(r, pred)
            e = 100 * (pred["iteration_s"] - pub) / pub
            errs.append((r, e))
            out.append((r, pub, pred["iteration_s"], e))
    if md:
        print("| row | set | stack | SKU | GPUs | TP/PP/CP/EP | recompute | published s | wanka s | error | source |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r, pub, pr, e in out:
            print(f"| {r['id']} | {r['set']} | {r['stack']} | {r['sku'].split('-')[0]} | {r['gpus']} | "
                  f"{r['tp']}/{r['pp']}/{r['cp']}/{r['ep']} | {r['recompute']} | {pub:.3f} | {pr:.3f} | {e:+.1f} % | "
                  f"{r['source']} |")
        for r, why in skipped:
            print(f"| {r['id']} | {r['set']} | {r['stack']} | {r['sku'].split('-')[0]} | {r['gpus']} | "
                  f"{r['tp']}/{r['pp']}/{r['cp']}/{r['ep']} | {r['recompute']} | — | — | not evaluated: {why} | "
                  f"{r['source']} |")
    else:
        print(f"{'row':26} {'set':3} {'sku':13} {'gpus':>6} {'published_s':>12} {'wanka_s':>10} {'error':>8}")
        for r, pub, pr, e in out:
            print(f"{r['id']:26} {r['set']:3} {r['sku']:13} {r['gpus']:>6} {pub:12.3f} {pr:10.3f} {e:+7.1f}%")
        for r, why in skipped:
            print(f"{r['id']:26} {r['set']:3} {r['sku']:13} {r['gpus']:>6} not evaluated: {why}")
    base = [x for x in errs if x[0]["set"] == "v1"]
    mae = sum(abs(e) for _, e in base) / len(base)
    worst = max(base, key=lambda x: abs(x[1]))
    for gen in ("A100", "H100"):
        g = [e for r, e in base if r["sku"].startswith(gen)]
        if g:
            print(f"mean signed error {gen}: {sum(g) / len(g):+.1f} % over {len(g)} rows")
    print(f"rows {len(base)} (set v1), mean absolute error {mae:.1f} % (limit {limit:.1f} %), "
          f"worst {worst[0]['id']} {worst[1]:+.1f} %")
    print("all evaluated rows (not limited):")
    stats("  all", errs)
    stats("  set v2", [x for x in errs if x[0]["set"] != "v1"])
    for st in sorted({r["stack"] for r, _ in errs}):
        stats(f"  stack {st}", [x for x in errs if x[0]["stack"] == st])
    for gen in sorted({r["sku"].split("-")[0] for r, _ in errs}):
        stats(f"  GPU {gen}", [x for x in errs if x[0]["sku"].startswith(gen)])
    if skipped:
        print(f"  not evaluated: {len(skipped)} rows ({', '.join(r['id'] for r, _ in skipped)})")
    with open(os.path.join(HERE, "dp_limit.txt")) as f:
        dp_limit = float(f.read().split()[0])
    if md:
        print("\n| row | model | SKU | GPUs | published s | wanka s | error | source |")
        print("|---|---|---|---|---|---|---|---|")
    else:
        print("data-parallel rows (validation_dp.csv)")
    with tempfile.TemporaryDirectory() as d:
        dp_mae = dp_rows(exe, d, md)
    print(f"data-parallel rows: mean absolute error {dp_mae:.1f} % (limit {dp_limit:.1f} %)")
    return 0 if mae <= limit and dp_mae <= dp_limit else 1


if __name__ == "__main__":
    sys.exit(main())

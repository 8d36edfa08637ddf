#!/usr/bin/env bash
# The GPU check of the training path, in one bounded run (about 6 minutes: its four runs are limited to 400 s in all): the card's
# matrix-product peak (peak_flops.py --device cuda), then the planets paper preset's xVal model
# through `scinum fit` (paper_gpu_throughput.py) as the preset is and with the GPU options
# (data.pad_to 128, 8 loader workers prefetching 4, pinned batches, fused AdamW, with and without
# the trunk compiled, last), each in its own process: the first 500 steps' rate against the steady
# rate after them, and the steady share of the measured bf16 peak.
#
# Run from the repository root of a source checkout on a machine with a CUDA GPU and PyTorch,
# Lightning and scinum's other dependencies installed; nothing is downloaded there. A missing
# orjson (scinum.records.strict needs it) is installed from wheels in .whl/ if any travel along:
#
#   bash benchmarks/gpu_check.sh --wheels   # here, with a registry: orjson for CPython 3.12, x86-64, into .whl/
#   bash benchmarks/gpu_check.sh            # there: results into $OUT (default: ./gpu-check-out)
#   bash benchmarks/gpu_check.sh --smoke    # any machine, CPU only, seconds: the same steps at tiny sizes
#
# Files written into $OUT: env.txt (GPU, driver, package versions), peak_flops.json,
# paper_tuned.json, paper_preset.json, paper_tuned_compile.json (rows and every step's timing,
# written after each run), profile-xval-tuned.txt (20 steps after the tuned run's steady window,
# torch.profiler's tables), summary.json (every script's last line and exit status), gpu_check.log.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
MODE=${1:-gpu}

if [ "$MODE" = "--wheels" ]; then
    grep -qx '/.whl/' "$(git rev-parse --git-path info/exclude)" 2>/dev/null || echo '/.whl/' >>"$(git rev-parse --git-path info/exclude)"
    exec "$PY" -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl "orjson==3.13.0"
fi

OUT=${OUT:-$ROOT/gpu-check-out}
mkdir -p "$OUT"
LOG=$OUT/gpu_check.log
exec > >(tee -a "$LOG") 2>&1
START=$(date +%s)
export PYTHONUNBUFFERED=1 PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"

# -- setup: scinum from this checkout, orjson from carried wheels if the machine lacks it ----------
if ! "$PY" -c "import orjson" 2>/dev/null; then
    if ls .whl/*.whl >/dev/null 2>&1; then
        "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
        export PYTHONPATH="$PYTHONPATH:/tmp/site"
    fi
fi
"$PY" -c "import orjson, yaml, lightning, torch, scinum.train.fit" || {
    echo "gpu_check: a dependency is missing (orjson: run 'bash benchmarks/gpu_check.sh --wheels' here and carry .whl)"
    exit 3
}
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>/dev/null || echo "nvidia-smi: none"
    "$PY" -c "import torch, lightning, numpy, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda, 'lightning', lightning.__version__, 'numpy', numpy.__version__, 'gpu', torch.cuda.is_available())"
    nproc
    git log -1 --format='commit %H %s' 2>/dev/null || true
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

# -- the runs: name, time limit (s), command ----------------------------------------------------------
if [ "$MODE" = "--smoke" ]; then
    SMOKE=--smoke DEVICE=cpu
    LIMITS=(60 120 120 120)
    MAXS=(60 60 60)
else
    SMOKE="" DEVICE=cuda
    # 400 s in all, at most. On one H200 (experiments/gpu-check-h200) the tuned run's first 500
    # steps took 39-44 s and the compiled run's about 100 s: their limits leave a steady window
    LIMITS=(40 100 80 180)
    MAXS=(70 45 140)       # training seconds a run may take (its windows keep what ran), inside its limit
fi
declare -A STATUS LAST
run() {  # name limit command...
    local name=$1 limit=$2
    shift 2
    echo "== $name (limit ${limit}s; $(($(date +%s) - START))s so far)"
    timeout --kill-after=10 "$limit" "$@" | tee "$OUT/.$name.out"
    STATUS[$name]=${PIPESTATUS[0]}
    LAST[$name]=$(grep -v '^\s*$' "$OUT/.$name.out" | tail -n 1)
    rm -f "$OUT/.$name.out"
}
STEPS=(--first 500 --steady 300)
run peak_flops "${LIMITS[0]}" "$PY" benchmarks/peak_flops.py --device $DEVICE --json "$OUT/peak_flops.json" $SMOKE
run paper_tuned "${LIMITS[1]}" "$PY" benchmarks/paper_gpu_throughput.py --variants tuned "${STEPS[@]}" \
    --max-seconds "${MAXS[0]}" --json "$OUT/paper_tuned.json" --profile 20 --profile-dir "$OUT" $SMOKE
run paper_preset "${LIMITS[2]}" "$PY" benchmarks/paper_gpu_throughput.py --variants preset "${STEPS[@]}" \
    --max-seconds "${MAXS[1]}" --json "$OUT/paper_preset.json" $SMOKE
run paper_tuned_compile "${LIMITS[3]}" "$PY" benchmarks/paper_gpu_throughput.py --variants tuned+compile "${STEPS[@]}" \
    --max-seconds "${MAXS[2]}" --json "$OUT/paper_tuned_compile.json" $SMOKE

# -- summary ---------------------------------------------------------------------------------------
{
    for name in peak_flops paper_tuned paper_preset paper_tuned_compile; do
        printf '%s\t%s\t%s\n' "$name" "${STATUS[$name]:-not run}" "${LAST[$name]:-}"
    done
} | "$PY" -c '
import json, sys
rows = {}
for line in sys.stdin:
    name, status, last = (line.rstrip("\n").split("\t") + ["", ""])[:3]
    rows[name] = {"exit": status, "last_line": last}
json.dump({"mode": sys.argv[1], "seconds": int(sys.argv[2]), "runs": rows}, open(sys.argv[3], "w"), indent=1)
print(json.dumps(rows, indent=1))
' "$MODE" "$(($(date +%s) - START))" "$OUT/summary.json"
echo "gpu_check: done in $(($(date +%s) - START)) s; files in $OUT: $(cd "$OUT" && ls | tr '\n' ' ')"

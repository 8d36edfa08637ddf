#!/bin/bash
# One `scinum fit` in a fresh directory under $WORK (default /tmp/cpu-threads-under-load), its
# dataset built there once. Run from the repository root:
#
#   bash experiments/cpu-threads-under-load/fit.sh MODE DATA [run-config overrides ...]
#
# MODE: "default" (scinum as it is: `import scinum` sets GOMP_SPINCOUNT=1000, so torch's OpenMP
#       threads spin 1,000 times, then sleep, while they wait), "spin" (torch imported before
#       scinum: the runtime's own default, 300,000 spins; with OMP_WAIT_POLICY=PASSIVE or
#       GOMP_SPINCOUNT=N in the environment, that policy or count), "one" (default, one thread).
# DATA: "toy": the README's first quickstart (500 records of y = 2x + 1 + noise; 300 steps of 64);
#       "planets": planets-shaped records (benchmarks/quick_shapes.py: 2-4 planets, 12 steps, about
#       140 tokens; 60 steps of 32, the quick preset's xVal batch).
set -eu
WORK=${WORK:-/tmp/cpu-threads-under-load}
mode=$1 data=$2; shift 2
mkdir -p "$WORK"
case $data in
    toy)
        if [ ! -d "$WORK/toy" ]; then
            python -c "import json, random; r = random.Random(0); [print(json.dumps({'x': (x := r.uniform(0, 10)), 'y': 2 * x + 1 + r.gauss(0, 0.1)})) for _ in range(500)]" > "$WORK/toy.jsonl"
            scinum build jsonl "$WORK/toy" --train "$WORK/toy.jsonl" --split 0.8,0.1,0.1 --fields y > /dev/null 2>&1
        fi
        args=(data.path="$WORK/toy" 'data.mask_fields=[y]' trainer.max_steps=300) ;;
    planets)
        python -c "import sys; from pathlib import Path; sys.path.insert(0, 'benchmarks'); from quick_shapes import make_dataset; make_dataset(Path('$WORK/planets'))"
        args=(data.path="$WORK/planets" data.batch_size=32 trainer.max_steps=60) ;;
    *) echo "DATA: toy or planets" >&2; exit 2 ;;
esac
case $mode in
    default) cmd=(scinum) ;;
    one) cmd=(env OMP_NUM_THREADS=1 scinum) ;;
    spin) cmd=(python -c "import sys, torch; from scinum.cli.main import main; sys.argv[0] = 'scinum'; main()") ;;
    *) echo "MODE: default, spin or one" >&2; exit 2 ;;
esac
out=$(mktemp -d "$WORK/run.XXXXXX")
"${cmd[@]}" fit --config /dev/null "${args[@]}" trainer.progress_bar=false trainer.val_check_interval=1000 out_dir="$out" "$@" > "$out.log" 2>&1
rm -rf "$out" "$out.log"

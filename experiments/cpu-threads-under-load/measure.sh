#!/bin/bash
# Every figure of README.md, from the repository root on an otherwise idle machine:
#
#   bash experiments/cpu-threads-under-load/measure.sh [BUSY ...] >> experiments/cpu-threads-under-load/results.txt
#
# Quiet (BUSY 0, the default first): farm-bench pairs (A B A B ...) of scinum as it is against the
# OpenMP runtime's own spin count. BUSY N > 0: one run of each case (three of scinum as it is)
# beside N processes that each spin on a core (`python -c "while True: pass"`), in order; a run
# still going after 600 s is killed and shown as such. "pair": two fits of one kind started
# together, for each kind (two users' fits, or a grid search, on one machine). No arguments: 0 1 2 pair.
set -u
S=experiments/cpu-threads-under-load/fit.sh
R=experiments/cpu-threads-under-load/regressor.py
export WORK=${WORK:-/tmp/cpu-threads-under-load}
echo "# $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- scinum || echo '+dirty'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
bash $S default toy && bash $S default planets  # build the datasets once
quiet() {
    for data in toy planets; do
    echo "## quiet, $data: scinum as it is (A) vs the runtime's own spin count (B)"
    farm-bench -n 5 --timeout 1200 --vs "bash $S spin $data" -- bash $S default $data 2>&1 | grep -E "wall|cpu s|A/B"
    done
    echo "## quiet, Regressor 640 x 4: as it is, one thread a member (A) vs torch first, every thread (B: as before n_jobs)"
    farm-bench -n 3 --timeout 1200 --vs "python $R spin -1" -- python $R default 2>&1 | grep -E "wall|cpu s|A/B"
}
run() {  # label, command...: wall seconds of one run
    local label=$1 s e rc; shift
    s=$(date +%s.%N); timeout 600 "$@" > /dev/null 2>&1; rc=$?; e=$(date +%s.%N)
    printf '%-52s %8.1f s%s\n' "$label" "$(echo "$e - $s" | bc)" "$([ $rc = 124 ] && echo ' (killed at 600 s)' || { [ $rc = 0 ] || echo " (exit $rc)"; })"
}
busy() {  # N: wall seconds of every case beside N spinning processes
    local hogs=() i
    for ((i = 0; i < $1; i++)); do python -c "while True: pass" & hogs+=($!); done
    sleep 1
    echo "## busy: $1 process(es) spinning on a core beside each run"
    for i in 1 2 3; do run "toy, as it is (run $i)" bash $S default toy; done
    run "toy, one thread" bash $S one toy
    run "toy, the runtime's own spin count" bash $S spin toy
    run "toy, OMP_WAIT_POLICY=PASSIVE" env OMP_WAIT_POLICY=PASSIVE bash $S spin toy
    run "planets, as it is" bash $S default planets
    run "planets, one thread" bash $S one planets
    run "planets, the runtime's own spin count" bash $S spin planets
    run "Regressor 640 x 4, as it is (one thread a member)" python $R default
    run "Regressor 640 x 4, n_jobs=-1 (every thread, 1000 spins)" python $R default -1
    run "Regressor 640 x 4, torch first, n_jobs=-1 (as before)" python $R spin -1
    kill "${hogs[@]}"
}
pair() {  # two fits of each kind started together: each one's wall seconds
    echo "## side by side: two fits of one kind started together, nothing else running"
    local kind
    for kind in "toy;default" "toy;one" "toy;spin" "planets;default" "planets;spin"; do
        local data=${kind%;*} mode=${kind#*;}
        run "$data, $mode, first of two" bash $S "$mode" "$data" &
        run "$data, $mode, second of two" bash $S "$mode" "$data" &
        wait
    done
    run "Regressor 640 x 4, as it is, first of two" python $R default &
    run "Regressor 640 x 4, as it is, second of two" python $R default &
    wait
    run "Regressor 640 x 4, as before, first of two" python $R spin -1 &
    run "Regressor 640 x 4, as before, second of two" python $R spin -1 &
    wait
}
[ $# -gt 0 ] || set -- 0 1 2 pair
for n in "$@"; do
    case $n in
        0) quiet ;;
        pair) pair ;;
        *) busy "$n" ;;
    esac
done

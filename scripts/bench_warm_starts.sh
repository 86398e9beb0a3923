#!/usr/bin/env bash
# Warm starts by default (docs/benchmarks.md, "Warm starts by default"): on the shared Kernel Tuner spaces,
# product mode, 30 seeds, xgb with default options, in one script so that every row is run side by side:
#   1. cold starts (compare without --transfer, as tune --cold),
#   2. a deliberately misleading source: each dataset warm-started from its own times reversed, and from its
#      times dealt at random among its valid configs (a source that knows nothing of this kernel, as another
#      kernel's times would; scripts/make_misleading_prior.py), compare --prior,
#   3. leave one GPU out over the 18 shared files (compare --transfer; no static profiles there),
#   4. leave one GPU out over the bundled datasets with static profiles (the hardware-aware default prior).
# Usage: scripts/bench_warm_starts.sh [OUT_DIR] (default build/bench/warm) [--skip-cold]; about 70 min on 2
# cores. ROWS="reversed shuffled" (any of reversed, shuffled, transfer, bundled; default all four) runs only
# those warm rows. scripts/compare_pair.py prints the tables side by side.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/build/bench/warm}"
shared="${TUNESCOPE_SHARED_DATASETS:-$root/../shared/datasets/kernel_tuner}"
cli="${TUNESCOPE_CLI:-$root/build/app/cli/tunescope-cli}" # a copy may be named, to build meanwhile
export OMP_NUM_THREADS=1
mkdir -p "$out/misleading" "$out/shuffled"
common=(--strategies xgb --repeats 30 --budgets 25,50,100,200,400 --space product --threads 2)
datasets=("$shared"/*/*.json.gz)
rows=" ${ROWS:-reversed shuffled transfer bundled} "

[ "${2:-}" = "--skip-cold" ] || "$cli" compare "${common[@]}" --json "$out/cold.json" --dataset "${datasets[@]}" > "$out/cold.txt"

for d in "${datasets[@]}"; do
  name="$(basename "$(dirname "$d")")_$(basename "$d" .json.gz)"
  if [[ $rows == *" reversed "* ]]; then
    python3 "$root/scripts/make_misleading_prior.py" "$d" "$out/misleading/${name}_reversed.json.gz" --mode reversed
    "$cli" compare "${common[@]}" --dataset "$d" --prior "$out/misleading/${name}_reversed.json.gz" \
        --json "$out/misleading/$name.json" > "$out/misleading/$name.txt"
  fi
  if [[ $rows == *" shuffled "* ]]; then
    python3 "$root/scripts/make_misleading_prior.py" "$d" "$out/shuffled/${name}_shuffled.json.gz" --mode shuffled
    "$cli" compare "${common[@]}" --dataset "$d" --prior "$out/shuffled/${name}_shuffled.json.gz" \
        --json "$out/shuffled/$name.json" > "$out/shuffled/$name.txt"
  fi
done

[[ $rows != *" transfer "* ]] ||
  "$cli" compare "${common[@]}" --transfer --json "$out/transfer.json" --dataset "${datasets[@]}" > "$out/transfer.txt"

bundled=("$root"/resources/datasets/gemm_clblast_*.json.gz "$root"/resources/datasets/convolution_milo_*.json.gz
         "$root"/resources/datasets/dedispersion_*.json.gz)
# The bundled files are byte for byte the shared ones (their cold rows are those of step 1), with profiles.
[[ $rows != *" bundled "* ]] ||
  "$cli" compare "${common[@]}" --transfer --json "$out/bundled-transfer.json" --dataset "${bundled[@]}" \
      > "$out/bundled-transfer.txt"
echo "done" > "$out/done"

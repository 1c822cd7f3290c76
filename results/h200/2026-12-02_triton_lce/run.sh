#!/usr/bin/env bash
# The call that made this folder's results (on the H200, from the repository root):
#   results/h200/2026-12-02_triton_lce/run.sh "$OUT"
# Builds gpubench, runs the kernel-file GPU tests, AOT-compiles the shipped Triton step and this folder's tile sweep
# (scripts/triton-aot), then runs configs/ikbo_lce_triton.json (CUDA C++, cuBLASLt and Triton on one board) and the
# sweep's config.
set -uo pipefail
out="${1:?usage: run.sh OUT_DIR}"
here=results/h200/2026-12-02_triton_lce
source scripts/lib.sh
export GPUBENCH_BUILD="$PWD/build-device"
install_missing >/dev/null 2>&1
configure_and_build > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
gb="$GPUBENCH_BUILD/gpubench"
"$gb" --version
(cd "$GPUBENCH_BUILD" && ctest -R 'KernelFile' --output-on-failure --timeout 300) > "$out/ctest-kernel-files.txt" 2>&1
grep -E "tests passed|tests failed|Failure|Expected" "$out/ctest-kernel-files.txt" | head -20
python3 scripts/triton-aot ops/ikbo_lce/triton/triton_fused.build.json || exit 1
python3 scripts/triton-aot "$here/tiles.build.json" || exit 1
"$gb" run configs/ikbo_lce_triton.json -o "$out/ikbo_lce_triton" -f json,md
echo "ikbo_lce_triton: exit $?"
"$gb" run "$here/tiles_config.json" -o "$out/triton_tiles" -f json,md
echo "triton_tiles: exit $?"
tar czf "$out/built.tar.gz" ops/ikbo_lce/triton/triton_fused.json ops/ikbo_lce/triton/*.cubin "$here/tiles.json"

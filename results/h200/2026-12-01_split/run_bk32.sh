#!/usr/bin/env bash
# Run in the ninth session (results: README.md; prepared in the eighth; issue #6, NOTES.md round 10): the knock-outs put the
# mainloop itself at ≈ 85% of the tensor peak (460 kcycles with no epilogue, no init and E from L2, against
# ≈ 390 kcycles of wgmma work per SM), so its data waits matter. 32-K stages (22 KiB) with the TMA-store
# epilogue and store warps: 8 stages in the shared memory of 4 × 44 KiB, twice the release granularity
# (round 1's 32-K result, slower, predates every later change). Applies experiment-bk32.patch to the device's
# copy (GPUBENCH_EXP_BK32=1: no cluster, =2: 1×2 cluster; HEAD's default otherwise) and compares on one GPU,
# check on. No out/headsrc needed: one build.
#   results/h200/2026-12-01_split/run_bk32.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
(cd "$here/../../.." && git apply "$here/experiment-bk32.patch") || { echo "PATCH FAILED"; exit 1; }
source "$here/../../../scripts/experiment-lib.sh"
exp_init bk32 "${1:-}"
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config nc_fp16 fp16 pipelined '{"cluster": false}'
for r in 1 2; do
  exp_run base_r$r "$EXP_NEW" p_fp16
  GPUBENCH_EXP_BK32=2 exp_run bk32_1x2_r$r "$EXP_NEW" p_fp16
  exp_run base_nocluster_r$r "$EXP_NEW" nc_fp16
  GPUBENCH_EXP_BK32=1 exp_run bk32_nocluster_r$r "$EXP_NEW" nc_fp16
done
exp_stamp done

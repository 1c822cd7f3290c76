#!/usr/bin/env bash
# First device call of the seventh session (issue #6): (1) cluster residency of the `pipelined`
# footprint for cluster sizes 1…8 and a hybrid launch (30 clusters of 4 + 6 of 2, concurrently);
# (2) the SM clock inside the kernel (CTA 0: Δclock64 / Δglobaltimer, env GPUBENCH_EXP_CLOCK) in the
# default cold measurement, with cooldown 0 and hot; (3) E read from L2 only (candidate E boxes of batch
# b % 16, env GPUBENCH_EXP_EMOD, check off) for the 1×2 and 2×2 clusters. Experiment build (uncommitted
# switches, patch beside this script).   results/h200/2026-12-01_clock/run.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/experiment-lib.sh"
exp_init clock "${1:-}"
exp_stamp "cluster probe"
"$(find_nvcc)" -arch=sm_90a -std=c++17 -o /tmp/cluster_probe "$here/cluster_probe.cu" && timeout 60 /tmp/cluster_probe
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config p_2x2 fp16 pipelined '{"cluster": "2x2"}'
exp_config ka fp16 k_aligned '{}'
EXP_CHECK=0 exp_config p_nc fp16 pipelined '{}'
EXP_CHECK=0 exp_config p_2x2_nc fp16 pipelined '{"cluster": "2x2"}'
for f in p_fp16 p_nc; do  # the same with cooldown 0 (back to back) and hot (no L2 flush, back to back)
  python3 - "$EXP_WORK/$f.json" "$EXP_WORK/${f}_cd0.json" "$EXP_WORK/${f}_hot.json" << 'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["measure"] = {"cooldown": 0}; json.dump(c, open(sys.argv[2], "w"))
c["measure"] = {"cooldown": 0, "mode": "hot"}; json.dump(c, open(sys.argv[3], "w"))
PY
done
exp_clk() { GPUBENCH_EXP_CLOCK=1 exp_run "$@"; grep -h "exp_clock" "$EXP_WORK/$1.stdout.txt" | head -1; }
exp_run base_r1 "$EXP_NEW" p_fp16
exp_clk clk "$EXP_NEW" p_fp16
exp_clk clk_cd0 "$EXP_NEW" p_fp16_cd0
exp_clk clk_hot "$EXP_NEW" p_fp16_hot
exp_clk nc "$EXP_NEW" p_nc
GPUBENCH_EXP_EMOD=16 exp_clk el2 "$EXP_NEW" p_nc
GPUBENCH_EXP_EMOD=16 exp_clk el2_cd0 "$EXP_NEW" p_nc_cd0
exp_clk c22 "$EXP_NEW" p_2x2
GPUBENCH_EXP_EMOD=16 exp_clk c22_el2 "$EXP_NEW" p_2x2_nc
exp_run ka "$EXP_NEW" ka
grep -E "gemm_cand|nvjet" "$EXP_WORK/ka.stdout.txt" | head -4
exp_run base_r2 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EMOD=16 exp_clk el2_r2 "$EXP_NEW" p_nc
exp_stamp done

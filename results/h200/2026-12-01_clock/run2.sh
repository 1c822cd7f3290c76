#!/usr/bin/env bash
# Second device call (issue #6): cluster residency probe (smem fixed); in-kernel SM clock (printed when
# the variant is destroyed); E[b] of the tile GPUBENCH_EXP_EPF turns ahead bulk-prefetched into L2 (one
# chunk per ring stage, by the CTA at M tile 0 / N tile 0) against E from L2 only (upper bound).
#   results/h200/2026-12-01_clock/run2.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/experiment-lib.sh"
exp_init clock2 "${1:-}"
exp_stamp "cluster probe"
"$(find_nvcc)" -arch=sm_90a -std=c++17 -o /tmp/cluster_probe "$here/cluster_probe.cu" && timeout 60 /tmp/cluster_probe
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config p_bf16 bf16 pipelined '{}'
exp_config p_2x2 fp16 pipelined '{"cluster": "2x2"}'
EXP_CHECK=0 exp_config p_nc fp16 pipelined '{}'
python3 - "$EXP_WORK/p_fp16.json" "$EXP_WORK/p_fp16_hot.json" << 'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["measure"] = {"cooldown": 0, "mode": "hot"}; json.dump(c, open(sys.argv[2], "w"))
PY
exp_clk() { GPUBENCH_EXP_CLOCK=1 exp_run "$@"; grep -h "exp_clock" "$EXP_WORK/$1.stdout.txt" | head -2; }
exp_run base_r1 "$EXP_NEW" p_fp16
exp_clk clk "$EXP_NEW" p_fp16
exp_clk clk_hot "$EXP_NEW" p_fp16_hot
GPUBENCH_EXP_EPF=1 exp_clk pf1_r1 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=2 exp_run pf2_r1 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EMOD=16 exp_run el2 "$EXP_NEW" p_nc
exp_run base_r2 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=1 exp_run pf1_r2 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=2 exp_run pf2_r2 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=3 exp_run pf3 "$EXP_NEW" p_fp16
exp_run base_bf16 "$EXP_NEW" p_bf16
GPUBENCH_EXP_EPF=1 exp_run pf1_bf16 "$EXP_NEW" p_bf16
exp_run c22 "$EXP_NEW" p_2x2
GPUBENCH_EXP_EPF=1 exp_run c22_pf1 "$EXP_NEW" p_2x2
exp_run base_r3 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=1 exp_run pf1_r3 "$EXP_NEW" p_fp16
exp_stamp done

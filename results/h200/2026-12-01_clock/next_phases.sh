#!/usr/bin/env bash
# Prepared in the seventh session, run in the eighth (issue #6; README.md, data/phases/): applies
# experiment-on-2956018.patch to the device's copy of the working tree (the checkout here is untouched),
# then measures the per-phase cycles and the in-kernel clock of the store-warp kernel (NOTES.md round 9,
# next step 1), with the consumer-issued stores beside it, fp16 and bf16.
#   results/h200/2026-12-01_clock/next_phases.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
(cd "$here/../../.." && git apply "$here/experiment-on-2956018.patch") || { echo "PATCH FAILED"; exit 1; }
source "$here/../../../scripts/experiment-lib.sh"
exp_init phases "${1:-}"
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config c_fp16 fp16 pipelined '{"store_warp": false}'
exp_config p_bf16 bf16 pipelined '{}'
exp_ph() { GPUBENCH_EXP_PHASE=1 GPUBENCH_EXP_CLOCK=1 exp_run "$@"; grep -h "exp_phase\|exp_clock" "$EXP_WORK/$1.stdout.txt" | tail -3; }
exp_run base_r1 "$EXP_NEW" p_fp16
exp_ph ph_store_warp "$EXP_NEW" p_fp16
exp_ph ph_consumer_stores "$EXP_NEW" c_fp16
exp_ph ph_bf16 "$EXP_NEW" p_bf16
exp_run base_r2 "$EXP_NEW" p_fp16
exp_stamp done

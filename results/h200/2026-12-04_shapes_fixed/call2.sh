#!/usr/bin/env bash
# Twenty-seventh session, call 3: `gpubench ab` (A = k_aligned, B = pipelined or fused, ABBA pairs in one process)
# on every case where call.sh's sweep read the step more than 1% above k_aligned. At B = 8, 1000 and 100 per
# request are the same one request of 8, so one of them stands for both. Prebuilt binary (scripts/prebuilt).
#   results/h200/2026-12-04_shapes_fixed/call2.sh $OUT
set -uo pipefail
out="$1"
mkdir -p build && xz -dc .prebuilt/gpubench.xz > build/gpubench && chmod +x build/gpubench
gb=build/gpubench
export XDG_CACHE_HOME="${TMPDIR:-/tmp}/gpubench-ab-cache"
d="$out/ab"; mkdir -p "$d"
t0=$(date +%s)
ab_case() {  # STEP M N K_USER K_CAND BATCH LENGTH
  local name="$1_m$2_n$3_ku$4_kc$5_b$6_l$7"
  if [ $(( $(date +%s) - t0 )) -ge 440 ]; then echo "ab $name: skipped (budget)" >> "$out/summary.txt"; return; fi
  local cmd=("$gb" ab configs/ikbo_lce_shapes.json --a k_aligned --b "$1" -q
    --set "workload.shape={\"M\":$2,\"N\":$3,\"K_user\":$4,\"K_cand\":$5}" --set "workload.batch=$6"
    --set "workload.requests={\"distribution\":\"fixed\",\"params\":{\"length\":$7},\"seed\":1}"
    --format json -o "$d/$name.json")
  echo "${cmd[*]}" >> "$d/commands.txt"
  local s=$(date +%s)
  "${cmd[@]}" > "$d/$name.log" 2>&1
  echo "ab $name: exit $? in $(( $(date +%s) - s )) s" >> "$out/summary.txt"
}
ab_case pipelined 64 256 128 2048 8 100
ab_case pipelined 16 64 128 64 8 100
ab_case pipelined 64 200 512 128 8 100
ab_case pipelined 2048 128 512 256 8 100
ab_case pipelined 2048 128 512 256 8 1
ab_case pipelined 1024 136 2048 512 8 100
ab_case pipelined 433 256 1178 866 8 100
ab_case pipelined 256 96 4096 256 8 100
ab_case pipelined 256 96 4096 256 8 1
ab_case pipelined 1024 72 3000 64 8 1
ab_case pipelined 1024 72 3000 64 8 100
ab_case pipelined 16 64 128 64 16384 1
ab_case pipelined 2048 64 4096 1024 16384 100
ab_case fused 2048 128 512 256 8 100
ab_case fused 433 504 256 384 8 100
ab_case fused 64 256 128 2048 8 100
ab_case fused 433 256 1178 866 8 100
cp "$XDG_CACHE_HOME"/gpubench/lce-backend-*.json "$d/" 2>/dev/null
tar czf "$out/ab.tgz" -C "$out" ab && rm -rf "$d"
nvidia-smi --query-gpu=uuid --format=csv,noheader >> "$out/summary.txt"

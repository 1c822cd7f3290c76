#!/usr/bin/env bash
# The device call behind this folder (run from the repository root with .prebuilt carried). n256_probe built here with
#   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I. results/h200/2026-12-05_n256_probe/n256_probe.cu \
#        -o .prebuilt/n256_probe && xz -T0 -6 -f .prebuilt/n256_probe
# and .prebuilt/gpubench (strip -o .prebuilt/gpubench build/gpubench && xz -T0 -9e -f .prebuilt/gpubench) at the
# commit the README names. Order: the probe (checks, then timings), then `pipelined` on the same board (gpubench's
# default cooldown 1, then sustained with cooldown 0), all under
# nvidia-smi sampling of power and clock every 250 ms (read-only).
out="${OUT:-/tmp/n256_probe_out}"; mkdir -p "$out"; t0=$(date +%s)
xz -dkf .prebuilt/n256_probe.xz .prebuilt/gpubench.xz
chmod +x .prebuilt/n256_probe .prebuilt/gpubench
nvidia-smi -q > "$out/nvidia_smi_q.txt" 2>&1
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu \
  --format=csv -lms 250 > "$out/power.csv" 2>&1 & smi=$!
echo "probe from unix $(date +%s)" >> "$out/summary.txt"
timeout 240 .prebuilt/n256_probe "${PROBE_SECONDS:-3}" > "$out/n256_probe.txt" 2>&1
echo "probe exit $? at unix $(date +%s), $(( $(date +%s) - t0 )) s" >> "$out/summary.txt"
timeout 120 .prebuilt/gpubench run configs/ikbo_lce_fp16.json --variant pipelined -o "$out/plain_ikbo_lce_fp16" \
  -f json,md > "$out/run_plain.log" 2>&1
echo "pipelined run exit $? at unix $(date +%s), $(( $(date +%s) - t0 )) s" >> "$out/summary.txt"
# the same step sustained (no idle after each sample: the board at its power limit, as the probe's second column)
timeout 120 .prebuilt/gpubench run configs/ikbo_lce_fp16.json --variant pipelined --set measure.cooldown=0 \
  -o "$out/sustained_ikbo_lce_fp16" -f json,md > "$out/run_sustained.log" 2>&1
echo "pipelined sustained run exit $? at unix $(date +%s), $(( $(date +%s) - t0 )) s" >> "$out/summary.txt"
kill $smi

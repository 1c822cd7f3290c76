#!/usr/bin/env bash
# The device call behind this folder (run from the repository root, .prebuilt carried; fill_loop built here with
#   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I. results/h200/2026-12-05_fill_loop/fill_loop.cu \
#        -o .prebuilt/fill_loop && xz -T0 -6 -f .prebuilt/fill_loop
# and gpubench / gpubench_gpu_tests by scripts/prebuilt at the commit the README names).
# Order: the fill loop (with nvidia-smi sampling power and clock every 250 ms, read-only), the smem-only tensor loop
# and the op's pipelined step (sampled too), then the same with --metrics=all, then the GPU tests with the CLI binary.
# The GPU test binary has the build machine's paths compiled in (GPUBENCH_SOURCE_DIR /work/main, its build/ plugin and
# kernel-file folders): .prebuilt/bt.tar.xz holds those build/ folders (made with
#   mkdir -p /tmp/bt/tests && cp -a build/tests/plugins build/tests/kernel_files /tmp/bt/tests/ &&
#   cp -a build/examples /tmp/bt/ && tar -cJf .prebuilt/bt.tar.xz -C /tmp/bt .
# ), unpacked into this tree's build/, and /work/main is linked to this tree when it does not exist.
out="${OUT:-/tmp/fill_loop_out}"; mkdir -p "$out"; t0=$(date +%s)
xz -dkf .prebuilt/gpubench.xz .prebuilt/gpubench_gpu_tests.xz .prebuilt/fill_loop.xz
chmod +x .prebuilt/fill_loop
mkdir -p build && tar -xJf .prebuilt/bt.tar.xz -C build
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
gb=.prebuilt/gpubench
nvidia-smi -q > "$out/nvidia_smi_q.txt" 2>&1
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu \
  --format=csv -lms 250 > "$out/power.csv" 2>&1 & smi=$!
timeout 150 .prebuilt/fill_loop "${FILL_SECONDS:-5}" > "$out/fill_loop.txt" 2>&1
echo "fill_loop exit $? at $(( $(date +%s) - t0 )) s" >> "$out/summary.txt"
timeout 60 $gb devices --tensor-loop > "$out/tensor_loop.txt" 2>&1
echo "tensor-loop exit $? at $(( $(date +%s) - t0 )) s" >> "$out/summary.txt"
# the op without counters, still under power sampling (unix times in summary.txt line it up with power.csv)
echo "plain run from unix $(date +%s)" >> "$out/summary.txt"
timeout 90 $gb run configs/ikbo_lce_fp16.json --variant pipelined -o "$out/plain_ikbo_lce_fp16" -f json,md \
  > "$out/run_plain.log" 2>&1
echo "plain run exit $? at unix $(date +%s), $(( $(date +%s) - t0 )) s" >> "$out/summary.txt"
kill $smi
timeout 120 $gb run configs/ikbo_lce_fp16.json --variant pipelined --metrics=all -o "$out/metrics_ikbo_lce_fp16" \
  -f json,md > "$out/run_metrics.log" 2>&1
echo "run --metrics exit $? at $(( $(date +%s) - t0 )) s" >> "$out/summary.txt"
if [ "${TESTS_SECONDS:-240}" -gt 0 ]; then  # TESTS_SECONDS=0: leave the GPU tests out (a short device budget)
  GPUBENCH_BINARY=$PWD/$gb timeout "${TESTS_SECONDS:-240}" .prebuilt/gpubench_gpu_tests --gtest_brief=1 \
    > "$out/gpu_tests.log" 2>&1
  echo "gpu tests exit $? at $(( $(date +%s) - t0 )) s" >> "$out/summary.txt"
  tail -5 "$out/gpu_tests.log" >> "$out/summary.txt"
fi

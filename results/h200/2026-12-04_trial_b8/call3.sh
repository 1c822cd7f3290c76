#!/usr/bin/env bash
# Twenty-sixth session, call 3 (the session's device time did not allow a build there: 316 s in call 2): the
# binaries built here at 951cb5e (stripped, xz-compressed into .prebuilt/, which .git/info/exclude ignores; carried),
# the backend GPU tests in one process, then the round-19 case three times, each with an empty backend cache.
#   here:   strip -o /tmp/gb_s build/gpubench; strip -o /tmp/gt_s build/tests/gpubench_gpu_tests
#           mkdir -p .prebuilt; xz -c /tmp/gb_s > .prebuilt/gpubench.xz; xz -c /tmp/gt_s > .prebuilt/gpubench_gpu_tests.xz
#   device: results/h200/2026-12-04_trial_b8/call3.sh $OUT   (carry .prebuilt)
set -uo pipefail
out="$1"
mkdir -p /tmp/pb/tests "$out/r"
xz -dc .prebuilt/gpubench.xz > /tmp/pb/gpubench
xz -dc .prebuilt/gpubench_gpu_tests.xz > /tmp/pb/tests/gpubench_gpu_tests
chmod +x /tmp/pb/gpubench /tmp/pb/tests/gpubench_gpu_tests
XDG_CACHE_HOME=/tmp/xc0 /tmp/pb/tests/gpubench_gpu_tests --gtest_filter='Backend*' 2>&1 | tail -8
for i in 1 2 3; do
  XDG_CACHE_HOME=/tmp/xc$i timeout 60 /tmp/pb/gpubench run results/h200/2026-12-04_trial_b8/case.json -q \
    -o "$out/r/run_$i" -f md > "$out/r/run_$i.log" 2>&1
  echo "run $i exit $? timed-out notes: $(grep -c 'timed out' "$out/r/run_$i.md")"
done
nvidia-smi --query-gpu=uuid --format=csv,noheader
tar czf "$out/r.tgz" -C "$out" r && rm -rf "$out/r"

#!/usr/bin/env bash
# Helpers for kernel A/B experiments on the device (sourced by results/h200/*/run*.sh): build the
# committed HEAD (its source carried in out/headsrc) beside the working tree, write reference-shape
# configs with given options, run gpubench on them, check the SASS for serialized wgmma, profile with
# ncu. Every comparison then runs on one GPU in one call (boards differ by a few %: NOTES.md).
#   source scripts/experiment-lib.sh; exp_init NAME "$OUT"; exp_build; exp_config …; exp_run …
# Needs: scripts/lib.sh (install_missing, configure_and_build, find_nvcc), python3, ncu for exp_ncu.
# Make out/headsrc before the device call:
#   rm -rf out/headsrc && mkdir -p out/headsrc/.git && git archive HEAD CMakeLists.txt src kernels configs \
#     tests scripts | tar -x -C out/headsrc && git rev-parse HEAD > out/headsrc/.git/HEAD
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# exp_init NAME OUT: work folder /tmp/NAME (log, configs, reports), packed into OUT/NAME.tar.xz on exit.
exp_init() {
  EXP_NAME=$1
  EXP_OUT=${2:-/tmp/$1-out}
  EXP_WORK=/tmp/$1
  rm -rf "$EXP_WORK"; mkdir -p "$EXP_WORK" "$EXP_OUT"
  exec > >(tee "$EXP_WORK/run.log") 2>&1
  EXP_T0=$(date +%s)
  export GPUBENCH_BUILD="$GPUBENCH_ROOT/build-device"
  trap 'XZ_OPT="-9 -T0" tar cJf "$EXP_OUT/$EXP_NAME.tar.xz" -C "$EXP_WORK" .; cp "$EXP_WORK/run.log" "$EXP_OUT/"' EXIT
}

# exp_stamp TEXT: elapsed seconds and a heading in the log.
exp_stamp() { echo "== $(($(date +%s) - EXP_T0)) s: $*"; }

# exp_build: builds the working tree (EXP_NEW) and, when out/headsrc exists, HEAD (EXP_HEAD) in parallel.
exp_build() {
  exp_stamp build
  install_missing > /dev/null 2>&1 || true
  local headsrc="$GPUBENCH_ROOT/out/headsrc" hb=""
  EXP_HEAD=""
  if [[ -d $headsrc ]]; then
    (cmake -S "$headsrc" -B /tmp/headbuild -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(find_nvcc)" > /dev/null &&
      cmake --build /tmp/headbuild -j8 --target gpubench > "$EXP_WORK/head_build.log" 2>&1) &
    hb=$!
  fi
  configure_and_build > "$EXP_WORK/build.log" 2>&1 || { echo "BUILD FAILED"; tail -30 "$EXP_WORK/build.log"; exit 1; }
  if [[ -n $hb ]]; then
    wait "$hb" || { echo "HEAD BUILD FAILED"; tail -20 "$EXP_WORK/head_build.log"; exit 1; }
    EXP_HEAD=/tmp/headbuild/gpubench
    "$EXP_HEAD" --version
  fi
  EXP_NEW="$GPUBENCH_BUILD/gpubench"
  "$EXP_NEW" --version
  nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
}

# exp_sass OBJ_NAME…: per kernel object (pipelined, fused, …) of the new build, the count of functions,
# HGMMA and `DEPBAR.LE gsb0` waits (one 0x0 wait per function = wgmma not serialized by ptxas).
exp_sass() {
  exp_stamp "SASS: wgmma pattern per instantiation"
  local o f
  for o in "$@"; do
    f=$(find "$GPUBENCH_BUILD" -name "$o.cu.o" | head -1)
    cuobjdump -sass "$f" > "$EXP_WORK/$o.sass" 2> /dev/null
    echo "$o: functions $(grep -c 'Function :' "$EXP_WORK/$o.sass"), HGMMA $(grep -c HGMMA "$EXP_WORK/$o.sass")," \
      "DEPBAR.LE gsb0 0x0 $(grep -c 'DEPBAR.LE gsb0, 0x0' "$EXP_WORK/$o.sass"), 0x1 $(grep -c 'DEPBAR.LE gsb0, 0x1' "$EXP_WORK/$o.sass")"
  done
}

# exp_config NAME PRECISION VARIANT OPTIONS_JSON [BATCH [K_USER]]: writes $EXP_WORK/NAME.json, the
# reference shape (M 433, N 256, K_user 1178, K_cand 866, 70 candidates per request) with one variant;
# EXP_CHECK=0 turns the correctness check off (timing of a deliberately incomplete kernel); EXP_M sets M.
exp_config() {
  python3 - "$EXP_WORK/$1.json" "$1" "$2" "$3" "$4" "${5:-1024}" "${6:-1178}" << 'PY'
import json, os, sys
path, name, precision, variant, options, batch, k_user = sys.argv[1:8]
v = {"name": variant}
if json.loads(options):
    v["options"] = json.loads(options)
json.dump({"schema_version": 1, "name": name, "description": f"A/B: {variant} {options}",
           "device": {"index": 0, "model": "h200"}, "precision": precision,
           "workload": {"op": "ikbo_lce", "batch": int(batch),
                        "requests": {"distribution": "fixed", "params": {"length": 70}, "seed": 1},
                        "shape": {"M": int(os.environ.get("EXP_M", "433")), "N": 256, "K_user": int(k_user), "K_cand": 866}, "input_seed": 42},
           "variants": [v], "check": {"enabled": os.environ.get("EXP_CHECK", "1") != "0", "seeds": [1]}},
          open(path, "w"), indent=1)
PY
}

# exp_run NAME BINARY CONFIG_NAME: gpubench run on $EXP_WORK/CONFIG_NAME.json → $EXP_WORK/NAME/ (json, md),
# prints the exit code and the summary rows.
exp_run() {
  local name=$1 bin=$2 cfg=$3
  exp_stamp "run $name"
  local cmd="$bin run $EXP_WORK/$cfg.json -o $EXP_WORK/$name -f json,md"
  echo "$cmd" > "$EXP_WORK/$name.command.txt"
  (cd "$GPUBENCH_ROOT" && timeout 90 $cmd > "$EXP_WORK/$name.stdout.txt" 2>&1)
  echo "exit $?"
  grep -E "^\s*(fused|pipelined|k_aligned) " "$EXP_WORK/$name.stdout.txt" | head -4
}

# exp_ncu NAME BINARY CONFIG_NAME: one launch of the LCE tile kernel under ncu (clocks untouched):
# speed of light, warp states, memory, source-level stall samples → NAME_details.txt, NAME_source.csv
# and the stall table NAME_stall_top.txt (scripts/ncu-stall-top).
exp_ncu() {
  local name=$1 bin=$2 cfg=$3
  exp_stamp "ncu $name"
  python3 - "$EXP_WORK/$cfg.json" "$EXP_WORK/$name.json" << 'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["check"] = {"enabled": False}
c["measure"] = {"min_samples": 10, "min_time_s": 0.01, "timeout_s": 2}
json.dump(c, open(sys.argv[2], "w"))
PY
  (cd "$GPUBENCH_ROOT" && timeout 150 ncu --clock-control none --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg \
    -k regex:lce_tile_kernel -s 5 -c 1 -o "$EXP_WORK/$name" "$bin" run "$EXP_WORK/$name.json" -q --no-cupti \
    -o "$EXP_WORK/${name}_run" -f json > "$EXP_WORK/$name.log" 2>&1)
  echo "ncu exit $?"
  ncu --import "$EXP_WORK/$name.ncu-rep" --page details > "$EXP_WORK/${name}_details.txt" 2>&1
  ncu --import "$EXP_WORK/$name.ncu-rep" --page source --print-source sass --csv > "$EXP_WORK/${name}_source.csv" 2>&1
  grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|DRAM Throughput|L2 Cache Throughput|hmma_cycles" \
    "$EXP_WORK/${name}_details.txt" | head -8
  "$GPUBENCH_ROOT/scripts/ncu-stall-top" "$EXP_WORK/${name}_source.csv" 40 "$name" > "$EXP_WORK/${name}_stall_top.txt" 2>&1 &&
    head -30 "$EXP_WORK/${name}_stall_top.txt"
}

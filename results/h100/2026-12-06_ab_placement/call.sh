#!/usr/bin/env bash
# Third call: is ab's B-side bias the placement of each side's buffers? A temporary patch (b-first.patch plus a pad
# and a pointer print; not committed) reads GPUBENCH_EXPERIMENT_B_FIRST (B's instances set up first) and
# GPUBENCH_EXPERIMENT_PAD_MB (a buffer of that many MiB allocated between the two sides' set-ups).
# Carry .prebuilt/gpubench.xz (scripts/prebuilt of the patched tree) and the example plugin built here.
set -u
out="${OUT:-/tmp/ab_placement}"; mkdir -p "$out"; w=$(mktemp -d)
xz -dc .prebuilt/gpubench.xz > "$w/gpubench" && chmod +x "$w/gpubench"; g="$w/gpubench"
python3 - "$(realpath build/examples/embedding_bag/libgpubench_embedding_bag.so)" "$w/a.json" <<'PY'
import json,sys
c=json.load(open("configs/embedding_bag.json")); c["plugins"]=[sys.argv[1]]; c["workload"]["batch"]=65536
c["measure"]={"mode":"cold","min_samples":20,"min_time_s":0.0,"max_rel_stdev":0.5,"timeout_s":5}
json.dump(c,open(sys.argv[2],"w"))
PY
nvidia-smi --query-gpu=name,uuid,clocks.sm,power.draw --format=csv,noheader
show() { python3 -c "
import json,sys
for e in json.load(open(sys.argv[1]))['entries']: print(sys.argv[2], e['launch_group'] or 'region', e['verdict'], round(e['ratio'],4), round(e['old']['median_ms'],5), round(e['new']['median_ms'],5))" "$1" "$2"; }
one() {  # $1: name, rest: env assignments
  local n="$1"; shift
  env "$@" "$g" ab "$w/a.json" --a gather_reduce --b gather_reduce -q --format json -o "$out/$n.json" \
    >"$out/$n.log" 2>&1; grep EXPERIMENT "$out/$n.log"; show "$out/$n.json" "$n"
}
for i in 1 2; do
  one "afirst_$i" X=1
  one "bfirst_$i" GPUBENCH_EXPERIMENT_B_FIRST=1
done
for mb in 2 6 16 64 300; do one "pad${mb}" GPUBENCH_EXPERIMENT_PAD_MB=$mb; done
one "bfirst_pad16" GPUBENCH_EXPERIMENT_B_FIRST=1 GPUBENCH_EXPERIMENT_PAD_MB=16
one "afirst_3" X=1

#!/usr/bin/env bash
# Why the in-process swap of d70cec2 did not cancel the bias: each form prints the workspace and output addresses of
# every set-up and, per side, the median of segment_sum in each placement (first and second half of the pairs).
# Temporary patch experiment2.patch (not committed): GPUBENCH_EXPERIMENT_PRINT, _FREE_ORDER (tear down A first),
# _SWAP_PAD_MB (a pad allocated before the second set-up), _NO_SWAP (one placement).
set -u
out="${OUT:-/tmp/ab_placement}"; mkdir -p "$out"; w=$(mktemp -d)
xz -dc .prebuilt/gpubench.xz > "$w/gpubench" && chmod +x "$w/gpubench"; g="$w/gpubench"
so="$(realpath build/examples/embedding_bag/libgpubench_embedding_bag.so)"
python3 - "$so" "$w/a.json" <<'PY'
import json,sys
c=json.load(open("configs/embedding_bag.json")); c["plugins"]=[sys.argv[1]]; c["workload"]["batch"]=65536
c["measure"]={"mode":"cold","min_samples":20,"min_time_s":0.0,"max_rel_stdev":0.5,"timeout_s":5}
json.dump(c,open(sys.argv[2],"w"))
PY
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
halves() { python3 -c "
import json,sys,statistics as st
rep=json.load(open(sys.argv[1]))
for v in rep['cases'][0]['variants']:
  for g in v['launch_groups']:
    if g['name']!='segment_sum': continue
    s=g['samples_ms']; h=len(s)//2
    print(sys.argv[2], v['name'], 'segment_sum halves', round(st.median(s[:h]),5), round(st.median(s[h:]),5), len(s))
r=json.load(open(sys.argv[3]))
for e in r['entries']: print(sys.argv[2], e['launch_group'] or 'region', e['verdict'], round(e['ratio'],4))" "$1" "$2" "$3"; }
one() { local n="$1"; shift
  env GPUBENCH_EXPERIMENT_PRINT=1 "$@" "$g" ab "$w/a.json" --a gather_reduce --b gather_reduce -q --format json \
    -o "$w/$n.json" --report "$w/$n.r" >"$w/$n.log" 2>&1; grep EXPERIMENT "$w/$n.log"; halves "$w/$n.r.json" "$n" "$w/$n.json"; }
one swap X=1
one swap_again X=1
one free_a_first GPUBENCH_EXPERIMENT_FREE_ORDER=1
one swap_pad2 GPUBENCH_EXPERIMENT_SWAP_PAD_MB=2
one no_swap GPUBENCH_EXPERIMENT_NO_SWAP=1
tar czf "$out/call2.tgz" -C "$w" --exclude gpubench .

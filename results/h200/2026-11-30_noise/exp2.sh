#!/bin/bash
# Device experiment 2 (lead): idle cool-down between samples (GPUBENCH_COOLDOWN = idle / sample time).
R=$(pwd); T=/tmp/snap; rm -rf $T; mkdir -p $T; tar xf out/exp/snap.tar -C $T; cd $T
export GPUBENCH_GIT_SHA=$(cat $R/out/exp/sha)-cooldown
source scripts/lib.sh
export GPUBENCH_BUILD=$T/build-device
W=/tmp/exp2; rm -rf $W; mkdir -p $W
t0=$(date +%s); st() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
configure_and_build > $W/build.log 2>&1 || { tail -30 $W/build.log; exit 1; }
gb=$GPUBENCH_BUILD/gpubench
V="--variant baseline --variant decomposed --variant k_aligned --variant fused --variant pipelined"
for c in 0 1 3 6; do
  st "cooldown $c"
  GPUBENCH_COOLDOWN=$c $gb run configs/ikbo_lce_fp16.json $V -o $W/fp16_cd$c -f json > $W/fp16_cd$c.txt 2>&1; echo "exit $?"
  python3 - $W/fp16_cd$c.json <<'PY'
import json,sys
r=json.load(open(sys.argv[1]))
for v in r['cases'][0]['variants']:
    reg=v['region']; s=v['sampling']; c=v['sm_clock_mhz']
    ks=[(k['name'][:12],round(k['stats']['median'],4),round(k['stats']['rel_stdev']*100,2)) for o in v['ops'] for k in o.get('kernels',[]) if k['stats']['median']>0.05]
    print(f"{v['name']:11s} med {reg.get('median',0):.4f} relsd {reg.get('rel_stdev',0)*100:.2f}% n {reg.get('count')} clk {s.get('mean_sm_clock_mhz',0):.0f} min {min(c) if c else 0:.0f} drop {s.get('samples_dropped_clock')} stop {s.get('stop_reason')} wall {s.get('wall_time_s',0):.1f} {ks}")
PY
done
tar czf $OUT/exp2.tar.gz -C $W .

#!/bin/bash
# Device experiment 1 (lead): blocking kernel + read vs write L2 flush; ncu agreement; fused stall reasons.
R=$(pwd); T=/tmp/snap; rm -rf $T; mkdir -p $T; tar xf out/exp/snap.tar -C $T; cd $T
export GPUBENCH_GIT_SHA=$(cat $R/out/exp/sha)
source scripts/lib.sh
export GPUBENCH_BUILD=$T/build-device
W=/tmp/exp1; rm -rf $W; mkdir -p $W
t0=$(date +%s); st() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
st build
configure_and_build > $W/build.log 2>&1 || { tail -30 $W/build.log; tar czf $OUT/exp1.tar.gz -C $W .; exit 1; }
gb=$GPUBENCH_BUILD/gpubench
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
st measure tests
(cd $GPUBENCH_BUILD && ctest -R 'MeasureGpu' --output-on-failure --timeout 120) > $W/ctest-measure.log 2>&1; grep -E "tests passed|Failed|\*\*\*" $W/ctest-measure.log
V="--variant decomposed --variant k_aligned --variant fused --variant pipelined"
for m in read write; do
  st "run fp16 flush=$m"
  GPUBENCH_L2_FLUSH=$m $gb run configs/ikbo_lce_fp16.json $V -o $W/fp16_$m -f json,md > $W/fp16_$m.txt 2>&1; echo "exit $?"
  python3 - $W/fp16_$m.json <<'PY'
import json,sys
r=json.load(open(sys.argv[1]))
for v in r['cases'][0]['variants']:
    if v['status']!='ok' and v['status']!='pass': print(v['name'],v['status'],v['error'][:200]);
    reg=v['region']; s=v['sampling']
    ks=[(k['name'][:40],round(k['stats']['median'],4),round(k['stats']['rel_stdev']*100,2)) for o in v['ops'] for k in o.get('kernels',[])]
    print(f"{v['name']:11s} med {reg.get('median',0):.4f} relsd {reg.get('rel_stdev',0)*100:.2f}% n {reg.get('count')} clk {s.get('mean_sm_clock_mhz',0):.0f} drop {s.get('samples_dropped_clock')} stop {s.get('stop_reason')} kernels {ks} notes {v.get('notes')}")
PY
done
st "run fp16 hot"
$gb run configs/ikbo_lce_fp16.json $V --mode hot -o $W/fp16_hot -f json > $W/fp16_hot.txt 2>&1
python3 -c "
import json;r=json.load(open('$W/fp16_hot.json'))
for v in r['cases'][0]['variants']: print('hot',v['name'],round(v['region'].get('median',0),4),round(v['region'].get('rel_stdev',0)*100,2))"
for pair in "pipelined lce_tile_kernel" "k_aligned nvjet_sm90_hsh_128x224"; do
  set -- $pair
  st "ncu $1"
  timeout 200 ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum --csv -k regex:$2 -c 30 \
    $gb run configs/ikbo_lce_fp16.json --variant $1 -q -o $W/ncu_$1 -f json > $W/ncu_$1.csv 2> $W/ncu_$1.err; echo "ncu exit $?"
  for m in read write; do echo "[$m flush] $(python3 scripts/ncu_agreement.py $W/ncu_$1.csv $W/fp16_$m.json $1 | tr '\n' ' ')"; done
done
st "ncu fused sections"
timeout 200 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \
  --section MemoryWorkloadAnalysis --section Occupancy --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active \
  -k regex:lce_tile_kernel -c 1 $gb run configs/ikbo_lce_fp16.json --variant fused -q -o $W/ncu_fused -f json > $W/ncu_fused.txt 2>&1; echo "exit $?"
grep -E "Duration|Throughput|Tensor|hmma|Stall|Warp Cycles|Issued|Occupancy|Busy" $W/ncu_fused.txt | head -40
st done
tar czf $OUT/exp1.tar.gz -C $W .

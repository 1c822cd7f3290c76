#!/usr/bin/env bash
# Does `run --repeat` show where a step's buffers land (11a8a84: repetitions 2…R each hold a placement pad first)?
# The example embedding_bag op (configs/embedding_bag.json, B = 65536, cold, 20+ samples), step gather_reduce, whose
# launch group segment_sum moved ±7% with a pad in results/h100/2026-12-06_ab_placement. Four runs of 6 repetitions:
# --placement vary (the default) and same, twice each; then compare same/same, vary/vary, same/vary. Prints each
# repetition's pad and medians (region, gather, segment_sum) and each compare's region and segment_sum entries.
# Carry .prebuilt/gpubench.xz (scripts/prebuilt of 11a8a84) and build/examples/embedding_bag/libgpubench_embedding_bag.so.
set -u
out="${OUT:-/tmp/repeat_placement}"; mkdir -p "$out"; w=$(mktemp -d)
xz -dc .prebuilt/gpubench.xz > "$w/gpubench" && chmod +x "$w/gpubench"; g="$w/gpubench"
python3 - "$(realpath build/examples/embedding_bag/libgpubench_embedding_bag.so)" "$w/a.json" <<'PY'
import json,sys
c=json.load(open("configs/embedding_bag.json")); c["plugins"]=[sys.argv[1]]; c["workload"]["batch"]=65536
c["measure"]={"mode":"cold","min_samples":20,"min_time_s":0.0,"max_rel_stdev":0.5,"timeout_s":5}
json.dump(c,open(sys.argv[2],"w"))
PY
nvidia-smi --query-gpu=name,uuid,clocks.sm,power.draw --format=csv,noheader; "$g" --version
show() { python3 - "$1" "$2" <<'PY'
import json,sys,statistics as st
r=json.load(open(sys.argv[1]))
for c in r['cases']:
  for v in c['variants']:
    if v['status']!='ok': print(sys.argv[2], v['name'], v['status'], v.get('error','')); continue
    groups={g['name']:g['samples_ms'] for g in v['launch_groups']}; k0=0
    for k,rep in enumerate(v['repetitions']):
      n=rep['samples']; cols=' '.join('%s %.4f' % (name, st.median(s[k0:k0+n])) for name,s in groups.items())
      print(sys.argv[2], 'rep', k+1, 'pad %3d MiB' % rep['placement_pad_mib'], 'region %.4f' % rep['median_ms'], cols)
      k0+=n
PY
}
one() { local n="$1"; shift
  "$g" run "$w/a.json" --variant gather_reduce --repeat 6 "$@" -q -f json -o "$out/$n" >"$out/$n.log" 2>&1
  echo "$n rc=$?"; show "$out/$n.json" "$n"; }
cmp() { "$g" compare "$out/$1.json" "$out/$2.json" --format json -o "$out/cmp_$1_$2.json" >/dev/null 2>&1
  python3 -c "
import json,sys
for e in json.load(open(sys.argv[1]))['entries']:
  print(sys.argv[2], e['launch_group'] or 'region', e['verdict'], e['noise'], round(e['ratio'],4), '[%.4f, %.4f]' % (e['ci_low'], e['ci_high']))" \
    "$out/cmp_$1_$2.json" "$1/$2"; }
one vary_1
one same_1 --placement same
one vary_2
one same_2 --placement same
cmp same_1 same_2; cmp vary_1 vary_2; cmp same_1 vary_1
tar czf "$out/runs.tgz" -C "$out" $(cd "$out" && ls *.json *.log)

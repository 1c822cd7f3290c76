#!/usr/bin/env bash
# ab on the LCE ladder at the fp16 reference shape (configs/ikbo_lce_fp16.json, its measure block): pipelined against
# itself in one process and in two (one per set-up order), and fused against pipelined in two. Carry
# .prebuilt/gpubench.xz (scripts/prebuilt of the commit). Prints each entry's verdict, ratio, interval and note, and
# each process's region medians.
set -u
out="${OUT:-/tmp/ab_lce}"; mkdir -p "$out"; w=$(mktemp -d)
xz -dc .prebuilt/gpubench.xz > "$w/gpubench" && chmod +x "$w/gpubench"; g="$w/gpubench"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader; "$g" --version
show() { python3 -c "
import json,sys,statistics as st
r=json.load(open(sys.argv[1]))
for e in r['entries']: print(sys.argv[2], e['launch_group'] or 'region', e['verdict'], round(e['ratio'],4), '[%.4f, %.4f]' % (e['ci_low'], e['ci_high']), e['note'])
for c in json.load(open(sys.argv[3]))['cases']:
  print(sys.argv[2], c['label'][-18:], ' '.join('%s %.4f' % (v['name'], st.median(v['region_samples_ms'])) for v in c['variants']))" "$1" "$2" "$3"; }
one() { local n="$1"; shift
  "$g" ab configs/ikbo_lce_fp16.json "$@" --format json -o "$out/$n.json" --report "$out/$n.r" >"$out/$n.log" 2>&1
  echo "$n rc=$?"; show "$out/$n.json" "$n" "$out/$n.r.json"; }
one lce_self_one --a pipelined --b pipelined --one-process
one lce_self_two --a pipelined --b pipelined
one lce_fused_pipelined --a fused --b pipelined
grep -h "backend\|trial" "$out"/lce_self_two.log | head -8

#!/usr/bin/env bash
# cbc4297 on a GPU: `ab` in two processes (one per set-up order) on the step against itself (twice) and on two
# byte-identical plugin builds, and `--one-process` for contrast. Carry .prebuilt/gpubench.xz (scripts/prebuilt of
# the commit) and build/examples/embedding_bag/libgpubench_embedding_bag.so. Prints each entry's verdict, ratio,
# interval and note, each process's segment_sum medians from the raw report, and the wall time.
set -u
out="${OUT:-/tmp/ab_placement}"; mkdir -p "$out"; w=$(mktemp -d)
xz -dc .prebuilt/gpubench.xz > "$w/gpubench" && chmod +x "$w/gpubench"; g="$w/gpubench"
so="$(realpath build/examples/embedding_bag/libgpubench_embedding_bag.so)"; mkdir -p "$w/b"; cp "$so" "$w/b/"
python3 - "$so" "$w/a.json" <<'PY'
import json,sys
c=json.load(open("configs/embedding_bag.json")); c["plugins"]=[sys.argv[1]]; c["workload"]["batch"]=65536
c["measure"]={"mode":"cold","min_samples":20,"min_time_s":0.0,"max_rel_stdev":0.5,"timeout_s":5}
json.dump(c,open(sys.argv[2],"w"))
PY
nvidia-smi --query-gpu=name,uuid --format=csv,noheader; "$g" --version
show() { python3 -c "
import json,sys,statistics as st
r=json.load(open(sys.argv[1]))
for e in r['entries']: print(sys.argv[2], e['launch_group'] or 'region', e['verdict'], round(e['ratio'],4), '[%.4f, %.4f]' % (e['ci_low'], e['ci_high']), e['note'])
for c in json.load(open(sys.argv[3]))['cases']:
  print(sys.argv[2], c['label'][-18:], ' '.join('%s %.4f' % (v['name'][0], st.median(g['samples_ms'])) for v in c['variants'] for g in v['launch_groups'] if g['name']=='segment_sum'))" "$1" "$2" "$3"; }
one() { local n="$1"; shift; local t0=$(date +%s.%N)
  "$g" ab "$w/a.json" "$@" --format json -o "$out/$n.json" --report "$out/$n.r" >"$out/$n.log" 2>&1; echo "$n rc=$?"
  echo "$n wall $(python3 -c "print(round($(date +%s.%N)-$t0,1))") s"; show "$out/$n.json" "$n" "$out/$n.r.json"; }
one v2_self_1 --a gather_reduce --b gather_reduce
one v2_self_2 --a gather_reduce --b gather_reduce
one v2_builds --plugin-b "$w/b/$(basename "$so")" --step gather_reduce
one v2_one_process --a gather_reduce --b gather_reduce --one-process
head -c 3000 "$out/v2_self_1.log"

#!/usr/bin/env bash
# d70cec2's two buffer placements (since reverted), checked on a GPU: `ab` of a step against itself and of two
# byte-identical plugin builds. Carry .prebuilt/gpubench.xz (scripts/prebuilt of the
# commit) and build/examples/embedding_bag/libgpubench_embedding_bag.so. Writes $OUT/verify_*.json and prints each
# entry's verdict, ratio and interval, and the sides' placement note.
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
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
"$g" --version
show() { python3 -c "
import json,sys
r=json.load(open(sys.argv[1]))
for e in r['entries']: print(sys.argv[2], e['launch_group'] or 'region', e['verdict'], round(e['ratio'],4), '[%.4f, %.4f]' % (e['ci_low'], e['ci_high']), e['note'])
rep=json.load(open(sys.argv[3]))
print(sys.argv[2], 'notes:', [n for n in rep['cases'][0]['variants'][1]['notes'] if 'placement' in n])" "$1" "$2" "$3"; }
for i in 1 2 3; do
  "$g" ab "$w/a.json" --a gather_reduce --b gather_reduce -q --format json -o "$out/verify_self_$i.json" \
    --report "$w/self_$i" >/dev/null 2>&1; show "$out/verify_self_$i.json" "self#$i" "$w/self_$i.json"
done
"$g" ab "$w/a.json" --plugin-b "$w/b/$(basename "$so")" --step gather_reduce -q --format json \
  -o "$out/verify_builds.json" --report "$w/builds" >/dev/null 2>&1; show "$out/verify_builds.json" builds "$w/builds.json"
"$g" ab "$w/a.json" --a gather_reduce --b warp_vectorized -q --format json -o "$out/verify_change.json" \
  --report "$w/change" >/dev/null 2>&1; show "$out/verify_change.json" "gather_reduce-vs-warp_vectorized" "$w/change.json"

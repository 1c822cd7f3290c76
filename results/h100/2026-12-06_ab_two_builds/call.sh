#!/usr/bin/env bash
# Device call (warm machine after device-check, so build/ holds gpubench and the example plugin): `ab --plugin-b` of
# two byte-identical copies of the embedding_bag example plugin, both ways round, and one build's step against itself.
# Writes $OUT/ab_*.json and prints each entry's ratio and verdict.
set -u
out="${OUT:-/tmp/ab_two_builds}"; mkdir -p "$out"; w=$(mktemp -d)
a=build/examples/embedding_bag/libgpubench_embedding_bag.so
mkdir -p "$w/b"; cp "$a" "$w/b/"; b="$w/b/libgpubench_embedding_bag.so"
cfg() {  # $1: plugin path, $2: file — tests/gpu/ab_test.cpp's workload
  python3 - "$1" "$2" <<'PY'
import json,sys
c=json.load(open("configs/embedding_bag.json")); c["plugins"]=[sys.argv[1]]; c["workload"]["batch"]=65536
c["measure"]={"mode":"cold","min_samples":20,"min_time_s":0.0,"max_rel_stdev":0.5,"timeout_s":5}
json.dump(c,open(sys.argv[2],"w"))
PY
}
cfg "$(realpath $a)" "$w/a.json"; cfg "$b" "$w/copy.json"
show() { python3 -c "
import json,sys
for e in json.load(open(sys.argv[1]))['entries']: print(sys.argv[2], e['launch_group'] or 'region', e['verdict'], round(e['ratio'],4))" "$1" "$2"; }
for i in 1 2 3; do
  build/gpubench ab "$w/a.json" --plugin-b "$b" --step gather_reduce -q --format json -o "$out/ab_AB_$i.json" >/dev/null 2>&1; show "$out/ab_AB_$i.json" "A=orig,B=copy#$i"
  build/gpubench ab "$w/copy.json" --plugin-b "$(realpath $a)" --step gather_reduce -q --format json -o "$out/ab_BA_$i.json" >/dev/null 2>&1; show "$out/ab_BA_$i.json" "A=copy,B=orig#$i"
  build/gpubench ab "$w/a.json" --a gather_reduce --b gather_reduce -q --format json -o "$out/ab_self_$i.json" >/dev/null 2>&1; show "$out/ab_self_$i.json" "one build, step vs itself#$i"
done
nvidia-smi --query-gpu=name,uuid --format=csv,noheader

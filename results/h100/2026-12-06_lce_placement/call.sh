#!/usr/bin/env bash
# Does the LCE `pipelined` kernel's time move with where its buffers land (`run --repeat --placement vary`)? The
# embedding_bag op's segment_sum moved by up to 17% (results/h100/2026-12-06_repeat_placement); `ab` saw pipelined
# move 0.2% with one pad (results/h100/2026-12-06_ab_placement). configs/ikbo_lce_fp16.json (the reference shape,
# its own measurement settings), steps k_aligned and pipelined. Four runs of 6 repetitions: --placement vary (the
# default) and same, twice each; then compare same/same, vary/vary, same/vary. Prints each repetition's pad and
# region median per step, and each compare's region entries.
# Carry .prebuilt/gpubench.xz (scripts/prebuilt of the tree under test).
set -u
out="${OUT:-/tmp/lce_placement}"; mkdir -p "$out"; w=$(mktemp -d)
xz -dc .prebuilt/gpubench.xz > "$w/gpubench" && chmod +x "$w/gpubench"; g="$w/gpubench"
nvidia-smi --query-gpu=name,uuid,clocks.sm,power.draw --format=csv,noheader; "$g" --version
show() { python3 - "$1" "$2" <<'PY'
import json,sys
r=json.load(open(sys.argv[1]))
for c in r['cases']:
  for v in c['variants']:
    if not v.get('selected', True): continue
    if v['status']!='ok': print(sys.argv[2], v['name'], v['status'], v.get('error','')); continue
    print(sys.argv[2], v['name'], ' '.join('%d:%.4f' % (rep['placement_pad_mib'], rep['median_ms'])
                                           for rep in v['repetitions']))
PY
}
one() { local n="$1"; shift
  "$g" run configs/ikbo_lce_fp16.json --variant k_aligned --variant pipelined --repeat 6 --no-control "$@" -q \
    -f json -o "$out/$n" >"$out/$n.log" 2>&1
  echo "$n rc=$?"; show "$out/$n.json" "$n"; }
cmp() { "$g" compare "$out/$1.json" "$out/$2.json" --regions-only --format json -o "$out/cmp_$1_$2.json" \
    >/dev/null 2>&1
  python3 -c "
import json,sys
for e in json.load(open(sys.argv[1]))['entries']:
  print(sys.argv[2], e['variant'], e['verdict'], e['noise'], round(e['ratio'],4), '[%.4f, %.4f]' % (e['ci_low'], e['ci_high']))" \
    "$out/cmp_$1_$2.json" "$1/$2"; }
one vary_1
one same_1 --placement same
one vary_2
one same_2 --placement same
cmp same_1 same_2; cmp vary_1 vary_2; cmp same_1 vary_1
tar cJf "$out/runs.txz" -C "$out" $(cd "$out" && ls *.json *.log)

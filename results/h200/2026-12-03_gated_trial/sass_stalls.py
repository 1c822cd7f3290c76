import csv,sys,collections,re
def load(p):
    lines=open(p).read().splitlines()
    # first line kernel name, header second
    rows=list(csv.reader(lines[1:]))
    hdr=rows[0]; data=[dict(zip(hdr,r)) for r in rows[1:] if len(r)==len(hdr)]
    return hdr,data
def num(x):
    try: return float(x.replace(',',''))
    except: return 0.0
for p in sys.argv[1:]:
    hdr,data=load(p)
    stall_cols=[h for h in hdr if h.startswith('stall_')]
    tot=sum(num(d['Warp Stall Sampling (All Samples)']) for d in data)
    reasons=collections.Counter()
    for d in data:
        for s in stall_cols: reasons[s]+=num(d[s])
    print('==',p.split('/')[-1],'samples',int(tot))
    rs=sum(reasons.values())
    print('  reasons:', ', '.join(f"{k[6:]} {100*v/rs:.1f}%" for k,v in reasons.most_common(8)))
    ops=collections.Counter(); opstall=collections.defaultdict(collections.Counter)
    for d in data:
        op=d['Source'].split()[0] if d['Source'] else '?'
        if op.startswith('@'): op=d['Source'].split()[1]
        op=op.split('.')[0]
        n=num(d['Warp Stall Sampling (All Samples)'])
        ops[op]+=n
        for s in stall_cols: opstall[op][s[6:]]+=num(d[s])
    print('  by opcode:', ', '.join(f"{k} {100*v/tot:.1f}%" for k,v in ops.most_common(10)))
    top=sorted(data,key=lambda d:-num(d['Warp Stall Sampling (All Samples)']))[:12]
    for d in top:
        n=num(d['Warp Stall Sampling (All Samples)'])
        st=sorted(((num(d[s]),s[6:]) for s in stall_cols),reverse=True)[:2]
        print(f"   {d['Address']} {100*n/tot:5.1f}% {d['Source'][:60]:60s} {st[0][1]} {st[1][1]}  exec {d['Instructions Executed']}")

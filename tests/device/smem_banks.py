# A model of custom-fast's shared-memory wavefronts in its Stockham passes (gpu/fft_fast.cu: padi, column_stride,
# pass_store, pass_load), per store/load of each pass, as a multiple of the ideal (1.00: no bank conflicts), for the
# column blocks (C columns interleaved, c = threadIdx % C) and the row blocks; "blocked first": m102's first pass.
# It matched ncu at 1024^2 (PERF_NOTES "The 1024^2 one-launch kernel instruction by instruction"). python3 smem_banks.py
# Shared-memory wavefronts of custom-fast's Stockham passes (64-bit accesses, a half-warp a wavefront ideally).
import collections, sys
kE=16
def padi(i): return i + (i>>4)
def padded_len(n): return n + n//16
def first_radix(l): return 16 if l%4==0 else 1<<(l%4)
def passes(l): return (1 if l%4 else 0) + l//4
def column_stride(n,C):
    s=padded_len(n)
    if C<=1 or C>16: return s
    while s%16 != (16//C)%16: s+=1
    return s
def wavefronts(addrs):  # addrs: list of 32 float2 indices (None inactive)
    w=0
    for h in (addrs[:16],addrs[16:]):
        b=collections.defaultdict(set)
        for a in h:
            if a is not None: b[a%16].add(a)
        w+=max((len(s) for s in b.values()),default=0)
    return w
def model(n,C,cols=True,blocked=False,threads=None):
    l=n.bit_length()-1; tpc=n//kE
    if threads is None: threads=C*tpc
    stride=column_stride(n,C) if cols else padded_len(n)
    def ct(x):  # (line, t)
        return (x%C, x//C) if cols else (x//tpc, x%tpc)
    res=[]
    ns_log=0
    for p in range(passes(l)):
        R=first_radix(l) if p==0 else 16; nq=kE//R; ns=1<<ns_log
        # store of this pass (if not last)
        if p+1<passes(l):
            tot=ideal=0
            for q in range(nq):
                for r in range(R):
                    for w0 in range(0,threads,32):
                        ad=[]
                        for x in range(w0,w0+32):
                            c,t=ct(x)
                            if p==0 and blocked: bb=t*nq+q
                            else: bb=t+q*tpc
                            base=(bb>>ns_log)*ns*R + (bb&(ns-1))
                            ad.append(c*stride+padi(base+r*ns))
                        tot+=wavefronts(ad); ideal+=2
            res.append(('store',p,R,tot/ideal))
            # next pass load
            tot=ideal=0
            nq2=kE//16
            for q in range(nq2):
                for r in range(16):
                    for w0 in range(0,threads,32):
                        ad=[]
                        for x in range(w0,w0+32):
                            c,t=ct(x); bb=t+q*tpc
                            ad.append(c*stride+padi(bb+r*(n//16)))
                        tot+=wavefronts(ad); ideal+=2
            res.append(('load',p+1,16,tot/ideal))
        ns_log+=R.bit_length()-1
    return res
for n in (256,512,1024,2048,4096,8192):
    for C in (1,2,4,8,16):
        if C*(n//kE)>1024: continue
        r=model(n,C); rb=model(n,C,blocked=True)
        print(n,C,'cols',[f"{k}{p}:{x:.2f}" for k,p,R,x in r],'| blocked first',[f"{k}{p}:{x:.2f}" for k,p,R,x in rb])
    print(n,'rows', [f"{k}{p}:{x:.2f}" for k,p,R,x in model(n,1,cols=False,threads=256 if n<=4096 else n//16)])

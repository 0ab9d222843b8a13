import json,sys,statistics
# Prints, per benchmark of each JMH json file: the median of the measurement iterations, min, max, the median bytes
# per op (-prof gc), and the median CPU time per op of the worker threads when -prof CpuTimeProfiler was on.
def med(b,key):
    m=b['secondaryMetrics'].get(key,{})
    raw=[x for it in m.get('rawData',[]) for x in it]
    return statistics.median(raw) if raw else None
for f in sys.argv[1:]:
    print("##",f)
    for b in json.load(open(f)):
        name=b['benchmark'].split('.')[-2]+'.'+b['benchmark'].split('.')[-1]
        p=b.get('params',{}); key=name+' '+' '.join(f"{k}={v}" for k,v in p.items())
        raw=[x for it in b['primaryMetric']['rawData'] for x in it]
        al=med(b,'gc.alloc.rate.norm'); cpu=med(b,'cpu.worker')
        line=(f"{key:60s} median {statistics.median(raw):12.1f} {b['primaryMetric']['scoreUnit']:7s} min {min(raw):12.1f}"
              f" max {max(raw):12.1f}  B/op median {al if al is not None else float('nan'):10.0f}")
        if cpu is not None:
            line+=f"  cpu.worker ns/op median {cpu:8.1f}"
        print(line)

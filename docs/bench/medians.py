import json,sys,statistics
for f in sys.argv[1:]:
    print("##",f)
    for b in json.load(open(f)):
        name=b['benchmark'].split('.')[-2]+'.'+b['benchmark'].split('.')[-1]
        p=b.get('params',{}); key=name+' '+' '.join(f"{k}={v}" for k,v in p.items())
        raw=[x for it in b['primaryMetric']['rawData'] for x in it]
        al=b['secondaryMetrics'].get('gc.alloc.rate.norm',{})
        araw=[x for it in al.get('rawData',[]) for x in it]
        print(f"{key:60s} median {statistics.median(raw):12.1f} {b['primaryMetric']['scoreUnit']:7s} min {min(raw):12.1f} max {max(raw):12.1f}  B/op median {statistics.median(araw) if araw else float('nan'):10.0f}")

# usage: python3 targets.py <WholePathBenchmark json>...: medians and the ratios the targets of issue 30 name
import json,sys,statistics
def load(f):
    out={}
    for b in json.load(open(f)):
        n=b['benchmark'].split('.')[-1]; w=b.get('params',{}).get('workload','')
        def med(key):
            m=b['secondaryMetrics'].get(key,{}); raw=[x for it in m.get('rawData',[]) for x in it]
            return statistics.median(raw) if raw else float('nan')
        raw=[x for it in b['primaryMetric']['rawData'] for x in it]
        out[(n,w)]=(statistics.median(raw),med('cpu.worker'),med('gc.alloc.rate.norm'))
    return out
for f in sys.argv[1:]:
    d=load(f); print('##',f)
    for w in 'AB':
        g=lambda n:d[(n,w)]
        rt,sp,lc,di,dr=g('toolcallRuntime'),g('springAiToolCallingManager'),g('langchain4jDefaultToolExecutor'),g('toolcallRuntimeSpringAiManager'),g('direct')
        print(f"{w}: runtime {rt[0]:.0f} ns cpu {rt[1]:.0f} {rt[2]:.0f} B | spring {sp[0]:.0f} cpu {sp[1]:.0f} {sp[2]:.0f} B | lc4j {lc[0]:.0f} cpu {lc[1]:.0f} {lc[2]:.0f} B | dropin {di[0]:.0f} cpu {di[1]:.0f} {di[2]:.0f} B | direct {dr[0]:.0f} {dr[2]:.0f} B")
        print(f"   runtime/spring time {rt[0]/sp[0]:.2f} cpu {rt[1]/sp[1]:.2f} bytes {rt[2]/sp[2]:.2f}; runtime/lc4j time {rt[0]/lc[0]:.2f} cpu {rt[1]/lc[1]:.2f} bytes {rt[2]/lc[2]:.2f}; dropin/spring time {di[0]/sp[0]:.2f} cpu {di[1]/sp[1]:.2f} bytes {di[2]/sp[2]:.2f}; overhead {rt[2]-dr[2]:.0f} B")

# usage: python3 whole-path-ratios.py <WholePathBenchmark json>...
# For each JMH JSON file (-rf json, run with -prof gc and -prof dev.toolcall.execution.CpuTimeProfiler): per workload,
# the medians of time, CPU time of the benchmark thread (cpu.worker) and bytes per op (gc.alloc.rate.norm) of the
# paths docs/performance.md compares, and the ratios it quotes.
import json, statistics, sys


def load(path):
    out = {}
    for b in json.load(open(path)):
        name = b['benchmark'].split('.')[-1]
        workload = b.get('params', {}).get('workload', '')

        def med(key):
            m = b['secondaryMetrics'].get(key, {})
            raw = [x for it in m.get('rawData', []) for x in it]
            return statistics.median(raw) if raw else float('nan')

        raw = [x for it in b['primaryMetric']['rawData'] for x in it]
        out[(name, workload)] = (statistics.median(raw), med('cpu.worker'), med('gc.alloc.rate.norm'))
    return out


for path in sys.argv[1:]:
    d = load(path)
    print('##', path)
    for w in 'AB':
        g = lambda n: d[(n, w)]
        rt, sp, lc, di, dr = (g('toolcallRuntime'), g('springAiToolCallingManager'),
                              g('langchain4jDefaultToolExecutor'), g('toolcallRuntimeSpringAiManager'), g('direct'))
        print(f"{w}: runtime {rt[0]:.0f} ns cpu {rt[1]:.0f} {rt[2]:.0f} B | spring {sp[0]:.0f} cpu {sp[1]:.0f} {sp[2]:.0f} B"
              f" | lc4j {lc[0]:.0f} cpu {lc[1]:.0f} {lc[2]:.0f} B | drop-in {di[0]:.0f} cpu {di[1]:.0f} {di[2]:.0f} B"
              f" | direct {dr[0]:.0f} {dr[2]:.0f} B")
        if ('springAiToolCallingManagerDefaultPrompt', w) in d:
            sd, dd = g('springAiToolCallingManagerDefaultPrompt'), g('toolcallRuntimeSpringAiManagerDefaultPrompt')
            print(f"   default prompt: spring {sd[0]:.0f} cpu {sd[1]:.0f} {sd[2]:.0f} B | drop-in {dd[0]:.0f}"
                  f" cpu {dd[1]:.0f} {dd[2]:.0f} B | runtime/spring cpu {rt[1]/sd[1]:.2f} bytes {rt[2]/sd[2]:.2f};"
                  f" drop-in/spring cpu {dd[1]/sd[1]:.2f} bytes {dd[2]/sd[2]:.2f}")
        print(f"   runtime/spring cpu {rt[1]/sp[1]:.2f} bytes {rt[2]/sp[2]:.2f}; runtime/lc4j cpu {rt[1]/lc[1]:.2f}"
              f" bytes {rt[2]/lc[2]:.2f}; drop-in/spring cpu {di[1]/sp[1]:.2f} bytes {di[2]/sp[2]:.2f};"
              f" runtime over direct {rt[2]-dr[2]:.0f} B")

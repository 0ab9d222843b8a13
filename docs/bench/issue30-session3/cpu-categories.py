# usage: jfr print --json --events jdk.ExecutionSample x.jfr > x.json; python3 cpu-categories.py x.json (CPU samples of the JMH worker, each counted against the first rule any frame matches)
import json,sys,collections
sys.path.insert(0,'/work/main/docs/bench/whole-path-30')
rules=[('schema validation (networknt, ArgumentSchema)',('com.networknt','ArgumentSchema','SchemaCheck','CompiledSchema')),
 ('argument copies (deepCopy)',('deepCopy',)),
 ('argument parsing (ArgumentParser, Jackson parser)',('ArgumentParser','ParsedArguments')),
 ('tool body and its result',('ToolResult','WholePathBenchmark.lambda')),
 ('events (bus)',('ToolCallEvent','dev.toolcall.event')),
 ('state changes (ToolCall, snapshots)',('dev.toolcall.ToolCall.','ToolCallSnapshot','dev.toolcall.fsm','ToolCallIdentity','AbstractStateCell')),
 ('known-ids window',('KnownCalls',)),
 ('nesting',('Nesting',)),
 ('timer',('HeapDeadlineTimer','DeadlineTimer')),
 ('permission/policy',('dev.toolcall.permission',)),
 ('batch, runs and futures',('Claims','BatchImpl','CallRun','Attempt','CompletableFuture','dev.toolcall.execution')),
 ('Spring AI',('org.springframework','dev.toolcall.springai')),
 ('runtime entry',('ToolCallRuntime','CallRequest','WholePathBenchmark.')),
]
d=json.load(open(sys.argv[1]))
c=collections.Counter(); top=collections.Counter(); tot=0
for e in d['recording']['events']:
    v=e['values']; fr=v['stackTrace']['frames'] if v.get('stackTrace') else []
    names=[(f['method']['type']['name']+'.'+f['method']['name']).replace('/','.') for f in fr]
    if 'jmh-worker' not in (v.get('sampledThread') or {}).get('javaName',''): continue
    tot+=1; top[names[0]]+=1
    # innermost library frame decides: walk from the leaf up to the first matching rule
    for label,keys in rules:
        if any(k in n for n in names for k in keys):
            c[label]+=1; break
    else: c['other']+=1
print("samples",tot)
for k,v in c.most_common(): print(f"{100*v/tot:5.1f}%  {k}")
print("## top leaf frames")
for k,v in top.most_common(25): print(f"{100*v/tot:5.1f}%  {k}")

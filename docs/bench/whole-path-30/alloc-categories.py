import json,sys,collections
# share of sampled allocation weight per part of the path: each sample goes to the first rule (in order) that any of
# its frames matches; samples outside the benchmark method (JMH, class loading, JFR) are left out
rules=[('schema validation (networknt, ArgumentSchema)',('com/networknt','ArgumentSchema')),
 ('argument copies (ObjectNode.deepCopy)',('ObjectNode.deepCopy',)),
 ('argument parsing (ArgumentParser, Jackson parser)',('ArgumentParser',)),
 ('tool body and its result (ToolResult, benchmark lambda)',('ToolResult','WholePathBenchmark.lambda')),
 ('events (ToolCallEvent, bus)',('ToolCallEvent','dev/toolcall/event')),
 ('state changes (ToolCall, snapshots, TransitionResult)',('dev/toolcall/ToolCall.','ToolCallSnapshot','dev/toolcall/fsm','ToolCallIdentity')),
 ('known-ids window (KnownCalls)',('KnownCalls',)),
 ('nesting registry (Nesting)',('Nesting',)),
 ('timer (HeapDeadlineTimer)',('HeapDeadlineTimer',)),
 ('batch, runs and futures (Claims, BatchImpl, CallRun, Attempt, CompletableFuture)',('Claims','BatchImpl','CallRun','Attempt','CompletableFuture','dev/toolcall/execution')),
 ('Spring AI manager and callback',('org/springframework','dev/toolcall/springai')),
 ('runtime entry and request (ToolCallRuntime, CallRequest, List.of in the benchmark)',('ToolCallRuntime','CallRequest','WholePathBenchmark.')),
]
d=json.load(open(sys.argv[1]))
c=collections.Counter(); tot=0
for e in d['recording']['events']:
    v=e['values']; fr=v['stackTrace']['frames'] if v.get('stackTrace') else []
    names=[f['method']['type']['name']+'.'+f['method']['name'] for f in fr]
    if not any('WholePathBenchmark.' in n for n in names): continue
    w=v['weight']; tot+=w
    for label,keys in rules:
        if any(k in n for n in names for k in keys):
            c[label]+=w; break
    else: c['other']+=w
for k,v in c.most_common(): print(f"{100*v/tot:5.1f}%  {k}")

import json,sys,collections
# share of samples per part of the drop-in's path: each sample goes to the first rule (in order) that any of its
# frames matches; samples outside the benchmark method (JMH, class loading, JFR) are left out.
# usage: cat.py recording.json [alloc|cpu]
rules=[('Spring callback: MethodToolCallback (JSON parse, binding, result to JSON)',('MethodToolCallback','org/springframework/ai/util/json','DefaultToolCallResultConverter')),
 ('schema validation (networknt, ArgumentSchema)',('com/networknt','ArgumentSchema')),
 ('argument copies (ObjectNode.deepCopy)',('ObjectNode.deepCopy',)),
 ('argument parsing (ArgumentParser, Jackson parser)',('ArgumentParser',)),
 ('drop-in tool adapter (SpringAiTools, RequestCalls.find, ToolResult)',('SpringAiTools','RequestCalls.find','ToolResult')),
 ('events (ToolCallEvent, bus)',('ToolCallEvent','dev/toolcall/event')),
 ('state changes (ToolCall, snapshots, TransitionResult)',('dev/toolcall/ToolCall.','ToolCallSnapshot','dev/toolcall/fsm','ToolCallIdentity')),
 ('known-ids window (KnownCalls)',('KnownCalls',)),
 ('nesting registry (Nesting)',('Nesting',)),
 ('timer (HeapDeadlineTimer)',('HeapDeadlineTimer',)),
 ('permission policy',('dev/toolcall/permission',)),
 ('batch, runs and futures (Claims, BatchImpl, CallRun, Attempt, CompletableFuture)',('Claims','BatchImpl','CallRun','Attempt','CompletableFuture','dev/toolcall/execution')),
 ('runtime entry (ToolCallRuntime, registry)',('dev/toolcall/runtime','dev/toolcall/tool')),
 ('drop-in manager: options, session, tool context, ids, bindings',('SpringAiToolCallingManager.executeToolCalls','SpringAiToolCallingManager.toolContext','SpringAiToolCallingManager.session','SpringAiToolCallingManager.offered','SpringAiCompat','RequestCalls','SpringAiToolCallingManager.ensureTool','SpringAiToolCallingManager.run','ChatOptions')),
 ('drop-in manager: answer (ToolResponseMessage, history, ToolExecutionResult)',('SpringAiToolCallingManager.answer',)),
 ('Spring manager (DefaultToolCallingManager, observation, messages)',('org/springframework','io/micrometer')),
 ('benchmark (request, List.of)',('WholePathBenchmark.',)),
]
d=json.load(open(sys.argv[1]))
c=collections.Counter(); n=collections.Counter(); tot=0; cnt=0
for e in d['recording']['events']:
    v=e['values']; fr=v['stackTrace']['frames'] if v.get('stackTrace') else []
    names=[f['method']['type']['name']+'.'+f['method']['name'] for f in fr]
    if not any('WholePathBenchmark.' in x for x in names): continue
    w=v.get('weight',1); tot+=w; cnt+=1
    for label,keys in rules:
        if any(k in x for x in names for k in keys):
            c[label]+=w; n[label]+=1; break
    else:
        c['other']+=w; n['other']+=1
print(f"# {cnt} samples")
for k,v in c.most_common(): print(f"{100*v/tot:5.1f}%  ({n[k]:4d})  {k}")

# usage: jfr print --json --events jdk.ExecutionSample x.jfr > x.json        (CPU samples), or
#        jfr print --json --events jdk.ObjectAllocationSample x.jfr > x.json (allocation samples), then
#        python3 jfr-parts.py x.json [runtime|dropin]
#
# The share of a WholePathBenchmark recording per part of the path: each sample whose stack passes through the
# benchmark is counted (by its weight for allocation samples, once for CPU samples) against the first rule, in the
# order below, that any of its frames matches; samples outside the benchmark (JMH, class loading, JFR) are left out.
# 'runtime' has the parts of ToolCallRuntime's path, 'dropin' adds the Spring AI managers' parts. Record with
#   -jvmArgsAppend "-XX:FlightRecorderOptions:stackdepth=256 -XX:StartFlightRecording=settings=profile,delay=6s,filename=x.jfr"
# on one benchmark and workload at a time.
import collections, json, sys

RUNTIME = [
    ('schema validation (networknt, CompiledSchema)', ('com.networknt', 'ArgumentSchema', 'SchemaCheck', 'CompiledSchema')),
    ('argument copies', ('deepCopy', 'JsonCopies')),
    ('argument parsing (ArgumentParser, FastJson, Jackson parser)', ('ArgumentParser', 'FastJson', 'ParsedArguments')),
    ('tool body and its result', ('ToolResult', 'WholePathBenchmark.lambda')),
    ('events (bus)', ('ToolCallEvent', 'dev.toolcall.event')),
    ('state changes (ToolCall, snapshots)', ('dev.toolcall.ToolCall.', 'ToolCallSnapshot', 'dev.toolcall.fsm',
                                             'ToolCallIdentity', 'AbstractStateCell')),
    ('known-ids window (KnownCalls)', ('KnownCalls',)),
    ('nesting registry', ('Nesting',)),
    ('timer', ('DeadlineTimer',)),
    ('permission policy', ('dev.toolcall.permission',)),
    ('batch, runs and futures', ('Claims', 'BatchImpl', 'CallRun', 'Attempt', 'CompletableFuture',
                                 'dev.toolcall.execution')),
    ('Spring AI', ('org.springframework', 'io.micrometer', 'dev.toolcall.springai')),
    ('runtime entry and request', ('dev.toolcall.runtime', 'dev.toolcall.tool', 'CallRequest', 'WholePathBenchmark.')),
]

DROPIN = [
    ('Spring callback: MethodToolCallback (JSON parse, binding, result to JSON)',
     ('MethodToolCallback', 'org.springframework.ai.util.json', 'DefaultToolCallResultConverter')),
    ('drop-in manager: answer (ToolResponseMessage, history, ToolExecutionResult)', ('SpringAiToolCallingManager.answer',)),
    ('drop-in manager: options, session, tool context, ids, bindings',
     ('SpringAiToolCallingManager', 'SpringAiCompat', 'RequestCalls', 'ToolContextMap', 'ChatOptions')),
    ('drop-in tool adapter (SpringAiTools)', ('SpringAiTools',)),
    ('Spring manager (DefaultToolCallingManager, observation, messages)', ('org.springframework', 'io.micrometer')),
] + [r for r in RUNTIME if r[0] != 'Spring AI']

rules = DROPIN if len(sys.argv) > 2 and sys.argv[2] == 'dropin' else RUNTIME
recording = json.load(open(sys.argv[1]))
weights, counts, total, samples = collections.Counter(), collections.Counter(), 0, 0
for event in recording['recording']['events']:
    values = event['values']
    frames = values['stackTrace']['frames'] if values.get('stackTrace') else []
    names = [(f['method']['type']['name'] + '.' + f['method']['name']).replace('/', '.') for f in frames]
    if not any('WholePathBenchmark.' in n for n in names):
        continue
    weight = values.get('weight', 1)
    total += weight
    samples += 1
    for label, keys in rules:
        if any(k in n for n in names for k in keys):
            weights[label] += weight
            counts[label] += 1
            break
    else:
        weights['other'] += weight
        counts['other'] += 1
print(f"# {samples} samples")
for label, weight in weights.most_common():
    print(f"{100 * weight / total:5.1f}%  ({counts[label]:5d})  {label}")

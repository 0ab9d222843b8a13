// README:begin
// Talk to the AG-UI endpoint with the official client (npm install @ag-ui/client@1.0.0): send a message, approve what
// the agent asks, print the answer. AGUI_URL (the server's /agui), AGUI_TOKEN and AGUI_THREAD come from the environment.
const { HttpAgent } = require('@ag-ui/client');

(async () => {
  const agent = new HttpAgent({ url: process.env.AGUI_URL, threadId: process.env.AGUI_THREAD,
    headers: { Authorization: 'Bearer ' + process.env.AGUI_TOKEN } });
  agent.addMessage({ id: 'u1', role: 'user', content: 'please run echo hello' });
  let params = {};
  for (;;) {
    let finished;
    let answer = '';
    await agent.runAgent(params, {
      onTextMessageContentEvent({ event }) { answer += event.delta; },
      onRunFinishedEvent(p) { finished = p; },
    });
    if (finished.outcome !== 'interrupt') {
      console.log(answer);
      return;
    }
    // each interrupt is a permission request: its metadata is the request (tool, arguments, argumentsVersion)
    finished.interrupts.forEach(i => console.log('approving ' + i.metadata.toolName + ' ' + i.metadata.arguments));
    params = { resume: finished.interrupts.map(i => ({ interruptId: i.id, status: 'resolved',
      payload: { decision: 'approve_once', argumentsVersion: i.metadata.argumentsVersion } })) };
  }
})();
// README:end

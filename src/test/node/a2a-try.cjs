// README:begin
// Talk to an A2A server with the official client (npm install @a2a-js/sdk@1.3.0): send a message, approve what the
// agent asks, print the answer. A2A_URL, A2A_TOKEN, A2A_CONTEXT (default demo) and A2A_TEXT come from the environment.
const { ClientFactory } = require('@a2a-js/sdk/client');
const { Role, TaskState } = require('@a2a-js/sdk');

const env = process.env;
const opts = { serviceParameters: { Authorization: 'Bearer ' + env.A2A_TOKEN } };
const contextId = env.A2A_CONTEXT || 'demo';
const message = (taskId, content) => ({ message: { messageId: String(Math.random()), role: Role.ROLE_USER,
  contextId, taskId, parts: [{ content, mediaType: '', filename: '' }] } });

(async () => {
  const client = await new ClientFactory().createFromUrl(env.A2A_URL);
  let msg = message('', { $case: 'text', value: env.A2A_TEXT || 'Why did CI fail?' });
  for (;;) {
    let task, status;
    for await (const { payload } of client.sendMessageStream(msg, opts)) {
      if (payload.$case === 'task') task = payload.value;
      if (payload.$case === 'statusUpdate') status = payload.value.status;
    }
    const parts = status.message.parts.map(p => p.content);
    if (status.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      console.log(TaskState[status.state] + ': ' + parts.filter(c => c.$case === 'text').map(c => c.value).join('\n'));
      return;
    }
    const asks = parts.filter(c => c.$case === 'data' && c.value.type === 'interrupt').map(c => c.value);
    asks.forEach(i => console.log('approving ' + i.toolName + ' ' + JSON.stringify(i.arguments)));
    msg = message(task.id, { $case: 'data', value: { v: 1, decisions: asks.map(i =>
      ({ requestId: i.requestId, argumentsVersion: i.argumentsVersion, decision: 'approve_once' })) } });
  }
})();
// README:end

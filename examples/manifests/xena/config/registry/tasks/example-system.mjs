// A stand-in for "Example system", the task tracker behind tool.tasks.example.source.
// It is a `command` provider (see examples/overrides/xena-tasks.yaml): toolcap runs it
// through its runtime, sends the call's arguments on stdin, and reads the JSON it prints.
// Its open tasks are reported as updated minutes ago, as a live tracker's would be;
// a real deployment points the tool at the tracker's API (an http or mcp provider).
const minutesAgo = (n) => new Date(Date.now() - n * 60_000).toISOString();
const tasks = [
  { id: 'EX-42', title: 'Rotate the staging database credentials', status: 'in_progress', updated_at: minutesAgo(1), html_url: 'https://tracker.example.com/EX-42', assignee: { login: 'xena' } },
  { id: 'EX-41', title: 'Review the on-call handover notes', status: 'todo', updated_at: minutesAgo(12), html_url: 'https://tracker.example.com/EX-41' },
];
process.stdout.write(JSON.stringify({ tasks }));

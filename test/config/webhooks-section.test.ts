/**
 * The `webhooks` section: a dispatcher (inbox by default, jetstream,
 * temporal) and per tool the variable holding its secret or key; what is
 * wrong is a located diagnostic. `openWebhooks` reads the secrets from the
 * environment and warns of a variable that is not set.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { configJsonSchema } from '../../src/config/config.js';
import { createAjv } from '../../src/model/validator.js';
import { openWebhooks } from '../../src/config/sections/webhooks.js';
import { configLoader } from './helpers.js';
import { connect } from 'nats';

const natsUp = await connect({ servers: '127.0.0.1:4222', timeout: 2000 }).then(async (nc) => (await nc.close(), true), () => false);

const load = configLoader('toolcap-webhooks-');

describe('webhooks', () => {
  it.each([
    ['the inbox by default', 'webhooks: { tools: { t.a: { secretEnv: A_SECRET } } }\n', { dispatcher: { kind: 'inbox' }, tools: { 't.a': { secretEnv: 'A_SECRET' } } }],
    ['jetstream with its defaults', 'webhooks: { dispatcher: { kind: jetstream }, tools: { t.a: { keyEnv: A_KEY, toleranceSec: 60 } } }\n', { dispatcher: { kind: 'jetstream', servers: ['127.0.0.1:4222'] }, tools: { 't.a': { keyEnv: 'A_KEY', toleranceSec: 60 } } }],
    ['temporal', 'webhooks: { dispatcher: { kind: temporal, address: "127.0.0.1:7233", taskQueue: xena }, tools: {} }\n', { dispatcher: { kind: 'temporal', address: '127.0.0.1:7233', taskQueue: 'xena' } }],
    ['pointers', 'webhooks: { tools: { t.a: { secretEnv: S, workflowIdPointer: /task/id, eventIdPointer: /id } } }\n', { tools: { 't.a': { secretEnv: 'S', workflowIdPointer: '/task/id', eventIdPointer: '/id' } } }],
  ])('reads %s', (_label, yaml, expected) => {
    const { config, diagnostics } = load(yaml);
    expect(diagnostics).toEqual([]);
    expect(config?.webhooks).toMatchObject(expected);
  });

  it.each([
    ['a tool with neither secretEnv nor keyEnv', 'webhooks: { tools: { t.a: { toleranceSec: 5 } } }\n', 'MISSING_FIELD', '/webhooks/tools/t.a'],
    ['a secret instead of a variable name', 'webhooks: { tools: { t.a: { secretEnv: "whsec-1234 5678" } } }\n', 'INVALID_VALUE', '/webhooks/tools/t.a/secretEnv'],
    ['temporal without taskQueue', 'webhooks: { dispatcher: { kind: temporal, address: "h:7233" } }\n', 'MISSING_FIELD', '/webhooks/dispatcher'],
    ['an unknown dispatcher', 'webhooks: { dispatcher: { kind: kafka } }\n', 'UNKNOWN_ENUM_VALUE', '/webhooks/dispatcher/kind'],
    ['a pointer that is no pointer', 'webhooks: { tools: { t.a: { secretEnv: S, workflowIdPointer: id } } }\n', 'INVALID_VALUE', '/webhooks/tools/t.a/workflowIdPointer'],
    ['a tolerance out of range', 'webhooks: { tools: { t.a: { secretEnv: S, toleranceSec: 0 } } }\n', 'INVALID_VALUE', '/webhooks/tools/t.a/toleranceSec'],
  ])('refuses %s', (_label, yaml, code, pointer) => {
    const { diagnostics } = load(yaml);
    expect(diagnostics).toMatchObject([{ code, pointer }]);
  });

  it('the JSON Schema of a config accepts the example, and refuses what the reader refuses', () => {
    const validate = createAjv().compile(configJsonSchema());
    expect(validate(parse(readFileSync('examples/xena/toolcap.config.yaml', 'utf8')))).toBe(true);
    expect(validate(parse('sources: [m]\nwebhooks: { dispatcher: { kind: kafka } }\n'))).toBe(false);
    expect(validate(parse('sources: [m]\nwebhooks: { tools: { t.a: { secretEnv: "not a name" } } }\n'))).toBe(false);
  });

  it('an unknown field is a warning', () => {
    const { diagnostics } = load('webhooks: { tools: { t.a: { secretEnv: S, secret: x } } }\n');
    expect(diagnostics).toMatchObject([{ code: 'UNKNOWN_FIELD', severity: 'warning', pointer: '/webhooks/tools/t.a/secret' }]);
  });

  it('openWebhooks reads secrets from the environment and names the variables that are not set', async () => {
    const opened = await openWebhooks({ dispatcher: { kind: 'inbox' }, tools: { 't.a': { secretEnv: 'A_SECRET' }, 't.b': { keyEnv: 'B_KEY' } } }, { A_SECRET: 'whsec-abcdef123456' });
    expect(opened.options.tools).toEqual({ 't.a': { secret: 'whsec-abcdef123456' }, 't.b': {} });
    expect(opened.options.dispatcher).toBeUndefined();
    expect(opened.warnings).toEqual(['webhooks: B_KEY is not set; webhooks of t.b are refused (401)']);
    expect(opened.warnings.join(' ')).not.toContain('whsec-abcdef123456');
    await opened.close();
  });

  it.skipIf(!natsUp)('openWebhooks says when a JetStream stream\'s duplicate window cuts a signed hook\'s tolerance', async () => {
    const run = `W${Date.now().toString(36).toUpperCase()}`;
    const nc = await connect({ servers: '127.0.0.1:4222' });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: `TOOLCAP_CFG_${run}`, subjects: [`toolcap.cfg.${run}.>`], duplicate_window: 120e9 });
    try {
      const opened = await openWebhooks(
        { dispatcher: { kind: 'jetstream', servers: ['127.0.0.1:4222'], stream: `TOOLCAP_CFG_${run}`, subjectPrefix: `toolcap.cfg.${run}` }, tools: { 't.a': { secretEnv: 'A_SECRET' }, 't.b': { keyEnv: 'B_KEY' } } },
        { A_SECRET: 'whsec-abcdef123456', B_KEY: 'key-abcdef123456' },
      );
      expect(opened.options.dispatcher?.dedupeWindowSec).toBe(120);
      expect(opened.warnings).toEqual([expect.stringMatching(/^webhooks: the jetstream dispatcher remembers event keys for 120 s, so signed webhooks of t\.a are accepted within 60 s of their timestamp, not 300 s .*at least 600 s$/)]);
      await opened.close();
    } finally {
      await jsm.streams.delete(`TOOLCAP_CFG_${run}`).catch(() => undefined);
      await nc.close();
    }
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describePlan } from '../../src/profile/describe-plan.ts';
import { loadPlan } from '../../src/profile/load-profile.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-describe-');
const env = { LIST_SECRET: 'list-secret-from-env', SHARED: 'shared-secret-from-env', PASSWORD: 'url-password-123' };
writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ b: 'file-secret-for-b' }));
writeFileSync(
  join(dir, 'external.json'),
  JSON.stringify({
    target: 'https://api.example.com/v1',
    auth: { extraFields: { audience: 'api', password: 'form-password-xyz' } },
    clients: { list: [{ id: 'a', secret: '${LIST_SECRET}' }, { id: 'b' }], secretsFile: 'secrets.json' },
    scenarios: [
      {
        steps: [
          // a secret pasted into args is scrubbed by value, templates stay as written
          { method: 'echo', args: { who: '{{client.id}}', note: 'copy of ${LIST_SECRET}', token: 'arg-token-value' } },
        ],
      },
    ],
    phases: [{ duration: '1s', rate: 1 }],
    thresholds: ['p99 < 250ms'],
  }),
);
writeFileSync(
  join(dir, 'embedded.json'),
  JSON.stringify({
    clients: { count: 2, secret: '${SHARED}' },
    scenarios: [{ steps: [{ method: 'ping' }] }],
    phases: [{ duration: '1s', concurrency: 2 }],
  }),
);

describe('describePlan', () => {
  it('contains no secret anywhere (client secrets, file secrets, secret form fields and args)', async () => {
    const plan = await loadPlan(join(dir, 'external.json'), undefined, env);
    const text = JSON.stringify(describePlan(plan));
    for (const secret of [
      ...Object.values(env),
      'file-secret-for-b',
      'form-password-xyz',
      'arg-token-value',
      ...plan.clients.map((c) => c.secret),
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });

  it('shows the resolved plan: clients without secrets, templates as written, thresholds as text', async () => {
    const description = describePlan(await loadPlan(join(dir, 'external.json'), undefined, env));
    expect(description).toMatchObject({
      target: 'https://api.example.com/v1',
      embeddedServer: null,
      auth: { extraFields: { audience: 'api', password: '[redacted]' } },
      clients: [
        { id: 'a', secret: '[redacted]', weight: 1 },
        { id: 'b', secret: '[redacted]', weight: 1 },
      ],
      scenarios: [
        {
          name: 'scenario-1',
          steps: [
            {
              method: 'echo',
              args: { who: '{{client.id}}', note: 'copy of [redacted]', token: '[redacted]' },
              variability: 'client',
            },
          ],
        },
      ],
      thresholds: ['p99 < 250ms'],
    });
  });

  it('includes the embedded server settings when there is no target, and stays mutable JSON', async () => {
    const plan = await loadPlan(join(dir, 'embedded.json'), undefined, env);
    const description = describePlan(plan);
    expect(description).toMatchObject({
      target: null,
      embeddedServer: { limit: 100, tokenResponse: 'envelope' },
      phases: [{ load: { kind: 'concurrency', vus: 2 } }],
    });
    expect(JSON.stringify(description)).not.toContain(env.SHARED);
    expect(JSON.parse(JSON.stringify(description))).toEqual(description);
    expect(Object.isFrozen(description.phases)).toBe(false);
  });
});

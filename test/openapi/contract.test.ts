import { describe, expect, it } from 'vitest';
import { type CheckedResponse, checkResponse } from '../support/contract';

/** The integration suite's contract check, on responses made up to break it one way each. */

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  text: JSON.stringify(body),
  headers: new Headers({
    'Content-Type': 'application/json; charset=utf-8',
    'X-Request-Id': 'r-1',
    ...headers,
  }),
});

const policy = {
  publisher_id: 'acme',
  enforce_game: true,
  enforce_publisher: true,
  enforce_global: true,
  enforce_cheat_global: true,
  enforce_social_global: false,
  rep_include_game: true,
  rep_include_publisher: true,
  rep_include_global: true,
  global_sources: 'all',
  global_quorum: 1,
  rep_global_sources: 'all',
  rep_global_quorum: 1,
  updated_at: '2026-03-02T10:15:00.000Z',
};
const getPolicy = (response: Omit<CheckedResponse, 'method' | 'path'>) =>
  checkResponse({ method: 'GET', path: '/v1/policy', ...response });
const envelope = (code: string) => ({ error: { code, message: 'm' }, request_id: 'r-1' });

describe('the contract check', () => {
  it('accepts a documented response', () => {
    expect(() => getPolicy(json(200, policy))).not.toThrow();
    expect(() =>
      checkResponse({
        method: 'GET',
        path: '/v1/device/d%3A1/bans?limit=5&status=all',
        ...json(401, envelope('unauthorized'), { 'WWW-Authenticate': 'Bearer' }),
      }),
    ).not.toThrow();
  });

  it('fails an undocumented status', () => {
    expect(() => getPolicy(json(404, envelope('not_found')))).toThrow(/undocumented status/);
    expect(() =>
      checkResponse({ method: 'GET', path: '/health', ...json(401, envelope('unauthorized')) }),
    ).toThrow(/undocumented status/);
  });

  it('fails a body without a required field', () => {
    const { updated_at: _, ...withoutUpdatedAt } = policy;
    expect(() => getPolicy(json(200, withoutUpdatedAt))).toThrow(/must have required property 'updated_at'/);
  });

  it('fails a body with an undocumented field', () => {
    expect(() => getPolicy(json(200, { ...policy, enforce_everything: true }))).toThrow(
      /must NOT have additional properties/,
    );
  });

  it('fails a field of the wrong type', () => {
    expect(() => getPolicy(json(200, { ...policy, enforce_game: 'yes' }))).toThrow(/must be boolean/);
  });

  it('fails an error whose code does not belong to its status', () => {
    expect(() => getPolicy(json(400, envelope('not_found')))).toThrow(
      /must be equal to one of the allowed values/,
    );
  });

  it('fails a response without a documented required header', () => {
    expect(() => getPolicy(json(401, envelope('unauthorized')))).toThrow(
      /header WWW-Authenticate is missing/,
    );
    const noRequestId = json(200, policy);
    noRequestId.headers.delete('X-Request-Id');
    expect(() => getPolicy(noRequestId)).toThrow(/header X-Request-Id is missing/);
  });

  it('fails a body that is not JSON', () => {
    expect(() => getPolicy({ ...json(200, policy), text: '<html>' })).toThrow(/not JSON/);
    expect(() => getPolicy({ ...json(200, policy), headers: new Headers({ 'X-Request-Id': 'r' }) })).toThrow(
      /Content-Type/,
    );
  });

  it('lets the gateway answer 404/405 for what is not an operation, in the envelope only', () => {
    expect(() =>
      checkResponse({ method: 'GET', path: '/v2/nothing', ...json(404, envelope('not_found')) }),
    ).not.toThrow();
    expect(() =>
      checkResponse({ method: 'DELETE', path: '/v1/policy', ...json(405, envelope('method_not_allowed')) }),
    ).not.toThrow();
    expect(() =>
      checkResponse({ method: 'GET', path: '/v2/nothing', ...json(404, { message: 'Not Found' }) }),
    ).toThrow(/does not match/);
    expect(() => checkResponse({ method: 'GET', path: '/v2/nothing', ...json(200, { ok: true }) })).toThrow(
      /no operation is documented/,
    );
  });
});

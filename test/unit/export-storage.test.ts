import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EXPORT_URL_SECONDS,
  exportFileName,
  exportFileUrl,
  putExportFile,
} from '../../lib/storage/export-files';
import { parseExportJobMessage, queueExportJob } from '../../lib/storage/export-queue';
import { stubSettings, unstubSettings } from '../support/settings';

/**
 * The export jobs' storage as deployed (no local stand-in installed): the part files are put in
 * the bucket the stack names, the download URLs are pre-signed GETs of the SDK's for 15 minutes,
 * and a job is one message on the export queue.
 */

const s3 = mockClient(S3Client);
const sqs = mockClient(SQSClient);
const name = exportFileName('acme', 'exp_Qm3vX8pLr2Tz4KwB9sC1aE', 'bans', 2);

beforeEach(() => {
  stubSettings({
    EXPORT_BUCKET: 'exports-bucket-1',
    EXPORT_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/exports',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEEXAMPLE00',
    AWS_SECRET_ACCESS_KEY: 'secret-example-not-a-real-one',
  });
  s3.reset();
  sqs.reset();
});
afterEach(() => unstubSettings());

describe('export files, deployed', () => {
  it('names a part <publisher>/<export_id>/<kind>-<part, 5 digits>.jsonl', () => {
    expect(name).toBe('acme/exp_Qm3vX8pLr2Tz4KwB9sC1aE/bans-00002.jsonl');
  });

  it('puts a part whole, as JSON lines, in the bucket the stack names', async () => {
    s3.on(PutObjectCommand).resolves({});
    await putExportFile(name, '{"a":1}\n');
    expect(s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input)).toEqual([
      {
        Bucket: 'exports-bucket-1',
        Key: name,
        Body: '{"a":1}\n',
        ContentType: 'application/jsonl; charset=utf-8',
      },
    ]);
  });

  it('answers a GET of the object pre-signed for 15 minutes, sending nothing', async () => {
    const now = Date.parse('2026-11-29T10:00:00.000Z');
    const { url, expiresAt } = await exportFileUrl(name, now);
    expect(expiresAt).toBe(now + 15 * 60_000);
    expect(EXPORT_URL_SECONDS).toBe(900);
    const parsed = new URL(url);
    expect(parsed.protocol).toBe('https:');
    expect(parsed.hostname).toMatch(/^exports-bucket-1\.s3\.eu-west-1\.amazonaws\.com$/);
    expect(parsed.pathname).toBe(`/${name}`);
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(parsed.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(parsed.searchParams.get('X-Amz-Credential')).toMatch(
      /^AKIAEXAMPLEEXAMPLE00\/\d{8}\/eu-west-1\/s3\//,
    );
    expect(parsed.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(s3.calls()).toHaveLength(0);
  });

  it('fails loudly without a bucket', async () => {
    unstubSettings();
    stubSettings({ EXPORT_BUCKET: '' });
    await expect(putExportFile(name, '')).rejects.toThrow('EXPORT_BUCKET is not set');
  });
});

describe('the export queue, deployed', () => {
  it('queues a job as one message naming it', async () => {
    sqs.on(SendMessageCommand).resolves({});
    await queueExportJob({ publisher_id: 'acme', export_id: 'exp_Qm3vX8pLr2Tz4KwB9sC1aE' });
    const [call] = sqs.commandCalls(SendMessageCommand);
    expect(call?.args[0].input.QueueUrl).toBe('https://sqs.eu-west-1.amazonaws.com/123456789012/exports');
    expect(parseExportJobMessage(call?.args[0].input.MessageBody as string)).toEqual({
      publisher_id: 'acme',
      export_id: 'exp_Qm3vX8pLr2Tz4KwB9sC1aE',
    });
  });

  it('refuses a message that names no job', () => {
    for (const body of ['null', '{}', '{"publisher_id":"acme"}', '{"publisher_id":1,"export_id":"x"}'])
      expect(() => parseExportJobMessage(body), body).toThrow('malformed export job message');
  });
});

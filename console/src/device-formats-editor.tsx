import {
  DEVICE_FORMAT_PREFIX_PATTERN,
  DEVICE_FORMAT_PREFIX_RULE,
  type DevicePlatform,
  devicePlatformNames,
  devicePlatforms,
} from '@kernel/device-formats';
import { useEffect, useState } from 'preact/hooks';
import type { Call, Schemas } from './api';
import { Field, Notice, type ScopeKnowledge } from './ui';
import { useRequest } from './use-request';

/**
 * The device id formats the publisher declares (`GET`/`PUT /v1/device-formats`), in the Policy
 * view: one row per platform, ticked with the prefix its device ids carry, so Devices finds a bare
 * SteamID64 a report quotes as `steam:…`. The whole list is saved at once, as the API replaces it.
 * Read-only without `policy:write`, like the reason catalogue.
 */

type DeviceFormats = Schemas['DeviceFormats'];
type Rows = Record<DevicePlatform, { on: boolean; prefix: string }>;

/** A prefix to offer when a platform is ticked for the first time. */
const suggested: Record<DevicePlatform, string> = { steam: 'steam:', xbox: 'xbl:', epic: 'epic:' };

const rowsOf = (formats: DeviceFormats['formats']): Rows =>
  Object.fromEntries(
    devicePlatforms.map((platform) => {
      const declared = formats.find((f) => f.platform === platform);
      return [platform, { on: declared !== undefined, prefix: declared?.prefix ?? suggested[platform] }];
    }),
  ) as Rows;

export const DeviceFormatsEditor = ({ call, knowledge }: { call: Call; knowledge: ScopeKnowledge }) => {
  const [stored, setStored] = useState<DeviceFormats | null>(null);
  const [rows, setRows] = useState<Rows>(rowsOf([]));
  const request = useRequest();
  const { busy, message } = request;
  const readOnly = knowledge['policy:write'].held === false;

  const take = (answer: DeviceFormats) => {
    setStored(answer);
    setRows(rowsOf(answer.formats));
  };
  const read = () =>
    request.run(
      () => call('get', '/v1/device-formats', {}),
      (answer) => take(answer.body),
      (answer) => answer.status === 200,
    );
  useEffect(() => {
    void read();
  }, []);

  const errors = Object.fromEntries(
    devicePlatforms.map((p) => [
      p,
      rows[p].on && !DEVICE_FORMAT_PREFIX_PATTERN.test(rows[p].prefix)
        ? `Prefix ${DEVICE_FORMAT_PREFIX_RULE}`
        : undefined,
    ]),
  ) as Record<DevicePlatform, string | undefined>;
  const formats = devicePlatforms
    .filter((p) => rows[p].on)
    .map((platform) => ({ platform, prefix: rows[platform].prefix }));
  const changed = stored !== null && JSON.stringify(formats) !== JSON.stringify(stored.formats);
  const set = (platform: DevicePlatform, row: Partial<Rows[DevicePlatform]>) =>
    setRows((now) => ({ ...now, [platform]: { ...now[platform], ...row } }));

  const save = (e: Event) => {
    e.preventDefault();
    if (Object.values(errors).some(Boolean)) return;
    void request.run(
      () => call('put', '/v1/device-formats', { body: { formats } }),
      (answer) => {
        take(answer.body);
        request.setMessage({
          kind: 'ok',
          text: formats.length
            ? `Device id formats saved: ${formats.map((f) => `${f.platform} as ${f.prefix}…`).join(', ')}.`
            : 'No device id format is declared now: searches look for what is typed.',
        });
      },
      (answer) => answer.status === 200,
    );
  };

  return (
    <section aria-labelledby="device-formats-heading">
      <h3 id="device-formats-heading">Device id formats</h3>
      <p class="meta">
        How your device ids spell a platform's account ids. Devices then finds a whole id typed bare (a
        SteamID64 from a player's report) as your id: <code>76561198…</code> as <code>steam:76561198…</code>.
      </p>
      {stored === null ? (
        <p>
          {busy ? 'Reading the device id formats…' : 'The device id formats could not be read.'}{' '}
          {!busy && (
            <button type="button" class="secondary" onClick={() => void read()}>
              Read the device id formats again
            </button>
          )}
        </p>
      ) : (
        <form noValidate onSubmit={save}>
          <fieldset disabled={readOnly || busy}>
            <legend>Platforms your device ids are made from</legend>
            {devicePlatforms.map((platform) => (
              <div key={platform} class="format-row">
                <div class="check">
                  <input
                    type="checkbox"
                    id={`device-format-${platform}`}
                    checked={rows[platform].on}
                    onChange={(e) => set(platform, { on: (e.currentTarget as HTMLInputElement).checked })}
                  />
                  <label for={`device-format-${platform}`}>{devicePlatformNames[platform]}</label>
                </div>
                {rows[platform].on && (
                  <Field
                    id={`device-format-${platform}-prefix`}
                    label={`Prefix of your ${platform} device ids`}
                    value={rows[platform].prefix}
                    onValue={(prefix) => set(platform, { prefix })}
                    error={errors[platform]}
                  />
                )}
              </div>
            ))}
          </fieldset>
          {readOnly ? (
            <p class="gate">
              Changing them needs the scope <code>policy:write</code> ({knowledge['policy:write'].note}).
            </p>
          ) : (
            <button type="submit" disabled={!changed || busy}>
              Save device id formats
            </button>
          )}
        </form>
      )}
      <Notice message={message} />
    </section>
  );
};

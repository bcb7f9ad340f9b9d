import { type BatchResult, failed, outcomeWords, type Run } from './bulk-run';
import { DataTable } from './data-table';

/** The bulk view's answers: the enforcement check of the list, and the report of a run. */

export const CheckTable = ({ results }: { results: BatchResult[] }) => (
  <DataTable
    label="Restrictions of the devices"
    caption="What the enforcement batch answers for each device in the game"
    columns={['Device', 'Restricted: cheat', 'Restricted: social', 'Enforced bans']}
  >
    {results.map((r) => (
      <tr key={r.device_id}>
        <th scope="row">{r.device_id}</th>
        {'error' in r ? (
          <td colSpan={3}>
            {r.error.code}: {r.error.message}
          </td>
        ) : (
          <>
            <td>{r.restricted.cheat ? 'restricted' : 'no'}</td>
            <td>{r.restricted.social ? 'restricted' : 'no'}</td>
            <td>{r.bans.length}</td>
          </>
        )}
      </tr>
    ))}
  </DataTable>
);

export const Report = ({
  run,
  current,
  onStop,
  onRetry,
}: {
  run: Run;
  current: boolean;
  onStop: () => void;
  onRetry: () => void;
}) => {
  const outcomes = run.devices.map((d) => [d, run.outcomes[d] ?? { kind: 'pending' }] as const);
  const done = outcomes.filter(([, o]) => o.kind !== 'pending' && o.kind !== 'not_sent').length;
  const failures = outcomes.filter(([, o]) => failed(o));
  const made = outcomes.filter(([, o]) => o.kind === 'created').length;
  const skipped = outcomes.filter(([, o]) => o.kind === 'skipped').length;
  // Failures first, then the rest in the order pasted.
  const rows = [...failures, ...outcomes.filter(([, o]) => !failed(o))];
  return (
    <section aria-labelledby="bulk-report-heading" class="panel">
      <h3 id="bulk-report-heading">Report: {run.label}</h3>
      <p role="status" aria-live="polite">
        {done} of {run.devices.length} done
        {run.running ? '' : `; ${failures.length} failed or not sent.`}
        {run.stopped === 'stop' ? ' Stopped: the devices not yet sent were not sent.' : ''}
        {run.stopped === 'changed'
          ? ' Stopped because the list or the Game ID changed: this report is of the list as it was.'
          : ''}
        {skipped > 0 ? ` ${made} made, ${skipped} skipped as already banned (no second ban).` : ''}
      </p>
      <div class="actions">
        {run.running ? (
          <button type="button" onClick={onStop}>
            Stop
          </button>
        ) : (
          failures.length > 0 &&
          current && (
            <button type="button" onClick={onRetry}>
              Retry failed ({failures.length})
            </button>
          )
        )}
      </div>
      <DataTable
        label="Outcome of each device"
        caption="Each device's outcome, failures first"
        columns={['Device', 'Outcome']}
      >
        {rows.map(([device, outcome]) => (
          <tr key={device} class={failed(outcome) ? 'changed' : undefined}>
            <th scope="row">{device}</th>
            <td>{outcomeWords(outcome)}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
};

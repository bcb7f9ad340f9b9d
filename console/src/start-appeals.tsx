import { type Call, formatDuration } from './api';
import { PanelRead } from './start-panel';
import { TimeText } from './ui';
import { useReadEach } from './ui-read';

/** The open appeals and how long the oldest has waited (`appeals:decide`). */
export const OpenAppeals = ({ call, version }: { call: Call; version: number }) => {
  const read = useReadEach(() => call('get', '/v1/appeals/stats', {}), version);
  return (
    <PanelRead read={read} what="the appeals queue">
      {(stats) =>
        stats.open === 0 || stats.oldest_open_at === null || stats.oldest_open_age_seconds === null ? (
          <p>No appeal is open.</p>
        ) : (
          <p>
            <strong>
              {stats.open} open {stats.open === 1 ? 'appeal' : 'appeals'}
            </strong>
            ; the oldest has been waiting {formatDuration(stats.oldest_open_age_seconds)}, since{' '}
            <TimeText iso={stats.oldest_open_at} />.
          </p>
        )
      }
    </PanelRead>
  );
};

/**
 * The Transparency view's charts: plain SVG drawn here, no chart library. Each is a figure whose
 * SVG is one image with a name (its title) and whose caption says its figures in words; each bar
 * carries its own `<title>` (shown on hover) and `data-count`, and the view's table holds every
 * number besides, for whoever cannot see the chart.
 */

const WIDTH = 640;

/** One bar per day, the height its count: restrictions by day. */
export const DayBars = ({
  id,
  title,
  days,
  unit,
}: {
  id: string;
  title: string;
  days: ReadonlyArray<{ day: string; count: number }>;
  /** What is counted, for each bar's title: "restrictions". */
  unit: string;
}) => {
  const height = 180;
  const top = 12;
  const bottom = 24;
  const left = 36;
  const plot = height - top - bottom;
  const max = Math.max(1, ...days.map((d) => d.count));
  const step = (WIDTH - left - 8) / Math.max(1, days.length);
  const total = days.reduce((sum, d) => sum + d.count, 0);
  const busiest = days.reduce<{ day: string; count: number } | null>(
    (best, d) => (best === null || d.count > best.count ? d : best),
    null,
  );
  return (
    <figure class="chart" id={id}>
      <svg viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-labelledby={`${id}-title`}>
        <title id={`${id}-title`}>{title}</title>
        <line class="axis" x1={left} y1={top + plot} x2={WIDTH - 4} y2={top + plot} />
        <text class="tick" x={left - 4} y={top + 4} text-anchor="end">
          {max}
        </text>
        <text class="tick" x={left - 4} y={top + plot} text-anchor="end">
          0
        </text>
        {days.map((d, i) => {
          const h = (d.count / max) * plot;
          return (
            <rect
              key={d.day}
              class="bar"
              data-day={d.day}
              data-count={d.count}
              x={left + i * step + step * 0.1}
              y={top + plot - h}
              width={Math.max(1, step * 0.8)}
              height={h}
            >
              <title>{`${d.day}: ${d.count} ${unit}`}</title>
            </rect>
          );
        })}
        {days.length > 0 && (
          <>
            <text class="tick" x={left} y={height - 6} text-anchor="start">
              {days[0]?.day}
            </text>
            <text class="tick" x={WIDTH - 4} y={height - 6} text-anchor="end">
              {days[days.length - 1]?.day}
            </text>
          </>
        )}
      </svg>
      <figcaption>
        {title}: {total} in {days.length} {days.length === 1 ? 'day' : 'days'}
        {busiest && busiest.count > 0 ? `; the most, ${busiest.count}, on ${busiest.day}` : ''}.
      </figcaption>
    </figure>
  );
};

/** One labelled horizontal bar per value with a count above zero, largest first: restrictions by category. */
export const LabelledBars = ({
  id,
  title,
  items,
  empty,
}: {
  id: string;
  title: string;
  items: ReadonlyArray<{ label: string; count: number }>;
  empty: string;
}) => {
  const shown = items.filter((item) => item.count > 0).sort((a, b) => b.count - a.count);
  const row = 26;
  const labelWidth = 300;
  const height = Math.max(1, shown.length) * row + 8;
  const max = Math.max(1, ...shown.map((item) => item.count));
  const room = WIDTH - labelWidth - 48;
  return (
    <figure class="chart" id={id}>
      <svg viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-labelledby={`${id}-title`}>
        <title id={`${id}-title`}>{title}</title>
        {shown.length === 0 && (
          <text class="tick" x={8} y={row - 8}>
            {empty}
          </text>
        )}
        {shown.map((item, i) => (
          <g key={item.label} data-label={item.label} data-count={item.count}>
            <text class="label" x={labelWidth - 8} y={i * row + row - 9} text-anchor="end">
              {item.label}
            </text>
            <rect
              class="bar"
              x={labelWidth}
              y={i * row + 6}
              width={Math.max(2, (item.count / max) * room)}
              height={row - 10}
            >
              <title>{`${item.label}: ${item.count}`}</title>
            </rect>
            <text
              class="value"
              x={labelWidth + Math.max(2, (item.count / max) * room) + 6}
              y={i * row + row - 9}
            >
              {item.count}
            </text>
          </g>
        ))}
      </svg>
      <figcaption>
        {title}: {shown.length === 0 ? empty : shown.map((item) => `${item.label} ${item.count}`).join(', ')}.
      </figcaption>
    </figure>
  );
};

/** Whole percents of a total (0 without one). */
export const percentOf = (count: number, total: number) =>
  total === 0 ? 0 : Math.round((count / total) * 100);

/** One bar split into the shares of its parts: the appeals' outcomes. */
export const ShareBar = ({
  id,
  title,
  parts,
  empty,
}: {
  id: string;
  title: string;
  parts: ReadonlyArray<{ label: string; count: number; tone: string }>;
  empty: string;
}) => {
  const total = parts.reduce((sum, part) => sum + part.count, 0);
  const height = 56;
  let x = 0;
  return (
    <figure class="chart" id={id}>
      <svg viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-labelledby={`${id}-title`}>
        <title id={`${id}-title`}>{title}</title>
        {total === 0 ? (
          <text class="tick" x={8} y={24}>
            {empty}
          </text>
        ) : (
          parts.map((part) => {
            const width = (part.count / total) * WIDTH;
            const at = x;
            x += width;
            return (
              <rect
                key={part.label}
                class={`share ${part.tone}`}
                data-label={part.label}
                data-count={part.count}
                x={at}
                y={4}
                width={width}
                height={28}
              >
                <title>{`${part.label}: ${part.count} (${percentOf(part.count, total)}%)`}</title>
              </rect>
            );
          })
        )}
      </svg>
      <figcaption>
        {title}:{' '}
        {total === 0
          ? empty
          : parts.map((part) => `${part.label} ${part.count} (${percentOf(part.count, total)}%)`).join(', ')}
        .
      </figcaption>
      {total > 0 && (
        <ul class="legend">
          {parts.map((part) => (
            <li key={part.label}>
              <span class={`swatch ${part.tone}`} aria-hidden="true" /> {part.label}: {part.count} (
              {percentOf(part.count, total)}%)
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
};

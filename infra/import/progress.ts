/**
 * The progress line on stderr: rows done, the rate, and the time left, reckoned by the bytes of
 * the file read against its size (rows have no known total until the end). Redrawn in place on a
 * terminal at most once a second; on a pipe or a file, one line every ten seconds.
 */

export interface ProgressFigures {
  rows: number;
  /** Rows of this run alone (a resumed run's earlier rows are not in its rate). */
  rowsThisRun: number;
  seconds: number;
  bytesRead: number;
  bytesAtStart: number;
  size: number;
}

const clock = (seconds: number) => {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
};

export const progressLine = (f: ProgressFigures) => {
  const rate = f.seconds > 0 ? f.rowsThisRun / f.seconds : 0;
  const done = f.bytesRead - f.bytesAtStart;
  const left = f.size - f.bytesRead;
  const eta = done > 0 && f.seconds > 0 ? (left / done) * f.seconds : Number.POSITIVE_INFINITY;
  const percent = f.size > 0 ? (100 * f.bytesRead) / f.size : 100;
  return `${f.rows.toLocaleString('en')} rows, ${percent.toFixed(1)}% of the file, ${Math.round(rate).toLocaleString('en')} rows/s, ${clock(eta)} left`;
};

export interface Progress {
  update(figures: ProgressFigures): void;
  done(figures: ProgressFigures): void;
}

export const stderrProgress = (stream: NodeJS.WriteStream = process.stderr): Progress => {
  const tty = Boolean(stream.isTTY);
  const every = tty ? 1000 : 10_000;
  let last = 0;
  return {
    update: (figures) => {
      const now = Date.now();
      if (now - last < every) return;
      last = now;
      stream.write(tty ? `\r${progressLine(figures)}\u001b[K` : `${progressLine(figures)}\n`);
    },
    done: (figures) => {
      stream.write(tty ? `\r${progressLine(figures)}\u001b[K\n` : `${progressLine(figures)}\n`);
    },
  };
};

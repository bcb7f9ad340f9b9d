import { vi } from 'vitest';
import { configure, configureSettings, settingsFrom } from '../../lib/config';

/**
 * Settings are bound at call time (lib/config.ts), not read from the environment at each use: a
 * test that changes a variable stubs it and binds the settings it makes, the storage client as it
 * is (or, with `storage: true`, bound to the settings' store as well).
 */
export const stubSettings = (vars: Record<string, string>, { storage = false } = {}) => {
  for (const [name, value] of Object.entries(vars)) vi.stubEnv(name, value);
  const settings = settingsFrom(process.env);
  return storage ? configure(settings) : configureSettings(settings);
};

/** Undoes every stub and binds the environment's settings again. */
export const unstubSettings = ({ storage = false } = {}) => {
  vi.unstubAllEnvs();
  const settings = settingsFrom(process.env);
  return storage ? configure(settings) : configureSettings(settings);
};
